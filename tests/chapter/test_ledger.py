"""Ledger entries that say "no guarantee", and the ledger page that shows them."""

from __future__ import annotations

import json
import math

import dp_accounting
import pytest

from privrl.chapter.ledger import CrossCheck, LedgerEntry
from privrl.chapter.report import Report
from privrl.core.accounting.events import DpAccountingEvent, NoGuarantee, event_from_dict
from privrl.pipeline.ledger_page import ledger_page

NONE = NoGuarantee("only each queried value is private; the released function is not")


def _entry(**kw) -> LedgerEntry:
    base = dict(
        paper="demo",
        release="Q function",
        mechanism="output perturbation",
        relation="replace-one",
        unit="reward function",
        noise="sigma = 2",
        delta=1e-5,
        compositions=1,
        accountant="none applies",
        event=NONE,
        cross_check=CrossCheck("upper bound", "none: no finite guarantee", None),
        private_under="replace-one reward function, each queried value alone",
    )
    return LedgerEntry(**{**base, **kw})


def test_a_release_without_guarantee_is_recorded_and_shown_as_such():
    report = Report("demo", "quick")
    entry = report.ledger(_entry())
    assert not entry.guaranteed and entry.recomputed_epsilon() == math.inf
    summary = json.loads(json.dumps(report.summary(), default=str))
    saved = summary["ledger"][0]
    assert event_from_dict(saved["event"]) == NONE
    section = ledger_page([summary]).split("## demo")[1]  # the chapter's section
    assert (
        "**no guarantee** (private under: replace-one reward function, each queried value "
        "alone)" in section
    )


def test_infinite_epsilon_and_no_guarantee_go_together():
    assert _entry().epsilon == math.inf  # computed from the NoGuarantee event

    class Unbounded:
        def epsilon(self, delta: float) -> float:
            return math.inf

        def to_dp_event(self) -> dp_accounting.DpEvent:
            return dp_accounting.NonPrivateDpEvent()

    with pytest.raises(ValueError, match="NoGuarantee"):
        _entry(event=Unbounded())  # an infinite epsilon needs the event that says why
    with pytest.raises(ValueError, match="state why"):
        NoGuarantee(" ")


def test_a_large_delta_needs_the_release_at_delta_zero_and_a_vacuous_check_is_shown():
    event = DpAccountingEvent(dp_accounting.GaussianDpEvent(3.0), "rdp", "replace-one")
    base = dict(
        paper="demo",
        release="theta",
        mechanism="Gaussian",
        relation="replace-one",
        unit="trajectory",
        noise="sigma = 3",
        delta=0.1,
        compositions=1,
        accountant="RDP",
        event=event,
        cross_check=CrossCheck(
            "empirical", "Monte Carlo scan", 1e-5, vacuous="the scan stopped at its floor"
        ),
    )
    with pytest.raises(ValueError, match="at delta = 0"):
        LedgerEntry(**base)
    report = Report("demo", "quick")
    report.ledger(LedgerEntry(**base, at_delta_zero="(0, 0.05)-DP by total variation"))
    page = ledger_page([json.loads(json.dumps(report.summary(), default=str))])
    row = next(line for line in page.splitlines() if line.startswith("| theta |"))
    assert "at delta = 0: (0, 0.05)-DP by total variation" in row
    # one release of its kind: its cross-check is said above its table
    assert (
        "*cross-check*: empirical: Monte Carlo scan; *cross-check epsilon*: 1e-5 (vacuous: the "
        "scan stopped at its floor)" in page
    )
