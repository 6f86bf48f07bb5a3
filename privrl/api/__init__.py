r"""privrl as a library: one call per private release of the five papers, each returning a
:class:`Release` that carries its guarantee.

Every function takes the data in one type (:class:`~privrl.core.trajectories.Trajectories` for
the policy evaluators, arrays for the mechanisms) and the privacy target as keywords, calibrates
the noise itself, raises ``ValueError`` naming a bad argument, clips data to an assumed bound
with a :class:`~privrl.core.validation.ClippedDataWarning` (``strict=True`` raises), and returns
a :class:`Release` whose ``epsilon`` is computed from its ``event`` (``event.epsilon(delta)``).
Noise comes from fresh operating-system entropy unless ``rng`` is given (a seed others know
voids the guarantee).

* :func:`gaussian_mechanism`, :func:`laplace_mechanism`: on a grid, private on IEEE doubles;
* :func:`dp_lsw`, :func:`dp_lsl`: Balle, Gomrokchi and Precup 2016 (smooth sensitivity);
* :func:`gpope`: Xie, Thomas and Miklau 2019 (private GTD2, gradient steps on a grid);
* :func:`functional_q_learning`: Wang and Hegde 2019 (functional noise; needs torch);
* :func:`laplace_report`, :func:`sign_report`: Ono and Takahashi 2020 (local gradient reports);
* :func:`dirichlet_teacher_answer`: Gohari et al. 2021 (the Dirichlet mechanism);
* :func:`compose` (several releases on the same data, one guarantee) and :func:`clip_values`
  (post-processing). Data types: :class:`~privrl.core.trajectories.Trajectories`,
  :class:`~privrl.core.envs.tabular.TabularMDP`.
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
    "ClippedDataWarning",
    "NEIGHBOURS",
    "Release",
    "TabularMDP",
    "Trajectories",
    "clip_values",
    "compose",
    "dirichlet_teacher_answer",
    "dp_lsl",
    "dp_lsw",
    "functional_q_learning",
    "gaussian_mechanism",
    "gpope",
    "laplace_mechanism",
    "laplace_report",
    "sign_report",
    "ssp_lstd",
]
