r"""Reading the map: winners, the 10x frontier, the price of privacy, the papers' points.

Every statistic is over the replicates (fresh datasets) of a point, and every comparison is
*paired*: all methods of a replicate ran on the same data. Errors span orders of magnitude, so a
method's error at a point is summarised by the mean of :math:`\log_{10}` of its error (its
geometric mean), and two methods are compared by the mean paired difference of their
:math:`\log_{10}` errors with a 95% Student-t interval over the replicates.

* :func:`winners`: at each (domain, n, epsilon) the method of lowest geometric-mean error among
  those whose guarantee holds there (:data:`CELLS`) and whose accountant is an upper bound
  (:data:`DECIDERS`); *decided* when the interval of its paired difference to the runner-up lies
  above 0; and the best method's ratio to the non-private reference at the same n, against 10x
  (*within*, *beyond*, *undecided* by the same interval).
* :func:`price_of_privacy`: per (domain, method, epsilon), the smallest n at which the method's
  geometric-mean error is within 2x of the reference's at the same n (log-linear interpolation
  between grid sizes), with a 95% percentile-bootstrap interval over replicates.
* :func:`privacy_cost`: the error in its parts, each method against its own noiseless floor
  and its floor against the reference, with intervals (maps that carry the floors);
* :func:`log_gap`: the paired :math:`\log_{10}` gap between two methods at every point (Xie's
  "orders of magnitude" is this gap between DP-LSW and GPOPE in MSPBE on Mountain Car).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

#: GPOPE run without noise at its own tuned settings (its converged floor, to the compute cap).
NOISELESS = "GPOPE without noise"
#: The method labels of the map: GPOPE under each accountant, DP-LSW, DP-LSL.
GPOPE_PLD, GPOPE_RDP = "GPOPE", "GPOPE (RDP)"
#: LSTD by sufficient-statistics perturbation (:mod:`privrl.core.algorithms.ssp_lstd`), the
#: evaluator none of the papers has.
SSP = "SSP-LSTD"
LABELS: tuple[str, ...] = (GPOPE_PLD, GPOPE_RDP, "DP-LSW", "DP-LSL", SSP)
#: The labels that may win a point: each method under its tightest accountant that is an upper
#: bound (GPOPE's PLD figure rests on Zhu, Dong and Wang 2022's dominating pair; its RDP figure
#: is looser). :data:`RDP_DECIDERS`: the same with GPOPE under RDP, as Xie et al. account it.
DECIDERS: tuple[str, ...] = (GPOPE_PLD, "DP-LSW", "DP-LSL", SSP)
RDP_DECIDERS: tuple[str, ...] = (GPOPE_RDP, "DP-LSW", "DP-LSL", SSP)
#: Accountant of each label, in words.
ACCOUNTANT: dict[str, str] = {
    GPOPE_PLD: "PLD (upper bound: dominating pair of Zhu, Dong and Wang 2022)",
    GPOPE_RDP: "RDP (sampling without replacement; Xie et al.'s analysis)",
    "DP-LSW": "smooth sensitivity (Balle et al. 2016, Lemma 1)",
    "DP-LSL": "smooth sensitivity (Balle et al. 2016, Lemma 1)",
    SSP: "RDP of one discrete Gaussian release (Canonne, Kamath and Steinke 2020)",
}
#: Whether each (method, domain) guarantee holds, and why (the map shows only cells that hold).
CELLS: dict[tuple[str, str], tuple[bool, str]] = {
    ("GPOPE", "chain"): (True, "clipped gradients: the guarantee needs no bound on the data"),
    ("GPOPE", "mountain_car_on"): (True, "clipped gradients: any features, any states"),
    ("GPOPE", "mountain_car_off"): (
        True,
        "clipped gradients: the importance ratios enter the gradient, which the clip bounds",
    ),
    ("DP-LSW", "chain"): (True, "finite states, returns in [0, 1] (Balle et al.'s setting)"),
    ("DP-LSW", "mountain_car_on"): (
        True,
        "on grid cells (our reading of Xie et al.'s "
        "comparison): the cell map is applied per trajectory, "
        "so replace-one on raw trajectories is replace-one on "
        "cell trajectories; returns in [-10, 0]",
    ),
    ("DP-LSW", "mountain_car_off"): (
        False,
        "Monte Carlo returns of the behaviour policy: Balle et al. give no off-policy estimator",
    ),
    ("DP-LSL", "chain"): (True, "finite states, lambda > ||rho||_inf ||Phi||^2 holds"),
    ("DP-LSL", "mountain_car_on"): (
        False,
        "Xie et al.: output perturbation V2 does not guarantee privacy for continuous states",
    ),
    ("DP-LSL", "mountain_car_off"): (
        False,
        "continuous states (Xie et al.) and no off-policy estimator",
    ),
    (SSP, "chain"): (True, "one-hot features (F = 1), rewards in {0, 1}, at most 200 steps"),
    (SSP, "mountain_car_on"): (
        True,
        "Fourier features of norm at most 6, rewards -1, at most 200 steps",
    ),
    (SSP, "mountain_car_off"): (
        False,
        "off-policy LSTD weights each transition by a product "
        "of importance ratios, unbounded: no finite "
        "sensitivity",
    ),
}
#: Where the papers' own comparisons sit: (paper, domain, epsilon, sizes) [paper settings; the
#: chain's delta is 0.1 in both papers, the map's is one delta for all].
PAPER_POINTS: tuple[tuple[str, str, tuple[float, ...], tuple[int, ...]], ...] = (
    ("Balle et al. 2016", "chain", (0.1,), (10, 100, 500, 1000, 2000, 4000)),
    ("Xie et al. 2019", "chain", (0.1,), (10, 50, 100, 500, 1000, 1500, 2000, 2500, 3000, 4000)),
    ("Xie et al. 2019", "mountain_car_on", (0.5, 1.0, 4.0), (100, 300, 1000, 3000)),
)
LEVEL = 0.95


def method_label(method: str, accountant: str) -> str:
    """The map's label of a row: ``GPOPE`` (PLD), ``GPOPE (RDP)``, ``DP-LSW``, ``DP-LSL``,
    ``SSP-LSTD``, ``reference``, ``zero``."""
    if method == "GPOPE":
        return GPOPE_PLD if accountant == "PLD" else GPOPE_RDP
    return method


def log_errors(points: pd.DataFrame, metric: str = "rmse") -> pd.DataFrame:
    """:math:`\\log_{10}` of ``metric`` per (domain, n, epsilon, seed) (index) and label
    (columns); the non-private ``reference`` and ``zero`` columns repeat at every epsilon."""
    if metric not in ("rmse", "mspbe"):
        raise ValueError(f"metric must be 'rmse' or 'mspbe', got {metric!r}")
    frame = points.assign(
        label=[method_label(m, a) for m, a in zip(points.method, points.accountant, strict=True)],
        value=np.log10(np.maximum(points[metric].to_numpy(float), 1e-300)),
    )
    private = frame[frame.epsilon.notna()]
    wide = private.pivot_table(
        index=["domain", "n", "epsilon", "seed"], columns="label", values="value", aggfunc="first"
    )
    base = frame[frame.epsilon.isna()].pivot_table(
        index=["domain", "n", "seed"], columns="label", values="value", aggfunc="first"
    )
    return wide.join(base, on=["domain", "n", "seed"])


def own_noiseless(points: pd.DataFrame, metric: str = "rmse") -> pd.DataFrame | None:
    """:func:`log_errors` of each method's own noiseless version, indexed and labelled alike:
    GPOPE's is GPOPE without noise at its own tuned settings (the step and iterations privacy
    makes it choose are part of privacy's cost), DP-LSW's and DP-LSL's their least-squares fit
    without noise on the same data, SSP-LSTD's the same statistics without noise at the
    smallest ridge of its grid (``floor_<metric>``). ``None`` on a map without floors."""
    if f"floor_{metric}" not in points.columns:
        return None
    floors = log_errors(points.assign(**{metric: points[f"floor_{metric}"]}), metric)
    if NOISELESS in floors.columns:
        for label in (GPOPE_PLD, GPOPE_RDP):
            if label in floors.columns:
                floors[label] = floors[NOISELESS]
    return floors


def t_interval(diff: np.ndarray, level: float = LEVEL) -> tuple[float, float, float]:
    """(mean, lower, upper) of the Student-t interval of the mean of ``diff``."""
    diff = np.asarray(diff, float)
    diff = diff[np.isfinite(diff)]
    if len(diff) < 2:
        return (float(diff.mean()) if len(diff) else math.nan, math.nan, math.nan)
    half = stats.t.ppf(0.5 + level / 2, len(diff) - 1) * diff.std(ddof=1) / math.sqrt(len(diff))
    return float(diff.mean()), float(diff.mean() - half), float(diff.mean() + half)


def winners(
    points: pd.DataFrame, metric: str = "rmse", deciders: tuple[str, ...] = DECIDERS
) -> pd.DataFrame:
    """Per (domain, n, epsilon): ``winner``, ``runner_up``, the paired log10 gap between them
    (``gap``, ``gap_lo``, ``gap_hi``; ``decided`` when ``gap_lo > 0``), the winner's log10
    ratio to the reference at the same n (``ratio``, ``ratio_lo``, ``ratio_hi``), ``frontier``:
    ``within 10x`` (``ratio_hi < 1``), ``beyond 10x`` (``ratio_lo > 1``) or ``undecided``, and
    ``replicates``, and the winner's paired log10 gap to the zero estimate (``vs_zero``,
    ``vs_zero_lo``, ``vs_zero_hi``; ``beats_zero`` when ``vs_zero_hi < 0``)."""
    logs = log_errors(points, metric)
    floors = own_noiseless(points, metric)
    rows = []
    for (domain, n, eps), part in logs.groupby(level=["domain", "n", "epsilon"]):
        present = [
            c
            for c in deciders
            if c in part.columns
            and part[c].notna().any()
            and CELLS.get((_method(c), domain), (False, ""))[0]
        ]
        if not present:
            continue
        ranked = sorted(present, key=lambda c: part[c].mean())
        row = dict(domain=domain, n=n, epsilon=eps, winner=ranked[0], replicates=len(part))
        if len(ranked) > 1:
            gap = t_interval((part[ranked[1]] - part[ranked[0]]).to_numpy())
            row.update(
                runner_up=ranked[1],
                gap=gap[0],
                gap_lo=gap[1],
                gap_hi=gap[2],
                decided=bool(gap[1] > 0),
            )
        else:
            row.update(runner_up="", gap=math.nan, gap_lo=math.nan, gap_hi=math.nan, decided=True)
        zero = (
            t_interval((part[ranked[0]] - part["zero"]).to_numpy())
            if "zero" in part.columns
            else (math.nan,) * 3
        )
        row.update(
            vs_zero=zero[0], vs_zero_lo=zero[1], vs_zero_hi=zero[2], beats_zero=bool(zero[2] < 0)
        )
        if floors is not None:
            own = t_interval((part[ranked[0]] - floors.loc[part.index, ranked[0]]).to_numpy())
            row.update(
                own=own[0],
                own_lo=own[1],
                own_hi=own[2],
                within_2x_own=bool(own[2] < math.log10(2.0)),
            )
        ratio = t_interval((part[ranked[0]] - part["reference"]).to_numpy())
        row.update(
            ratio=ratio[0],
            ratio_lo=ratio[1],
            ratio_hi=ratio[2],
            frontier="within 10x"
            if ratio[2] < 1
            else "beyond 10x"
            if ratio[1] > 1
            else "undecided",
        )
        rows.append(row)
    return pd.DataFrame(rows)


def _method(label: str) -> str:
    return "GPOPE" if label.startswith("GPOPE") else label


def _crossing(sizes: np.ndarray, log_ratio: np.ndarray, threshold: float) -> float:
    """The smallest n where ``log_ratio`` (over increasing ``sizes``) first falls to
    ``threshold`` (log-linear interpolation); ``sizes[0]`` if it starts there, ``inf`` if never."""
    below = np.nonzero(log_ratio <= threshold)[0]
    if len(below) == 0:
        return math.inf
    i = int(below[0])
    if i == 0:
        return float(sizes[0])
    x0, x1 = math.log10(sizes[i - 1]), math.log10(sizes[i])
    y0, y1 = log_ratio[i - 1], log_ratio[i]
    return float(10 ** (x0 + (threshold - y0) * (x1 - x0) / (y1 - y0)))


def price_of_privacy(
    points: pd.DataFrame,
    metric: str = "rmse",
    factor: float = 2.0,
    n_boot: int = 1000,
    seed: int = 0,
    against: str = "reference",
) -> pd.DataFrame:
    """Per (domain, label, epsilon): ``n_needed``, the smallest n whose geometric-mean error is
    within ``factor`` of the reference's at the same n, and its 95% percentile-bootstrap
    interval ``n_lo``, ``n_hi`` (``n_boot`` resamples of the replicates; ``inf``: not within
    ``factor`` at the largest n; the smallest size: already within at it). ``against``:
    ``"reference"`` (the non-private estimate) or ``"floor"`` (the method's own noiseless
    version on the same data, :func:`own_noiseless`: what privacy alone costs)."""
    if against not in ("reference", "floor"):
        raise ValueError(f"against must be 'reference' or 'floor', got {against!r}")
    logs = log_errors(points, metric)
    if against == "floor":
        floors = own_noiseless(points, metric)
    rng = np.random.default_rng(seed)
    threshold = math.log10(factor)
    rows = []
    for (domain, eps), part in logs.groupby(level=["domain", "epsilon"]):
        sizes = np.array(sorted(part.index.get_level_values("n").unique()))
        seeds = np.array(sorted(part.index.get_level_values("seed").unique()))
        draws = rng.integers(len(seeds), size=(n_boot, len(seeds)))
        for label in LABELS:
            if label not in part.columns or not CELLS.get((_method(label), domain), (0,))[0]:
                continue
            base = part["reference"] if against == "reference" else floors.loc[part.index, label]
            gap = (
                (part[label] - base).unstack("n").reindex(index=seeds, columns=sizes, level="seed")
            )
            gap = gap.droplevel([lvl for lvl in gap.index.names if lvl != "seed"])
            values = gap.to_numpy(float)
            if np.isnan(values).all():
                continue
            point = _crossing(sizes, np.nanmean(values, axis=0), threshold)
            boot = np.array(
                [_crossing(sizes, np.nanmean(values[d], axis=0), threshold) for d in draws]
            )
            lo, hi = np.quantile(boot, [(1 - LEVEL) / 2, (1 + LEVEL) / 2], method="lower")
            rows.append(
                dict(
                    domain=domain,
                    label=label,
                    epsilon=eps,
                    n_needed=point,
                    n_lo=float(lo),
                    n_hi=float(hi),
                    replicates=len(seeds),
                    against=against,
                )
            )
    return pd.DataFrame(rows)


def log_gap(
    points: pd.DataFrame,
    worse: str,
    better: str,
    metric: str = "mspbe",
    domain: str = "mountain_car_on",
) -> pd.DataFrame:
    """Per (n, epsilon) of ``domain``: the paired mean log10 gap ``worse - better`` of
    ``metric`` with its 95% interval (``gap``, ``gap_lo``, ``gap_hi``)."""
    logs = log_errors(points[points.domain == domain], metric)
    rows = []
    for (n, eps), part in logs.groupby(level=["n", "epsilon"]):
        if worse in part.columns and better in part.columns:
            mean, lo, hi = t_interval((part[worse] - part[better]).to_numpy())
            rows.append(dict(n=n, epsilon=eps, gap=mean, gap_lo=lo, gap_hi=hi))
    return pd.DataFrame(rows)


def privacy_cost(points: pd.DataFrame, metric: str = "rmse") -> pd.DataFrame:
    """The error in its parts, per (domain, label, n, epsilon) of a map whose points carry each
    method's own noiseless floor (``floor_<metric>``; an empty frame otherwise): the paired
    mean log10 of the method's error over its own floor (``own``, ``own_lo``, ``own_hi``: what
    privacy costs on top of the method without noise, on the same data), of its floor over the
    non-private reference (``floor``, ``floor_lo``, ``floor_hi``: what the method costs
    without any privacy) and of its error over the reference (``total``, ``total_lo``,
    ``total_hi`` = ``own + floor`` in the mean), each with its 95% Student-t interval over the
    replicates. ``metric``: ``rmse``, ``rmse_clipped`` or ``mspbe``."""
    floor = f"floor_{metric}"
    if floor not in points.columns:
        return pd.DataFrame()
    frame = points.assign(
        label=[method_label(m, a) for m, a in zip(points.method, points.accountant, strict=True)]
    )
    value = np.log10(np.maximum(frame[metric].to_numpy(float), 1e-300))
    own = np.log10(np.maximum(frame[floor].to_numpy(float), 1e-300))
    frame = frame.assign(value=value, own=own)
    keys = ["domain", "n", "seed"]
    ref = frame[frame.method == "reference"].set_index(keys).value
    private = frame[frame.epsilon.notna()].join(ref.rename("ref"), on=keys)
    free = frame[frame.method == NOISELESS].set_index(keys).value.rename("free")
    private = private.join(free, on=keys) if len(free) else private.assign(free=np.nan)
    gpope = private.label.str.startswith("GPOPE")
    private["free"] = private.free.where(gpope, private.own)
    rows = []
    for (domain, label, n, eps), g in private.groupby(["domain", "label", "n", "epsilon"]):
        row = dict(domain=domain, label=label, n=int(n), epsilon=float(eps), replicates=len(g))
        for name, diff in (
            ("own", g.value - g.own),
            ("floor", g.own - g.ref),
            ("total", g.value - g.ref),
            ("noiseless", g.value - g.free),
            ("free", g.free - g.ref),
        ):
            mean, lo, hi = t_interval(diff.to_numpy())
            row.update({name: mean, f"{name}_lo": lo, f"{name}_hi": hi})
        rows.append(row)
    return pd.DataFrame(rows)


def winner_changes(points: pd.DataFrame, metric: str = "rmse") -> pd.DataFrame:
    """The points whose winner differs when GPOPE is accounted by RDP instead of PLD (GPOPE's
    two labels read as one method), with both verdicts."""
    pld = winners(points, metric, DECIDERS)
    rdp = winners(points, metric, RDP_DECIDERS)
    both = pld.merge(rdp, on=["domain", "n", "epsilon"], suffixes=("_pld", "_rdp"))
    same = both.winner_pld.map(_method) == both.winner_rdp.map(_method)
    return both.loc[
        ~same, ["domain", "n", "epsilon", "winner_pld", "decided_pld", "winner_rdp", "decided_rdp"]
    ].reset_index(drop=True)


__all__ = [
    "ACCOUNTANT",
    "CELLS",
    "DECIDERS",
    "GPOPE_PLD",
    "GPOPE_RDP",
    "LABELS",
    "PAPER_POINTS",
    "SSP",
    "NOISELESS",
    "RDP_DECIDERS",
    "log_errors",
    "log_gap",
    "own_noiseless",
    "method_label",
    "price_of_privacy",
    "privacy_cost",
    "t_interval",
    "winner_changes",
    "winners",
]


def _fmt_n(value: float, largest: int) -> str:
    if math.isinf(value):
        return f"> {largest:,}"
    return f"{value:,.0f}"


def findings(points: pd.DataFrame, n_boot: int = 1000) -> dict[str, object]:
    """The numbers the chapter's prose reads, computed from a map's ``points`` (module text):
    winner counts, decided points, the 10x frontier, PLD against RDP, Xie's log10 gap on
    Mountain Car across the map and at the paper's points, and the price-of-privacy table."""
    win = winners(points)
    largest = int(points.n.max())
    out: dict[str, object] = {
        "points": len(win),
        "decided": int(win.decided.sum()),
        "beyond_10x": int((win.frontier == "beyond 10x").sum()),
        "within_10x": int((win.frontier == "within 10x").sum()),
        "beats_zero": int(win.beats_zero.sum()) if len(win) else 0,
        "replicates": int(win.replicates.min()) if len(win) else 0,
        "winner_changes_rdp": len(winner_changes(points)),
    }
    for label in DECIDERS:
        out[f"wins_{label}"] = int((win.winner == label).sum())
        out[f"decided_wins_{label}"] = int(((win.winner == label) & win.decided).sum())
    if "mountain_car_on" in set(points.domain):
        gap = log_gap(points, "DP-LSW", GPOPE_RDP)
        if len(gap):
            lo, hi = gap.loc[gap.gap.idxmin()], gap.loc[gap.gap.idxmax()]
            out.update(
                gap_min=lo.gap,
                gap_min_lo=lo.gap_lo,
                gap_min_hi=lo.gap_hi,
                gap_min_at=f"n = {int(lo.n):,}, epsilon = {lo.epsilon:g}",
                gap_max=hi.gap,
                gap_max_lo=hi.gap_lo,
                gap_max_hi=hi.gap_hi,
                gap_max_at=f"n = {int(hi.n):,}, epsilon = {hi.epsilon:g}",
                gap_below_1=int((gap.gap_hi < 1).sum()),
                gap_points=len(gap),
            )
    price = price_of_privacy(points, n_boot=n_boot)
    out["reached_2x"] = int(np.isfinite(price.n_needed).sum())
    out["price_rows"] = len(price)
    if "floor_rmse" in points.columns:
        own = price_of_privacy(points, n_boot=n_boot, against="floor")
        out["reached_2x_own"] = int(np.isfinite(own.n_needed).sum())
        out["within_2x_own"] = int(win.within_2x_own.sum())
        price = pd.concat([own, price], ignore_index=True)
    price["n needed"] = [_fmt_n(v, largest) for v in price.n_needed]
    price["95% interval"] = [
        f"{_fmt_n(a, largest)} to {_fmt_n(b, largest)}"
        for a, b in zip(price.n_lo, price.n_hi, strict=True)
    ]
    out["price"] = price
    return out


