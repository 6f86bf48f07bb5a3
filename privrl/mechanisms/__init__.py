"""Noise-adding primitives. Each validates its inputs and takes its noise scale from
:mod:`privrl.accounting`, so the guarantee it claims is computed in one place.

Standard mechanisms: :mod:`privrl.mechanisms.gaussian`, :mod:`privrl.mechanisms.laplace`.
Paper-specific ones: Gaussian-process (functional) noise, local (LDP) gradient mechanisms and the
Dirichlet mechanism, each in its own module.
"""

from privrl.mechanisms.gaussian import gaussian_mechanism, gaussian_noise_scale
from privrl.mechanisms.laplace import laplace_mechanism, laplace_noise_scale

__all__ = ["gaussian_mechanism", "gaussian_noise_scale", "laplace_mechanism", "laplace_noise_scale"]
