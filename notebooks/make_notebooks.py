"""Write the notebooks of this directory (outputs stripped) from the cells below.

Run ``python notebooks/make_notebooks.py`` after editing; ``tests/test_notebooks.py`` checks
that the committed ``.ipynb`` files are exactly what this script writes and executes each of
them with nbclient, so the notebooks never rot. The committed notebooks carry no outputs;
the documentation site (``docs/``) executes them when it is built and shows the results.

To add a notebook: write its cells as a list below (``("md", text)`` / ``("code", text)``,
starting with ``SETUP``), add ``"NN_name.ipynb": CELLS`` to ``NOTEBOOKS``, run this script.
The tests and the documentation's notebook gallery pick it up by itself.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent

SETUP = """\
import warnings

import matplotlib.pyplot as plt
import numpy as np
from numpy.testing import assert_allclose
from scipy import stats

import gdp
import gdp.plot

plt.rcParams["figure.dpi"] = 100"""

# --------------------------------------------------------------------------------------
WALKTHROUGH = [
    ("md", r"""# A walkthrough of f-DP and Gaussian differential privacy

This notebook follows the notes (Dong, Roth & Su, *Gaussian Differential Privacy*, JRSS-B
2022; the blog notes in `seeds/`): trade-off functions, f-DP, (ε, δ)-DP, Gaussian DP, group
privacy, composition and the central limit theorem. Every claim is computed with `gdp` and
checked with an `assert`, so the notebook fails loudly if a claim stops being true."""),
    ("code", SETUP),
    ("md", r"""## 1. Trade-off functions

An adversary tests $H_0: P$ against $H_1: Q$ (the outputs of a mechanism on two neighbouring
data sets) with a rejection rule $\phi$. Its type I and type II errors are
$\alpha_\phi = \mathbb{E}_P[\phi]$ and $\beta_\phi = 1 - \mathbb{E}_Q[\phi]$. The
**trade-off function** is the smallest type II error at a given type I error:

$$T(P, Q)(\alpha) = \inf\{\beta_\phi : \alpha_\phi \le \alpha\}.$$

For $P = N(0, 1)$, $Q = N(\mu, 1)$ the Neyman–Pearson tests reject when $x > t$, so
$\alpha = 1 - \Phi(t)$, $\beta = \Phi(t - \mu)$, which is
$G_\mu(\alpha) = \Phi(\Phi^{-1}(1-\alpha) - \mu)$."""),
    ("code", """\
mu = 1.0
t = np.linspace(-3, 5, 17)
alpha = stats.norm.sf(t)          # P[X > t]
beta = stats.norm.cdf(t - mu)     # Q[X <= t]
f = gdp.G_mu(mu)
assert_allclose(f(alpha), beta, rtol=1e-12)
f(0.05), f.label"""),
    ("md", r"""A function $f:[0,1]\to[0,1]$ is a trade-off function iff it is convex, continuous,
non-increasing and $f(\alpha) \le 1 - \alpha$ (DRS Prop. 2.2). We check all four on a grid."""),
    ("code", """\
