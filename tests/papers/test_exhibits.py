"""Every landing-page key links a figure or table drawn from the record that decided its claim
(issue 51: one record, one figure, one verdict), held on the library's data, not on a book build.

For each chapter that lists its exhibits (``plots.EXHIBITS``, :mod:`privrl.chapter.figures`):

* the notebook draws each exhibit, ``EXHIBITS["<label>"].show()``, in the cell that carries its
  label, and draws no exhibit under another label;
* an exhibit reads files its record names (the run record's ``files``) and the record has them;
* every claim decided on a record that has exhibits is linked (the landing page's label of its
  key, :func:`_landing_label`) to an exhibit of that record, and every key linked to an exhibit
  is a claim that exhibit's record decided;
* following the landing page's own links (issue 51, Done when 1): the landing page's rows are
  built as :func:`privrl.pipeline.pages.landing_papers` builds them
  (:func:`~privrl.chapter.decided.decided_claims` over the claims the records decide) and each
  row's key link (:func:`privrl.pipeline.pages._key_link`) must name an exhibit drawn from the
  record that decided the row, for the very claim (key and suffix) that decided it; in ono2020,
  wang2019 and gohari2021, whose every claim is decided on a record, every claim has such a row
  (ono2020's on each of its set-ups: the paper's as stated, and the reference set-up).

Which record decided a claim is read from the records: the claims a recorded run keeps in its
summary, and, for the claims decided anew on every build (ono2020's paper-profile record, its
reference set-up's record and its arms at tuned steps, wang2019's paper-profile record and pair,
gohari2021's design and record at the paper's horizon), the claims the chapter's own deciders
decide on that record's data, as the chapter builds its evidence.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pandas as pd
import pytest

from privrl.chapter.decided import base_key, decided_claims
from privrl.chapter.evidence import ClaimSpec, Evidence
from privrl.chapter.figures import Exhibit, notebook_exhibits
from privrl.chapter.front import front_matter
from privrl.chapter.records import SOURCE_ROOT, record_path, recorded_claims, recorded_run
from privrl.chapter.verdicts import Claim
from privrl.pipeline.pages import _key_link

NOTEBOOKS = SOURCE_ROOT / "notebooks"


def _from_summary(name: str) -> dict[str, str]:
    """The claims the paper-profile record of ``name`` keeps in its summary: key -> record."""
    suffix = _sources(name).PAPER_RUN.suffix
    return {c.key: f"{name}-paper" for c in recorded_claims(name, suffix=suffix)}


def _decided_on(specs: tuple[ClaimSpec, ...], evidence: Evidence, record: str) -> dict[str, str]:
    """The claims of ``specs`` the chapter decides on ``evidence`` (those it is decided on, as
    :meth:`~privrl.chapter.skeleton.Chapter` asks it), keyed with its suffix -> ``record``."""
    return {
        spec.key + evidence.suffix: record
        for spec in specs
        if (spec.on is None or evidence.name in spec.on) and spec.decide(None, evidence) is not None
    }


def _ono2020() -> dict[str, str]:
    """The claims the chapter's deciders decide on each ono2020 record, on the evidence the
    chapter builds from it (:meth:`privrl.papers.ono2020.chapter.Ono2020Chapter.load_recorded`):
    the paper-profile record on the paper's set-up, the reference set-up's record (its arms as
    their sweep chose them) and its arms at tuned steps."""
    from privrl.papers.ono2020.claims import CLAIMS, TrialData
    from privrl.papers.ono2020.plots import EXHIBITS
    from privrl.papers.ono2020.profile import OnoProfile
    from privrl.papers.ono2020.recorded import (
        recorded_curves,
        recorded_paper_run,
        recorded_reference_run,
    )
    from privrl.papers.ono2020.seeds import reference_tunings
    from privrl.papers.ono2020.sources import PAPER_RUN, REFERENCE_RUN, TUNED_RUN
    from privrl.papers.ono2020.trials import REFERENCE
    from privrl.papers.ono2020.tuning import decided_trials

    paper, reference = recorded_paper_run(), recorded_reference_run()
    tuned = EXHIBITS["fig-ono2020-tables-tuned"].read()
    if paper is None or reference is None or tuned is None:
        return {}
    profile = OnoProfile.paper()

    def cap(data: dict) -> int:
        return int(data["record"]["parameters"]["n_submissions"])

    params = reference["record"]["parameters"]
    on = {
        PAPER_RUN: TrialData(paper["trials"], recorded_curves(paper["curves"]), cap(paper)),
        REFERENCE_RUN: TrialData(
            reference["trials"],
            reference["curves"],
            cap(reference),
            REFERENCE,
            reference_tunings(reference["sweep"], reference["trials"], int(params["seed"]), params),
        ),
        TUNED_RUN: TrialData(
            decided_trials(tuned), pd.DataFrame(columns=["submission"]), cap(tuned), REFERENCE
        ),
    }
    records = {
        PAPER_RUN: "ono2020-paper",
        REFERENCE_RUN: "ono2020-reference",
        TUNED_RUN: "ono2020-tuned",
    }
    decided: dict[str, str] = {}
    for source, data in on.items():
        evidence = Evidence(source.name, profile, data=data, suffix=source.suffix)
        decided |= _decided_on(CLAIMS, evidence, records[source])
    return decided


def _wang2019() -> dict[str, str]:
    """The claims decided on the recorded paper-profile curves and on the recorded pair, on the
    evidence the chapter builds from them (beside a run at another profile)."""
    from privrl.papers.wang2019.claims import CLAIMS, PAIR, Curves, seconds_per_trial
    from privrl.papers.wang2019.pair import read_pair
    from privrl.papers.wang2019.profile import PAPER, WangProfile
    from privrl.papers.wang2019.runs import read_paper_curves

    paper, curves, run, pair = (
        WangProfile.paper(),
        read_paper_curves(),
        recorded_run(PAPER, "paper"),
        read_pair(),
    )
    if curves is None or run is None or pair is None:
        return {}
    on_paper = Evidence(
        paper.profile,
        paper,
        run.commit,
        Curves(curves, seconds_per_trial(curves, run.record)),
        suffix=f"_{paper.profile}",
    )
    on_pair = Evidence(
        PAIR,
        paper,
        pair[1].commit,
        Curves(pair[0], seconds_per_trial(pair[0], pair[1].record)),
        suffix=f"_{PAIR}",
    )
    return {
        **_decided_on(CLAIMS, on_paper, f"{PAPER}-paper"),
        **_decided_on(CLAIMS, on_pair, f"{PAPER}-{PAIR}"),
    }


def _gohari2021() -> dict[str, str]:
    """The claims decided on the recorded design and on the record at the paper's horizon
    (:func:`privrl.papers.gohari2021.claims.on_record`)."""
    from privrl.papers.gohari2021.claims import CLAIMS, on_record
    from privrl.papers.gohari2021.recorded import (
        DESIGN,
        HORIZON,
        load_paper_curves,
        recorded_analysis,
    )

    decided: dict[str, str] = {}
    for name in (DESIGN, HORIZON):
        loaded = load_paper_curves(name=name)
        if loaded is None:
            return {}
        decided |= _decided_on(CLAIMS, on_record(recorded_analysis(*loaded)), f"gohari2021-{name}")
    return decided


#: Per chapter: the claims decided on its records that have exhibits (key with the record's
#: suffix -> the record's name).
DECIDED: dict[str, Callable[[], dict[str, str]]] = {
    "balle2016": lambda: _from_summary("balle2016"),
    "xie2019": lambda: _from_summary("xie2019"),
    "ono2020": _ono2020,
    "wang2019": _wang2019,
    "gohari2021": _gohari2021,
}
#: The chapters whose every claim is decided on a record (none on this run alone).
ALL_ON_RECORDS = ("ono2020", "wang2019", "gohari2021")


def _sources(name: str) -> ModuleType:
    """The chapter's module declaring its evidence sources."""
    return importlib.import_module(f"privrl.papers.{name}.sources")


