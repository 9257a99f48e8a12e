"""Progress callbacks of long library calls: fractions in [0, 1] that never go back, a last
call at 1.0, messages saying what is done, nothing changed in the answer; a bad callback is
refused; an exception in it aborts the call."""

from __future__ import annotations

import pytest

import gdp
from gdp._progress import Progress, as_progress


def record():
    seen: list[tuple[float, str]] = []
    return seen, lambda f, m: seen.append((f, m))


def check_reports(seen):
    fractions = [f for f, _ in seen]
    assert fractions, "no progress was reported"
    assert all(0.0 <= f <= 1.0 for f in fractions)
    assert fractions == sorted(fractions)  # never goes back
    assert fractions[-1] == 1.0
    assert all(isinstance(m, str) and m for _, m in seen)


def test_progress_shares_map_into_the_whole_and_never_go_back():
    seen, cb = record()
    p = Progress(cb)
    p.part(2, 4)(0.5, "x")  # 0.5 + 0.25 * 0.5
    p.part(0, 4)(1.0, "late")  # a share that reports less keeps the last value
    p.span(0.9, 1.0).with_prefix("tail")(float("nan"), "nan is 0")
    p.done()
    assert seen == [(0.625, "x"), (0.625, "late"), (0.9, "tail: nan is 0"), (1.0, "done")]
    assert not as_progress(None) and as_progress(cb) and as_progress(p) is p


def test_compare_reports_each_method_and_the_kov_grid_search():
    seen, cb = record()
    c = gdp.compare(gdp.laplace(0.3), k=30, delta=1e-5, progress=cb)
    check_reports(seen)
    assert c == gdp.compare(gdp.laplace(0.3), k=30, delta=1e-5)  # the answer is the same
    msgs = [m for _, m in seen]
    assert "Optimal (KOV 2015, Thm 3.3) ..." in msgs
    assert "optimal KOV, grid search: 1/75" in msgs


def test_epsilon_vs_k_gives_each_k_its_share():
    seen, cb = record()
    gdp.epsilon_vs_k(gdp.f_eps_delta(0.1), [1, 10], delta=1e-5, methods=["basic"],
                     progress=cb)
    check_reports(seen)
    assert (0.5, "k = 10 (2 of 2)") in seen
    assert seen[-1] == (1.0, "epsilon for 2 value(s) of k")


def test_calibration_reports_each_sigma_tried():
    seen, cb = record()
    c = gdp.calibrate_dpsgd(p=0.01, steps=100, eps=1.0, delta=1e-5, progress=cb)
    check_reports(seen)
    tried = [m for _, m in seen if m.startswith("sigma = ") and " the target" not in m]
    assert len(tried) >= 5
    assert seen[-1][1] == f"sigma = {c.sigma:.6g} (smallest within a factor 1.001)"
    seen2, cb2 = record()
    gdp.calibrate_sigma(lambda s: gdp.G_mu(1.0 / s) ** 10, eps=1.0, delta=1e-5, progress=cb2)
    check_reports(seen2)


def test_draw_all_reports_each_figure(tmp_path):
    from gdp.plot import figures

    seen, cb = record()
    figures.draw_all(tmp_path, quick=True, dpi=20, formats=["png"],
                     names=["04_gaussian_family"], progress=cb)
    check_reports(seen)


@pytest.mark.parametrize("call", [
    lambda p: gdp.compare(gdp.G_mu(1.0), k=2, delta=1e-5, progress=p),
    lambda p: gdp.epsilon_vs_k(gdp.G_mu(1.0), [1], delta=1e-5, progress=p),
    lambda p: gdp.calibrate_dpsgd(p=0.1, steps=10, eps=1.0, delta=1e-5, progress=p),
])
def test_a_bad_callback_is_refused_and_an_exception_aborts(call):
    with pytest.raises(TypeError, match=r"`progress` must be None or a callable "
                                        r"progress\(fraction, message\); got progress='bar'"):
        call("bar")

    def cancel(fraction, message):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        call(cancel)