a = np.linspace(0, 1, 20001)
b = f(a)
assert np.all(np.diff(b) <= 0)                 # non-increasing
assert np.all(np.diff(b, 2) >= -1e-12)         # convex
assert np.all(b <= 1 - a + 1e-15)              # below the identity 1 - alpha
assert f(0.0) == 1.0 and f(1.0) == 0.0         # exact at the ends"""),
    ("md", r"""Randomized response with parameter ε answers truthfully with probability
$e^\varepsilon/(1+e^\varepsilon)$. Its trade-off function, computed exactly from the two
probability vectors, is $f_{\varepsilon,0}$."""),
    ("code", """\
eps = 1.0
pt = np.exp(eps) / (1 + np.exp(eps))
rr = gdp.from_distributions([pt, 1 - pt], [1 - pt, pt])
assert_allclose(rr(a), gdp.f_eps_delta(eps)(a), atol=1e-14)
ax = gdp.plot.tradeoff(gdp.G_mu(0.5), f, gdp.f_eps_delta(eps), gdp.laplace(1.0))"""),
    ("md", r"""## 2. f-DP, the inverse and symmetrisation

A mechanism $M$ is **f-DP** if $T(M(S), M(S')) \ge f$ for all neighbouring $S, S'$. Higher
curves are more private: $G_{0.5} \ge G_1$. Because the definition covers both orders of
$S, S'$, an f-DP mechanism is also $f^{-1}$-DP and $f^S = \max\{f, f^{-1}\}$-DP, with
$f^{-1}(\alpha) = \inf\{t: f(t) \le \alpha\}$ and $T(P,Q)^{-1} = T(Q,P)$."""),
    ("code", """\
assert gdp.G_mu(0.5).dominates(gdp.G_mu(1.0)) and not gdp.G_mu(1.0).dominates(gdp.G_mu(0.5))

P, Q = [0.6, 0.4, 0.0], [0.1, 0.5, 0.4]       # an asymmetric pair
g = gdp.from_distributions(P, Q)
g_inv = g.inverse()
assert_allclose(g_inv(a), gdp.from_distributions(Q, P)(a), atol=1e-12)   # T(P,Q)^-1 = T(Q,P)
gS = g.symmetrize()
assert np.all(gS(a) >= np.maximum(g(a), g_inv(a)) - 1e-12)
assert_allclose(gS.inverse()(a), gS(a), atol=1e-9)                      # f^S is symmetric
ax = gdp.plot.tradeoff(g, g_inv, gS, labels=["$T(P,Q)$", "$T(Q,P)$", "$f^S$"])"""),
    ("md", r"""## 3. (ε, δ)-DP is f-DP with $f_{\varepsilon,\delta}$

$$f_{\varepsilon,\delta}(\alpha) = \max\{0,\ 1-\delta-e^{\varepsilon}\alpha,\
e^{-\varepsilon}(1-\delta-\alpha)\}$$

and a mechanism is (ε, δ)-DP iff it is $f_{\varepsilon,\delta}$-DP (DRS Prop. 2.5). The
**privacy profile** of a symmetric $f$, $\delta(\varepsilon) = 1 + f^*(-e^\varepsilon)$, lists
every (ε, δ) guarantee of an f-DP mechanism, and $f = \sup_{\varepsilon \ge 0}
f_{\varepsilon, \delta(\varepsilon)}$ (DRS Prop. 2.12)."""),
    ("code", """\
e, d = 1.0, 1e-3
fed = gdp.f_eps_delta(e, d)
ref = np.maximum.reduce([0 * a, 1 - d - np.exp(e) * a, np.exp(-e) * (1 - d - a)])
assert_allclose(fed(a), ref, atol=1e-15)
assert_allclose(fed.delta(e), d, rtol=1e-12)          # its own (eps, delta) is on its profile

# rebuild G_1 from its privacy profile: a lower bound that touches it
eps_grid = np.linspace(0, 8, 400)
rebuilt = gdp.from_privacy_profile(eps_grid, gdp.G_mu(1.0).delta(eps_grid))
gap = gdp.G_mu(1.0)(a) - rebuilt(a)
assert gap.min() >= -1e-12 and gap.max() < 5e-3
gap.max()"""),
    ("md", r"""## 4. Gaussian differential privacy

$\mu$-GDP means $G_\mu$-DP. It is equivalent to (ε, δ(ε))-DP for all ε ≥ 0 with

$$\delta(\varepsilon) = \Phi\Big(-\frac{\varepsilon}{\mu} + \frac{\mu}{2}\Big) -
e^{\varepsilon}\,\Phi\Big(-\frac{\varepsilon}{\mu} - \frac{\mu}{2}\Big)$$

(DRS Cor. 2.13). The Gaussian mechanism $\theta(S) + N(0, \mathrm{sens}(\theta)^2/\mu^2)$ is
μ-GDP."""),
    ("code", """\
mu, eps = 1.0, np.linspace(0, 5, 11)
by_hand = stats.norm.cdf(-eps / mu + mu / 2) - np.exp(eps) * stats.norm.cdf(-eps / mu - mu / 2)
assert_allclose(gdp.delta_from_mu(mu, eps), by_hand, rtol=1e-10)

eps_at = gdp.eps_from_mu(mu, 1e-5)                  # the eps of a 1-GDP mechanism at 1e-5
assert_allclose(gdp.delta_from_mu(mu, eps_at), 1e-5, rtol=1e-9)
mu_at = gdp.mu_from_eps_delta(1.0, 1e-5)            # the largest mu that is (1, 1e-5)-DP
assert gdp.delta_from_mu(mu_at, 1.0) <= 1e-5 * (1 + 1e-12)
eps_at, mu_at"""),
    ("md", r"""Calibrating the Gaussian mechanism: the classical $\sigma =
\Delta\sqrt{2\ln(1.25/\delta)}/\varepsilon$ (valid for ε < 1) against the exact σ = Δ/μ(ε, δ)
(Balle & Wang 2018)."""),
    ("code", """\
classical = gdp.sigma_classical(1.0, 0.5, 1e-5)
exact = gdp.sigma_from_eps_delta(1.0, 0.5, 1e-5)
assert exact < classical
assert gdp.delta_from_mu(1.0 / exact, 0.5) <= 1e-5 * (1 + 1e-9)   # exact sigma meets (0.5, 1e-5)
classical, exact"""),
    ("code", """\
profiles = [gdp.G_mu(m) for m in (0.5, 1, 2, 3)]
ax = gdp.plot.privacy_profile(*profiles, eps=np.linspace(0, 12, 241))"""),
    ("md", r"""## 5. Group privacy

An f-DP mechanism is $1 - (1 - f)^{\circ k}$-DP for groups of size k; μ-GDP gives kμ-GDP
(DRS Thm 2.14). With ε = μ/k, $1 - (1 - f_{\varepsilon,0})^{\circ k}$ tends to the Laplace
trade-off function $T(\mathrm{Lap}(0,1), \mathrm{Lap}(\mu,1))$, already closely for small k."""),
    ("code", """\
assert gdp.G_mu(1.0).group(3) == gdp.G_mu(3.0)

mu = 2.0
lap = gdp.laplace(mu)
dist = {k: float(np.max(np.abs(gdp.f_eps_delta(mu / k).group(k)(a) - lap(a))))
        for k in (1, 2, 5, 10, 50)}
assert all(x > y for x, y in zip(list(dist.values()), list(dist.values())[1:]))
assert dist[50] < 1e-3
dist"""),
    ("md", r"""## 6. Composition

Running $f_i$-DP mechanisms in sequence (adaptively) is $f_1 \otimes \cdots \otimes f_n$-DP,
with $T(P,Q) \otimes T(P',Q') = T(P\times P', Q \times Q')$, and this cannot be improved in
general (DRS Thm 3.2). Gaussians compose in closed form,
$G_{\mu_1} \otimes \cdots \otimes G_{\mu_n} = G_{\sqrt{\mu_1^2 + \cdots + \mu_n^2}}$; everything
else goes through the numeric engine, which returns a *sound* curve (never above the truth)
and a bracket `[lower, upper]`."""),
    ("code", """\
assert gdp.G_mu(1.0) @ gdp.G_mu(2.0) == gdp.G_mu(np.sqrt(5.0))
assert gdp.G_mu(0.5) ** 16 == gdp.G_mu(2.0)"""),
    ("code", """\
# f_{eps,delta} = f_{eps,0} (x) f_{0,delta}
h = gdp.f_eps_delta(1.0) @ gdp.f_eps_delta(0.0, 1e-3)
assert_allclose(h(a), gdp.f_eps_delta(1.0, 1e-3)(a), atol=1e-9)

# ten Laplace mechanisms: a numeric composition with its bracket
lap10 = gdp.laplace(0.3) ** 10
lo, hi = lap10.lower(a), lap10.upper(a)
assert np.all(lo <= hi + 1e-15) and np.all(lap10(a) == lo)   # the default answer is the sound side
print("eps at 1e-5:", lap10.epsilon(1e-5), "bracket width:", float(np.max(hi - lo)))
ax = gdp.plot.tradeoff(gdp.laplace(0.3), lap10, gdp.G_mu(gdp.clt(gdp.laplace(0.3), 10).mu))"""),
    ("md", r"""The k-fold composition of (ε, δ)-DP mechanisms: the classical theorems against the
optimal composition of Kairouz, Oh & Viswanath and the exact tensor product."""),
    ("code", """\
table = gdp.compare(gdp.f_eps_delta(0.1), k=100, delta=1e-5)
print(table)
assert table["kov"].epsilon <= table["advanced"].epsilon <= table["basic"].epsilon"""),
    ("md", r"""## 7. The central limit theorem

With $\mathrm{kl}(f) = -\int_0^1 \log|f'|$, $\kappa_2(f) = \int_0^1 \log^2|f'|$ and
$\bar\kappa_3(f) = \int_0^1 |\log|f'| + \mathrm{kl}(f)|^3$, for symmetric $f_i$ let

$$\mu = \frac{2\|\mathrm{kl}\|_1}{\sqrt{\|\kappa_2\|_1 - \|\mathrm{kl}\|_2^2}},\qquad
\gamma = \frac{0.56\,\|\bar\kappa_3\|_1}{(\|\kappa_2\|_1 - \|\mathrm{kl}\|_2^2)^{3/2}}.$$

Then $G_\mu(\alpha+\gamma) - \gamma \le f_1\otimes\cdots\otimes f_n(\alpha)
\le G_\mu(\alpha-\gamma) + \gamma$ (DRS Thm 3.4). The Gaussian $G_\mu$ is an
**approximation**, not a bound."""),
    ("code", """\
k, e0 = 100, 0.1
res = gdp.clt(gdp.f_eps_delta(e0), k)
exact = gdp.f_eps_delta(e0) ** k
# mu is close to sqrt(k) * eps0 for small eps0, and gamma ~ 0.56 / sqrt(k)
print(res, np.sqrt(k) * e0)
inner = (a >= res.gamma) & (a <= 1 - res.gamma)
assert np.all(res.lower(a[inner]) <= exact(a[inner]) + 1e-9)
assert np.all(exact(a[inner]) <= res.upper(a[inner]) + 1e-9)
print("eps at 1e-5: exact", exact.epsilon(1e-5), " CLT (approximation)", res.epsilon(1e-5))"""),
    ("code", """\
with warnings.catch_warnings():
    warnings.simplefilter("ignore", gdp.ApproximationWarning)
    ax = gdp.plot.clt([gdp.f_eps_delta(0.3)] * 10)"""),
]