__all__ += ["findings"]


def _listed(values: list[int]) -> str:
    """``[125, 500, 2000]`` as ``"125, 500 or 2,000"``."""
    words = [f"{v:,}" for v in values]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def tuning_findings(steps: pd.DataFrame, iterations_grid: tuple[int, ...]) -> dict[str, object]:
    """Counts of GPOPE's tuned settings (a steps table with its ``edge`` columns, tuned over
    ``iterations_grid``): private tunings, at the compute cap (the largest of
    ``iterations_grid``), learning nothing (no better than the zero estimate), learning
    something and of those at the cap and strictly inside the iterations grid (bracketed),
    learning nothing and of those at the smallest step or iterations, at an undeclared edge,
    and GPOPE without noise at the cap; the cap and the grid in words."""
    private = steps[steps.accountant != "none"]
    free = steps[steps.accountant == "none"]
    cap = private.edge.fillna("").str.contains("cap")
    low = private.edge.fillna("").str.contains("low")
    inside = ~private.edge.fillna("").str.contains("iterations")
    learns = ~private.learns_nothing.astype(bool)
    grid = sorted(int(t) for t in iterations_grid)
    return {
        "tunings": len(private),
        "tunings_at_cap": int(cap.sum()),
        "tunings_learning": int(learns.sum()),
        "tunings_learning_at_cap": int((learns & cap).sum()),
        "tunings_learning_inside": int((learns & inside).sum()),
        "tunings_learning_nothing": int((~learns).sum()),
        "tunings_learning_nothing_low": int((~learns & low).sum()),
        "tunings_undeclared": int(steps.at_edge_undeclared.astype(bool).sum()),
        "noiseless_cells": len(free),
        "noiseless_at_cap": int(free.edge.fillna("").str.contains("cap").sum()),
        "iterations_cap": f"{grid[-1]:,}",
        "iterations_grid": _listed(grid),
    }


__all__ += ["tuning_findings"]


def lam_findings(lams: pd.DataFrame) -> dict[str, object]:
    """Counts of SSP-LSTD's tuned ridges (a lams table of :func:`~privrl.papers.frontier.runs.
    tuned_lams`): tunings, at the grid's top (the estimate shrunk towards zero), at its bottom
    (plain LSTD on the noisy statistics), learning nothing, and the grid's ends."""
    edge = lams.edge.fillna("")
    return {
        "ssp_tunings": len(lams),
        "ssp_lam_high": int((edge == "lam high").sum()),
        "ssp_lam_low": int((edge == "lam low").sum()),
        "ssp_learning_nothing": int(lams.learns_nothing.astype(bool).sum()),
        "ssp_lam_high_learning": int(
            ((edge == "lam high") & ~lams.learns_nothing.astype(bool)).sum()
        ),
    }


__all__ += ["lam_findings"]
