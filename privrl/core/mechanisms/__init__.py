"""Noise-adding primitives. Each validates its inputs and takes its noise scale from
:mod:`privrl.core.accounting`, so the guarantee it claims is computed in one place.

Standard mechanisms: :mod:`privrl.core.mechanisms.gaussian`, :mod:`privrl.core.mechanisms.laplace`.
Paper-specific ones: Gaussian-process (functional) noise, local (LDP) gradient mechanisms and the
Dirichlet mechanism, each in its own module.
"""

from privrl.core.mechanisms.gaussian import gaussian_mechanism, gaussian_noise_scale
from privrl.core.mechanisms.laplace import laplace_mechanism, laplace_noise_scale

__all__ = ["gaussian_mechanism", "gaussian_noise_scale", "laplace_mechanism", "laplace_noise_scale"]
