"""Frontier: beyond the papers. Which private policy evaluator (GPOPE, DP-LSW, DP-LSL) to use at
which privacy budget epsilon and data size n, on one neighbouring relation (replace-one
trajectory), one (epsilon, delta) per point, one error against the non-private estimate on the
full data, and each method's tightest valid accountant."""
