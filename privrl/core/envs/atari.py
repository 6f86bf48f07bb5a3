"""Environments of Gohari et al. (2021): AirRaid with RAM observations, and CartPole for `quick`.

* ``make_airraid()``: ``AirRaid-v0`` from ale-py (its wheel ships the ROM) with
  ``obs_type="ram"``, the gymnasium successor of the paper's ``AirRaid-ram-v0``: sticky actions
  0.25, frame skip drawn from 2..4, m = 6 actions, 128-byte RAM observation scaled to [0, 1]
  (``/ 255``, which multiplies the teacher's Lipschitz constant in raw RAM by 1/255). A seeded
  reset after the first does not reload the ROM (:class:`ReseedWithoutReload`).
* ``make_quick_env()``: ``CartPole-v1`` (m = 2 actions, 500-step limit), where a (64, 64)
  teacher converges within the quick profile's budget; the mechanism, the accounting and the
  student are the same code for any m (m = 2 makes the Dirichlet a Beta distribution)."""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from collections.abc import Iterator

import gymnasium as gym
import numpy as np

AIRRAID_ID = "AirRaid-v0"
QUICK_ID = "CartPole-v1"


@contextlib.contextmanager
def _silent_stderr() -> Iterator[None]:
    """Send file descriptor 2 to /dev/null: the emulator's C++ banner ("A.L.E: Arcade Learning
    Environment ... [Powered by Stella]") would otherwise land in every executed notebook."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


class ReseedWithoutReload(gym.Wrapper):
    """Seeded resets of an ale-py environment without reloading the ROM after the first.

    ale-py reloads the ROM on every ``reset(seed=...)`` (about 0.1 CPU seconds: a sixth of a
    paper-profile roll-out, which starts with a seeded reset) to reseed the emulator's
    generator, which draws only the sticky actions: with ``repeat_action_probability = 0`` the
    emulator's trajectory for given actions does not depend on the seed (tested). Here the
    first seeded reset reloads and seeds both generators as ale-py does; a later one seeds the
    frame-skip generator with its seed (:meth:`ale_py.env.AtariEnv.seed_game`) and resets the
    game, the sticky-action generator running on from the first seed. A run is reproducible from
    its seeds, and every episode's frame skips and sticky actions are drawn as before (the same
    distribution); the trajectories differ from ale-py's own reseeding.
    """

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self._seeded = False

    def reset(
        self, *, seed: int | None = None, options: dict | None = None
    ) -> tuple[np.ndarray, dict]:
        if seed is None or not self._seeded:
            self._seeded = self._seeded or seed is not None
            return self.env.reset(seed=seed, options=options)
        self.env.unwrapped.seed_game(seed)  # type: ignore[attr-defined]
        return self.env.reset(options=options)


def make_airraid(max_episode_steps: int | None = None) -> gym.Env:
    """AirRaid with RAM observations in [0, 1] (float32), seeded resets without reloading the
    ROM after the first (:class:`ReseedWithoutReload`)."""
    import ale_py

    gym.register_envs(ale_py)
    with warnings.catch_warnings(), _silent_stderr():
        # v0 is chosen on purpose: it keeps the paper-era settings (sticky actions 0.25, frame
        # skip 2..4); gymnasium's "out of date, upgrade to v4" notice does not apply
        warnings.filterwarnings(
            "ignore", message=".*AirRaid-v0 is out of date", category=DeprecationWarning
        )
        env = ReseedWithoutReload(
            gym.make(AIRRAID_ID, obs_type="ram", max_episode_steps=max_episode_steps)
        )
    space = gym.spaces.Box(0.0, 1.0, shape=env.observation_space.shape, dtype=np.float32)
    return gym.wrappers.TransformObservation(
        env, lambda o: np.asarray(o, dtype=np.float32) / 255.0, space
    )


def make_quick_env() -> gym.Env:
    """CartPole-v1 (the quick profile's environment)."""
    return gym.make(QUICK_ID)


ENV_MAKERS = {"airraid": make_airraid, "cartpole": make_quick_env}


def make_env(name: str) -> gym.Env:
    """``"airraid"`` or ``"cartpole"``."""
    if name not in ENV_MAKERS:
        raise ValueError(f"env must be one of {sorted(ENV_MAKERS)}, got {name!r}")
    return ENV_MAKERS[name]()
