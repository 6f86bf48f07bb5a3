"""The paper's own sentences beside the verdicts that decide them.

A figure-only claim of a paper (a sentence without a number) is quoted from its seed text
(``book/paper_numbers/<paper>.yml``, :func:`~privrl.chapter.paper_numbers.paper_number`) under
the figure that tests it, with the verdicts of the claims that decide it as the book reports
them (:func:`~privrl.chapter.decided.decided_claims`: the record's where there is one), never
typed and never chosen here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from privrl.chapter.decided import Decided
from privrl.chapter.paper_numbers import paper_number

#: The verdict cell of a sentence no claim of the chapter tests.
NOT_DECIDED = "not decided: no claim of this chapter tests it"


def _verdicts(keys: Sequence[str], decided: Sequence[Decided]) -> dict[str, str]:
    """The decided verdict of each of ``keys`` (claim keys without a record's suffix); a key
    not among ``decided`` is a ``ValueError`` naming it."""
    verdicts = {d.key: d.claim.verdict for d in decided}
    missing = [k for k in keys if k not in verdicts]
    if missing:
        raise ValueError(f"claims: no decided verdict for {missing}")
    return {k: verdicts[k] for k in keys}


def sentences_list(
    name: str, sentences: Mapping[str, Sequence[str]], decided: Sequence[Decided]
) -> str:
    """Markdown list: each sentence of paper ``name`` (``sentences``: key of its paper numbers
    -> the claim keys that decide it), quoted with its line, and the verdicts of those claims in
    ``decided`` (:data:`NOT_DECIDED` for a sentence with no deciding claim); a deciding claim
    missing from ``decided`` is a ``ValueError`` naming it."""
    lines = []
    for key, claim_keys in sentences.items():
        number = paper_number(name, key)
        verdicts = _verdicts(claim_keys, decided)
        text = "; ".join(f"*{v}* (`{k}`)" for k, v in verdicts.items()) or NOT_DECIDED
        lines.append(
            f"- The paper ({number.where}, line {number.source.line}): "
            f'"...{number.source.quote}" Our verdict: {text}.'
        )
    return "\n".join(lines)


def sentences_frame(
    name: str, sentences: Mapping[str, Sequence[str]], decided: Sequence[Decided]
) -> pd.DataFrame:
    """Table: each sentence of paper ``name`` (``sentences``: key of its paper numbers -> the
    claim keys that decide it), quoted with where it says it, beside the verdicts of those
    claims in ``decided`` (:data:`NOT_DECIDED` for a sentence with no deciding claim); a
    deciding claim missing from ``decided`` is a ``ValueError`` naming it."""
    rows = []
    for number_key, keys in sentences.items():
        number = paper_number(name, number_key)
        verdicts = _verdicts(keys, decided)
        rows.append(
            {
                "the paper says": f"\u201c{number.source.quote}\u201d",
                "where": number.where,
                "verdict": "; ".join(f"{k}: {v}" for k, v in verdicts.items()) or NOT_DECIDED,
            }
        )
    return pd.DataFrame(rows)


__all__ = ["NOT_DECIDED", "sentences_frame", "sentences_list"]