def _exhibits(name: str) -> dict[str, Exhibit]:
    return importlib.import_module(f"privrl.papers.{name}.plots").EXHIBITS


def _landing_label(evidence: dict[str, str], key: str, name: str) -> str | None:
    """The label the landing page links for a claim decided as ``key``
    (:func:`privrl.pipeline.pages._key_cell`: the key's own, else its base key's)."""
    return evidence.get(key) or evidence.get(base_key(key, _sources(name).SOURCES))


def _decided_as(key: str, suffix: str, decided: dict[str, str], name: str) -> str:
    """The claim a front-matter ``key`` stands for on the record keyed ``suffix``: the key
    itself when decided so, else the claim with that suffix whose base key it is (ono2020's
    ``<key>_reference_paper`` for ``<key>_reference``), else the key with the suffix."""
    if key in decided:
        return key
    sources = _sources(name).SOURCES
    return next(
        (d for d in decided if d.endswith(suffix) and base_key(d, sources) == key),
        key + suffix,
    )


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
        named = {Path(f).name for f in record.get("files") or []}  # gohari2021: "results/<file>"
        assert set(exhibit.files.values()) <= named, label
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
            decided_as = _decided_as(key, exhibit.suffix, decided, name)
            assert decided.get(decided_as) == exhibit.record, (
                f"{name}: {key} links {label}, drawn from {exhibit.record}, which did not decide it"
            )


