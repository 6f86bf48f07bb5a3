"""Tables 1-3 and Figure 3 from the trials (eqs. 26-27), beside the paper's printed values; the
failure's numbers from the per-report statistics; the deviations and the paper's open choices."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from privrl.chapter.verdicts import bootstrap_interval, clopper_pearson
from privrl.papers.ono2020.profile import (
    AMBIGUITIES,
    INF,
    PAPER_TABLES,
    REFERENCE,
    VARIANT_LABELS,
    eps_label,
)
from privrl.papers.ono2020.reference import ABLATION
from privrl.papers.ono2020.trials import algorithm_config, censored


def arm(trials: pd.DataFrame, variant: str, mech: str, eps: float) -> pd.DataFrame:
    """The rows of one configuration (variant, mechanism, epsilon) of a table of trials (or of
    Tables 1-3)."""
    return trials[
        (trials.variant == variant) & (trials.mechanism == mech) & (trials.epsilon == eps)
    ]


def success_ratio_curves(trials: pd.DataFrame, cap: int, n_points: int = 200) -> pd.DataFrame:
    """Eq. (27): fraction of trials with ``FST <= n`` on a grid of ``n`` up to ``cap`` (Figure 3)."""
    grid = np.unique(np.linspace(0, cap, n_points + 1).astype(int))
    rows = []
    for (variant, mech, eps), g in trials.groupby(["variant", "mechanism", "epsilon"]):
        fst = g["first_success"].to_numpy(dtype=float)
        rows.append(
            pd.DataFrame(
                {
                    "variant": variant,
                    "mechanism": mech,
                    "epsilon": eps,
                    "submission": grid,
                    "success_ratio": (fst[None, :] <= grid[:, None]).mean(axis=1),
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def success_tables(trials: pd.DataFrame, cap: int, reference: str = "paper") -> pd.DataFrame:
    """Tables 1-3 per (variant, mechanism, epsilon): median FST (eq. 26; ``inf`` when most trials
    fail) with a bootstrap 95% interval (FST censored at ``cap``), success ratio (eq. 27 at
    ``cap``) with its exact (Clopper-Pearson) 95% interval, and the relative AUC.

    The AUC is the area under the success-ratio curve on ``[0, cap]``, which equals
    ``mean_k (cap - min(FST_k, cap)) / cap``; it is divided by that of the ``reference``
    variant's Laplace at ``epsilon = inf`` (the paper's, or the reference set-up's).
    """
    rows = []
    for (variant, mech, eps), g in trials.groupby(["variant", "mechanism", "epsilon"]):
        fst = g["first_success"].to_numpy(dtype=float)
        k, n = int(np.isfinite(fst).sum()), len(fst)
        lo, hi = clopper_pearson(k, n)
        m_lo, m_hi = bootstrap_interval(np.median, [censored(fst, cap)])
        rows.append(
            {
                "variant": variant,
                "mechanism": mech,
                "epsilon": eps,
                "median_fst": float(np.median(fst)),
                "median_fst_lo": m_lo,
                "median_fst_hi": m_hi if m_hi <= cap else INF,
                "successes": k,
                "n_trials": n,
                "success_ratio": k / n,
                "success_lo": lo,
                "success_hi": hi,
                "auc": float(np.mean((cap - np.minimum(fst, cap)) / cap)),
            }
        )
    out = pd.DataFrame(rows)
    ref = out.loc[
        (out.variant == reference) & (out.mechanism == "laplace") & np.isinf(out.epsilon), "auc"
    ]
    out["relative_auc"] = out["auc"] / ref.iloc[0] if len(ref) and ref.iloc[0] > 0 else np.nan
    return out


def compare_with_paper(tables: pd.DataFrame, variant: str = "paper") -> pd.DataFrame:
    """Tables 1-3 of ``variant`` (the paper's algorithm, or the reference set-up) beside the
    printed values: one row per metric, mechanism and epsilon with ``ours``, its 95% interval and
    ``paper`` (a quote)."""
    rows = []
    paper_rows = tables[tables.variant == variant]
    intervals = {
        "median_fst": ("median_fst_lo", "median_fst_hi"),
        "success_ratio": ("success_lo", "success_hi"),
        "relative_auc": (None, None),
    }
    for metric, quoted in PAPER_TABLES.items():
        lo_col, hi_col = intervals[metric]
        for _, r in paper_rows.iterrows():
            rows.append(
                {
                    "metric": metric,
                    "mechanism": r.mechanism,
                    "epsilon": r.epsilon,
                    "ours": r[metric],
                    "lo": r[lo_col] if lo_col else np.nan,
                    "hi": r[hi_col] if hi_col else np.nan,
                    "n_trials": r.n_trials,
                    "paper": quoted.get((r.mechanism, float(r.epsilon)), np.nan),
                }
            )
    return pd.DataFrame(rows)


def deviation_table(tables: pd.DataFrame) -> pd.DataFrame:
    """Success ratios (exact 95% intervals) of the deviations beside the paper's algorithm at the
    same epsilon, each row labelled with what it changes."""
    keep = tables[(tables.mechanism == "laplace") & (tables.epsilon.isin([INF, 1.0]))].copy()
    keep["what"] = keep.variant.map(VARIANT_LABELS)
    keep["success ratio [95% CI]"] = [
        f"{r.successes}/{r.n_trials} [{r.success_lo:.2f}, {r.success_hi:.2f}]"
        for r in keep.itertuples()
    ]
    cols = ["variant", "what", "epsilon", "success ratio [95% CI]", "median_fst"]
    return keep[cols].sort_values(["epsilon", "variant"]).reset_index(drop=True)


def ablation_table(reference: pd.DataFrame, paper: pd.DataFrame | None = None) -> pd.DataFrame:
    """The non-private ablation (:mod:`.reference`): success ratio (exact 95% interval) and median
    first success time of the paper's set-up (``paper``, ``no_clip`` from the paper set-up's
    tables, when given), each ablation arm and the reference set-up (rows of ``reference``), with
    what each samples, applies and clips."""
    settings = _ablation_settings()
    rows = _ablation_rows(reference, paper)
    return pd.DataFrame(
        {
            "arm": rows.variant.map(VARIANT_LABELS),
            "actions": [settings[v][0] for v in rows.variant],
            "update": [settings[v][1] for v in rows.variant],
            "clip": [settings[v][2] for v in rows.variant],
            "success ratio [95% CI]": [
                f"{r.successes}/{r.n_trials} [{r.success_lo:.2f}, {r.success_hi:.2f}]"
                for r in rows.itertuples()
            ],
            "median FST": rows.median_fst.to_numpy(),
        }
    ).reset_index(drop=True)


#: The non-private baseline matches the paper's 20/20 when it succeeds in at least this fraction
#: of its trials (18 of 20).
MATCHES_PAPER = 0.9


#: The ablation's non-private arms: the paper set-up's two, the ablation's and the reference's.
_ABLATION_ARMS = ("paper", "no_clip", *ABLATION, REFERENCE)


def _ablation_settings() -> dict[str, tuple[str, str, str]]:
    return {v: _setting(v) for v in _ABLATION_ARMS}


def _ablation_rows(reference: pd.DataFrame, paper: pd.DataFrame | None) -> pd.DataFrame:
    """The non-private rows of the ablation: the paper set-up's ``paper`` and ``no_clip`` arms
    (from ``paper``, when given), then the ablation's arms and the reference set-up's."""
    frames = [reference[np.isinf(reference.epsilon)]]
    if paper is not None:
        frames.insert(0, paper[np.isinf(paper.epsilon) & paper.variant.isin(["paper", "no_clip"])])
    rows = pd.concat(frames, ignore_index=True)
    return rows[rows.variant.isin(_ABLATION_ARMS)]


def smallest_change_set(reference: pd.DataFrame, paper: pd.DataFrame | None = None) -> str:
    """The ablation's finding in one paragraph: each non-private arm's changes from the paper's
    (how it acts, updates and clips) with its successes, and the arms with the fewest changes
    whose baseline matches the paper (at least :data:`MATCHES_PAPER` of its trials)."""
    settings = _ablation_settings()
    rows = _ablation_rows(reference, paper)
    names = ("actions", "update", "clip")

    def changes(variant: str) -> list[str]:
        return [
            f"{n} {s}"
            for n, s, p in zip(names, settings[variant], settings["paper"], strict=True)
            if s != p
        ]

    listed = "; ".join(
        f"{', '.join(changes(r.variant)) or 'none (the paper)'}: "
        f"{int(r.successes)}/{int(r.n_trials)}"
        for r in rows.itertuples()
    )
    passing = [r for r in rows.itertuples() if r.successes >= MATCHES_PAPER * r.n_trials]
    if not passing:
        return (
            f"No arm of the ablation matches the paper's non-private 20/20 (at least "
            f"{MATCHES_PAPER:.0%} of trials). Changes from the paper and successes: {listed}."
        )
    fewest = min(len(changes(r.variant)) for r in passing)
    best = [r for r in passing if len(changes(r.variant)) == fewest]
    named = " or ".join(
        f"{' + '.join(changes(r.variant))} ({int(r.successes)}/{int(r.n_trials)})" for r in best
    )
    return (
        f"Smallest change set that makes the non-private baseline match the paper's 20/20 "
        f"(at least {MATCHES_PAPER:.0%} of trials): {named}. Changes from the paper and "
        f"successes of every non-private arm: {listed}."
    )


def _setting(variant: str) -> tuple[str, str, str]:
    """How a non-private arm of ``variant`` acts, updates and clips, read from its
    :class:`~privrl.core.algorithms.a3c.PGCA3CConfig` (the reference set-up's arm unclipped, its
    step from the sweep)."""
    extra = {"clip": INF} if variant == REFERENCE else {}
    algo = algorithm_config({"variant": variant, "epsilon": INF, **extra}, stop_at_success=True)
    actions = "sampled" if algo.action_selection == "sample" else "greedy"
    update = "RMSProp" if algo.optimizer == "rmsprop" else f"SGD eta = {algo.eta:g}"
    clip = "none" if math.isinf(algo.clip_value) else f"C = {algo.clip_value:g}"
    return actions, update, clip


def step_table(steps: pd.DataFrame) -> pd.DataFrame:
    """The step-size sweep (:func:`.reference.chosen_steps`) as one row per arm: successes of the
    tuning trials at each step, and the chosen step."""
    label = steps.assign(
        arm=[
            f"{m} {eps_label(e)} |B|={b}"
            for m, e, b in zip(steps.mechanism, steps.epsilon, steps.buffer_size, strict=True)
        ]
    )
    wide = label.pivot_table(index="arm", columns="step_size", values="successes")
    wide.columns = [f"step {c:g}" for c in wide.columns]
    chosen = label[label.chosen].set_index("arm")
    wide["chosen step"] = chosen.step_size
    wide["tuning trials"] = chosen.n_trials
    return wide


def reference_summary(tables: pd.DataFrame) -> str:
    """One paragraph on the reference set-up's Tables 1-2 arms (``tables`` from
    :func:`success_tables`): successes out of trials beside the paper's Table 2 counts, and the
    non-private arm's median first success time beside Table 1's."""
    rows = tables[tables.variant == REFERENCE].set_index(["mechanism", "epsilon"])

    def counts(mech: str) -> str:
        eps = sorted(e for m, e in rows.index if m == mech and np.isfinite(e))
        ours = " / ".join(f"{int(rows.loc[(mech, e), 'successes'])}" for e in eps)
        paper = " / ".join(
            f"{round(20 * PAPER_TABLES['success_ratio'][(mech, e)])}"
            for e in eps
            if (mech, e) in PAPER_TABLES["success_ratio"]
        )
        return f"at ε = {' / '.join(f'{e:g}' for e in eps)}: {ours} (paper: {paper} of 20)"

    if ("laplace", INF) not in rows.index:
        return "The reference set-up has no non-private arm in this run."
    base = rows.loc[("laplace", INF)]
    median = (
        f"{base.median_fst:,.0f} submissions"
        if np.isfinite(base.median_fst)
        else "not reached (most trials failed)"
    )
    return (
        f"On the reference set-up, the non-private arm reached the target in "
        f"{int(base.successes)} of {int(base.n_trials)} trials (the paper: 20 of 20), median "
        f"first success time {median} (the paper: 1,769). Successes "
        f"out of {int(base.n_trials)}: Laplace (|B| = 1) {counts('laplace')}; PRS (|B| = 100) "
        f"{counts('prs')}."
    )


def ambiguity_table() -> pd.DataFrame:
    """The choices the paper leaves open (see :data:`~privrl.papers.ono2020.profile.AMBIGUITIES`)."""
    return pd.DataFrame(AMBIGUITIES, columns=["choice", "what the paper says and leaves open"])


def failure_summary(diagnostics: pd.DataFrame) -> pd.DataFrame:
    """Per variant and epsilon: means of the report statistics over training and over its last
    quarter (``late_*``), the fraction of clipped reports, the median raw norm, and the fraction
    of trials whose late episodes take their most frequent action in >= 90% of steps
    (``collapsed_trials``: the policy has collapsed to nearly one action)."""
    rows = []
    for (variant, eps), g in diagnostics.groupby(["variant", "epsilon"]):
        last = g[g.submission > 0.75 * g.submission.max()]
        per_trial = last.groupby("trial")["majority_fraction"].mean()
        rows.append(
            {
                "collapsed_trials": float((per_trial >= 0.9).mean()),
                "variant": variant,
                "epsilon": eps,
                "clipped_fraction": float(g["clipped_fraction"].mean()),
                "median_raw_norm": float(g["raw_norm_q50"].median()),
                "late_actor_share": float(last["actor_share"].mean()),
                "late_majority_fraction": float(last["majority_fraction"].mean()),
                "late_entropy": float(last["entropy"].mean()),
                "late_score": float(last["score"].mean()),
                "update_norm": float(g["update_norm"].mean()),
            }
        )
    return pd.DataFrame(rows)


def recorded_highlights(tables: pd.DataFrame) -> dict[str, float]:
    """The numbers the chapter's prose quotes from the recorded run (successes out of trials
    and median first success time of the paper's baseline, its epsilon = 1 arms, and the
    non-private deviations)."""
    out: dict[str, float] = {}
    for variant, mech, eps, name in (
        ("paper", "laplace", INF, "baseline"),
        ("paper", "laplace", 1.0, "laplace1"),
        ("paper", "prs", 1.0, "prs1"),
        ("clip100", "laplace", INF, "clip100"),
        ("no_clip", "laplace", INF, "no_clip"),
        ("adam_sample", "laplace", INF, "adam_inf"),
        ("adam_sample", "laplace", 1.0, "adam_1"),
    ):
        row = arm(tables, variant, mech, eps)
        if len(row):
            out[f"{name}_successes"] = int(row.successes.iloc[0])
            out[f"{name}_n"] = int(row.n_trials.iloc[0])
            out[f"{name}_median_fst"] = float(row.median_fst.iloc[0])
    return out
