r"""Gaussian-process (Ornstein-Uhlenbeck) functional noise on :math:`[0, 1]` (Wang and Hegde 2019).

The noise of Algorithm 1 is a path :math:`g \sim \mathcal G(0, \sigma^2 K)`,
:math:`K(x, y) = \exp(-\beta |x - y|)`, the stationary OU process: Markov, so a new point
:math:`s_l < s < s_r` depends on its stored neighbours only (Equation (2), Appendix A), with
:math:`d_1 = s - s_l`, :math:`d_2 = s_r - s`

.. math::
    \mathbb E[g(s) \mid \cdot] = \frac{\sinh(\beta d_2) g(s_l) + \sinh(\beta d_1) g(s_r)}
        {\sinh(\beta(d_1 + d_2))}, \qquad
    \operatorname{Var}[g(s) \mid \cdot] = \frac{\sigma^2 (1-e^{-2\beta d_1})(1-e^{-2\beta d_2})}
        {1-e^{-2\beta(d_1+d_2)}};

beyond the stored range, mean :math:`e^{-\beta d} g(s_{\text{nearest}})` and variance
:math:`\sigma^2(1 - e^{-2\beta d})` (anchored on the nearest point; the authors' code anchors
the right end on the leftmost value, an erratum). RKHS (Lemma 6): :math:`H^1[0,1]` with
:math:`\|f\|_{\mathcal H}^2 = \frac{1}{2}(\beta \int f^2 + \frac{1}{\beta}\int f'^2 + f(0)^2 +
f(1)^2) \le (1 + \beta/2) c^2 + L^2/(2\beta)` for :math:`\|f\|_\infty \le c`, Lipschitz
:math:`L` (:func:`rkhs_norm_squared`). Batched queries (Proposition 9) run in
:math:`O(N \log N)` (a forward recursion beyond the range, rounds of one point per gap inside).
"""

from __future__ import annotations

from typing import cast

import numpy as np

from privrl.core.rng import SeedLike, as_generator
from privrl.core.validation import check_int, check_nonnegative, check_positive

# exp(2 * beta * tau) is kept below exp(_MAX_EXPONENT) in the forward recursion.
_MAX_EXPONENT = 600.0


def _check_states(states: object) -> np.ndarray:
    arr = np.asarray(states, dtype=float)
    if not np.all(np.isfinite(arr)):
        raise ValueError("states must be finite")
    if arr.size and (arr.min() < 0.0 or arr.max() > 1.0):
        raise ValueError(f"states must lie in [0, 1], got range [{arr.min()}, {arr.max()}]")
    return arr


def ou_kernel(x: np.ndarray, y: np.ndarray, beta: float, sigma: float) -> np.ndarray:
    """Dense covariance matrix :math:`\\sigma^2 \\exp(-\\beta|x_i - y_j|)`."""
    beta = check_positive(beta, "beta")
    sigma = check_nonnegative(sigma, "sigma")
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    return sigma**2 * np.exp(-beta * np.abs(x[:, None] - y[None, :]))