def test_the_record_of_an_exhibit_is_one_of_its_chapter():
    for name in DECIDED:
        for exhibit in _exhibits(name).values():
            assert exhibit.record.startswith(f"{name}-")
            assert Path(record_path(SOURCE_ROOT, *exhibit.record.rsplit("-", 1))).exists()


def _row_claim(key: str) -> Claim:
    """A claim decided as ``key``, as a landing-page row reads it (only its key routes the row
    and its link: :func:`~privrl.chapter.decided.decided_claims`, ``_key_link``)."""
    return Claim("untestable", "", None, None, 0, "", key=key, statement=key)


#: A landing-page key linked to a figure or table: ``{ref}`key <label>```.
_REF = re.compile(r"\{ref\}`(?P<key>[^<`]+) <(?P<label>[^>`]+)>`")


@pytest.mark.parametrize("name", sorted(DECIDED))
def test_each_landing_row_links_an_exhibit_of_the_record_and_claim_that_decided_it(name):
    decided = DECIDED[name]()
    assert decided, f"{name}: no claim decided on a record with exhibits"
    sources = importlib.import_module(f"privrl.papers.{name}.sources").SOURCES
    rows = decided_claims((_row_claim(key) for key in decided), sources)
    exhibits, front = _exhibits(name), front_matter(name)
    for row in rows:
        link = _key_link(name, row, front)
        target = _REF.fullmatch(link)
        assert target is not None and target["key"] == row.key, (
            f"{name}: the row {row.key} links no figure or table: {link}"
        )
        exhibit = exhibits.get(target["label"])
        assert exhibit is not None, (
            f"{name}: {row.key} links {target['label']}, which no exhibit draws from a record"
        )
        assert exhibit.record == decided[row.claim.key], (
            f"{name}: {row.key} was decided on {decided[row.claim.key]}; its link "
            f"{target['label']} is drawn from {exhibit.record}"
        )
        assert row.claim.key.endswith(exhibit.suffix), (  # ono2020: <key>_reference_tuned
            f"{name}: {row.key} was decided as {row.claim.key}; its link {target['label']} "
            f"draws the claims keyed {exhibit.suffix}"
        )
    if name in ALL_ON_RECORDS:
        specs = importlib.import_module(f"privrl.papers.{name}.claims").CLAIMS
        set_ups = {source.decides for source in sources}  # ono2020: "" and "_reference"
        assert {spec.key + on for spec in specs for on in set_ups} == {row.key for row in rows}, (
            f"{name}: a claim is decided on no record"
        )
