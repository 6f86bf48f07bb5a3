"""Environments of the five papers, registered with gymnasium under the ``privrl/`` namespace.

Registration uses entry-point strings, so importing :mod:`privrl.core.envs` is cheap and each
environment module is imported only when ``gymnasium.make`` asks for it.

==============================  ===============================================  =========
id                              entry point                                      paper
==============================  ===============================================  =========
``privrl/Chain-v0``             :class:`privrl.core.envs.chain.ChainEnv`              Balle 2016, Xie 2019
``privrl/HIVTreatment-v0``      :class:`privrl.core.envs.hiv.HIVTreatmentEnv`         Xie 2019
``privrl/ContinuousLine-v0``    :class:`privrl.core.envs.line.ContinuousLineEnv`      Wang 2019
==============================  ===============================================  =========

CartPole with per-agent gravity (Ono 2020) is a batched numpy simulator in
:mod:`privrl.core.envs.cartpole`; Mountain Car (Xie 2019) and AirRaid (Gohari 2021) come from
gymnasium and ale-py directly, with feature maps and wrappers in their modules.
"""

from __future__ import annotations

import gymnasium

ENV_IDS: dict[str, str] = {
    "privrl/Chain-v0": "privrl.core.envs.chain:ChainEnv",
    "privrl/HIVTreatment-v0": "privrl.core.envs.hiv:HIVTreatmentEnv",
    "privrl/ContinuousLine-v0": "privrl.core.envs.line:ContinuousLineEnv",
}


def register_envs() -> None:
    """Register every ``privrl/`` environment with gymnasium (idempotent)."""
    for env_id, entry_point in ENV_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=entry_point)


register_envs()
