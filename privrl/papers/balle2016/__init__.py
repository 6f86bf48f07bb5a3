"""Balle, Gomrokchi and Precup 2016: differentially private policy evaluation (DP-LSW, DP-LSL)."""
