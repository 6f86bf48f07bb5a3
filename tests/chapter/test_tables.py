"""Tables for reading (:mod:`privrl.chapter.tables`): exact strings for every rule."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from privrl.chapter.tables import COLUMN_CHARS, Table, format_number, format_table


@pytest.mark.parametrize(
    "x, text",
    [
        (5787.010142, "5787"),  # never cut into the integer part
        (0.0123456, "0.0123"),
        (123.456, "123"),
        (3.14159, "3.14"),
        (0.5, "0.5"),  # no trailing zeros without an uncertainty
        (2.0, "2"),
        (90000, "90,000"),  # thousands separated from five digits on
        (1234, "1234"),
        (12345.678, "12,346"),
        (-12345.6, "-12,346"),
        (1e6, "1,000,000"),
        (1.2345e-7, "1.23e-7"),
        (-1e-5, "-1e-5"),
        (0.0, "0"),
        (np.float64(3.14159), "3.14"),
        (np.int64(7), "7"),
        (math.inf, "∞"),
        (-math.inf, "-∞"),
    ],
)
def test_numbers_keep_three_significant_digits(x, text):
    assert format_number(x) == text


def test_digits_decimals_and_no_noise():
    assert format_number(3.14159, digits=5) == "3.1416"
    assert format_number(0.1, decimals=3) == "0.100"  # an uncertainty fixed the decimals
    assert format_number(-0.0001, decimals=2) == "0.00"  # no negative zero
    assert format_number(5787.0, decimals=-2) == "5800"
    assert format_number(math.inf, epsilon=True) == "no noise"
    assert format_number(-math.inf, epsilon=True) == "-∞"


def _ledger() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "method": ["GPOPE", "DP-LSW", "none"],
            "epsilon": [1.0, 0.5, math.inf],
            "mean": [0.123456, 12.3456, 5787.01],
            "ci": [(0.1, 0.15), (10.0, 14.8), (5000.0, 6500.0)],
            "epsilon_pld": [1.234, np.nan, math.inf],
            "decided": [True, False, np.True_],
            "n": [20, 8, 90000],
        }
    )


def test_a_table_for_reading():
    table = format_table(
        _ledger(),
        errors={"mean": "ci"},
        headers={"n": "trials"},
        missing={"epsilon_pld": "not DP-SGD"},
    )
    assert list(table.frame.columns) == [
        "method",
        "epsilon",
        "mean",
        "ci",
        "epsilon pld",
        "decided",
        "trials",
    ]
    assert table.frame.to_numpy().tolist() == [
        ["GPOPE", "1", "0.123", "[0.100, 0.150]", "1.23", "yes", "20"],
        ["DP-LSW", "0.5", "12.3", "[10.0, 14.8]", "not DP-SGD", "no", "8"],
        # inf is "no noise" in the epsilon setting, "∞" in a computed epsilon
        ["none", "no noise", "5800", "[5000, 6500]", "∞", "yes", "90,000"],
    ]


def test_a_value_takes_the_precision_of_its_standard_error():
    df = pd.DataFrame({"mean": [0.123456, 0.123456], "se": [0.0042, 0.042]})
    assert format_table(df, errors={"mean": "se"}).frame["mean"].tolist() == ["0.1235", "0.123"]


def test_missing_values_are_explained_or_dropped_never_nan():
    df = pd.DataFrame({"method": ["a", "b", None], "value": [1.5, np.nan, 2.5]})
    with pytest.raises(ValueError, match="missing: column 'value' has 1 missing values"):
        format_table(df.iloc[:2])
    assert format_table(df, missing="not run").frame.to_numpy().tolist() == [
        ["a", "1.5"],
        ["b", "not run"],
        ["not run", "2.5"],
    ]
    assert format_table(df, drop_missing=True).frame.to_numpy().tolist() == [["a", "1.5"]]
    with pytest.raises(ValueError, match="missing: give a text"):
        format_table(df, missing="x", drop_missing=True)


def test_headers_in_words_and_pivoted_numbers():
    df = pd.DataFrame([[0.25, 0.5]], columns=[1.0, 2.0])
    assert list(format_table(df).frame.columns) == ["1", "2"]
    df = pd.DataFrame({"mountain_car_off": [1]})
    assert list(format_table(df).frame.columns) == ["mountain car off"]
    assert list(
        format_table(df, headers={"mountain_car_off": "Mountain Car, off-policy"}).frame.columns
    ) == ["Mountain Car, off-policy"]


def test_no_cell_is_cut_and_html_is_escaped():
    long = "the stated hyper-parameters do not learn; on the reference set-up " * 3
    table = format_table(pd.DataFrame({"reason": [long], "x": ["a < b"]}))
    assert table.frame.iloc[0, 0] == long
    html = table.to_html()
    assert long in html and "a &lt; b" in html and "..." not in html


def test_a_narrow_table_is_plain_html():
    assert format_table(pd.DataFrame({"a": [1]})).to_html() == (
        '<table class="privrl-table"><thead><tr><th>a</th></tr></thead>'
        "<tbody><tr><td>1</td></tr></tbody></table>"
    )


def test_a_wide_table_scrolls_in_its_own_box():
    narrow = pd.DataFrame({"a": ["x" * (COLUMN_CHARS - 2)]})
    wide = pd.DataFrame({"a": ["x" * (COLUMN_CHARS - 1)]})
    assert not format_table(narrow).wide
    table = format_table(wide)
    assert table.wide
    assert table.to_html().startswith(
        '<div class="privrl-scroll" style="overflow-x: auto"><table class="privrl-table">'
    )
    assert table._repr_html_() == table.to_html()


def test_arguments_are_checked_by_name():
    df = pd.DataFrame({"mean": [1.0]})
    with pytest.raises(ValueError, match="errors: no column 'ci'"):
        format_table(df, errors={"mean": "ci"})
    with pytest.raises(ValueError, match="precision must be at least 1"):
        format_table(df, precision=0)


def test_formatting_is_outside_every_records_code_closure():
    """A chapter importing the formatter does not make its recorded runs stale on an edit of it."""
    from privrl.chapter.records import computes_numbers

    assert not computes_numbers("privrl.chapter.tables")
    assert computes_numbers("privrl.chapter.ledger")


def test_a_table_as_markdown_keeps_roles_and_escapes_pipes():
    table = Table(pd.DataFrame({"a": ["|B| = 1"], "b": ["{ref}`x`"]}, dtype=object))
    assert table.to_markdown().splitlines() == [
        "| a | b |",
        "| --- | --- |",
        "| \\|B\\| = 1 | {ref}`x` |",
    ]


def test_a_table_laid_out_for_reading_has_fixed_shares_and_a_column_beneath_another():
    frame = pd.DataFrame({"claim": ["A claim " * 30], "key": ["a_key"], "verdict": ["reproduced"]})
    table = format_table(frame, beneath={"claim": "key"}, widths={"claim": 0.7, "verdict": 0.3})
    assert list(table.frame.columns) == ["claim", "verdict"] and not table.wide
    html = table.to_html()
    assert html.startswith(
        '<table class="privrl-table privrl-fixed"><colgroup>'
        '<col style="width: 70%"><col style="width: 30%"></colgroup>'
    )
    assert '<br><small class="privrl-beneath">a_key</small></td>' in html
    assert table.to_markdown().splitlines()[2].startswith(
        "| A claim A claim"
    ) and '<br><small class="privrl-beneath">a_key</small> |' in (table.to_markdown())
    with pytest.raises(ValueError, match="widths"):
        format_table(frame, beneath={"claim": "key"}, widths={"claim": 0.5, "verdict": 0.3})
    with pytest.raises(ValueError, match="beneath"):
        format_table(frame, beneath={"claim": "nothing"})


def test_an_infinite_value_is_written_in_the_columns_words():
    frame = pd.DataFrame({"median time": [12.0, math.inf], "epsilon": [math.inf, 1.0]})
    table = format_table(frame, infinite={"median time": "not reached"})
    assert table.frame["median time"].tolist() == ["12", "not reached"]
    assert table.frame["epsilon"].tolist() == ["no noise", "1"]
    with pytest.raises(ValueError, match="infinite: no column 'x'"):
        format_table(frame, infinite={"x": "never"})
