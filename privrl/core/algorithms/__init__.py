"""Estimators and learners, private and non-private, one module per family of algorithms."""
