"""Profiles: named configurations (``quick`` for CI, ``paper`` for the paper's scale)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any


def resolve_profile(
    profiles: Mapping[str, Mapping[str, Any]], profile: str, **overrides: Any
) -> dict[str, Any]:
    """Return a copy of ``profiles[profile]`` with the non-``None`` ``overrides`` applied.

    A notebook passes every parameter of its ``parameters`` cell; ``None`` means "the profile's
    default". An override naming a key the profile does not have is an error, so a typo in a
    papermill ``-p`` flag cannot be silently ignored.
    """
    if profile not in profiles:
        raise ValueError(f"profile must be one of {sorted(profiles)}, got {profile!r}")
    config = copy.deepcopy(dict(profiles[profile]))
    for key, value in overrides.items():
        if key not in config:
            raise ValueError(f"unknown parameter {key!r} for this experiment; known: {sorted(config)}")
        if value is not None:
            config[key] = value
    return config