# --------------------------------------------------------------------------------------
DPSGD = [
    ("md", r"""# DP-SGD accounting, end to end

DP-SGD samples each example with probability $p$ (Poisson sampling), clips per-example
gradients and adds Gaussian noise with multiplier σ, for $T$ steps. One step is the
Poisson-subsampled Gaussian; `gdp.dpsgd` composes the $T$ steps exactly (each neighbouring
order separately, symmetrised at the end) with a sound numeric bracket. Here: the budget of a
training run, the noise needed for a target ε, and the numbers of other accountants."""),
    ("code", SETUP),
    ("md", r"""## The privacy budget of a training run

The MNIST setting of Bu, Dong, Long & Su (2020): 60,000 examples, batch size 256, 15 epochs,
noise multiplier 1.1, δ = 1e-5."""),
    ("code", """\
n, batch, epochs, sigma, delta = 60_000, 256, 15, 1.1, 1e-5
p = batch / n
steps = int(np.ceil(epochs / p))
h = gdp.dpsgd(sigma=sigma, p=p, steps=steps)
eps = h.epsilon(delta)               # the sound answer: never below the true epsilon
lo, hi = h.epsilon_bounds(delta)     # the numeric bracket of the true epsilon
print(f"p = {p:.5f}, T = {steps}: eps = {eps:.4f} at delta = {delta:g} "
      f"(true value in [{lo:.4f}, {hi:.4f}])")
assert lo <= eps <= hi"""),
    ("md", r"""The CLT of Bu et al. approximates the run by $\mu$-GDP with
$\mu = p\sqrt{T(e^{1/\sigma^2} - 1)}$. It is an approximation: compare its ε with the exact
one."""),
    ("code", """\
with warnings.catch_warnings():
    warnings.simplefilter("ignore", gdp.ApproximationWarning)
    mu_clt = gdp.noisy_sgd_mu(sigma, p, steps)
assert_allclose(mu_clt, p * np.sqrt(steps * np.expm1(1 / sigma**2)), rtol=1e-12)
eps_clt = gdp.eps_from_mu(mu_clt, delta)
print(f"CLT: mu = {mu_clt:.4f}, eps = {eps_clt:.4f}  vs exact eps = {eps:.4f}")"""),
    ("code", """\
fig, axes = plt.subplots(1, 2, figsize=(9, 4.2), layout="constrained")
for ax, log in zip(axes, (False, True)):
    gdp.plot.tradeoff(h, gdp.G_mu(mu_clt), ax=ax, log_alpha=log, alpha_min=1e-7,
                      labels=["exact (sound)", rf"CLT $G_{{{mu_clt:.3f}}}$"])"""),
    ("md", r"""## Calibration: the noise for a target budget

The smallest σ for which the same run is (ε, δ) = (1, 1e-5)-DP, found by safe root
finding on the sound ε (RDP gives a cheap, looser answer)."""),
    ("code", """\
cal = gdp.calibrate_dpsgd(p=p, steps=steps, eps=1.0, delta=delta)
cal_rdp = gdp.calibrate_dpsgd(p=p, steps=steps, eps=1.0, delta=delta, method="rdp")
print(cal)
print(cal_rdp)
assert cal.achieved <= 1.0 and cal.sigma <= cal_rdp.sigma
assert gdp.dpsgd(sigma=cal.sigma, p=p, steps=steps).epsilon(delta) <= 1.0"""),
    ("md", r"""## Other accountants

`gdp.compare` puts the RDP accountant, the CLT and the exact composition side by side. If
`dp_accounting` (Google) and `prv_accountant` (Microsoft) are installed, their numbers are
shown too; the exact ε of `gdp` should agree with the tight ones (PLD, PRV) and never be below
a rigorous lower bound."""),
    ("code", """\
print(gdp.compare(dpsgd=dict(sigma=sigma, p=p, steps=steps), delta=delta,
                  methods=["rdp", "clt", "exact"]))"""),
    ("code", """\
others = {}
try:
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_privacy_accountant
    from dp_accounting.rdp import rdp_privacy_accountant
except ImportError:
    print("dp_accounting is not installed: skipped")
else:
    event = dp_event.SelfComposedDpEvent(
        dp_event.PoissonSampledDpEvent(p, dp_event.GaussianDpEvent(sigma)), steps)
    rdp = rdp_privacy_accountant.RdpAccountant()
    rdp.compose(event)
    pld = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-3)
    pld.compose(event)
    others["dp_accounting RDP"] = rdp.get_epsilon(delta)
    others["dp_accounting PLD"] = pld.get_epsilon(delta)
try:
    import prv_accountant
except ImportError:
    print("prv_accountant is not installed: skipped")
else:
    mech = prv_accountant.PoissonSubsampledGaussianMechanism(noise_multiplier=sigma,
                                                             sampling_probability=p)
    acc = prv_accountant.PRVAccountant(prvs=[mech], eps_error=0.01, delta_error=1e-10,
                                       max_self_compositions=[steps])
    lo, est, hi = acc.compute_epsilon(delta=delta, num_self_compositions=[steps])
    others["prv_accountant (estimate)"] = est
    assert eps >= lo                      # never below PRV's rigorous lower bound
for name, value in {"gdp (exact, sound)": eps, **others}.items():
    print(f"{name:28s} {value:.4f}")"""),
]

