"""A release's ``parameters`` and event are public: the same on neighbouring inputs (the releases
once published a smooth noise scale, the fraction of inputs clipped and training returns, each a
statistic of the data without noise, telling neighbours apart with certainty)."""

from __future__ import annotations

import numpy as np
import pytest
from api_data import chain_data

import privrl
from privrl.core.algorithms import monte_carlo as mc


def _replace(
    data: privrl.Trajectories, i: int, other: privrl.Trajectories, j: int
) -> privrl.Trajectories:
    """``data`` with its trajectory ``i`` replaced by ``other``'s ``j`` (a replace-one
    neighbour)."""
    parts = []
    for name in ("observations", "actions", "rewards", "lengths", "terminated"):
        a = np.array(getattr(data, name))
        a[i] = np.asarray(getattr(other, name))[j]
        parts.append(a)
    return privrl.Trajectories(*parts)


def _neighbours() -> tuple[privrl.Trajectories, privrl.Trajectories]:
    """One trajectory through the least visited state replaced by one that avoids it, with a
    reward of 1e6 (so the visit counts, the smooth noise scale and the clipping all differ)."""
    data = chain_data(300, 6, 12, seed=1)
    other = chain_data(300, 6, 12, seed=2, reward=1e6)
    rare = int(np.argmin(mc.first_visit_returns(data, 6, 0.9).counts))
    i = next(k for k in range(300) if rare in data.observations[k, : data.lengths[k]])
    j = next(
        k
        for k in range(300)
        if rare not in other.observations[k, : other.lengths[k] + 1] and other.rewards[k].max() > 0
    )
    return data, _replace(data, i, other, j)


CHAIN = dict(
    n_states=6, gamma=0.9, features=np.eye(6), epsilon=1.0, delta=0.1, return_bound=1.0, rng=3
)
RELEASES = {
    "dp_lsw": lambda x: privrl.dp_lsw(x, **CHAIN),
    "dp_lsl": lambda x: privrl.dp_lsl(x, lam=40.0, **CHAIN),
    "gpope": lambda x: privrl.gpope(
        x,
        features=np.eye(6),
        gamma=0.9,
        epsilon=2.0,
        delta=1e-3,
        iterations=2000,
        step_size=0.1,
        clip_norm=1.0,
        rng=3,
    ),
    "ssp_lstd": lambda x: privrl.ssp_lstd(
        x,
        features=np.eye(6),
        gamma=0.9,
        epsilon=1.0,
        delta=1e-5,
        feature_bound=1.0,
        reward_bound=1.0,
        max_length=12,
        lam=10.0,
        rng=3,
    ),
}
GRADIENTS = {
    "laplace_report": lambda g: privrl.laplace_report(g, epsilon=1.0, clip=1.0, rng=3),
    "sign_report": lambda g: privrl.sign_report(g, epsilon=5.0, clip=1.0, rng=3),
    "laplace_mechanism": lambda g: privrl.laplace_mechanism(
        g[0], sensitivity=1.0, epsilon=1.0, rng=3
    ),
    "gaussian_mechanism": lambda g: privrl.gaussian_mechanism(
        g[0], sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=3
    ),
}


def _same_guarantee(a: privrl.Release, b: privrl.Release) -> None:
    assert dict(a.parameters) == dict(b.parameters)
    assert a.event == b.event and a.epsilon == b.epsilon and a.delta == b.delta


@pytest.mark.filterwarnings("ignore::privrl.ClippedDataWarning")
@pytest.mark.parametrize("name", sorted(RELEASES))
def test_policy_evaluation_parameters_do_not_depend_on_the_data(name):
    data, neighbour = _neighbours()
    _same_guarantee(RELEASES[name](data), RELEASES[name](neighbour))


@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_report_and_mechanism_parameters_do_not_depend_on_the_data(name):
    inside, outside = np.array([[0.1, 0.0, 0.2]]), np.array([[10.0, -3.0, 0.2]])
    _same_guarantee(GRADIENTS[name](inside), GRADIENTS[name](outside))


def test_dirichlet_parameters_do_not_depend_on_the_policy():
    args = dict(k=100.0, tau=0.01, eta=0.05, lipschitz=0.5, b=0.1, rng=3)
    _same_guarantee(
        privrl.dirichlet_teacher_answer([0.7, 0.3], **args),
        privrl.dirichlet_teacher_answer([0.05, 0.95], **args),
    )


def test_a_release_refuses_an_event_whose_epsilon_is_not_a_non_negative_number():
    """compose sums its parts' epsilons: a negative or NaN one would understate the total."""
    from privrl.core.accounting.gaussian import GaussianEvent

    class Odd(GaussianEvent):
        def epsilon(self, delta: float) -> float:
            return self.sigma - 7.0  # -5 at sigma 2, NaN at sigma NaN

    with pytest.raises(ValueError, match=r"event: its epsilon at delta = 1e-05 is -5.0"):
        privrl.Release(0.0, 1e-5, Odd(sigma=2.0, sensitivity=1.0), "add/remove")
