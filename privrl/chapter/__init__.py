"""Layer 2, what every chapter is made of, written once.

A typed :mod:`~privrl.chapter.profile`, the :mod:`~privrl.chapter.report` (checks that fail,
claims, ledger, errata), the privacy :mod:`~privrl.chapter.ledger`, the :mod:`~privrl.chapter.verdicts`
rules, the cached :mod:`~privrl.chapter.sweep`, :mod:`~privrl.chapter.plotting`, and
:mod:`~privrl.chapter.records`: the one module that knows the repository root, git and where
recorded results live. Imports :mod:`privrl.core` only.
"""
