"""A run's checkpoint file: written atomically, read back only by the run it belongs to.

:func:`save_checkpoint` pickles a state to a temporary name in the target's folder and renames it
(a process killed mid-write leaves the previous checkpoint or none, never a partial file).
:func:`load_checkpoint` returns the saved state, or ``None`` when there is no file, and refuses a
file whose ``identity`` (e.g. the run's configuration and seed) differs from the caller's.
"""

from __future__ import annotations

import os
import pickle
import tempfile
from pathlib import Path
from typing import Any


def atomic_pickle(obj: Any, path: str | os.PathLike[str]) -> None:
    """Pickle ``obj`` to ``path`` through a temporary file in the same folder and a rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(obj, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save_checkpoint(
    path: str | os.PathLike[str], identity: dict[str, Any], state: dict[str, Any]
) -> None:
    """Write ``state`` with the run's ``identity`` to ``path`` atomically."""
    atomic_pickle({"identity": identity, "state": state}, path)


def load_checkpoint(
    path: str | os.PathLike[str], identity: dict[str, Any]
) -> dict[str, Any] | None:
    """The state saved at ``path`` (``None`` if there is no file); ``ValueError`` naming
    ``checkpoint`` and the differing entries when the file belongs to another run."""
    path = Path(path)
    if not path.exists():
        return None
    with open(path, "rb") as fh:
        saved = pickle.load(fh)
    theirs = saved["identity"]
    differ = sorted(k for k in identity.keys() | theirs.keys() if identity.get(k) != theirs.get(k))
    if differ:
        raise ValueError(
            f"checkpoint {path} belongs to another run: its {', '.join(differ)} "
            "differ from this run's (delete it or pass another path)"
        )
    return saved["state"]
