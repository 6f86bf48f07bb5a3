"""The paper's own sentences beside the verdicts that decide them.

A figure-only claim of a paper (a sentence without a number) is quoted from its seed text
(``book/paper_numbers/<paper>.yml``, :func:`~privrl.chapter.paper_numbers.paper_number`) under
the figure that tests it, with the verdicts of the claims that decide it, read from the chapter's
decided claims, never typed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import pandas as pd

from privrl.chapter.paper_numbers import paper_number
from privrl.chapter.verdicts import Claim

#: The verdict cell of a sentence no claim of the chapter tests.
NOT_DECIDED = "not decided: no claim of this chapter tests it"


def paper_claims(name: str, pairs: Mapping[str, Sequence[str]], claims: Iterable[Claim]) -> str:
    """Markdown list: each sentence of paper ``name`` (``pairs``: key of its paper numbers ->
    the claim keys that decide it), quoted with its line, and the verdicts of those claims as
    decided in ``claims`` ("not decided by this run" when none of them is there)."""
    decided = {c.key: c for c in claims}
    lines = []
    for key, claim_keys in pairs.items():
        number = paper_number(name, key)
        verdicts = (
            "; ".join(f"*{decided[k].verdict}* (`{k}`)" for k in claim_keys if k in decided)
            or "not decided by this run"
        )
        lines.append(
            f"- The paper ({number.where}, line {number.source.line}): "
            f'"...{number.source.quote}" Our verdict: {verdicts}.'
        )
    return "\n".join(lines)


def sentences_frame(
    name: str, sentences: Mapping[str, Sequence[str]], claims: pd.DataFrame, suffix: str = "_paper"
) -> pd.DataFrame:
    """Table: each sentence of paper ``name`` (``sentences``: key of its paper numbers -> the
    claims that decide it), quoted with where it says it, beside the verdicts of those claims
    read from ``claims`` (columns ``key``, ``verdict``) keyed ``<claim><suffix>``;
    :data:`NOT_DECIDED` for a sentence with no deciding claim. A deciding claim missing from
    ``claims`` is a ``ValueError`` naming it."""
    verdicts = dict(zip(claims["key"], claims["verdict"], strict=True))
    rows = []
    for number_key, keys in sentences.items():
        number = paper_number(name, number_key)
        missing = [k + suffix for k in keys if k + suffix not in verdicts]
        if missing:
            raise ValueError(f"claims: no verdict for {missing}")
        rows.append(
            {
                "the paper says": f"\u201c{number.source.quote}\u201d",
                "where": number.where,
                "verdict": "; ".join(f"{k}: {verdicts[k + suffix]}" for k in keys) or NOT_DECIDED,
            }
        )
    return pd.DataFrame(rows)


__all__ = ["NOT_DECIDED", "paper_claims", "sentences_frame"]
