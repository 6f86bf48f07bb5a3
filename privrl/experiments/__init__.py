"""One module per paper: a typed profile and one entry point returning tidy data and verdicts.

Each module defines a frozen :class:`~privrl.experiments.profiles.Profile` subclass (the quick
profile's values as defaults, the paper profile's in ``PAPER``) and
``run(profile, *, executor=None, cache_dir=None, progress=False)`` returning an
:class:`~privrl.experiments.profiles.ExperimentResult`: its tables and the chapter's
:class:`~privrl.reporting.Report` (checks, claims, ledger entries, errata).
"""

from privrl.experiments.profiles import ExperimentResult, Profile

__all__ = ["ExperimentResult", "Profile"]
