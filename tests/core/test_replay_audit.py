"""The replay audit (privrl.core.replay) on toy releases: it passes a statistic within its
sensitivity, fails one whose sensitivity is halved, fails a branch on the data before the noise,
and allows the two data-dependent branches its rule allows (a clip that warns, a stated one)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privrl.core.replay import (
    ReplayAuditError,
    ReplaySpec,
    distances,
    replay_audit,
    traced,
)
from privrl.core.validation import clip_to_bound

DATA = np.array([0.3, -0.2, 0.9, 0.0])


def clipped_sum(data: np.ndarray) -> np.ndarray:
    """A sum of entries clipped to [-1, 1]: replace-one sensitivity 2 (L1)."""
    return np.array([np.clip(data, -1.0, 1.0).sum()])


def branchy_sum(data: np.ndarray) -> np.ndarray:
    """The same value, but a branch on the data before the noise."""
    if data.sum() > 0:
        return np.array([np.clip(data, -1.0, 1.0).sum()])
    return np.array([np.clip(data, -1.0, 1.0).sum()])


def warned_sum(data: np.ndarray) -> np.ndarray:
    """The same value, clipped with the library's warning (the rule's allowed branch)."""
    return np.array([clip_to_bound(data, "data", -1.0, 1.0).sum()])


def replace_one(data: np.ndarray):
    """Each entry replaced by the extremes and beyond."""
    for i in range(len(data)):
        for x in (-1.0, 1.0, -5.0, 5.0, 0.0):
            other = data.copy()
            other[i] = x
            yield other


def spec(statistic=clipped_sum, sensitivity=2.0, **kw) -> ReplaySpec:
    return ReplaySpec("toy", statistic, sensitivity, "l1", "replace one entry", replace_one, **kw)


def test_a_statistic_within_its_sensitivity_passes():
    report = replay_audit(spec(), DATA)
    assert report.pairs == 20 and report.flow_checked == 20
    assert 0.9 < report.worst <= 1.0  # 0.9 -> -1 moves by 1.9


def test_a_halved_sensitivity_fails():
    with pytest.raises(
        ReplayAuditError,
        match=r"neighbour 0 \(replace one entry\) moved the "
        r"statistic by 1\.29+8 in l1, beyond the "
        r"sensitivity 1\.0",
    ):
        replay_audit(spec(sensitivity=1.0), DATA)


def test_a_branch_on_the_data_before_the_noise_fails():
    with pytest.raises(
        ReplayAuditError,
        match=r"control flow before the noise depends on the "
        r"data: neighbour \d+ .*test_replay_audit\.py:\d+",
    ):
        replay_audit(spec(branchy_sum), DATA)


def test_a_stated_data_dependent_flow_is_audited_by_its_value_only():
    report = replay_audit(spec(branchy_sum, data_dependent_flow="toy: stated"), DATA)
    assert report.flow_checked == 0 and report.worst <= 1.0
    with pytest.raises(ReplayAuditError, match="beyond the sensitivity"):
        replay_audit(spec(branchy_sum, 1.0, data_dependent_flow="toy: stated"), DATA)


def test_a_clip_that_warns_is_the_one_branch_allowed():
    report = replay_audit(spec(warned_sum), DATA)
    assert report.pairs == 20 and report.flow_checked == 12  # the 8 beyond [-1, 1] warned


def test_a_sensitivity_read_at_the_dataset():
    """A local bound (a function of the dataset) is read at the dataset replayed."""
    local = spec(sensitivity=lambda d: 2.0 if np.abs(d).max() >= 0.5 else 1.0)
    assert replay_audit(local, DATA).worst <= 1.0
    with pytest.raises(ReplayAuditError, match="beyond the sensitivity 1.0"):
        replay_audit(local, DATA / 10)


def test_rows_are_separate_invocations():
    """Two rows, each moved by 1.5 in L2: within 2 row by row, not as one vector (2.12)."""
    rows = ReplaySpec(
        "rows", lambda d: d, 2.0, "l2", "every row moves", lambda d: [d + 1.5], rows=True
    )
    assert replay_audit(rows, np.zeros((2, 1))).worst == pytest.approx(0.75)
    whole = ReplaySpec("whole", lambda d: d, 2.0, "l2", "every row moves", lambda d: [d + 1.5])
    with pytest.raises(ReplayAuditError, match="beyond the sensitivity"):
        replay_audit(whole, np.zeros((2, 1)))


def test_a_shape_that_depends_on_the_data_fails():
    positive = ReplaySpec(
        "positive", lambda d: d[d > 0], 10.0, "l1", "replace one entry", replace_one
    )
    with pytest.raises(ReplayAuditError, match="changed the statistic's shape"):
        replay_audit(positive, DATA)


def test_norms():
    a, b = np.array([3.0, -4.0]), np.zeros(2)
    assert [float(distances(a, b, n)[0]) for n in ("l1", "l2", "linf")] == [7.0, 5.0, 4.0]
    with pytest.raises(ValueError, match="norm must be one of"):
        ReplaySpec("x", clipped_sum, 1.0, "l3", "r", replace_one)  # type: ignore[arg-type]


def test_the_trace_holds_privrl_and_the_statistic_file_only():
    import os

    _, lines, clipped = traced(warned_sum, DATA * 10, (os.path.abspath(__file__),))
    assert clipped and lines and {f for f, _ in lines} == {os.path.abspath(__file__)}


@settings(derandomize=True, max_examples=40, deadline=None)
@given(
    data=st.lists(st.floats(-3, 3), min_size=1, max_size=6),
    i=st.integers(0, 5),
    x=st.floats(-1e6, 1e6),
)
def test_any_replace_one_neighbour_of_the_clipped_sum_passes(data, i, x):
    d = np.array(data)
    other = d.copy()
    other[i % len(d)] = x
    replay_audit(spec(), d, [other])
