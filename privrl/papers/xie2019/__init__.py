"""Xie, Thomas and Miklau 2019: privacy preserving off-policy evaluation (GPOPE)."""
