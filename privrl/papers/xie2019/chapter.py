"""Xie, Thomas and Miklau (2019), GPOPE: the chapter, on the skeleton of :mod:`privrl.chapter.skeleton`.

:func:`run` executes a :class:`~privrl.papers.xie2019.profile.XieProfile` and returns an
:class:`~privrl.chapter.profile.ExperimentResult` whose report holds every check, claim, ledger
entry and erratum of the chapter:

* checks (:mod:`~privrl.papers.xie2019.checks`): GPOPE's noise scale and accounting (Section 5),
  WIS-LSTD's system, the gradient's variance, every release calibrated to its target;
* the sweep (:mod:`~privrl.papers.xie2019.runs`): the chain (Figure 1; step sizes tuned per ``n``
  on public seeds, then GPOPE against DP-LSW, DP-LSL and LSTD on ``n_trials`` fresh datasets),
  Theorems 2 and 3 (constant vs diminishing steps), Mountain Car on- and off-policy and HIV
  (Figures 2-4); then, before any privacy verdict, the convergence gate in every domain;
* releases: every GPOPE release is a ledger entry (replace-one trajectory, noise multiplier, T
  compositions, privrl's RDP accountant as a :class:`~privrl.core.accounting.subsampled.GpopeEvent`,
  cross-checked from above by dp-accounting's RDP accountant with its default orders);
* claims and errata (:mod:`~privrl.papers.xie2019.claims`), decided on this run's data and the
  recorded paper-profile run's.

``python -m privrl.papers.xie2019.chapter train-policies`` retrains the policies the domains
evaluate; ``record-schedules``: :func:`record_schedules`.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd

from privrl.chapter.evidence import LIVE, Evidence
from privrl.chapter.ledger import LedgerEntry
from privrl.chapter.records import (
    command_line,
    current_commit,
    find_root,
    record_path,
    recorded_claims,
    recorded_run,
    recorded_summary_path,
)
from privrl.chapter.report import Report
from privrl.chapter.skeleton import Chapter, Context
from privrl.papers.xie2019 import domains
from privrl.papers.xie2019.checks import CHECKS, check_convergence_gates, check_figure2
from privrl.papers.xie2019.claims import CLAIMS, ERRATA, decide_diminishing_beats_constant
from privrl.papers.xie2019.points import PAPER_POINTS as PAPER_POINTS_CSV
from privrl.papers.xie2019.points import (
    PAPER_SCHEDULES,
    FigureData,
    read_paper_points,
    write_paper_schedules,
)
from privrl.papers.xie2019.privacy import all_releases, ledger_entry, lsw_ledger_entries
from privrl.papers.xie2019.profile import PAPER, XieProfile
from privrl.papers.xie2019.runs import (
    run_chain,
    run_domain,
    run_mc_lsw,
    run_theorem23,
    run_theorem23_alone,
)
from privrl.papers.xie2019.sources import PAPER_RUN, SOURCES
from privrl.papers.xie2019.state import XieState

T = TypeVar("T")


class Xie2019Chapter(
    Chapter,
    name=PAPER,
    profile_type=XieProfile,
    checks=CHECKS,
    sweep_checks=(check_convergence_gates, check_figure2),
    claims=CLAIMS,
    errata=ERRATA,
    sources=SOURCES,
    state_type=XieState,
):
    """The chapter: checks, the sweep and its convergence gates, releases, claims, errata."""

    def prepare(self, ctx: Context[XieState]) -> None:
        """Retrain the Mountain Car and HIV policies first when the profile asks
        (``retrain_policies``): :func:`~privrl.papers.xie2019.checks.check_wis_lstd` and the sweep
        collect data with them."""
        if ctx.profile.retrain_policies:
            from privrl.core.algorithms.q_learning import train_and_save_all

            train_and_save_all(ctx.profile.seed)

    def sweep(self, ctx: Context[XieState]) -> None:
        """The chain (Figure 1), Theorems 2-3 at the tuned step of ``n = sensitivity_n`` and the
        domains (Figures 2-4), into the state's tables; each part's wall time in
        ``state.seconds``."""
        profile, state, sweep = ctx.profile, ctx.state, ctx.sweep_options

        def timed(part: str, run: Callable[[], T]) -> T:
            started = time.perf_counter()
            out = run()
            state.seconds[part] = time.perf_counter() - started
            return out

        chain = timed("chain", lambda: run_chain(profile, **sweep))
        state.chain_tuning = chain["tuning"]
        state.chain_best_steps = chain["best_steps"]
        state.chain_compare = chain["compare"].assign(epsilon=profile.epsilon)
        state.chain_sensitivity = chain["sensitivity"]
        self._step_range(ctx, chain["sensitivity"])

        step_n = float(state.chain_best_steps.set_index("n").loc[profile.sensitivity_n, "GPOPE"])
        state.schedules = timed("schedules", lambda: run_theorem23(profile, step_n, **sweep))
        state.mountain_car_on = timed(
            "mountain_car_on", lambda: run_domain(profile, "mountain_car_on", **sweep)
        )
        state.mountain_car_off = timed(
            "mountain_car_off", lambda: run_domain(profile, "mountain_car_off", **sweep)
        )
        state.hiv = timed("hiv", lambda: run_domain(profile, "hiv", **sweep))
        state.mc_lsw = timed("mc_lsw", lambda: run_mc_lsw(profile, **sweep))
        state.hiv_policies = domains.hiv_policy_values(
            profile.hiv_horizon, profile.hiv_random_patients
        )

    @staticmethod
    def _step_range(ctx: Context[XieState], sensitivity: pd.DataFrame) -> None:
        """Figure 1 b: the steps whose mean MSPBE stays within a factor 2 of the best one at
        ``n = sensitivity_n`` (glued for the erratum ``step_robustness``)."""
        means = sensitivity.groupby("step_size")["mspbe"].mean()
        within = means[means <= 2 * means.min()].index
        ctx.glue("steps_within2_lo", float(within.min()))
        ctx.glue("steps_within2_hi", float(within.max()))
        ctx.glue("steps_within2_factor", within.max() / within.min())
        ctx.glue("sensitivity_n", int(sensitivity.n.iloc[0]))

    def evidence(self, ctx: Context[XieState]) -> Iterable[Evidence[FigureData] | None]:
        """This run's data and, beside a run of another profile, the recorded paper-profile
        run's (:data:`~privrl.papers.xie2019.sources.PAPER_RUN`): every claim is decided on
        each."""
        yield Evidence(LIVE, ctx.profile, data=ctx.state.figure_data())
        recorded, run = ctx.state.recorded, recorded_run(PAPER, "paper")
        if recorded is None or run is None:
            return
        yield Evidence(
            PAPER_RUN.name, XieProfile.paper(), run.commit, suffix=PAPER_RUN.suffix, data=recorded
        )

    def releases(self, ctx: Context[XieState]) -> Iterator[LedgerEntry]:
        """A ledger entry per GPOPE release, from the ``privacy`` table of
        :func:`~privrl.papers.xie2019.checks.check_privacy` (same order)."""
        rows = ctx.state.privacy.to_dict("records")
        for release, row in zip(all_releases(ctx.profile), rows, strict=True):
            yield ledger_entry(release, row)
        yield from lsw_ledger_entries(ctx.profile, ctx.state.mc_lsw)


run = Xie2019Chapter().run


def record_schedules(executor: Any = None, root: Path | None = None) -> Path:
    """Write the Theorems 2-3 table of the recorded paper-profile run (``xie2019-paper``) as
    :data:`~privrl.papers.xie2019.points.PAPER_SCHEDULES`, the data its claim
    ``diminishing_beats_constant`` is decided on: the runs again at the record's profile and
    seeds (:func:`~privrl.papers.xie2019.runs.run_theorem23_alone`), held to the record: the
    claim decided on them must give the record's verdict, value, interval and trials exactly
    (else ``ValueError``, nothing written). The run record (both copies) then names the table
    and the record's points in its ``files`` and says how the table was made under
    ``added_files``. Returns the CSV's path."""
    root = root or find_root()
    profile = XieProfile.paper()
    recorded = {c.key: c for c in recorded_claims(PAPER, root=root, suffix="")}
    claim = recorded.get("diminishing_beats_constant")
    if claim is None:
        raise ValueError(f"no recorded paper-profile claim diminishing_beats_constant under {root}")
    started = time.perf_counter()
    schedules = run_theorem23_alone(profile, executor=executor)
    seconds = time.perf_counter() - started
    points = read_paper_points(
        recorded_summary_path(root, PAPER, "paper").parent / PAPER_POINTS_CSV
    )
    if points is None:
        raise ValueError(f"no recorded paper-profile points under {root}")
    ctx = Context(profile, Report(PAPER, profile.profile), state=XieState(schedules=schedules))
    again = decide_diminishing_beats_constant(
        ctx, Evidence(LIVE, profile, data=FigureData(points, schedules))
    )
    if again is None:
        raise ValueError("the schedules decide nothing")
    got = (again.verdict, again.value, again.interval, again.n_trials)
    want = (claim.verdict, claim.value, claim.interval, claim.n_trials)
    if got != want:
        raise ValueError(
            f"the schedules decide diminishing_beats_constant as {got}, the record "
            f"as {want}: not the record's runs, nothing written"
        )
    path = write_paper_schedules(
        schedules, recorded_summary_path(root, PAPER, "paper").parent / PAPER_SCHEDULES
    )
    added = {
        "commit": current_commit(root),
        "command": command_line("privrl.papers.xie2019.chapter", ["record-schedules"]),
        "wall_time_s": round(seconds, 2),
        "evidence": (
            f"the runs of Theorems 2-3 at the record's profile and seeds; "
            f"diminishing_beats_constant decided again on them gives the record's "
            f"{claim.statistic} = {claim.value!r}, 95% interval "
            f"{list(claim.interval or ())!r}, n = {claim.n_trials}, exactly"
        ),
    }
    for file in (record_path(root, PAPER, "paper"), recorded_summary_path(root, PAPER, "paper")):
        payload = json.loads(file.read_text())
        record = payload["record"] if "record" in payload else payload
        record["files"] = sorted({*(record.get("files") or []), PAPER_POINTS_CSV, PAPER_SCHEDULES})
        record.setdefault("added_files", {})[PAPER_SCHEDULES] = added
        file.write_text(json.dumps(payload, indent=2) + "\n")
    return path


def main(argv: list[str] | None = None) -> None:
    """``python -m privrl.papers.xie2019.chapter train-policies [--seed S]``: retrain and store the
    Mountain Car and HIV policies the domains evaluate; ``record-schedules``: the recorded run's
    Theorems 2-3 table (:func:`record_schedules`)."""
    parser = argparse.ArgumentParser(prog="python -m privrl.papers.xie2019.chapter")
    parser.add_argument("command", choices=["train-policies", "record-schedules"])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.command == "record-schedules":
        print(record_schedules(executor="serial"))
    elif args.command == "train-policies":
        from privrl.core.algorithms.q_learning import train_and_save_all

        for path in train_and_save_all(args.seed):
            print(path)


if __name__ == "__main__":
    main()


__all__ = ["Xie2019Chapter", "main", "record_schedules", "run"]
