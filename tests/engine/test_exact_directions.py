"""Exact curves answer on the safe side (issue 11, paths 1 and 3).

Every check compares with exact enumeration in 60-digit mpmath arithmetic of the very
doubles the curve was built from, and asserts the DIRECTION: a profile never below the true
one, an ε never below the smallest ε whose true δ meets the target. No tolerance is granted
on the unsafe side, so a slip of one ulp fails.

Path 1: asymmetric exact discrete curves and their inverses (T(Q, P) must come from the
atoms, not from β = 1 - (1 - β), whose cancellation the profile multiplies by e^ε).
Path 3: f_{ε,δ} ** k at large k (the binomial law in log space, with the split-off δ).
"""

import itertools
import math

import mpmath as mp
import numpy as np
import pytest

import gdp

mp.mp.dps = 60


# ---------------------------------------------------------------------------
# exact references
# ---------------------------------------------------------------------------
def _mp_profile(p, q, eps):
    """sup_S Q(S) - e^eps P(S) of two pmfs (exact sums of the given doubles)."""
    s = mp.e ** mp.mpf(eps)
    return mp.fsum(max(mp.mpf(qi) - s * mp.mpf(pi), 0) for pi, qi in zip(p, q, strict=True))


def _mp_vertices(p, q):
    """Vertices (alpha, beta) of T(P, Q) in exact arithmetic, alpha increasing."""
    items = []
    for pi, qi in zip(p, q, strict=True):
        pi, qi = mp.mpf(pi), mp.mpf(qi)
        if pi == 0 and qi == 0:
            continue
        items.append((mp.inf if pi == 0 else qi / pi, pi, qi))
    items.sort(key=lambda t: -t[0])
    a, omb = [mp.mpf(0)], [mp.mpf(0)]
    for _, pi, qi in items:
        a.append(a[-1] + pi)
        omb.append(omb[-1] + qi)
    return a, [1 - o for o in omb]


def _mp_eval(xs, ys, x):
    """A piecewise-linear curve through (xs, ys) at x (xs non-decreasing; at a repeated
    x the lowest y, the infimum a test achieves)."""
    best = None
    for i in range(len(xs) - 1):
        if xs[i] <= x <= xs[i + 1]:
            if xs[i + 1] == xs[i]:
                v = min(ys[i], ys[i + 1])
            else:
                v = ys[i] + (ys[i + 1] - ys[i]) * (x - xs[i]) / (xs[i + 1] - xs[i])
            best = v if best is None else min(best, v)
    return best if best is not None else mp.mpf(0)


def _mp_sym_profile(p, q, eps):
    """Profile of f^S = max(f, f^{-1}) (f = T(P, Q)), exactly: the concave function
    1 - f^S(x) - e^eps x peaks at a breakpoint of f^S (a vertex of f or f^{-1}, or a
    crossing of the two)."""
    a1, b1 = _mp_vertices(p, q)
    a2inv, b2inv = _mp_vertices(q, p)  # f^{-1} = T(Q, P)
    xs = sorted(set(a1) | set(a2inv))
    cand = list(xs)
    for lo, hi in itertools.pairwise(xs):
        d_lo = _mp_eval(a1, b1, lo) - _mp_eval(a2inv, b2inv, lo)
        d_hi = _mp_eval(a1, b1, hi) - _mp_eval(a2inv, b2inv, hi)
        if d_lo * d_hi < 0:
            cand.append(lo + (hi - lo) * d_lo / (d_lo - d_hi))
    s = mp.e ** mp.mpf(eps)
    best = mp.mpf(0)
    for x in cand:
        fs = max(_mp_eval(a1, b1, x), _mp_eval(a2inv, b2inv, x))
        best = max(best, 1 - fs - s * x)
    return best


def _product_pmfs(pmfs):
    """Pmf pair of the product of the given pairs (every outcome combination)."""
    P, Q = [mp.mpf(1)], [mp.mpf(1)]
    for p, q in pmfs:
        P = [a * mp.mpf(b) for a in P for b in p]
        Q = [a * mp.mpf(b) for a in Q for b in q]
    return P, Q


def _check_epsilon(eps_hat, target, true_delta):
    """A sound ε: the true δ there meets the target (inf is always sound)."""
    if np.isinf(eps_hat):
        return
    assert true_delta(eps_hat) <= target, (eps_hat, target)


# ---------------------------------------------------------------------------
# path 1: asymmetric exact discrete curves and their inverses
# ---------------------------------------------------------------------------
def test_issue_reproducer_tiny_q_atom():
    P, Q = [0, 0.01, 0.99], [0.05, 1.2e-13, 0.95 - 1.2e-13]
    f = gdp.from_distributions(P, Q)
    e = 25.146014461140215
    assert f.delta(e) >= _mp_sym_profile(P, Q, e)  # was 0.0 against 1.0e-6
    assert f.inverse().hockey_stick(e) >= _mp_profile(Q, P, e)
    _check_epsilon(f.epsilon(1e-8), 1e-8, lambda x: _mp_sym_profile(P, Q, x))


