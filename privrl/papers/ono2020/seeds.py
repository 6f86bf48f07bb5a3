"""ono2020: which seeds chose each tuned arm's step and which seeds decide it, for the validity
condition :func:`~privrl.chapter.validity.tuned_apart` (claims on a tuned arm are decided on
seeds never looked at before, the arms a claim compares tuned by one rule).

A seed is ``(root seed, index)``: the run of a sweep with that root and seed index
(:func:`privrl.chapter.sweep.seed_for`) draws every trial of its batch from it, so two batches
share random streams exactly when they share a seed. The tidy tables number trials over a
sweep's seeds (``trial = index * per_seed + trial in the batch``).

* The reference set-up (:mod:`.reference`): its step sweep under root ``seed +``
  :data:`~privrl.papers.ono2020.reference.TUNING_SEED_OFFSET`, its evaluation under ``seed``
  (:func:`reference_tunings`).
* The tuned record (:mod:`.tuning`): every private arm tuned under its own tuning root and
  decided under its evaluation root; looked at before: its tuning, and the reference set-up's
  sweep and evaluation of the arm that prompted the re-tuning. The non-private baseline stands at
  the reference set-up's step, so it was chosen by the reference set-up's rule on its sweep and
  evaluation (:func:`tuned_tunings`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from privrl.chapter.validity import Tuning
from privrl.papers.ono2020.profile import REFERENCE
from privrl.papers.ono2020.reference import TUNING_SEED_OFFSET

Arm = tuple[str, float, int]
Seed = tuple[int, int]
ARM_COLUMNS = ["mechanism", "epsilon", "buffer_size"]


def arm_seeds(trials: pd.DataFrame, root: int, per_seed: int) -> dict[Arm, frozenset[Seed]]:
    """Per arm (mechanism, epsilon, buffer size) of ``trials``: the seeds its trials were drawn
    from, ``(root, trial // per_seed)``."""
    return {
        (str(m), float(e), int(b)): frozenset((int(root), int(t) // per_seed) for t in g["trial"])
        for (m, e, b), g in trials.groupby(ARM_COLUMNS)
    }


def tunings(
    rule: str, deciding: Mapping[Arm, frozenset[Seed]], *looked_at: Mapping[Arm, frozenset[Seed]]
) -> dict[tuple[str, float], Tuning]:
    """Per arm of ``deciding``, keyed (mechanism, epsilon) as the claims read the arms of Tables
    1-3 (one buffer size each): its :class:`~privrl.chapter.validity.Tuning` under ``rule``,
    looked at on every seed ``looked_at`` holds for the same arm."""
    out = {}
    for arm, seeds in deciding.items():
        key = arm[:2]
        if key in out:
            raise ValueError(f"tunings: two buffer sizes of {key} decide claims on one arm")
        seen = frozenset().union(*(looks.get(arm, frozenset()) for looks in looked_at))
        label = f"{arm[0]} ε={arm[1]:g} |B|={arm[2]}"
        out[key] = Tuning(label, rule, seen, seeds)
    return out


def reference_rule(tuning_trials: int, tuning_submissions: int) -> str:
    """The reference set-up's rule (:func:`.reference.chosen_steps`), in words."""
    return (
        f"most successes over {tuning_trials} tuning trials of {tuning_submissions:,} "
        "submissions, then the lower median first success time, then the smaller step"
    )


#: The tuned record's criteria (:data:`.tuning.CRITERIA`) in words: the verdicts' rule and the
#: sensitivity reading's.
TUNED_RULES = {
    "successes": "most tuning successes, then mean AUC, then the smaller step",
    "auc": "highest mean AUC, then the smaller step",
}


def tuned_rule(params: Mapping[str, Any], criterion: str = "successes") -> str:
    """The tuned record's rule under ``criterion`` (:data:`TUNED_RULES`; the verdicts' as the
    record's ``params`` state it), with its tuning trials and budget from ``params``."""
    words = params["rule"] if criterion == "successes" else TUNED_RULES[criterion]
    return (
        f"{words}, over {int(params['tuning_trials'])} tuning trials of "
        f"{int(params['tuning_submissions']):,} submissions"
    )


def reference_looks(
    sweep: pd.DataFrame, trials: pd.DataFrame, seed: int, params: Mapping[str, Any]
) -> tuple[dict[Arm, frozenset[Seed]], ...]:
    """The reference set-up's seeds per arm: of its step ``sweep`` and of its evaluation
    ``trials`` (variant reference), under the profile ``seed`` and ``params``
    (``tuning_trials``, ``trials_per_seed``)."""
    return (
        arm_seeds(sweep, seed + TUNING_SEED_OFFSET, int(params["tuning_trials"])),
        arm_seeds(trials[trials["variant"] == REFERENCE], seed, int(params["trials_per_seed"])),
    )


def reference_tunings(
    sweep: pd.DataFrame, trials: pd.DataFrame, seed: int, params: Mapping[str, Any]
) -> dict[tuple[str, float], Tuning]:
    """The reference set-up's arms (:func:`reference_looks`): each chosen by
    :func:`reference_rule` on its sweep, decided on its evaluation."""
    swept, evaluated = reference_looks(sweep, trials, seed, params)
    rule = reference_rule(int(params["tuning_trials"]), int(params["tuning_submissions"]))
    return tunings(rule, evaluated, swept)


def tuned_tunings(
    tuning: pd.DataFrame,
    trials: pd.DataFrame,
    params: Mapping[str, Any],
    reference: tuple[dict[Arm, frozenset[Seed]], ...],
    reference_rule_words: str,
    rule: str,
) -> dict[tuple[str, float], Tuning]:
    """The tuned record's arms: its ``trials`` (decided under ``params["evaluation_root_seed"]``,
    ``trials_per_seed`` each) of the private arms its ``tuning`` tuned by ``rule`` (under
    ``tuning_root_seed``, ``tuning_trials`` each), looked at on that tuning and on the
    ``reference`` set-up's sweep and evaluation (:func:`reference_looks`); the other arms (the
    non-private baseline at the reference set-up's step) by ``reference_rule_words``, looked at
    on the reference set-up's seeds."""
    deciding = arm_seeds(
        trials, int(params["evaluation_root_seed"]), int(params["trials_per_seed"])
    )
    tuned = arm_seeds(tuning, int(params["tuning_root_seed"]), int(params["tuning_trials"]))
    rules = {arm: rule if arm in tuned else reference_rule_words for arm in deciding}
    out: dict[tuple[str, float], Tuning] = {}
    for words in set(rules.values()):
        out.update(
            tunings(
                words, {a: s for a, s in deciding.items() if rules[a] == words}, tuned, *reference
            )
        )
    return out
