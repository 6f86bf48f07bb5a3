"""The multi-trial runs of ono2020: the configurations of Tables 1-3, Figure 2 and the
failure's diagnostics, and the three sweeps over the run functions of :mod:`.trials`
(:func:`~.trials.run_first_success`, :func:`~.trials.run_learning_curve`,
:func:`~.trials.run_report_statistics`).

Variants. ``paper`` is the published algorithm (section 4's hyper-parameters, greedy acting,
eq. (22) with ``eta = 0.5``; Laplace ``C = 0.01``, PRS ``C = 1``). The deviations
(:data:`~privrl.papers.ono2020.trials.VARIANTS`) are *not the paper's* and are labelled as such
wherever they appear. As in the paper, Tables 1-3 use Laplace with ``|B| = 1`` and PRS with
``|B| = 100``; the non-private baseline is Laplace's clipping without noise (``epsilon = inf``).
"""

from __future__ import annotations

import math
from typing import Any, TypedDict, Unpack

import pandas as pd

from privrl.chapter.sweep import RunFunction, run_sweep
from privrl.papers.ono2020.profile import INF, OnoProfile
from privrl.papers.ono2020.trials import (
    run_first_success,
    run_learning_curve,
    run_report_statistics,
)

# --- configurations --------------------------------------------------------------------------


def table_configs(profile: OnoProfile) -> list[dict[str, Any]]:
    """Tables 1-3: Laplace (|B| = 1) at every epsilon incl. inf, PRS (|B| = 100) at every finite
    epsilon, for the paper's algorithm; the non-private deviations at epsilon = inf, and
    ``adam_sample`` also at epsilon = 1 (Laplace)."""
    base = {"n_submissions": profile.n_submissions, "trials_per_seed": profile.trials_per_seed}
    out = [
        {**base, "variant": "paper", "mechanism": "laplace", "epsilon": float(e), "buffer_size": 1}
        for e in profile.epsilons
    ]
    out += [
        {**base, "variant": "paper", "mechanism": "prs", "epsilon": float(e), "buffer_size": 100}
        for e in profile.epsilons
        if math.isfinite(e)
    ]
    for variant in profile.variants:
        if variant == "paper":
            continue
        eps_list = (INF, 1.0) if variant == "adam_sample" else (INF,)
        out += [
            {**base, "variant": variant, "mechanism": "laplace", "epsilon": e, "buffer_size": 1}
            for e in eps_list
        ]
    return out


def figure2_configs(profile: OnoProfile) -> list[dict[str, Any]]:
    """Figure 2: epsilon = 1, Laplace and PRS, |B| in {1, 100}."""
    return [
        {
            "variant": "paper",
            "mechanism": m,
            "epsilon": 1.0,
            "buffer_size": b,
            "n_submissions": profile.fig2_submissions,
            "trials_per_seed": profile.fig2_trials,
            "record_every": profile.record_every,
        }
        for m in ("laplace", "prs")
        for b in (1, 100)
    ]


def diagnostic_configs(profile: OnoProfile) -> list[dict[str, Any]]:
    """The failure's evidence: the paper's Laplace at epsilon = inf and 1, and the deviations."""
    base = {
        "n_submissions": profile.diagnostic_submissions,
        "mechanism": "laplace",
        "buffer_size": 1,
        "trials_per_seed": profile.diagnostic_trials,
        "every": profile.diagnostic_every,
    }
    out = [{**base, "variant": "paper", "epsilon": e} for e in (INF, 1.0)]
    return out + [{**base, "variant": v, "epsilon": INF} for v in profile.variants if v != "paper"]


# --- sweeps ---------------------------------------------------------------------------------


class SweepOptions(TypedDict, total=False):
    """How a sweep runs: :func:`~privrl.chapter.sweep.run_sweep`'s executor, sweep cache
    (resumable), progress bar (default off) and worker processes."""

    executor: Any
    cache_dir: Any
    progress: bool
    max_workers: int | None


def sweep_keywords(options: SweepOptions) -> dict[str, Any]:
    """``options`` as the keywords of :func:`~privrl.chapter.sweep.run_sweep`, progress off
    unless asked for."""
    return {
        "executor": options.get("executor"),
        "cache_dir": options.get("cache_dir"),
        "progress": options.get("progress", False),
        "max_workers": options.get("max_workers"),
    }


def _sweep(
    run: RunFunction,
    configs: list[dict[str, Any]],
    profile: OnoProfile,
    desc: str,
    options: SweepOptions,
    replicates: int = 1,
) -> pd.DataFrame:
    """``run`` over ``configs``, ``replicates`` seeds each, under the profile's root seed."""
    return run_sweep(
        run,
        configs,
        replicates=replicates,
        root_seed=profile.seed,
        desc=f"ono2020 {desc}",
        **sweep_keywords(options),
    )


def sweep_tables(profile: OnoProfile, **options: Unpack[SweepOptions]) -> pd.DataFrame:
    """All trials behind Tables 1-3 and Figure 3 (one row per trial, ``trial`` numbered 0..N-1)."""
    replicates = profile.n_trials // profile.trials_per_seed
    out = _sweep(run_first_success, table_configs(profile), profile, "tables", options, replicates)
    out["trial"] = out["seed"] * profile.trials_per_seed + out["trial"]
    return out


def sweep_figure2(profile: OnoProfile, **options: Unpack[SweepOptions]) -> pd.DataFrame:
    """Learning curves of Figure 2 (one row per trial and recorded submission)."""
    return _sweep(run_learning_curve, figure2_configs(profile), profile, "figure 2", options)


def sweep_diagnostics(profile: OnoProfile, **options: Unpack[SweepOptions]) -> pd.DataFrame:
    """Per-report statistics over training for :func:`diagnostic_configs`."""
    configs = diagnostic_configs(profile)
    return _sweep(run_report_statistics, configs, profile, "diagnostics", options)