def test_tiny_masses_pairs_are_sound(rng):
    # P = [0, a, 1 - a], Q = [0.05, c, 0.95 - c]: the inverse's profile near the loss of the
    # tiny atom is a difference of two nearly equal terms times e^eps ~ 1e11
    for _ in range(40):
        a = float(10 ** rng.uniform(-4, -2))
        c = float(10 ** rng.uniform(-14, -9))
        P, Q = [0.0, a, 1 - a], [0.05, c, 0.95 - c]
        f = gdp.from_distributions(P, Q)
        kink = float(np.log(a / c))
        for e in (kink * (1 - 1e-9), kink, kink * (1 + 1e-12), 0.5 * kink):
            assert f.inverse().hockey_stick(e) >= _mp_profile(Q, P, e)
            assert f.hockey_stick(e) >= _mp_profile(P, Q, e)
        _check_epsilon(f.epsilon(1e-8), 1e-8, lambda x, P=P, Q=Q: _mp_sym_profile(P, Q, x))


def test_issue_reproducer_power_of_a_three_atom_pair():
    p = [0.6149435496671548, 0.14386424515527296, 0.24119220517757223]
    q = [0.9683909328152451, 0.031609067184754924, 0.0]
    g = gdp.from_distributions(p, q) ** 4
    P4, Q4 = _product_pmfs([(p, q)] * 4)
    assert g.inverse().hockey_stick(30.0) >= _mp_profile(Q4, P4, 30.0)  # was 0.66728


def test_powers_and_products_of_three_atom_pairs_are_sound(rng):
    eps = [0.0, 0.3, 1.0, 3.0, 8.0, 15.0, 30.0]
    for _ in range(12):
        pmfs = []
        for _ in range(2):
            p, q = rng.dirichlet(np.ones(3) * 0.5), rng.dirichlet(np.ones(3) * 0.5)
            if rng.random() < 0.4:  # an atom only one side has
                (q if rng.random() < 0.5 else p)[int(rng.integers(3))] = 0.0
            if rng.random() < 0.4:  # a tiny atom
                q[int(rng.integers(3))] *= 1e-12
            p, q = p / p.sum(), q / q.sum()
            pmfs.append(([float(x) for x in p], [float(x) for x in q]))
        f = gdp.from_distributions(*pmfs[0])
        g = gdp.from_distributions(*pmfs[1])
        P4, Q4 = _product_pmfs([pmfs[0]] * 4)
        PQ, QQ = _product_pmfs(pmfs)
        h4, fg = f ** 4, f @ g
        # (f (x) g)^{-1} = f^{-1} (x) g^{-1}: both ways of computing it are sound
        for e in eps:
            assert h4.hockey_stick(e) >= _mp_profile(P4, Q4, e)
            assert h4.inverse().hockey_stick(e) >= _mp_profile(Q4, P4, e)
            assert fg.inverse().hockey_stick(e) >= _mp_profile(QQ, PQ, e)
            assert (f.inverse() @ g.inverse()).hockey_stick(e) >= _mp_profile(QQ, PQ, e)
        for e in eps[:4]:
            assert fg.delta(e) >= _mp_sym_profile(PQ, QQ, e)
        _check_epsilon(fg.epsilon(1e-6), 1e-6, lambda x, a=PQ, b=QQ: _mp_sym_profile(a, b, x))


