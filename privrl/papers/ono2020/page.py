"""The chapter page's presentation: Tables 1-3 as the paper prints them beside ours,
the claims of both recorded set-ups side by side, their verdict counts, and a formatted table as
MyST Markdown. Nothing here computes a number a claim or
a record depends on: it reads the decided claims, the tables of :mod:`.tables` and the paper's
cells (``book/paper_numbers/ono2020.yml``)."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

import numpy as np
import pandas as pd

from privrl.chapter.decided import Decided, verdict_counts
from privrl.chapter.paper_numbers import paper_number
from privrl.chapter.plotting import in_words
from privrl.chapter.verdicts import Claim, Erratum
from privrl.papers.ono2020.profile import INF, PAPER
from privrl.papers.ono2020.sources import ON_REFERENCE, PAPER_RUN, REFERENCE_RUN, TUNED_RUN

#: The column of the reference set-up at the steps with the most tuning successes (:mod:`.tuning`).
TUNED_COLUMN = "reference set-up, tuned steps"
#: Tables 1-3 by our metric: the paper's table number and what it shows.
PAPER_TABLE_OF = {"median_fst": 1, "success_ratio": 2, "relative_auc": 3}
#: The columns of Tables 1-3 in the paper's order.
TABLE_EPSILONS = (1.0, 2.0, 5.0, 10.0, INF)
#: A cell the paper does not print, or an arm not run: PRS has no column at epsilon = inf
#: (without noise there is no mechanism; the non-private A3C is in the Laplace row).
NO_CELL = "none"


def _column(eps: float) -> str:
    return "no noise" if math.isinf(eps) else f"ε = {eps:g}"


def paper_cell(metric: str, mech: str, eps: float) -> float | None:
    """The paper's printed cell of Tables 1-3 (``book/paper_numbers/ono2020.yml``), ``None``
    where the paper prints none (PRS has no epsilon = inf column)."""
    key = "inf" if math.isinf(eps) else f"{eps:g}"
    value = paper_number(PAPER, f"table{PAPER_TABLE_OF[metric]}_{mech}_eps{key}_{metric}").value
    return None if value is None else float(value)


#: Decimals of each metric's cells: ratios as the paper prints Table 2 (0.80), relative AUCs as
#: Table 3 (0.673), first success times in whole submissions.
DECIMALS = {"success_ratio": 2, "relative_auc": 3, "median_fst": 0}


def printed(value: float, metric: str) -> str:
    """A cell of Tables 1-3 as the paper prints it: a ratio with :data:`DECIMALS`, a first
    success time in submissions with thousands separators and its printed half (20,238.5)."""
    if metric == "median_fst":
        return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.1f}"
    return f"{value:.{DECIMALS[metric]}f}"


def _our_cell(row: pd.Series, metric: str) -> str:
    """One of our cells: a success ratio with its count, a median first success time with its
    bootstrap 95% interval ("not reached" when most trials failed), a relative AUC ("undefined"
    when the set-up's no-noise AUC is 0)."""
    if metric == "success_ratio":
        return f"{printed(row.success_ratio, metric)} ({int(row.successes)}/{int(row.n_trials)})"
    if metric == "median_fst":
        if not np.isfinite(row.median_fst):
            return "not reached"
        hi = f"{row.median_fst_hi:,.0f}" if np.isfinite(row.median_fst_hi) else "∞"
        return f"{row.median_fst:,.0f} [{row.median_fst_lo:,.0f}, {hi}]"
    if not np.isfinite(row.relative_auc):
        return "undefined"
    return printed(row.relative_auc, metric)


def paper_beside_ours(metric: str, **set_ups: tuple[pd.DataFrame, str]) -> pd.DataFrame:
    """One of Tables 1-3 as the paper prints it (mechanism rows, epsilon columns, its cells read
    from ``book/paper_numbers/ono2020.yml``), each mechanism's row followed by ours on each set-up
    of ``set_ups`` (row label -> (Tables 1-3 of :func:`success_tables`, variant)), cells as
    text (:func:`_our_cell`)."""
    rows = []
    for mech in ("laplace", "prs"):
        paper = {_column(e): paper_cell(metric, mech, e) for e in TABLE_EPSILONS}
        rows.append(
            {
                "mechanism": in_words(mech),
                "source": f"paper (Table {PAPER_TABLE_OF[metric]})",
                **{c: NO_CELL if v is None else printed(v, metric) for c, v in paper.items()},
            }
        )
        for label, (tables, variant) in set_ups.items():
            ours = tables[(tables.variant == variant) & (tables.mechanism == mech)]
            by_eps = ours.set_index("epsilon")
            rows.append(
                {
                    "mechanism": in_words(mech),
                    "source": label,
                    **{
                        _column(e): _our_cell(by_eps.loc[e], metric)
                        if e in by_eps.index
                        else NO_CELL
                        for e in TABLE_EPSILONS
                    },
                }
            )
    return pd.DataFrame(rows)


def table1_against_its_text() -> str:
    """Table 1's Laplace medians where they rise with epsilon, against the text's "with larger
    epsilon, ... fewer updates" (section 4.3), from the paper's cells."""
    cells = [(e, paper_cell("median_fst", "laplace", e)) for e in TABLE_EPSILONS]
    rises = [(a, b) for a, b in pairwise(cells) if b[1] > a[1]]
    if not rises:
        return ""
    pairs = "; ".join(
        f"{printed(x, 'median_fst')} at ε = {e:g} to {printed(y, 'median_fst')} at ε = {f:g}"
        for (e, x), (f, y) in rises
    )
    return (
        f"In the paper's own Table 1 the Laplace median rises from {pairs}, against its "
        "text's 'with larger ε, both algorithms achieve a high success ratio consuming fewer "
        "updates' (section 4.3)."
    )


def claims_side_by_side(claims: Sequence[Claim]) -> pd.DataFrame:
    """One row per claim of the paper: its key, statement and where the paper makes it, and its
    verdict on each recorded set-up (the paper's literal set-up, keys ending ``_paper``; the
    reference set-up, keys ending ``_reference_paper``; and, when recorded, the reference set-up
    at the steps with the most tuning successes, keys ending ``_reference_tuned``, which decides where it is
    recorded). A claim no record decided has no recorded verdict: "not recorded"."""
    by_key = {c.key: c for c in claims}
    records = (PAPER_RUN.suffix, REFERENCE_RUN.suffix, TUNED_RUN.suffix)
    bases = [c.key for c in claims if not c.key.endswith((*records, ON_REFERENCE))]
    tuned = any(c.key.endswith(TUNED_RUN.suffix) for c in claims)
    rows = []
    for base in bases:
        row = {"key": base, "claim": by_key[base].statement}
        for column, suffix in (
            ("the paper's set-up", PAPER_RUN.suffix),
            ("reference set-up", REFERENCE_RUN.suffix),
            *([(TUNED_COLUMN, TUNED_RUN.suffix)] if tuned else []),
        ):
            found = by_key.get(base + suffix)
            row[column] = found.verdict if found else "not recorded"
        rows.append(row)
    return pd.DataFrame(rows)


def set_up_counts(decided: Sequence[Decided], *, reference: bool) -> str:
    """``"2 reproduced, 9 not reproduced, 13 inconclusive"``: the verdicts the book reports
    (:func:`~privrl.chapter.decided.decided_claims`) for the claims a record decided on one
    set-up (``reference``: keys ending ``_reference``, else the paper's), in the verdicts'
    order."""
    rows = [d for d in decided if d.recorded and d.key.endswith(ON_REFERENCE) == reference]
    return ", ".join(f"{n} {v}" for v, n in verdict_counts(rows).items() if n) or "no claims"


#: Code words of the claims' and errata's text in the words the page uses (a cell that shows
#: ``inf`` reads as a missing value).
READABLE = {"epsilon = inf": "ε = ∞ (no noise)", "epsilon = ": "ε = "}


def readable(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every text cell's code words in words (:data:`READABLE`)."""

    def words(cell: Any) -> Any:
        if not isinstance(cell, str):
            return cell
        for code, text in READABLE.items():
            cell = cell.replace(code, text)
        return cell

    return frame.map(words)


def errata_frame(errata: Sequence[Erratum]) -> pd.DataFrame:
    """The chapter's errata as a table: key, kind, statement and evidence."""
    return pd.DataFrame(
        [
            {"key": e.key, "kind": e.kind, "what": e.statement, "evidence": e.evidence}
            for e in errata
        ],
        columns=["key", "kind", "what", "evidence"],
    )


#: Figure 2's sentences (``book/paper_numbers/ono2020.yml``) and the claims that decide them.
FIGURE2_CLAIMS = {
    "fig2_buffer_hurts_laplace": "buffer_hurts_laplace",
    "fig2_buffer_helps_prs": "buffer_helps_prs",
}
#: Figure 3's sentences: no claim decides them (no magnitude); Table 2's claims read the same
#: curves at the budget.
FIGURE3_SENTENCES = ("fig3_larger_eps_fewer_updates", "fig3_prs_early_laplace_late")


def _quoted(text: str) -> str:
    """A seed text's quote without the extraction's LaTeX repeats ("ε𝜀\\varepsilon" is ε)."""
    return re.sub(r"𝜀\\[a-z]+", "", text)


def step_table_in_words(steps: pd.DataFrame) -> pd.DataFrame:
    """The step-size sweep (:func:`.tables.step_table`, index reset) with its arms in words:
    "laplace ε = 1 |B|=1" is "Laplace, ε = 1, |B| = 1"."""

    def words(arm: str) -> str:
        mech, rest = arm.split(" ", 1)
        eps, buffer = rest.rsplit(" ", 1)
        return f"{in_words(mech)}, {eps}, {buffer.replace('=', ' = ')}"

    return steps.assign(arm=steps.arm.map(words))


def tuned_arms(trials: pd.DataFrame, scores: pd.DataFrame) -> pd.DataFrame:
    """The recorded evaluation at the steps with the most tuning successes (:mod:`.tuning`), one
    row per arm: the arm in words, its chosen step with the tuning's successes and mean AUC (95%
    interval) there (``scores``: :func:`.tuning.step_scores`), the step of highest mean AUC (the
    sensitivity reading's) and the evaluation's successes within the budget at the chosen step
    (``trials``: the reference record's columns, at the chosen steps)."""
    rows = []
    for (mech, eps, buffer), g in trials.groupby(
        ["mechanism", "epsilon", "buffer_size"], sort=False
    ):
        arm = scores[
            (scores.mechanism == mech) & (scores.epsilon == eps) & (scores.buffer_size == buffer)
        ]
        row = {
            "arm": f"{in_words(mech)}, {_column(eps)}, |B| = {buffer}",
            "step": float(g.step_size.iloc[0]),
        }
        if len(arm):
            t, by_auc = arm[arm.chosen].iloc[0], arm[arm.chosen_auc].iloc[0]
            row["tuning: successes, mean AUC [95% interval]"] = (
                f"{int(t.successes)} of {int(t.n_trials)}, {t.auc:.3g} "
                f"[{t.auc_lo:.3g}, {t.auc_hi:.3g}]"
            )
            row["step of highest mean AUC"] = f"{by_auc.step_size:g}"
        else:  # the non-private baseline keeps the reference record's step
            row["tuning: successes, mean AUC [95% interval]"] = (
                "not tuned (the reference record's step)"
            )
            row["step of highest mean AUC"] = "-"
        row["evaluation: successes"] = f"{int(g.success.sum())} of {len(g)}"
        rows.append(row)
    return pd.DataFrame(rows)


#: The sensitivity table's columns (:func:`.claims.sensitivity`) on the page.
SENSITIVITY_COLUMNS = {
    "key": "claim",
    "chosen": "verdict: steps with the most tuning successes",
    "other": "sensitivity reading (not a verdict): steps of highest mean AUC",
}


def sensitivity_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The claims whose outcome changes with the step criterion (:func:`.claims.sensitivity`),
    columns in words (:data:`SENSITIVITY_COLUMNS`)."""
    return frame[list(SENSITIVITY_COLUMNS)].rename(columns=SENSITIVITY_COLUMNS)


def figure2_sentences(claims: Sequence[Claim]) -> str:
    """What the paper says of its Figure 2 (which prints no number), each sentence quoted with
    the verdicts its claim got on the reference set-up and on the paper's set-up (recorded)."""
    verdicts = {c.key: c.verdict for c in claims}
    lines = []
    for number_key, key in FIGURE2_CLAIMS.items():
        n = paper_number(PAPER, number_key)
        on_reference = verdicts.get(key + REFERENCE_RUN.suffix, "not recorded")
        on_paper = verdicts.get(key + PAPER_RUN.suffix, "not recorded")
        lines.append(
            f'- The paper ({n.where}): *"{_quoted(n.source.quote)}"* Claim `{key}`: '
            f"**{on_reference}** on the reference set-up, **{on_paper}** on the "
            "paper's set-up."
        )
    return "\n".join(lines) + "\n"


def figure3_sentences() -> str:
    """What the paper says of its Figure 3, quoted; no claim decides these sentences."""
    return (
        "\n".join(
            f'- The paper ({n.where}): *"{_quoted(n.source.quote)}"* Not a claim of this chapter (no '
            "magnitude to test); Table 2's claims read the same curves at 90,000 submissions."
            for n in (paper_number(PAPER, k) for k in FIGURE3_SENTENCES)
        )
        + "\n"
    )


#: The failure summary's columns on the page (:func:`.tables.failure_summary`), in words.
FAILURE_COLUMNS = {
    "variant": "set-up",
    "epsilon": "epsilon",
    "clipped_fraction": "clipped reports",
    "median_raw_norm": "median raw L1 norm",
    "update_norm": "L1 size of an update",
    "late_score": "late score",
    "late_majority_fraction": "late share of the most frequent action",
    "collapsed_trials": "trials collapsed",
}


def failure_frame(failure: pd.DataFrame) -> pd.DataFrame:
    """The failure summary for the page: set-ups in words, the columns of
    :data:`FAILURE_COLUMNS`, a raw norm of a million or more in powers of ten (``1.00e+06``)."""
    out = failure[list(FAILURE_COLUMNS)].assign(
        variant=failure.variant.map(in_words),
        median_raw_norm=[f"{x:,.0f}" if x < 1e6 else f"{x:.2e}" for x in failure.median_raw_norm],
    )
    return out.rename(columns=FAILURE_COLUMNS)


def errata_markdown(errata: Sequence[Erratum]) -> str:
    """The chapter's errata as a list, each with its key, kind, statement and evidence, code
    words in words (:data:`READABLE`)."""
    frame = readable(errata_frame(errata))
    return (
        "\n".join(
            f"- **{r.kind}** (`{r.key}`): {r.what} *Evidence:* {r.evidence}"
            for r in frame.itertuples()
        )
        + "\n"
    )
