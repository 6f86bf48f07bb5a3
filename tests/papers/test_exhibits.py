"""Every landing-page key links a figure or table drawn from the record that decided its claim
(issue 51: one record, one figure, one verdict), held on the library's data, not on a book build.

For each chapter that lists its exhibits (``plots.EXHIBITS``, :mod:`privrl.chapter.figures`):

* the notebook draws each exhibit, ``EXHIBITS["<label>"].show()``, in the cell that carries its
  label, and draws no exhibit under another label;
* an exhibit reads files its record names (the run record's ``files``) and the record has them;
* every claim decided on a record that has exhibits is linked (the landing page's label of its
  key, :func:`_landing_label`) to an exhibit of that record, and every key linked to an exhibit
  is a claim that exhibit's record decided.

Which record decided a claim is read from the records: the claims a recorded run keeps in its
summary, and, for ono2020's arms at tuned steps (decided anew on every build), the claims the
chapter's own deciders decide on that record's trials.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pandas as pd
import pytest

from privrl.chapter.decided import base_key
from privrl.chapter.evidence import Evidence
from privrl.chapter.figures import Exhibit, notebook_exhibits
from privrl.chapter.front import front_matter
from privrl.chapter.records import SOURCE_ROOT, record_path, recorded_claims

NOTEBOOKS = SOURCE_ROOT / "notebooks"


def _from_summary(name: str) -> dict[str, str]:
    """The claims the paper-profile record of ``name`` keeps in its summary: key -> record."""
    suffix = _sources(name).PAPER_RUN.suffix
    return {c.key: f"{name}-paper" for c in recorded_claims(name, suffix=suffix)}


def _ono2020_tuned() -> dict[str, str]:
    """The claims the chapter's deciders decide on the recorded arms at tuned steps."""
    from privrl.papers.ono2020.claims import CLAIMS, TrialData
    from privrl.papers.ono2020.plots import EXHIBITS
    from privrl.papers.ono2020.profile import OnoProfile
    from privrl.papers.ono2020.sources import TUNED_RUN
    from privrl.papers.ono2020.trials import REFERENCE
    from privrl.papers.ono2020.tuning import decided_trials

    exhibit = EXHIBITS["fig-ono2020-tables-tuned"]
    data = exhibit.read()
    if data is None:
        return {}
    cap = int(data["record"]["parameters"]["n_submissions"])
    evidence = Evidence(
        "reference_tuned",
        OnoProfile.paper(),
        data=TrialData(decided_trials(data), pd.DataFrame(columns=["submission"]), cap, REFERENCE),
    )
    return {
        spec.key + TUNED_RUN.suffix: exhibit.record
        for spec in CLAIMS
        if (spec.on is None or evidence.name in spec.on) and spec.decide(None, evidence) is not None
    }


#: Per chapter: the claims decided on its records that have exhibits (key with the record's
#: suffix -> the record's name).
DECIDED: dict[str, Callable[[], dict[str, str]]] = {
    "balle2016": lambda: _from_summary("balle2016"),
    "xie2019": lambda: _from_summary("xie2019"),
    "ono2020": _ono2020_tuned,
}


def _sources(name: str) -> ModuleType:
    """The chapter's module declaring its evidence sources."""
    return importlib.import_module(f"privrl.papers.{name}.sources")


def _exhibits(name: str) -> dict[str, Exhibit]:
    return importlib.import_module(f"privrl.papers.{name}.plots").EXHIBITS


def _landing_label(evidence: dict[str, str], key: str, name: str) -> str | None:
    """The label the landing page links for a claim decided as ``key``
    (:func:`privrl.pipeline.pages._key_cell`: the key's own, else its base key's)."""
    return evidence.get(key) or evidence.get(base_key(key, _sources(name).SOURCES))


@pytest.mark.parametrize("name", sorted(DECIDED))
def test_the_notebook_draws_each_exhibit_under_its_own_label(name):
    drawn = notebook_exhibits(NOTEBOOKS / f"{name}.ipynb")
    for label in _exhibits(name):
        assert drawn.get(label) == label, f"{name}: no cell labelled {label} draws it"
    assert all(shown in ("", label) for label, shown in drawn.items()), (
        f"{name}: a cell draws an exhibit under another label: {drawn}"
    )


@pytest.mark.parametrize("name", sorted(DECIDED))
def test_each_exhibit_reads_files_its_record_names(name):
    for label, exhibit in _exhibits(name).items():
        record = json.loads(record_path(SOURCE_ROOT, *exhibit.record.rsplit("-", 1)).read_text())
        assert set(exhibit.files.values()) <= set(record.get("files") or []), label
        data = exhibit.read()
        assert data is not None and all(isinstance(data[k], pd.DataFrame) for k in exhibit.files)


@pytest.mark.parametrize("name", sorted(DECIDED))
def test_a_key_links_an_exhibit_of_the_record_that_decided_it(name):
    evidence = front_matter(name).evidence
    exhibits = _exhibits(name)
    decided = DECIDED[name]()
    assert decided, f"{name}: no claim decided on a record with exhibits"
    for key, record in decided.items():
        label = _landing_label(evidence, key, name)
        assert label in exhibits and exhibits[label].record == record, (
            f"{name}: {key} was decided on {record}; its key links {label}, not an exhibit "
            "drawn from that record"
        )
    for key, label in evidence.items():
        if label in exhibits:
            exhibit = exhibits[label]
            decided_as = key if key in decided else key + exhibit.suffix
            assert decided.get(decided_as) == exhibit.record, (
                f"{name}: {key} links {label}, drawn from {exhibit.record}, which did not decide it"
            )


def test_the_record_of_an_exhibit_is_one_of_its_chapter():
    for name in DECIDED:
        for exhibit in _exhibits(name).values():
            assert exhibit.record.startswith(f"{name}-")
            assert Path(record_path(SOURCE_ROOT, *exhibit.record.rsplit("-", 1))).exists()