# --------------------------------------------------------------------------------------
PAPER = [
    ("md", r"""# Plotting trade-off curves for a paper

`gdp.plot` draws into any matplotlib Axes and returns it, so the usual tools for paper
figures apply. `gdp.plot.style` sets what a conference template expects: the figure is
drawn at the width it will have in the paper (one column, 3.4 in; the text width, 7.0 in),
its text at the size of a caption, its fonts embedded as TrueType (Type 42: IEEE and ACM
checks reject matplotlib's default Type 3), and every curve gets its own colour, dash
pattern and marker, so the figure survives grayscale printing and colour-blind readers.
Legends use the objects' own labels through mathtext (no LaTeX installation needed).

The PDFs are written to `paper-figures/` next to this notebook (the cell below prints
the full path)."""),
    ("code", SETUP + """
from pathlib import Path

out = Path("paper-figures")
out.mkdir(exist_ok=True)
print("figures go to", out.resolve())


def type3_fonts(pdf):
    # a conference check: does the PDF embed a Type 3 font?
    return b"/Type3" in pdf.read_bytes()"""),
    ("md", r"""## One column: curves with the region they guarantee

`shade=True` fills the region where the trade-off curve of any f-DP mechanism must lie
(between f and the diagonal). The style is a context manager: the settings are restored
when the block ends."""),
    ("code", """\
with gdp.plot.style("paper-1col"):
    fig, ax = plt.subplots()
    gdp.plot.tradeoff(gdp.G_mu(1.0), gdp.f_eps_delta(1.0, 1e-5), gdp.laplace(1.0), ax=ax,
                      shade=True)
    fig.savefig(out / "tradeoff.pdf")
assert not type3_fonts(out / "tradeoff.pdf")
print(fig.get_size_inches(), [t.get_text() for t in ax.get_legend().get_texts()])"""),
    ("md", r"""## Curves that coincide stay visible

G₁ and 100-fold randomized response with ε = 0.1 are nearly the same curve (the central
limit theorem at work). Each curve has its own dash pattern and markers, placed at
different positions along the line, so both remain visible where they overlap."""),
    ("code", """\
with gdp.plot.style("paper-1col"):
    ax = gdp.plot.tradeoff(gdp.G_mu(1.0), gdp.f_eps_delta(0.1) ** 100)
curves = [ln for ln in ax.get_lines() if ln.get_gid() == "gdp-curve"]
[(ln.get_label(), ln.get_marker(), ln.get_linestyle()) for ln in curves]"""),
    ("md", r"""## Two panels across the text width: linear α and the tails on a log axis

Differences between accountants live at small α; `log_alpha=True` shows them. A numeric
composition is drawn on its sound side with its bracket as a band (`band=True`, the
default)."""),
    ("code", """\
comp = gdp.laplace(0.5) ** 20
clt_mu = gdp.clt(gdp.laplace(0.5), 20).mu
with gdp.plot.style("paper-2col"):
    fig, (ax1, ax2) = plt.subplots(1, 2)
    for ax, log in ((ax1, False), (ax2, True)):
        gdp.plot.tradeoff(comp, gdp.G_mu(clt_mu), ax=ax, log_alpha=log, alpha_min=1e-8,
                          labels=[r"$\\mathrm{Lap}_{0.5}^{\\otimes 20}$",
                                  rf"CLT $G_{{{clt_mu:.2f}}}$"], legend=ax is ax1)
    for ax, tag in ((ax1, "(a)"), (ax2, "(b)")):
        ax.set_title(tag, loc="left")
    fig.savefig(out / "tails.pdf")
assert not type3_fonts(out / "tails.pdf")"""),
    ("md", r"""## Privacy profiles and composition bounds

`privacy_profile` draws δ(ε) on a log axis; `compare` draws ε against the number of
compositions from `gdp.epsilon_vs_k` (approximations are marked in the legend). The same
figure comes from the command line: `gdp plot compare rr:0.1 --k 1 10 100 1000 --style
paper-1col -o bounds.pdf`."""),
    ("code", """\
curves = gdp.epsilon_vs_k(gdp.f_eps_delta(0.1), [1, 3, 10, 30, 100, 300, 1000], delta=1e-5,
                          methods=["basic", "advanced", "kov", "rdp", "clt"])
with gdp.plot.style("paper-2col"):
    fig, (ax1, ax2) = plt.subplots(1, 2)
    gdp.plot.privacy_profile(gdp.G_mu(0.5), gdp.G_mu(1), gdp.G_mu(2), ax=ax1,
                             eps=np.linspace(0, 10, 201))
    gdp.plot.compare(curves, ax=ax2)
    fig.savefig(out / "profiles_and_bounds.pdf")
assert not type3_fonts(out / "profiles_and_bounds.pdf")"""),
    ("md", r"""## Slides

The same curves for a talk: a 16:9 figure, sans-serif fonts at 16 pt, thicker lines."""),
    ("code", """\
with gdp.plot.style("slides"):
    ax = gdp.plot.privacy_profile(gdp.G_mu(0.5), gdp.G_mu(1), gdp.G_mu(2))
    ax.figure.savefig(out / "slide.pdf")
assert not type3_fonts(out / "slide.pdf")"""),
    ("md", r"""## Export the numbers

Every plotting function can return the plotted numbers (`return_data=True`), and
`PlotData.to_csv` writes them (labels with commas are quoted), for pgfplots, R or a
spreadsheet."""),
    ("code", """\
ax, data = gdp.plot.tradeoff(gdp.G_mu(1.0), gdp.f_eps_delta(1.0, 1e-5), n=201,
                             return_data=True)
path = data.to_csv(out / "curves.csv")
print(path.read_text().splitlines()[:3])
assert_allclose(data.columns["G_{1}"], gdp.G_mu(1.0)(data.x), rtol=0)
print(sorted(p.name for p in out.iterdir()))
plt.close("all")"""),
]

