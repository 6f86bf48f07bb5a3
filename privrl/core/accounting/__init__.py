"""Every (epsilon, delta) the book reports is computed in this package.

Standard mechanisms are accounted with Google's ``dp-accounting`` (:mod:`privrl.core.accounting.events`
wraps its RDP and PLD accountants; :mod:`privrl.core.accounting.gaussian` uses its exact Gaussian
calibration). Paper-specific guarantees live in their own modules: smooth sensitivity (Balle et
al. 2016), subsampled GTD2 (Xie et al. 2019), functional noise (Wang and Hegde 2019), local
mechanisms (Ono and Takahashi 2020) and the Dirichlet mechanism (Gohari et al. 2021).
"""
