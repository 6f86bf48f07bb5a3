"""Layer 1, the maths: mechanisms, accounting, environments, algorithms and the audit method.

Nothing here knows about chapters, the book or the repository: :mod:`~privrl.core.accounting`
computes every (epsilon, delta) from parameters, :mod:`~privrl.core.mechanisms` add noise at a
scale the accounting gives, :mod:`~privrl.core.envs` and :mod:`~privrl.core.algorithms` are the
MDPs and learners, :mod:`~privrl.core.audit` lower-bounds epsilon empirically, and
:mod:`~privrl.core.rng` / :mod:`~privrl.core.validation` are the seeds and input checks they share.
"""
