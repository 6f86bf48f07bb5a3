"""Typed profiles and the one result object every experiment module returns.

Each paper's module defines one frozen dataclass derived from :class:`Profile` (CleanRL style:
one config, every knob a typed field with the quick profile's value as default) and the paper
profile's differences in ``PAPER_SCALE``. A notebook builds it with :meth:`Profile.from_parameters`,
passing every parameter of its ``parameters`` cell: ``None`` means "the profile's value", an
unknown name or a value of the wrong type is rejected with an error naming the field, and
:meth:`Profile.validate` checks ranges (``epsilon > 0`` ...). The module's ``run(profile, ...)``
returns an :class:`ExperimentResult`: its tidy tables and the :class:`~privrl.chapter.report.Report`
holding checks, claims, ledger entries and errata.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self

import pandas as pd

from privrl.chapter.report import Report

PROFILE_NAMES: tuple[str, ...] = ("quick", "paper")


def _coerce(name: str, value: Any, annotation: Any) -> Any:
    """``value`` converted to ``annotation`` (int -> float, list -> tuple) or a ValueError naming ``name``."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        errors = []
        for option in (a for a in args if a is not type(None)):
            try:
                return _coerce(name, value, option)
            except ValueError as err:
                errors.append(str(err))
        raise ValueError(
            errors[0] if len(errors) == 1 else f"{name}: {value!r} fits none of {args}"
        )
    if origin is typing.Literal:
        if value not in args:
            raise ValueError(f"{name} must be one of {list(args)}, got {value!r}")
        return value
    if origin is tuple:
        if not isinstance(value, list | tuple):
            raise ValueError(f"{name} must be a list, got {value!r}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_coerce(f"{name}[{i}]", v, args[0]) for i, v in enumerate(value))
        if len(args) != len(value):
            raise ValueError(f"{name} must have {len(args)} entries, got {len(value)}")
        return tuple(
            _coerce(f"{name}[{i}]", v, a) for i, (v, a) in enumerate(zip(value, args, strict=True))
        )
    if annotation is bool:
        if not isinstance(value, bool):
            raise ValueError(f"{name} must be true or false, got {value!r}")
        return value
    if annotation is int:
        if isinstance(value, bool) or not (
            isinstance(value, int) or (isinstance(value, float) and value.is_integer())
        ):
            raise ValueError(f"{name} must be an integer, got {value!r}")
        return int(value)
    if annotation is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"{name} must be a number, got {value!r}")
        out = float(value)
        if out != out:
            raise ValueError(f"{name} must not be NaN")
        return out
    if annotation is str:
        if not isinstance(value, str):
            raise ValueError(f"{name} must be a string, got {value!r}")
        return value
    return value


@dataclass(frozen=True)
class Profile:
    """Base of every paper's profile: the profile's name and the root seed.

    Subclasses add typed fields (defaults = the quick profile), set ``PAPER_SCALE`` (the paper
    profile's values) and override :meth:`validate` for ranges. Instances are immutable; use
    :func:`dataclasses.replace` (validated again) to derive one.
    """

    profile: str = "quick"
    seed: int = 0
    #: Field values of the ``paper`` profile that differ from the defaults.
    PAPER_SCALE: ClassVar[Mapping[str, Any]] = {}

    def __post_init__(self) -> None:
        hints = typing.get_type_hints(type(self))
        for f in dataclasses.fields(self):
            object.__setattr__(self, f.name, _coerce(f.name, getattr(self, f.name), hints[f.name]))
        if self.profile not in PROFILE_NAMES:
            raise ValueError(f"profile must be one of {list(PROFILE_NAMES)}, got {self.profile!r}")
        if self.seed < 0:
            raise ValueError(f"seed must be >= 0, got {self.seed}")
        self.validate()

    def validate(self) -> None:
        """Range checks of the subclass's fields; raise ValueError naming the field."""

    @classmethod
    def quick(cls, **overrides: Any) -> Self:
        """The quick profile (CI scale), with ``overrides``."""
        return cls.from_parameters("quick", **overrides)

    @classmethod
    def paper(cls, **overrides: Any) -> Self:
        """The paper profile (the paper's scale), with ``overrides``."""
        return cls.from_parameters("paper", **overrides)

    @classmethod
    def from_parameters(cls, profile: str, **parameters: Any) -> Self:
        """The named profile with a notebook's parameters applied (``None`` = the profile's value).

        An unknown parameter name is an error, so a typo in a papermill ``-p`` flag cannot be
        silently ignored.
        """
        if profile not in PROFILE_NAMES:
            raise ValueError(f"profile must be one of {list(PROFILE_NAMES)}, got {profile!r}")
        names = {f.name for f in dataclasses.fields(cls)} - {"profile"}
        unknown = sorted(set(parameters) - names)
        if unknown:
            raise ValueError(
                f"unknown parameter(s) {unknown} for {cls.__name__}; known: {sorted(names)}"
            )
        values = dict(cls.PAPER_SCALE) if profile == "paper" else {}
        values.update({k: v for k, v in parameters.items() if v is not None})
        return cls(profile=profile, **values)

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def record_parameters(self) -> dict[str, Any]:
        """The fields as a run record's ``parameters``: :meth:`as_dict` with each tuple field a
        list (JSON's array, as the record is read back)."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in self.as_dict().items()}


@dataclass
class ExperimentResult:
    """What a paper module's ``run`` returns: named tidy tables, the chapter's report, its typed
    state (what the notebook shows besides the tables) and the run's wall time in seconds."""

    tables: dict[str, pd.DataFrame]
    report: Report
    state: Any = None
    wall_time_s: float = 0.0

    def table(self, name: str) -> pd.DataFrame:
        if name not in self.tables:
            raise KeyError(f"no table {name!r}; tables: {sorted(self.tables)}")
        return self.tables[name]
