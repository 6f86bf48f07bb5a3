"""The examples in the docstrings of the public API (the API reference pages of the book) run."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = (
    "privrl.api.release",
    "privrl.api.mechanisms",
    "privrl.api.evaluation",
    "privrl.api.local",
    "privrl.api.control",
    "privrl.core.trajectories",
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{name} has no example"
    assert result.failed == 0


def test_every_public_function_has_an_example():
    import privrl.api

    for name in privrl.api.__all__:
        obj = getattr(privrl.api, name)
        if callable(obj) and not isinstance(obj, type) or name == "Release":
            assert ">>>" in (obj.__doc__ or ""), f"privrl.api.{name} has no example"


@pytest.mark.parametrize("name", MODULES)
def test_examples_fit_the_column_of_the_api_pages(name):
    """Every example line, its prompt included, is at most 84 characters: the API pages show 85
    (a line of 87 scrolled sideways at 1,400 px; the page rule code-fits measures it)."""
    module = importlib.import_module(name)
    for test in doctest.DocTestFinder().find(module):
        for example in test.examples:
            for line in example.source.splitlines():
                assert len(line) + 4 <= 84, f"{test.name}: {line!r}"
