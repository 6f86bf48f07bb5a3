"""One module per paper: its ``quick`` and ``paper`` profiles and run functions returning tidy data.

Each module exposes ``PROFILES: dict[str, dict]`` and uses :func:`resolve_profile` to merge a
notebook's overrides into the chosen profile.
"""

from privrl.experiments.profiles import resolve_profile

__all__ = ["resolve_profile"]
