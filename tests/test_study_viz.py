"""Figure builders of svmcore.viz.study against the table they draw."""
import numpy as np
import pandas as pd

from svmcore.study import PAPER_INEFFICIENCY
from svmcore.viz.study import grid_heatmap, inefficiency_box, minimizer_counts, minimizer_scatter


def _table():
    rng = np.random.default_rng(0)
    rows = []
    for r in range(6):
        for case in ("standard", "nonstandard"):
            for c in ("gacv", "xa", "brxa"):
                rows.append({"replicate": r, "seed": r, "case": case, "criterion": c,
                             "log2_nlambda": float(rng.integers(-3, 0)),
                             "log2_sigma": 0.5 * rng.integers(0, 2),
                             "target": 0.1, "inefficiency": 1 + rng.random()})
    return pd.DataFrame(rows)


def test_box_traces_hold_the_data_and_paper_values():
    t = _table()
    fig = inefficiency_box(t, PAPER_INEFFICIENCY)
    boxes = [tr for tr in fig.data if tr.type == "box"]
    assert [b.name for b in boxes] == ["standard", "nonstandard"]
    for b in boxes:
        sub = t[t["case"] == b.name]
        np.testing.assert_array_equal(np.asarray(b.y), sub["inefficiency"].to_numpy())
        assert list(b.x) == sub["criterion"].to_list()
    paper = {tr.name: tr for tr in fig.data if tr.type == "scatter"}
    std = paper["paper, standard"]
    # standard: GACV 1.0064 and XA 1.0062–1.0094 drawn as midpoint ± half range
    got = dict(zip(std.x, std.y, strict=True))
    assert got["gacv"] == 1.0064 and abs(got["xa"] - (1.0062 + 1.0094) / 2) < 1e-12
    k = list(std.x).index("xa")
    assert abs(std.y[k] + std.error_y.array[k] - 1.0094) < 1e-12
    assert abs(std.y[k] - std.error_y.arrayminus[k] - 1.0062) < 1e-12
    non = paper["paper, nonstandard"]
    assert dict(zip(non.x, non.y, strict=True)) == {"gacv": 1.151, "brxa": 1.166}
    strip = inefficiency_box(t, strip=True)
    assert all(tr.boxpoints == "all" for tr in strip.data)


def test_scatter_counts():
    t = _table()
    fig = minimizer_scatter(t)
    assert len(fig.data) == 6                    # 2 cases × 3 criteria
    for tr in fig.data:
        case = "standard" if tr.xaxis in ("x", "x1") else "nonstandard"
        sub = t[(t["case"] == case) & (t["criterion"] == tr.name)]
        by_hand = sub.groupby(["log2_nlambda", "log2_sigma"]).size()
        got = {(x, y): s for x, y, s in zip(tr.x, tr.y, tr.marker.size, strict=True)}
        assert got == {k: float(v) for k, v in by_hand.items()}
        assert sum(tr.marker.size) == 6
    assert minimizer_counts(t, "standard", "nope").empty


def test_heatmap_marks_the_minimum():
    g = pd.DataFrame({"log2_sigma": np.repeat([-1.0, 0, 1], 4), "log2_nlambda": np.tile([-3.0, -2, -1, 0], 3),
                      "gacv": [5, 4, 3, 9, 8, 1.5, 7, 6, 2, 2.5, 3, 4]})
    fig = grid_heatmap(g, "gacv")
    assert fig.data[0].z[1][1] == 1.5 and fig.data[0].z.shape == (3, 4)
    assert (fig.data[1].x[0], fig.data[1].y[0]) == (-2.0, 0.0)
