"""Each criterion on a hand-checked 4-point fit (numbers worked out by hand in the comments)."""
import numpy as np
import pytest

from svmcore.families.svm import criteria as C
from svmcore.families.svm.fit import SVMFit
from svmcore.weights import ClassWeights

# n = 4, λ = 1/8 so that 2nλ = 1 and a_i = α_i, θ_i = α_i K_ii = α_i (K_ii = 1), R = 1.
Y = np.array([1.0, 1.0, -1.0, -1.0])
F = np.array([2.0, 0.5, -0.2, 1.5])        # y f = 2, 0.5, 0.2, −1.5;  ξ = 0, 0.5, 0.8, 2.5
P = np.array([0.9, 0.6, 0.3, 0.2])


def make(alpha, L_pos=1.0, L_neg=1.0, f=F):
    w = ClassWeights(L_pos, L_neg)
    return SVMFit(lam=0.125, alpha=np.asarray(alpha, float), b=0.0, f=np.asarray(f, float), y=Y,
                  upper=w.upper_bounds(Y), weights=w, K_diag=np.ones(4), radius=1.0)


STD = make([0.0, 0.3, 1.0, 1.0])
NONSTD = make([0.0, 0.3, 1.5, 1.5], 0.5, 1.5)


def test_obs():
    assert C.obs(STD) == pytest.approx(3.8 / 4)                 # (0 + .5 + .8 + 2.5)/4
    assert C.obs(NONSTD) == pytest.approx(5.2 / 4)              # (.5·.5 + 1.5·.8 + 1.5·2.5)/4


def test_gacv_standard_and_nonstandard():
    # OBS + (1/n)[2·θ_4 (y f < −1) + θ_2 + θ_3]
    assert C.gacv(STD) == pytest.approx(0.95 + (2 * 1.0 + 0.3 + 1.0) / 4)          # 1.775
    # OBS + (1/n)[2·L(−1)θ_4 + L(+1)θ_2 + L(−1)θ_3] = 1.3 + (4.5 + .15 + 2.25)/4
    assert C.gacv(NONSTD) == pytest.approx(3.025)


def test_xa_rho_one_and_two():
    # ξ + ρ a R ≥ 1:  ρ = 2 → points 2 (0.5 + 0.6), 3, 4;  ρ = 1 → points 3, 4
    assert C.xa(STD, rho=2) == pytest.approx(0.75)
    assert C.xa(STD, rho=1) == pytest.approx(0.5)
    assert C.xa(STD, rho=1, R=2.0) == pytest.approx(0.75)   # 0.5 + 0.3·2 ≥ 1


def test_brxa():
    # y f ≤ 0 (point 4) or 0 < y f ≤ θ (point 3: 0.2 ≤ 1; point 2: 0.5 > 0.3)
    assert C.brxa(STD) == pytest.approx(0.5)
    assert C.brxa(NONSTD) == pytest.approx((1.5 + 1.5) / 4)


def test_sure_against_the_literal_formula():
    # Solo's form: (1/n)[Σ (y01 − p̂)²/ŵ + (2/(nλ)) Σ ŵ s K_ii], s = 1{y f < 1} (points 3, 4 at bound)
    fit = make([0.0, 0.3, 1.0, 1.0])
    ph = 1 / (1 + np.exp(-F))
    w = ph * (1 - ph)
    y01 = (Y + 1) / 2
    s = np.array([0, 0, 1, 1])   # α at its bound L = 1; point 2 (0 < α < L) has y f = 0.5 < 1 but is
    # not at the bound in this hand-made fit, so the exact-arithmetic test (docs/svm.md) leaves it out
    literal = (np.sum((y01 - ph) ** 2 / w) + 2 / (4 * 0.125) * np.sum(w * s)) / 4
    assert C.sure(fit) == pytest.approx(literal, rel=1e-12)


def test_sure_is_inf_not_nan_for_huge_margins():
    fit = make([0.0, 0.3, 1.0, 1.0], f=np.array([2.0, 0.5, -0.2, 800.0]))
    assert C.sure(fit) == np.inf


def test_targets():
    # GCKL: .3 + .9 + .92 + 2.0 = 4.12;  MISCLASS: .1 + .4 + .3 + .8 = 1.6
    assert C.gckl(STD, P) == pytest.approx(4.12 / 4)
    assert C.misclass(STD, P) == pytest.approx(0.4)
    # nonstandard: GCKL .45 + 1.05 + 1.02 + 3.0 = 5.52;  BRMISCLASS .15 + .6 + .15 + 1.2 = 2.1
    assert C.gckl(NONSTD, P) == pytest.approx(5.52 / 4)
    assert C.brmisclass(NONSTD, P) == pytest.approx(2.1 / 4)
    assert C.misclass(NONSTD, P) == pytest.approx(0.4)   # MISCLASS ignores the weights


def test_f_zero_counts_as_misclassified():
    assert C.brmisclass_values([0.0], [0.3]) == pytest.approx(1.0)


def test_gacv_is_robust_to_solver_noise_at_the_margin():
    # a margin SV (0 < α < L) with y f = 1 ± 1e-9 must not flip between the sums
    a = make([0.0, 0.3, 1.0, 1.0], f=np.array([2.0, 1 + 1e-9, -0.2, 1.5]))
    b = make([0.0, 0.3, 1.0, 1.0], f=np.array([2.0, 1 - 1e-9, -0.2, 1.5]))
    assert C.gacv(a) == pytest.approx(C.gacv(b), abs=1e-8)
    assert C.brxa(a) == C.brxa(b)


def test_inefficiency_with_ties():
    import pandas as pd
    t = pd.DataFrame({"xa": [0.2, 0.1, 0.1, 0.3], "misclass": [0.10, 0.11, 0.12, 0.10]})
    first, lo, hi = C.inefficiency(t, "xa", "misclass")
    assert (first, lo, hi) == pytest.approx((1.1, 1.1, 1.2))