def bridge_moments(
    d1: np.ndarray,
    d2: np.ndarray,
    g_left: np.ndarray,
    g_right: np.ndarray,
    beta: float,
    sigma: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Conditional mean and variance of :math:`g(s)` between two stored neighbours (Eq. (2)).

    ``d1 = s - s_left > 0``, ``d2 = s_right - s > 0``. Written with decaying exponentials so it is
    stable for large ``beta * d``.
    """
    a1, a2 = np.exp(-beta * d1), np.exp(-beta * d2)
    den = -np.expm1(-2.0 * beta * (d1 + d2))
    # sinh(b d2)/sinh(b(d1+d2)) = e^{-b d1} (1 - e^{-2 b d2}) / (1 - e^{-2 b (d1+d2)})
    w_left = a1 * (-np.expm1(-2.0 * beta * d2)) / den
    w_right = a2 * (-np.expm1(-2.0 * beta * d1)) / den
    mean = w_left * g_left + w_right * g_right
    var = sigma**2 * (-np.expm1(-2.0 * beta * d1)) * (-np.expm1(-2.0 * beta * d2)) / den
    return mean, np.maximum(var, 0.0)


def _forward_ou(
    x0: float | np.ndarray | None,
    taus: np.ndarray,
    beta: float,
    sigma: float,
    rng: np.random.Generator,
    dims: int | None = None,
) -> np.ndarray:
    """OU values at sorted offsets ``taus > 0`` from an anchor with value ``x0``.

    ``x0 = None`` means no anchor: the first point is drawn from the stationary law
    :math:`N(0, \\sigma^2)` and the rest follow from it. Doob's representation turns the
    recursion into a cumulative sum; the offsets are split into chunks with
    :math:`2\\beta\\tau \\le 600` so nothing overflows (a single longer gap takes the exact
    one-step transition). ``dims``: that many independent paths at once (output
    ``(len(taus), dims)``, anchors of shape ``(dims,)``); ``None``: one path, 1-D output.
    """
    d = 1 if dims is None else dims
    out = np.empty((len(taus), d))
    if len(taus) == 0:
        return out[:, 0] if dims is None else out
    start = 0
    if x0 is None:
        x0 = sigma * rng.standard_normal(d)
        out[0] = x0
        taus = taus - taus[0]
        start = 1
    x0 = np.broadcast_to(np.asarray(x0, dtype=float), (d,))
    base = 0.0
    while start < len(taus):
        rel = taus[start:] - base
        stop = start + int(np.searchsorted(rel, _MAX_EXPONENT / (2.0 * beta), side="right"))
        if stop == start:  # one gap beyond the overflow limit: the stable one-step transition
            tau = rel[0]
            out[start] = np.exp(-beta * tau) * x0 + sigma * np.sqrt(
                -np.expm1(-2.0 * beta * tau)
            ) * rng.standard_normal(d)
            x0, base, start = out[start], taus[start], start + 1
            continue
        rel = rel[: stop - start]
        prev = np.concatenate(([0.0], rel[:-1]))
        # Var of W increments: e^{2 b rel_i} - e^{2 b rel_{i-1}} = e^{2 b prev} expm1(2 b (rel - prev))
        inc_var = np.exp(2.0 * beta * prev) * np.expm1(2.0 * beta * (rel - prev))
        walk = np.cumsum(np.sqrt(inc_var)[:, None] * rng.standard_normal((len(rel), d)), axis=0)
        out[start:stop] = np.exp(-beta * rel)[:, None] * (x0 + sigma * walk)
        x0 = out[stop - 1]
        base = taus[stop - 1]
        start = stop
    return out[:, 0] if dims is None else out


class _SortedLevels:
    """Stored (state, value) pairs as a few sorted arrays of geometrically decreasing size.

    A logarithmic merge structure: an insert appends a sorted level and merges it with the
    previous one while that one is not larger, so each stored point is merged
    :math:`O(\\log N)` times and there are :math:`O(\\log N)` levels. Inserting :math:`N`
    points in batches costs :math:`O(N \\log N)` in total (one sorted array with ``np.insert``
    costs :math:`O(N^2)`); a lookup is one binary search per level.
    """

    def __init__(self) -> None:
        self.levels: list[tuple[np.ndarray, np.ndarray]] = []
        self.size = 0

    def insert(self, xs: np.ndarray, values: np.ndarray) -> None:
        order = np.argsort(xs, kind="stable")
        self.levels.append((xs[order], np.asarray(values).reshape(len(xs), -1)[order]))
        self.size += len(xs)
        while len(self.levels) > 1 and len(self.levels[-2][0]) <= len(self.levels[-1][0]):
            (x1, v1), (x2, v2) = self.levels.pop(), self.levels.pop()
            x, v = np.concatenate((x2, x1)), np.concatenate((v2, v1))
            order = np.argsort(x, kind="stable")  # two sorted runs: a linear-time merge
            self.levels.append((x[order], v[order]))

    def ends(self) -> tuple[float, float, float, float]:
        """Smallest and largest stored state and their values: ``(x_lo, g_lo, x_hi, g_hi)``."""
        lo = min(self.levels, key=lambda lv: lv[0][0])
        hi = max(self.levels, key=lambda lv: lv[0][-1])
        return lo[0][0], lo[1][0], hi[0][-1], hi[1][-1]

    def lookup(self, states: np.ndarray, dims: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """``(found, values)``: which of the sorted ``states`` are stored, and their values
        (``(len(states), dims)``, zeros where not stored)."""
        found = np.zeros(len(states), dtype=bool)
        values = np.zeros((len(states), dims))
        for xs, vs in self.levels:
            pos = np.minimum(np.searchsorted(xs, states), len(xs) - 1)
            hit = xs[pos] == states
            found |= hit
            values[hit] = vs[pos[hit]]
        return found, values

    def neighbours(self, states: np.ndarray, dims: int = 1) -> tuple[np.ndarray, ...]:
        """Nearest stored states left and right of each inner state, and their values."""
        xl = np.full(len(states), -np.inf)
        xr = np.full(len(states), np.inf)
        gl, gr = np.zeros((len(states), dims)), np.zeros((len(states), dims))
        for xs, vs in self.levels:
            pos = np.searchsorted(xs, states)
            i = np.maximum(pos - 1, 0)
            better = (pos > 0) & (xs[i] > xl)
            xl[better], gl[better] = xs[i[better]], vs[i[better]]
            j = np.minimum(pos, len(xs) - 1)
            better = (pos < len(xs)) & (xs[j] < xr)
            xr[better], gr[better] = xs[j[better]], vs[j[better]]
        return xl, gl, xr, gr


class OUSamplePath:
    """A lazily evaluated sample path of :math:`\\mathcal G(0, \\sigma^2 e^{-\\beta|x-y|})` on [0, 1].

    ``path(states)`` returns the path's values at ``states`` (scalar or array, any order); values
    at states already queried are returned unchanged, new ones are drawn conditionally on the
    stored ones, so all answers are consistent with one continuous sample path. ``reset()``
    discards the path (Algorithm 1, lines 7-9). Stored values live in :class:`_SortedLevels`, so
    answering :math:`N` queries in batches costs :math:`O(N \\log N)` overall (Proposition 9).
    """

    def __init__(self, beta: float, sigma: float, rng: SeedLike, dims: int | None = None) -> None:
        self.beta = check_positive(beta, "beta")
        self.sigma = check_nonnegative(sigma, "sigma")
        self.rng = as_generator(rng)
        self.dims = None if dims is None else check_int(dims, "dims", minimum=1)
        self.reset()

    def reset(self) -> None:
        """Forget every stored value: the next query starts a fresh, independent sample path."""
        self.store = _SortedLevels()

    def __len__(self) -> int:
        return self.store.size

    def __call__(self, states: object) -> np.ndarray | float:
        arr = _check_states(states)
        flat = arr.ravel()
        d = 1 if self.dims is None else self.dims
        if self.sigma == 0.0:
            out = np.zeros((len(flat), d))
        else:
            uniq, inverse = np.unique(flat, return_inverse=True)
            if self.store.size:
                found, values = self.store.lookup(uniq, d)
                values[~found] = self._insert(uniq[~found])
            else:
                values = self._insert(uniq)
            out = values[inverse]
        if self.dims is not None:
            return out.reshape(arr.shape + (d,))
        return float(out[0, 0]) if arr.ndim == 0 else out[:, 0].reshape(arr.shape)

    def _insert(self, new: np.ndarray) -> np.ndarray:
        """Draw, store and return values (``(len(new), dims)``) at the sorted, new states."""
        d = 1 if self.dims is None else self.dims
        out = np.empty((len(new), d))
        if len(new) == 0:
            return out
        beta, sigma, rng = self.beta, self.sigma, self.rng
        if self.store.size == 0:
            out[:] = _forward_ou(None, new - new[0], beta, sigma, rng, d)
            self.store.insert(new, out.copy())
            return out
        lo, g_lo, hi, g_hi = self.store.ends()
        is_left, is_right = new < lo, new > hi
        left, right = new[is_left], new[is_right]
        if len(left):  # time reversal: walk leftwards from the leftmost stored point
            out[is_left] = _forward_ou(g_lo, (lo - left)[::-1], beta, sigma, rng, d)[::-1]
            self.store.insert(left, out[is_left])
        if len(right):  # anchored on the RIGHTMOST stored point (the authors' erratum fixed)
            out[is_right] = _forward_ou(g_hi, right - hi, beta, sigma, rng, d)
            self.store.insert(right, out[is_right])
        # Inner gaps: each round draws the leftmost pending point of every gap.
        pending = np.flatnonzero(~is_left & ~is_right)
        while len(pending):
            inner = new[pending]
            xl, gl, xr, gr = self.store.neighbours(inner, d)
            first = np.concatenate(([True], xl[1:] != xl[:-1]))
            pts = inner[first]
            mean, var = bridge_moments(
                (pts - xl[first])[:, None],
                (xr[first] - pts)[:, None],
                gl[first],
                gr[first],
                beta,
                sigma,
            )
            out[pending[first]] = mean + np.sqrt(var) * rng.standard_normal((len(pts), d))
            self.store.insert(pts, out[pending[first]])
            pending = pending[~first]
        return out


class FunctionalNoise:
    """One independent sample path per action, with a shared ``reset()``.

    The actions' paths are independent OU processes queried at the same states, so they share
    one :class:`OUSamplePath` with ``dims = n_actions`` (one sort and one search for all).
    ``noise(states)`` returns an array of shape ``states.shape + (n_actions,)``.
    """

    def __init__(self, n_actions: int, beta: float, sigma: float, rng: SeedLike) -> None:
        n_actions = check_int(n_actions, "n_actions", minimum=1)
        self.path = OUSamplePath(beta, sigma, rng, dims=n_actions)

    def reset(self) -> None:
        self.path.reset()

    def __len__(self) -> int:
        return len(self.path)

    def __call__(self, states: object) -> np.ndarray:
        return cast(np.ndarray, self.path(states))


def dense_gp_sample(states: object, beta: float, sigma: float, rng: SeedLike) -> np.ndarray:
    """Reference sampler: Cholesky factor of the joint covariance (O(N^3)); for benchmarks/tests."""
    x = _check_states(states).ravel()
    cov = ou_kernel(x, x, beta, sigma) + 1e-10 * max(sigma**2, 1e-300) * np.eye(len(x))
    return np.linalg.cholesky(cov) @ as_generator(rng).standard_normal(len(x))


def rkhs_norm_squared(values: np.ndarray, grid: np.ndarray, beta: float) -> float:
    r"""Squared RKHS norm of the kernel :math:`e^{-\beta|x-y|}` for a function sampled on ``grid``.

    Lemma 6: :math:`\|f\|^2_{\mathcal H} = \tfrac12(\beta\int f^2 + \beta^{-1}\int f'^2 + f(0)^2
    + f(1)^2)` on [0, 1] (``grid`` must span [0, 1]; derivatives by finite differences, integrals
    by the trapezoid rule).
    """
    beta = check_positive(beta, "beta")
    grid = _check_states(grid)
    f = np.asarray(values, dtype=float)
    if grid[0] != 0.0 or grid[-1] != 1.0 or f.shape != grid.shape:
        raise ValueError("grid must span [0, 1] and match values in shape")
    df = np.diff(f) / np.diff(grid)
    l2 = np.trapezoid(f**2, grid)
    h1 = float(np.sum(df**2 * np.diff(grid)))
    return 0.5 * (beta * l2 + h1 / beta + f[0] ** 2 + f[-1] ** 2)
