import numpy as np
import pytest

from svmcore._validation import SVMCoreError
from svmcore.weights import bayes_threshold, class_weights_from_costs


def test_paper_preset_gives_seed000_weights():
    # Wahba et al. 2001, §1.8: π_A^s = 0.4, C_A = 1, C_B = 2, π_A = 0.1 → L(−1) = 1.5, L(+1) = 0.5
    y = np.r_[np.ones(80), -np.ones(120)]
    w = class_weights_from_costs(y, cost_a=1, cost_b=2, prior_a=0.1)
    assert w.L_neg == pytest.approx(1.5, abs=1e-14)
    assert w.L_pos == pytest.approx(0.5, abs=1e-14)
    assert w.sample_prior_a == pytest.approx(0.4)
    assert not w.is_standard
    # Bayes threshold L(−1)/(L(−1)+L(+1)) = 1.5/2 = 0.75
    assert bayes_threshold(w) == pytest.approx(0.75)
    np.testing.assert_array_equal(w.upper_bounds([1, -1, 1]), [0.5, 1.5, 0.5])


def test_standard_case_is_all_ones():
    y = np.r_[np.ones(7), -np.ones(13)]
    w = class_weights_from_costs(y)
    assert w.L_pos == pytest.approx(1.0) and w.L_neg == pytest.approx(1.0)
    assert w.is_standard and w.bayes_threshold == pytest.approx(0.5)


@pytest.mark.parametrize("kw, msg", [
    (dict(cost_a=0), "cost_a"), (dict(cost_b=-1), "cost_b"), (dict(prior_a=1.0), "prior_a"),
    (dict(prior_a=0.0), "prior_a"), (dict(cost_a=np.nan), "cost_a")])
def test_bad_weights_name_the_problem(kw, msg):
    with pytest.raises(SVMCoreError, match=msg):
        class_weights_from_costs([1, -1, 1], **kw)


def test_one_class_is_refused():
    with pytest.raises(SVMCoreError, match="one class"):
        class_weights_from_costs([1, 1, 1])
    with pytest.raises(SVMCoreError, match="row 1"):
        class_weights_from_costs([1, 0, -1])