# ---------------------------------------------------------------------------
# path 3: f_{eps,delta} ** k at large k
# ---------------------------------------------------------------------------
class _Binomial:
    """Exact profile of f_{e0,d0}^{(x) k}: 1 - (1-d0)^k (1 - delta_rr(eps)), with
    delta_rr(eps) = sum_{j: (k-2j) e0 > eps} Q_j - e^eps P_j (binomial masses, by their
    ratio recurrences in 40-digit arithmetic; only j < k/2 matters for eps >= 0)."""

    def __init__(self, e0, d0, k):
        with mp.workdps(40):
            w = mp.e ** mp.mpf(e0)
            qj, pj = (w / (1 + w)) ** k, (1 / (1 + w)) ** k
            self.cq, self.cp = [mp.mpf(0)], [mp.mpf(0)]  # prefix sums
            for j in range(k // 2 + 1):
                self.cq.append(self.cq[-1] + qj)
                self.cp.append(self.cp[-1] + pj)
                qj, pj = qj * (k - j) / ((j + 1) * w), pj * (k - j) * w / (j + 1)
            self.keep = (1 - mp.mpf(d0)) ** k
        self.e0, self.k = e0, k

    def delta(self, eps):
        with mp.workdps(40):
            m = 0 if eps >= self.k * self.e0 else \
                min(int((self.k * self.e0 - eps) / (2 * self.e0)) + 2, len(self.cq) - 1)
            while m > 0 and (self.k - 2 * (m - 1)) * mp.mpf(self.e0) <= eps:
                m -= 1
            rr = self.cq[m] - mp.e ** mp.mpf(eps) * self.cp[m]
            return min(mp.mpf(1), 1 - self.keep * (1 - rr))  # delta <= 1 (digits beyond)


def test_issue_reproducers_eps_delta_powers():
    b = _Binomial(0.01, 1e-300, 100_000)
    assert (gdp.f_eps_delta(0.01, 1e-300) ** 100_000).delta(0.0) >= b.delta(0.0)
    h = gdp.f_eps_delta(10.0, 1e-15) ** 100_000
    e = h.epsilon(1 - 1e-12)  # was 0.0; truth about 999,478
    assert e > 9.9e5
    # the true delta there (only the top few binomial terms have a loss above 9.9e5)
    k, e0 = 100_000, 10.0
    m = int((k * e0 - e) / (2 * e0)) + 1
    w = mp.e ** mp.mpf(e0)
    z = (1 + w) ** k
    rr = mp.fsum(mp.binomial(k, j) * (w ** (k - j) - mp.e ** mp.mpf(e) * w ** j) / z
                 for j in range(m) if (k - 2 * j) * e0 > e)
    assert 1 - (1 - mp.mpf(1e-15)) ** k * (1 - rr) <= 1 - 1e-12


@pytest.mark.parametrize("e0,d0,k", [(0.01, 1e-300, 100_000), (0.1, 1e-15, 100_000),
                                     (1.0, 1e-6, 100_000), (0.05, 1e-12, 200_000)])
def test_eps_delta_powers_are_sound(e0, d0, k):
    h = gdp.f_eps_delta(e0, d0) ** k
    b = _Binomial(e0, d0, k)
    top = k * e0
    for e in (0.0, 0.1 * top ** 0.5, top ** 0.5, 3 * top ** 0.5, 0.9 * top):
        assert h.delta(e) >= b.delta(e)
    for d in (1e-3, 1e-6, 1e-9):
        _check_epsilon(h.epsilon(d), d, b.delta)


def test_distinct_randomized_responses_compose_exactly_and_soundly():
    # (three distinct randomized responses: their P-masses summed to 1 + 1.1e-16, and the
    # exact curve was refused with "lalpha must be in [-inf, 0]", 4 of 300 random lists)
    eps = [0.0736574736598627, 0.019872514413242323, 0.05149927727935396]
    h = gdp.compose(*[gdp.f_eps_delta(e) for e in eps])
    p, q = np.ones(1), np.ones(1)
    for e in eps:
        a, b = 1 / (1 + math.exp(e)), 1 / (1 + math.exp(-e))
        p, q = np.concatenate([p * b, p * a]), np.concatenate([q * a, q * b])
    for d in (0.3, 1e-2, 1e-4):
        _check_epsilon(h.epsilon(d), d, lambda e: _mp_profile(p, q, e))
    for a in (0.0, 0.2, 0.7, 1.0):
        assert 0.0 <= h(a) <= 1.0 - a + 1e-15


def test_window_at_the_end_of_the_support_charges_no_tail():
    """Two Laplace factors, delta near the top of the loss support (1.1): the window ends at
    the support's last lattice point, which must not be charged again as a tail (it was:
    delta(1) came out 0.276). Truth by midpoint quadrature of the exact loss laws (atoms at
    +-mu, density on (-mu, mu); 4,000 cells each, error far below 1e-7): delta(0.5) =
    0.1480590, delta(1) = 0.0249898."""
    h = gdp.compose(gdp.laplace(0.4), gdp.laplace(0.7))
    eps = np.array([0.5, 0.99, 1.0])
    lo, hi = h.delta_bounds(eps)
    truth = np.array([0.1480590, np.nan, 0.0249898])
    for i in (0, 2):
        assert lo[i] <= truth[i] - 1e-7 <= truth[i] + 1e-7 <= hi[i]
        assert hi[i] <= truth[i] * 1.002
    assert hi[1] <= 0.03  # no jump just below the top


def test_reflecting_an_upper_curve_that_never_reaches_zero():
    """The optimistic curve rounds beta up at its last vertex, so its reflection has no
    vertex at alpha' = 0; it starts there at 1 (still an upper bound) instead of failing."""
    h = gdp.compose(gdp.G_mu(0.3), gdp.laplace(0.4))
    a = np.linspace(0.0, 1.0, 11)
    up, low = h.upper.inverse(), h.lower.inverse()
    assert np.all(np.asarray(up(a)) >= np.asarray(low(a)))
    e = np.array([0.0, 0.5])
    assert np.all(np.asarray(h.upper.delta(e)) <= np.asarray(h.delta(e)))
