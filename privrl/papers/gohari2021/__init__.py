"""Gohari et al. 2021: privacy-preserving kickstarting deep RL (Dirichlet mechanism)."""
