"""Gohari et al. 2021: privacy-preserving kickstarting deep RL (Dirichlet mechanism).

``profile`` (the typed profile), ``theory`` (Theorem 1 and Lemma 1 computations), ``checks`` (the
chapter's named checks), ``teacher`` (the committed teachers), ``student`` (one learning curve,
the sweep's run function), ``runs`` (Figure 2's runs and the teacher's budget), ``curves``
(speed-up and Figure 2's curves), ``recorded`` (the recorded AirRaid run), ``state`` (what the
steps hand each other), ``claims`` (claims and errata), ``plots`` (figures) and ``chapter`` (the
:class:`~privrl.chapter.skeleton.Chapter` and its ``run``).
"""
