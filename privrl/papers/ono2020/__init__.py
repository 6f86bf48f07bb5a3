"""Ono and Takahashi 2020: locally private distributed reinforcement learning (PGC-A3C)."""
