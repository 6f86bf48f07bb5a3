"""What one run of the Xie, Thomas and Miklau (2019) chapter hands from step to step.

:class:`XieState` is the chapter's typed state (``ctx.state``): its data-frame fields are the
tables the run returns, under their field names (:func:`~privrl.chapter.skeleton.state_tables`);
a table a run does not make stays ``None``. The claims are decided on a
:class:`~privrl.papers.xie2019.points.FigureData`, this run's (:meth:`XieState.figure_data`) or
the recorded paper-profile run's (:attr:`XieState.recorded`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from privrl.papers.xie2019.points import FigureData


@dataclass
class XieState:
    """The chapter's state: the tables of the checks, of the sweep and of Figure 2's reading, the
    sweep's wall times and the convergence gates' caveats."""

    #: Full batch: exact epsilon against the RDP accountant's (check_mechanism).
    full_batch: pd.DataFrame | None = None
    #: The chain gradient's variance against the transitions used (check_gradient_variance).
    gradient_variance: pd.DataFrame | None = None
    #: Every GPOPE release, calibrated and accounted (check_privacy; one ledger entry a row).
    privacy: pd.DataFrame | None = None
    #: Figure 1: step tuning on public seeds, the best step per n and method, the comparison
    #: on the private seeds, MSPBE against the step at n = sensitivity_n.
    chain_tuning: pd.DataFrame | None = None
    chain_best_steps: pd.DataFrame | None = None
    chain_compare: pd.DataFrame | None = None
    chain_sensitivity: pd.DataFrame | None = None
    #: Theorems 2-3: the constant and diminishing step schedules along each run.
    schedules: pd.DataFrame | None = None
    #: Figures 2 a, 2 b and 4: the trials of each domain.
    mountain_car_on: pd.DataFrame | None = None
    mountain_car_off: pd.DataFrame | None = None
    hiv: pd.DataFrame | None = None
    #: LSW and DP-LSW on Mountain Car grids, on GPOPE's datasets (our reading).
    mc_lsw: pd.DataFrame | None = None
    #: The values of the HIV policies.
    hiv_policies: pd.DataFrame | None = None
    #: The convergence gate of every domain and n (check_convergence_gates).
    gates: pd.DataFrame | None = None
    #: Figure 2 read from this run's points: the gate against the best estimator, off- against
    #: on-policy, DP-LSW against GPOPE (check_figure2).
    gates_best: pd.DataFrame | None = None
    off_on: pd.DataFrame | None = None
    mc_lsw_summary: pd.DataFrame | None = None
    #: The same two readings of the recorded paper-profile run's points (beside another profile).
    gates_best_paper: pd.DataFrame | None = None
    off_on_paper: pd.DataFrame | None = None
    #: The tidy points of the paper's figures (points.paper_points).
    points: pd.DataFrame | None = None
    #: Wall time of each part of the sweep, in seconds, by part.
    seconds: dict[str, float] = field(default_factory=dict)
    #: The convergence gates' caveat on this run's privacy-cost verdicts ("": none).
    gate_caveat: str = ""
    #: The recorded paper-profile run's data, beside a run at another profile (else None).
    recorded: FigureData | None = None

    def figure_data(self) -> FigureData:
        """This run's data the claims are decided on (after the sweep's checks)."""
        if self.points is None:
            raise ValueError("figure_data: the points are made by check_figure2, not yet run")
        return FigureData(self.points, self.schedules, self.gate_caveat)


__all__ = ["XieState"]
