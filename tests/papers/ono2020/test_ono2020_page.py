"""The ono2020 chapter page (issue 35): Tables 1-3 beside the paper's cells, the claims of both
recorded set-ups side by side and their counts, the figures' paper marks and legends, and the
front matter's evidence and departure links, each a label the notebook defines."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

from privrl.chapter.decided import decided_claims  # noqa: E402
from privrl.chapter.front import front_matter  # noqa: E402
from privrl.chapter.verdicts import Claim  # noqa: E402
from privrl.papers.ono2020 import page, plots  # noqa: E402
from privrl.papers.ono2020.claims import CLAIMS  # noqa: E402
from privrl.papers.ono2020.profile import INF, PAPER_TABLES  # noqa: E402
from privrl.papers.ono2020.sources import (  # noqa: E402
    ON_REFERENCE,
    PAPER_RUN,
    REFERENCE_RUN,
    SOURCES,
    TUNED_RUN,
)
from privrl.papers.ono2020.tables import success_tables  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
NOTEBOOK = ROOT / "notebooks" / "ono2020.ipynb"


def _trials(
    counts: dict[tuple[str, str, float], int],
    n: int = 20,
    cap: int = 90_000,
    first: float = 1_000.0,
) -> pd.DataFrame:
    """Trials of (variant, mechanism, epsilon) with ``counts`` successes at ``first`` each."""
    rows = []
    for (variant, mech, eps), k in counts.items():
        for t in range(n):
            ok = t < k
            rows.append(
                {
                    "variant": variant,
                    "mechanism": mech,
                    "epsilon": eps,
                    "trial": t,
                    "first_success": first + t if ok else INF,
                    "success": ok,
                }
            )
    return pd.DataFrame(rows)


@pytest.mark.parametrize("metric", ["median_fst", "success_ratio", "relative_auc"])
def test_paper_cells_are_the_printed_tables(metric):
    """Every cell read from book/paper_numbers is the chapter's printed value; PRS has no
    no-noise cell."""
    for mech in ("laplace", "prs"):
        for eps in page.TABLE_EPSILONS:
            printed = PAPER_TABLES[metric].get((mech, eps))
            assert page.paper_cell(metric, mech, eps) == printed


def test_paper_beside_ours_writes_the_paper_row_then_ours():
    trials = _trials(
        {("paper", "laplace", 1.0): 8, ("paper", "laplace", INF): 20, ("paper", "prs", 1.0): 3}
    )
    tables = success_tables(trials, 90_000)
    ratio = page.paper_beside_ours("success_ratio", ours=(tables, "paper"))
    assert list(ratio.source) == ["paper (Table 2)", "ours", "paper (Table 2)", "ours"]
    laplace_ours = ratio.iloc[1]
    assert laplace_ours["ε = 1"] == "0.40 (8/20)" and laplace_ours["no noise"] == "1.00 (20/20)"
    assert laplace_ours["ε = 2"] == page.NO_CELL  # not run
    assert ratio.iloc[0]["ε = 1"] == "0.80" and ratio.iloc[2]["no noise"] == page.NO_CELL
    median = page.paper_beside_ours("median_fst", ours=(tables, "paper"))
    assert median.iloc[0]["ε = 2"] == "20,238.5" and median.iloc[0]["no noise"] == "1,769"
    assert median.iloc[1]["ε = 1"] == "not reached"  # 8 of 20: the median is not reached
    assert re.fullmatch(r"1,010 \[[\d,]+, [\d,]+\]", median.iloc[1]["no noise"])
    auc = page.paper_beside_ours("relative_auc", ours=(tables, "paper"))
    assert auc.iloc[1]["no noise"] == "1.000"
    failed = success_tables(_trials({("paper", "laplace", INF): 0}), 90_000)
    assert (
        page.paper_beside_ours("relative_auc", ours=(failed, "paper")).iloc[1]["no noise"]
        == "undefined"
    )


def test_table1_against_its_text_names_the_rise_of_the_laplace_median(monkeypatch):
    text = page.table1_against_its_text()
    assert "from 18,377 at ε = 1 to 20,238.5 at ε = 2" in text
    assert "5 to" not in text  # 5,714.5 -> 4,055 -> 1,769 fall
    falling = {1.0: 4.0, 2.0: 3.0, 5.0: 2.0, 10.0: 1.0, INF: 0.5}
    monkeypatch.setattr(page, "paper_cell", lambda metric, mech, eps: falling[eps])
    assert page.table1_against_its_text() == ""


def _claim(key: str, verdict: str) -> Claim:
    return Claim(
        verdict=verdict,
        statistic="s",
        value=None,
        interval=None,
        n_trials=20,
        reason="r",
        key=key,
        statement=f"statement of {key}",
        profile="paper",
        commit="c",
    )


def test_claims_side_by_side_and_counts_read_each_recorded_set_up():
    claims = [
        _claim("a", "untestable"),
        _claim("a" + PAPER_RUN.suffix, "not reproduced"),
        _claim("a" + ON_REFERENCE, "inconclusive"),
        _claim("a" + REFERENCE_RUN.suffix, "reproduced"),
        _claim("b", "inconclusive"),
        _claim("b" + PAPER_RUN.suffix, "untestable"),
    ]
    frame = page.claims_side_by_side(claims)
    assert frame.to_dict("records") == [
        {
            "key": "a",
            "claim": "statement of a",
            "the paper's set-up": "not reproduced",
            "reference set-up": "reproduced",
        },
        {
            "key": "b",
            "claim": "statement of b",
            "the paper's set-up": "untestable",
            "reference set-up": "not recorded",
        },
    ]
    decided = decided_claims(claims, SOURCES)
    assert page.set_up_counts(decided, reference=False) == "1 not reproduced, 1 untestable"
    assert page.set_up_counts(decided, reference=True) == "1 reproduced"
    assert page.set_up_counts([], reference=False) == "no claims"
    # where the tuned record decides the reference set-up, its verdict is the one counted
    tuned = decided_claims([*claims, _claim("a" + TUNED_RUN.suffix, "inconclusive")], SOURCES)
    assert page.set_up_counts(tuned, reference=True) == "1 inconclusive"


def test_claims_side_by_side_adds_the_tuned_record_where_it_is_recorded():
    claims = [
        _claim("a", "untestable"),
        _claim("a" + REFERENCE_RUN.suffix, "inconclusive"),
        _claim("a" + TUNED_RUN.suffix, "reproduced"),
        _claim("b", "inconclusive"),
    ]
    frame = page.claims_side_by_side(claims)
    assert frame.key.tolist() == ["a", "b"]  # a tuned claim is no claim of its own
    assert frame[page.TUNED_COLUMN].tolist() == ["reproduced", "not recorded"]
    assert frame["reference set-up"].tolist() == ["inconclusive", "not recorded"]


def test_readable():
    frame = page.readable(pd.DataFrame({"x": ["at epsilon = inf, epsilon = 2", 3]}))
    assert frame.x.tolist() == ["at ε = ∞ (no noise), ε = 2", 3]


def _notebook_labels() -> set[str]:
    """The MyST labels the notebook defines: ``(label)=`` targets and figure names."""
    labels = set()
    for cell in json.loads(NOTEBOOK.read_text())["cells"]:
        source = "".join(cell["source"])
        labels |= set(re.findall(r"^\(([\w.-]+)\)=$", source, flags=re.M))
        name = cell.get("metadata", {}).get("mystnb", {}).get("figure", {}).get("name")
        if name:
            labels.add(name)
    return labels


def test_every_decided_claim_has_its_evidence_label_on_the_page():
    """Each claim key of both set-ups (without the record's suffix) maps to a label the notebook
    defines, a key of the tuned record (``_reference_tuned``) to the figure drawn from that
    record, and every departure links one."""
    fm = front_matter("ono2020")
    keys = {spec.key for spec in CLAIMS} | {spec.key + ON_REFERENCE for spec in CLAIMS}
    tuned = {k for k in fm.evidence if k.endswith(TUNED_RUN.suffix)}
    assert set(fm.evidence) - tuned == keys
    assert {k.removesuffix(TUNED_RUN.suffix) for k in tuned} <= {spec.key for spec in CLAIMS}
    assert {fm.evidence[k] for k in tuned} == {"fig-ono2020-tables-tuned"}
    labels = _notebook_labels()
    assert set(fm.evidence.values()) <= labels
    assert fm.departures and all(d.link in labels for d in fm.departures)


def _legend_labels(fig) -> list[str]:
    return [t.get_text() for legend in fig.legends for t in legend.get_texts()]


def test_plot_tables_marks_the_paper_cells_and_keeps_the_legend_outside():
    tables = success_tables(
        _trials(
            {
                ("paper", m, e): 10
                for m in ("laplace", "prs")
                for e in page.TABLE_EPSILONS
                if not (m == "prs" and math.isinf(e))
            }
        ),
        90_000,
    )
    fig = plots.plot_tables(tables, "paper", 90_000)
    ax_ratio = fig.axes[0]
    diamonds = [
        line for line in ax_ratio.get_lines() if line.get_label() == plots.PAPER_TABLES_LABEL
    ]
    drawn = sorted(np.concatenate([line.get_ydata() for line in diamonds]))
    assert drawn == sorted(PAPER_TABLES["success_ratio"].values())
    assert all(ax.get_legend() is None for ax in fig.axes)
    assert 1 <= len(_legend_labels(fig)) <= 8
    matplotlib.pyplot.close(fig)


def test_plot_failure_lists_only_the_deviations_it_draws():
    """Figure 6.5's defect: a deviation without report statistics (no clip) drew no line but
    had a legend entry."""
    stats = {
        "raw_norm_q10": 1.0,
        "raw_norm_q50": 2.0,
        "raw_norm_q90": 3.0,
        "update_norm": 0.1,
        "actor_share": 0.3,
        "majority_fraction": 0.8,
    }
    rows = [
        {"variant": v, "epsilon": e, "trial": t, "submission": s, **stats}
        for v, e in (("paper", INF), ("paper", 1.0), ("clip100", INF), ("no_clip", INF))
        for t in range(2)
        for s in (50, 100)
    ]
    diagnostics = pd.DataFrame(rows)
    diagnostics.loc[diagnostics.variant == "no_clip", "majority_fraction"] = np.nan
    fig = plots.plot_failure(diagnostics)
    labels = _legend_labels(fig)
    assert any("clip C = 100" in label for label in labels)
    assert not any("no clipping" in label for label in labels)
    matplotlib.pyplot.close(fig)


def test_plot_failure_says_where_a_deviation_stops():
    stats = {
        "raw_norm_q10": 1.0,
        "raw_norm_q50": 2.0,
        "raw_norm_q90": 3.0,
        "update_norm": 0.1,
        "actor_share": 0.3,
        "majority_fraction": 0.8,
    }
    diagnostics = pd.DataFrame(
        [
            {"variant": v, "epsilon": INF, "trial": 0, "submission": s, **stats}
            for v in ("paper", "no_clip")
            for s in (50, 100, 150)
        ]
    )
    diagnostics.loc[
        (diagnostics.variant == "no_clip") & (diagnostics.submission > 50), "majority_fraction"
    ] = np.nan
    fig = plots.plot_failure(diagnostics)
    assert "no clipping (statistics end at 50)" in _legend_labels(fig)
    matplotlib.pyplot.close(fig)


def test_page_tables_in_words():
    failure = pd.DataFrame(
        [
            {
                "variant": "no_clip",
                "epsilon": INF,
                "clipped_fraction": 0.0,
                "median_raw_norm": 4.719e12,
                "update_norm": INF,
                "late_score": np.nan,
                "late_majority_fraction": np.nan,
                "collapsed_trials": 0.0,
                "late_entropy": np.nan,
            }
        ]
    )
    frame = page.failure_frame(failure)
    assert list(frame.columns) == list(page.FAILURE_COLUMNS.values())
    assert frame.iloc[0]["set-up"] == "no clipping"
    assert frame.iloc[0]["median raw L1 norm"] == "4.72e+12"
    steps = pd.DataFrame({"arm": ["laplace ε = ∞ (no noise) |B|=1", "prs ε = 1 |B|=100"]})
    assert page.step_table_in_words(steps).arm.tolist() == [
        "Laplace, ε = ∞ (no noise), |B| = 1",
        "PRS, ε = 1, |B| = 100",
    ]
    text = page.figure3_sentences()
    assert "With larger ε, both algorithms" in text and "varepsilon" not in text


def test_errata_markdown_lists_each_erratum_in_words():
    from privrl.chapter.verdicts import Erratum

    text = page.errata_markdown([Erratum("eq24", "wrong", "At epsilon = inf it is.", "checked")])
    assert text == "- **wrong** (`eq24`): At ε = ∞ (no noise) it is. *Evidence:* checked\n"


def test_tuned_arms_name_each_arms_step_tuning_score_and_successes():
    scores = pd.DataFrame(
        {
            "mechanism": ["prs", "prs"],
            "epsilon": [1.0, 1.0],
            "buffer_size": [100, 100],
            "step_size": [0.01, 0.03],
            "n_trials": [10, 10],
            "successes": [1, 3],
            "auc": [0.4, 0.3],
            "auc_lo": [0.1, 0.25],
            "auc_hi": [0.5, 0.35],
            "chosen": [False, True],
            "chosen_auc": [True, False],
        }
    )
    trials = pd.DataFrame(
        {
            "mechanism": ["prs"] * 3 + ["laplace"],
            "epsilon": [1.0] * 3 + [INF],
            "buffer_size": [100] * 3 + [1],
            "step_size": [0.03] * 3 + [0.1],
            "success": [True, False, True, True],
        }
    )
    table = page.tuned_arms(trials, scores)
    assert table.to_dict("records")[0] == {
        "arm": "PRS, ε = 1, |B| = 100",
        "step": 0.03,
        "tuning: successes, mean AUC [95% interval]": "3 of 10, 0.3 [0.25, 0.35]",
        "step of highest mean AUC": "0.01",
        "evaluation: successes": "2 of 3",
    }
    assert table.iloc[1]["tuning: successes, mean AUC [95% interval]"].startswith("not tuned")