# --------------------------------------------------------------------------------------
RISK = [
    ("md", r"""# From ε to attack risk

A trade-off curve is the ROC curve of the best membership-inference attack: at
false-positive rate α no attack has true-positive rate above $1 - f(\alpha)$ (DRS Def. 2.1).
This notebook reads a DP-SGD run the way a deployment review does: what can an attacker
achieve, what did the hyperparameter search cost, and would an audit catch a bug? Every
number is computed with `gdp` and checked with an `assert`."""),
    ("code", SETUP),
    ("md", r"""## 1. One training run

DP-SGD with noise multiplier σ = 1, sampling rate p = 1% and 1000 steps. The exact curve
(`gdp.dpsgd`) is a sound numeric bracket; its ε at δ = 1e-5 is what a paper reports."""),
    ("code", """\
h = gdp.dpsgd(sigma=1.0, p=0.01, steps=1000)
eps = h.epsilon(1e-5)
print(f"eps = {eps:.3f} at delta = 1e-5")
assert 1.7 < eps < 2.0"""),
    ("md", r"""## 2. What the curve says about attacks

`gdp.risk` turns the curve into attack risks, each an upper bound (it uses the sound
side). The same run described only by its (ε, δ) pair, $f_{\varepsilon,\delta}$, allows
much stronger attacks on paper: the pair forgets the shape of the curve."""),
    ("code", """\
pair = gdp.f_eps_delta(eps, 1e-5)
rows = []
for name, fn in [("TPR at FPR 0.1%", lambda f: gdp.risk.tpr_at_fpr(f, 1e-3)),
                 ("TPR at FPR 1%", lambda f: gdp.risk.tpr_at_fpr(f, 1e-2)),
                 ("advantage", gdp.risk.advantage),
                 ("Bayes success, prior 1%", lambda f: gdp.risk.attack_success(f, 0.01)),
                 ("re-identification, 1000 candidates",
                  lambda f: gdp.risk.reidentification_success(f, 1000))]:
    rows.append((name, fn(h), fn(pair)))
    print(f"{name:36s} curve {fn(h):.5f}   (eps, delta) only {fn(pair):.5f}")
assert all(curve <= from_pair for _, curve, from_pair in rows)
assert gdp.risk.tpr_at_fpr(h, 1e-3) < 0.005 < gdp.risk.tpr_at_fpr(pair, 1e-3)"""),
    ("md", r"""The ROC view on log axes, where membership-inference results are reported; the best
Gaussian description of the run is almost on top of the exact curve (`gaussian_fit`)."""),
    ("code", """\
fit = gdp.risk.gaussian_fit(h)
print(f"closest G_mu: mu = {fit.mu:.4f}, sup-distance {fit.distance:.2e}")
assert fit.distance < 0.01
names = ["DP-SGD (exact)", r"$f_{\\varepsilon,\\delta}$", f"$G_{{{fit.mu:.3f}}}$"]
ax = gdp.plot.roc(h, pair, gdp.G_mu(fit.mu), labels=names)"""),
    ("md", r"""## 3. Calibrating to a risk target

Instead of an ε, ask for "no attack above 1% TPR at 0.1% FPR" and let `gdp` find the
noise. The answer is checked on the sound curve, and the σ just below fails."""),
    ("code", """\
c = gdp.risk.calibrate_dpsgd_risk(p=0.01, steps=1000, tpr=0.01, fpr=1e-3)
print(c.sigma, c.achieved)
assert c.achieved <= 0.01
assert gdp.risk.tpr_at_fpr(gdp.dpsgd(sigma=c.last_failing, p=0.01, steps=1000), 1e-3) > 0.01"""),
    ("md", r"""## 4. Only RDP numbers?

An RDP accountant reports ε(λ) at a few orders. `gdp.from_rdp` turns them into the
tightest curve they imply: below the exact curve (RDP loses information), and above what the
classical ε(δ) conversion allows."""),
    ("code", """\
orders = np.arange(2, 65)
r = 1000 * gdp.rdp_sampled_gaussian(1.0, 0.01, orders)
f_rdp = gdp.from_rdp(r, orders)
a = np.geomspace(1e-6, 0.5, 200)
assert np.all(f_rdp(a) <= h.upper(a) + 1e-12)
print("TPR at 0.1% FPR: exact", gdp.risk.tpr_at_fpr(h, 1e-3), " from RDP",
      gdp.risk.tpr_at_fpr(f_rdp, 1e-3))"""),
    ("md", r"""## 5. What did the hyperparameter search cost?

Train a geometric number of times (mean 10) with the same noise and release the best
model. `gdp.tuning` gives the curve of that release; `compare_tuning` puts it next to one
run and to the RDP analysis of Papernot & Steinke."""),
    ("code", """\
base = gdp.G_mu(1.0)  # a run described by its mu (the CLT mu of a DP-SGD run, say)
tuned = gdp.tuning(base, gdp.geometric_runs(10))
print(gdp.compare_tuning(base, gdp.geometric_runs(10), delta=1e-5).to_text(4))
assert base.epsilon(1e-5) < tuned.epsilon(1e-5) <= gdp.eps_from_rdp(tuned.rdp, 1e-5, tuned.orders)
print("advantage: one run", gdp.risk.advantage(base), " tuned", gdp.risk.advantage(tuned))"""),
    ("md", r"""## 6. An adaptive budget

A `GaussianFilter` accepts adaptively chosen Gaussian mechanisms while the squares of their
μ fit the budget, and refuses the one that would not, recording nothing."""),
    ("code", """\
flt = gdp.GaussianFilter(mu=1.0)
flt.admit(gdp.G_mu(0.6))  # e.g. a Gaussian query with sigma = sensitivity / 0.6
flt.admit(mu=0.6)
try:
    flt.admit(mu=0.6)  # 0.36 + 0.36 + 0.36 > 1
except gdp.BudgetExceeded as e:
    print(e)
flt.admit(mu=flt.remaining)  # what is left still fits
assert len(flt.entries) == 3 and flt.spent <= 1.0"""),
    ("md", r"""## 7. Would a one-run audit catch a bug?

Put 1000 canaries in the training set, each with probability 1/2, train once, and guess
"in" for the 100 highest and "out" for the 100 lowest scores. If the implementation
adds half the noise it claims, the count of right guesses refutes the claim."""),
    ("code", """\
rng = np.random.default_rng(2024)
claimed = gdp.G_mu(1.0)

def one_run(mu):  # scores of the canaries: N(0, 1) out, N(mu, 1) in
    inc = rng.random(1000) < 0.5
    return gdp.one_run_guesses(rng.normal(size=1000) + mu * inc, inc, k_plus=100, k_minus=100)

honest = gdp.audit_one_run(correct=one_run(1.0)[0], guesses=200, canaries=1000,
                            tradeoff=claimed)
buggy = gdp.audit_one_run(correct=one_run(2.0)[0], guesses=200, canaries=1000,
                          tradeoff=claimed)
print(honest)
print(buggy)
assert not honest.violation and buggy.violation and buggy.mu_lower > 1.0"""),
]


NOTEBOOKS = {
    "01_walkthrough.ipynb": WALKTHROUGH,
    "02_dpsgd_accounting.ipynb": DPSGD,
    "03_plotting_for_a_paper.ipynb": PAPER,
    "04_from_eps_to_attack_risk.ipynb": RISK,
}


def build(cells: list[tuple[str, str]]) -> nbformat.NotebookNode:
    """A notebook with the given cells, no outputs, execution counts ``None``."""
    nb = new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    for i, (kind, src) in enumerate(cells):
        cell = new_markdown_cell(src) if kind == "md" else new_code_cell(src)
        cell["id"] = f"cell-{i:02d}"  # stable ids: regenerating changes nothing
        nb.cells.append(cell)
    nbformat.validate(nb)
    return nb


def write_all(directory: Path = HERE) -> list[Path]:
    """Write every notebook into ``directory``; return the paths."""
    paths = []
    for name, cells in NOTEBOOKS.items():
        path = Path(directory) / name
        nbformat.write(build(cells), path)
        paths.append(path)
    return paths


if __name__ == "__main__":
    for p in write_all(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE):
        print(f"wrote {p}")
