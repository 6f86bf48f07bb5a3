"""Fixtures of the API tests."""

from __future__ import annotations

import pytest
from api_data import chain_data

import privrl


@pytest.fixture(scope="session")
def chain() -> privrl.Trajectories:
    return chain_data(60, 5, 12, seed=1)
