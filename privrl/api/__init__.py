r"""privrl as a library: one call per private release of the five papers, each returning a
:class:`Release` that carries its guarantee.

Every function takes the data in one type (a :class:`~privrl.core.trajectories.Trajectories` for
the policy evaluators, arrays for the mechanisms) and the privacy target as keywords, calibrates
the noise itself, validates its inputs at the boundary (a ``ValueError`` naming the argument) and
returns a :class:`Release` with ``value``, ``epsilon``, ``delta``, ``event`` and ``parameters``,
its ``epsilon`` computed from the event (``event.epsilon(delta)``), never given. Where an
analysis assumes a bound on the data, the release clips to it and warns
(:class:`~privrl.core.validation.ClippedDataWarning`; ``strict=True`` raises instead).
Every release draws its noise from fresh operating-system entropy unless ``rng`` is given: a
seed reproduces a result, and a seed others know voids the guarantee (they regenerate the noise
and subtract it).

* :func:`gaussian_mechanism`: the Gaussian mechanism on a grid (exact discrete Gaussian noise),
  private on IEEE doubles;
* :func:`laplace_mechanism`: the Laplace mechanism on a grid, exactly private on IEEE doubles;
* :func:`dp_lsw`, :func:`dp_lsl`: Balle, Gomrokchi and Precup 2016 (smooth sensitivity), each
  coordinate the double nearest to the real-valued release (exact normal noise);
* :func:`gpope`: Xie, Thomas and Miklau 2019 (private GTD2), its gradient steps on a grid
  (exact discrete Gaussian noise), private on IEEE doubles;
* :func:`functional_q_learning`: Wang and Hegde 2019 (functional noise; needs torch);
* :func:`laplace_report`, :func:`sign_report`: Ono and Takahashi 2020 (local gradient reports);
* :func:`dirichlet_teacher_answer`: Gohari et al. 2021 (the Dirichlet mechanism, its concentration
  calibrated to a target).
* :func:`compose`: several releases on the same data as one release with one guarantee;
* :func:`clip_values`: the values of released weights clipped to a public range (free
  post-processing: the same guarantee).

The data types: :class:`~privrl.core.trajectories.Trajectories` (a batch of trajectories) and
:class:`~privrl.core.envs.tabular.TabularMDP` (a finite Markov reward process with its exact
values and a sampler of trajectories).

This layer sits directly above :mod:`privrl.core` and below :mod:`privrl.chapter`.
"""

from privrl.api.control import dirichlet_teacher_answer, functional_q_learning
from privrl.api.evaluation import dp_lsl, dp_lsw, gpope, ssp_lstd
from privrl.api.local import laplace_report, sign_report
from privrl.api.mechanisms import gaussian_mechanism, laplace_mechanism
from privrl.api.release import NEIGHBOURS, Release, clip_values, compose
from privrl.core.envs.tabular import TabularMDP
from privrl.core.trajectories import Trajectories
from privrl.core.validation import ClippedDataWarning

__all__ = [
    "ClippedDataWarning", "NEIGHBOURS", "Release", "TabularMDP", "Trajectories", "clip_values",
    "compose",
    "dirichlet_teacher_answer", "dp_lsl", "dp_lsw", "functional_q_learning", "gaussian_mechanism",
    "gpope", "laplace_mechanism", "laplace_report", "sign_report", "ssp_lstd",
]
