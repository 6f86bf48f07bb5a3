"""The toy chapter's typed profile: the quick values as defaults, the paper's in ``PAPER_SCALE``."""

from __future__ import annotations

from dataclasses import dataclass

from privrl.chapter.profile import Profile

PAPER = "toy2024"


@dataclass(frozen=True)
class ToyProfile(Profile):
    """``n_trials`` releases at each record count of ``sizes``, each at ``epsilon``."""

    n_trials: int = 20
    sizes: tuple[int, ...] = (10, 1000)
    epsilon: float = 1.0
    PAPER_SCALE = {"n_trials": 100}

    @property
    def largest(self) -> int:
        """The largest record count, the one whose release the ledger records."""
        return max(self.sizes)

    @property
    def scale(self) -> float:
        """The Laplace scale of the mean at :attr:`largest`: sensitivity ``1/n`` over epsilon."""
        return 1 / (self.largest * self.epsilon)

    def validate(self) -> None:
        if self.epsilon <= 0:
            raise ValueError(f"epsilon must be > 0, got {self.epsilon}")
        if len(self.sizes) < 2 or min(self.sizes) < 1:
            raise ValueError(f"sizes must hold two record counts >= 1, got {self.sizes}")
