"""Markers, legends, colours, hover and export settings of the contour and decision figures
(svmcore.viz.plots), each checked against the result table directly, not against the builders."""
import re
from dataclasses import replace
from itertools import combinations

import numpy as np
import plotly.graph_objects as go
import pytest

from svmcore.datasets.simulations import make_simulation
from svmcore.grid import Pick, sweep
from svmcore.spec import GridSpec
from svmcore import views
from svmcore.viz import plots

GRID = GridSpec.parse("-12:0:4", "-1:1:1")     # 4 × 3 points
N = 60
CRIT = ["gacv", "xa", "brxa", "misclass", "brmisclass"]


@pytest.fixture(scope="module")
def wahba():
    data = make_simulation("wahba2d", n=N, seed=0)
    return data, sweep(data, GRID, criteria=CRIT, cost_a=1.0, cost_b=2.0, prior_a=0.1)


@pytest.fixture(scope="module")
def flagged(wahba):
    """The same result with rows 0, 5 and 7 forced to flagged."""
    _, res = wahba
    t = res.table.copy()
    t["flagged"] = False
    t.loc[[0, 5, 7], "flagged"] = True
    return replace(res, table=t)


def by_meta(fig, meta):
    return [tr for tr in fig.data if tr.meta == meta]


def legend_names(fig):
    return [tr.name for tr in fig.data if tr.showlegend]


def usable_minimizers(t, col):
    """Rows sharing the minimum of ``col`` over unflagged finite rows (plain numpy)."""
    v = t[col].to_numpy(float)
    ok = np.isfinite(v) & ~t["flagged"].to_numpy(bool)
    return np.flatnonzero(ok & (v == v[ok].min()))


def on_boundary(t, rows):
    lam, sig = t.log2_nlambda.to_numpy(float), t.log2_sigma.to_numpy(float)
    return all(lam[r] in (lam.min(), lam.max()) or sig[r] in (sig.min(), sig.max()) for r in rows)


# ------------------------------------------------------------------ 1. legend
def test_single_panel_legend_once_per_kind_below_the_plot(flagged):
    res = flagged
    fig = plots.criterion_contour(res, "xa", show_others=["gacv", "misclass"], selected=(-4, 0))
    names = legend_names(fig)
    assert len(names) == len(set(names))
    ties = len(usable_minimizers(res.table, "xa")) > 1
    expected = {"this panel's minimizer", "clicked point", "GACV minimizer", "MISCLASS minimizer",
                "flagged fit (KKT check failed)"} | ({"tied minimizers"} if ties else set())
    assert expected <= set(names)
    # every other-criterion marker has its own symbol and colour
    others = {tr.name: tr for tr in fig.data if tr.meta == "other-min"}
    assert others["GACV minimizer"].marker.color == plots.COLORS["GACV"]
    assert others["MISCLASS minimizer"].marker.color == plots.COLORS["MISCLASS"]
    assert others["GACV minimizer"].marker.symbol != others["MISCLASS minimizer"].marker.symbol
    # horizontal, at the bottom of the figure, so never on the colourbar at the right
    lg = fig.layout.legend
    assert lg.orientation == "h" and lg.yref == "container" and lg.y == 0 and lg.yanchor == "bottom"
    assert fig.layout.height == 340


def test_grid_legend_not_repeated_per_panel(flagged):
    res = flagged
    fig = plots.contour_grid(res, CRIT, show_others=True, selected=(-8, 1))
    names = legend_names(fig)
    assert len(names) == len(set(names))
    for label in ("GACV", "XA", "BRXA", "MISCLASS", "BRMISCLASS"):
        assert f"{label} minimizer" in names
    assert {"this panel's minimizer", "clicked point"} <= set(names)
    # one star per panel, all toggled by the one legend entry
    stars = by_meta(fig, "own-min")
    assert len(stars) == len(CRIT) and {s.legendgroup for s in stars} == {"own-min"}
    assert all(s.marker.symbol == "star" for s in stars)
    sel = by_meta(fig, "selected")
    assert len(sel) == len(CRIT) and all((s.x[0], s.y[0]) == (-8, 1) for s in sel)


def test_tied_minimizers_are_the_usable_ties(flagged):
    res = flagged
    t = res.table
    for col in CRIT:
        fig = plots.criterion_contour(res, col)
        rows = usable_minimizers(t, col)
        ties = by_meta(fig, "ties")
        if len(rows) == 1:
            assert not ties
            continue
        got = sorted(zip(ties[0].x, ties[0].y))
        assert got == sorted(zip(t.log2_nlambda.iloc[rows], t.log2_sigma.iloc[rows]))


# ------------------------------------------------------------------ 2. colours and dashes
def _lab(hexcolor):
    """CIE L*a*b* (D65) of an sRGB hex colour."""
    c = np.array([int(hexcolor.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4)])
    c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722],
                    [0.0193, 0.1192, 0.9505]]) @ c / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def test_every_criterion_has_its_own_colour_and_dash():
    labels = list(views.LABELS.values())
    colours = [plots.COLORS[lb].lower() for lb in labels]
    dashes = [plots.DASHES[lb] for lb in labels]
    assert len(set(colours)) == len(labels) and len(set(dashes)) == len(labels)
    for a, b in combinations(labels, 2):       # visibly different (CIE76 ΔE)
        assert np.linalg.norm(_lab(plots.COLORS[a]) - _lab(plots.COLORS[b])) > 15, (a, b)
    for lb in labels:                           # and unlike the two classes' points
        for cls in ("#1f4e79", "#c0504d"):
            assert plots.COLORS[lb].lower() != cls
            assert np.linalg.norm(_lab(plots.COLORS[lb]) - _lab(cls)) > 20, (lb, cls)


def test_decision_curves_use_the_criterion_dash(wahba):
    data, res = wahba
    view = views.decision_view(data, res, res.weights, columns=["gacv", "xa", "misclass"],
                               selected=(-4, 0), resolution=25)
    fig = plots.decision_figure(view)
    seen = 0
    for name in view.surfaces:
        tr = [t for t in fig.data if (t.name or "").startswith(views.label(name) if name != "selected"
                                                               else "clicked point")]
        assert len(tr) == 1, name
        assert tr[0].line.dash == plots.DASHES[name] and tr[0].line.color == plots.COLORS[name]
        seen += 1
    assert seen >= 3


# ------------------------------------------------------------------ 3. edges, ranges, clipping
def test_edge_markers_match_the_grid_boundary(wahba):
    _, res = wahba
    t = res.table
    lam, sig = np.unique(t.log2_nlambda), np.unique(t.log2_sigma)
    n_edge = 0
    for col in CRIT:
        fig = plots.criterion_contour(res, col)
        rows = usable_minimizers(t, col)
        ring = by_meta(fig, "edge") + by_meta(fig, "limit")
        assert bool(ring) == on_boundary(t, rows), col
        if ring:
            n_edge += 1
            p = res.pick(col)
            assert (ring[0].x[0], ring[0].y[0]) == (t.log2_nlambda[p.row], t.log2_sigma[p.row])
            assert "on the grid edge" in fig.layout.title.text
            assert any("on the grid edge" in (n or "") for n in legend_names(fig) + [ring[0].name])
            grid = by_meta(fig, "grid")[0]
            assert "on the grid edge" in grid.text[p.row]
        # half a grid step beyond the grid on both axes; no marker is clipped
        assert list(fig.layout.xaxis.range) == pytest.approx([lam[0] - 2, lam[-1] + 2])
        assert list(fig.layout.yaxis.range) == pytest.approx([sig[0] - 0.5, sig[-1] + 0.5])
        assert all(tr.cliponaxis is False for tr in fig.data if isinstance(tr, go.Scatter))
    assert n_edge >= 1          # the small grid puts some pick on its edge


def test_hard_limit_is_named(wahba, monkeypatch):
    _, res = wahba
    res = replace(res)
    p = res.pick("gacv")
    monkeypatch.setattr(res, "pick", lambda c: Pick(p.row, 1, "large-λ edge", True) if c == "gacv"
                        else None)
    fig = plots.criterion_contour(res, "gacv")
    ring = by_meta(fig, "limit")
    assert len(ring) == 1 and "at the hard limit" in ring[0].name
    assert "minimizer at the grid's hard limit" in legend_names(fig)
    assert "at the hard limit" in by_meta(fig, "grid")[0].text[p.row]


# ------------------------------------------------------------------ 4. flagged fits
def test_flagged_fits_marked_in_every_panel(flagged):
    res = flagged
    t = res.table
    fig = plots.contour_grid(res, CRIT)
    marks = by_meta(fig, "flagged")
    assert len(marks) == len(CRIT)
    want = sorted(zip(t.log2_nlambda[t.flagged], t.log2_sigma[t.flagged]))
    assert len(want) == 3
    for m in marks:
        assert m.marker.symbol == "x-thin-open" and sorted(zip(m.x, m.y)) == want
    assert legend_names(fig).count("flagged fit (KKT check failed)") == 1
    for grid in by_meta(fig, "grid"):             # each panel's hover notes: exactly the flagged rows
        for i, h in enumerate(grid.text):
            assert ("flagged: KKT residual above tolerance, left out of picks" in h) == bool(t.flagged[i])
    # a result without flagged fits has no such marker
    clean = replace(res, table=t.assign(flagged=False))
    assert not by_meta(plots.criterion_contour(clean, "gacv"), "flagged")


# ------------------------------------------------------------------ 5. scikit-learn's C and γ
def test_hover_gives_sklearn_C_and_gamma(wahba):
    _, res = wahba
    t = res.table
    grid = by_meta(plots.criterion_contour(res, "gacv"), "grid")[0]
    m = re.search(r"sklearn: C = 1/\(2nλ\) = %\{customdata\[(\d)\]:[^}]*\}, "
                  r"γ = 1/\(2σ²\) = %\{customdata\[(\d)\]:[^}]*\}", grid.hovertemplate)
    assert m, grid.hovertemplate
    cd = np.asarray(grid.customdata, float)
    for i in range(len(t)):
        assert cd[i, int(m.group(1))] == pytest.approx(1 / (2 * N * t["lambda"][i]), rel=1e-4)
        assert cd[i, int(m.group(2))] == pytest.approx(1 / (2 * t["sigma"][i] ** 2), rel=1e-4)


# ------------------------------------------------------------------ 6. 1-D titles
def test_one_dimensional_title_and_subtitle(wahba):
    d1 = make_simulation("lin1d", n=40, seed=0)
    r1 = sweep(d1, GridSpec.parse("-8:0:4", "-1:0:1"), criteria=["gacv"])
    f1 = plots.decision_figure(views.decision_view(d1, r1, resolution=30), subtitle="my settings")
    assert "f(x) of the chosen fits" in f1.layout.title.text and "f = 0 curves" not in f1.layout.title.text
    assert "my settings" in f1.layout.title.text
    data, res = wahba
    f2 = plots.decision_figure(views.decision_view(data, res, resolution=20), subtitle="other")
    assert f2.layout.title.text.startswith("Decision curves f = 0 of the chosen fits")
    assert "other" in f2.layout.title.text


# ------------------------------------------------------------------ 7. exports
def test_settings_line_and_export_name(wahba):
    data, res = wahba
    line = plots.settings_line(res)
    pa_s = np.mean(data.y > 0)
    L_pos, L_neg = 2.0 * 0.1 / pa_s, 1.0 * 0.9 / (1 - pa_s)      # C_B π_A/π_A^s, C_A π_B/π_B^s
    assert line.startswith(f"{data.name}, n = {N}")
    assert "nonstandard: C_A = 1, C_B = 2, π_A = 0.1" in line
    assert f"L(+1) = {L_pos:.4g}, L(−1) = {L_neg:.4g}" in line
    assert "log2(nλ) -12:0:4, log2 σ -1:1:1" in line and "XA ρ = 2" in line and "solver" in line
    name = plots.export_name(res, "surfaces")
    assert re.fullmatch(r"[A-Za-z0-9._-]+", name)
    for part in ("surfaces", "wahba2d", f"n{N}", "CA1", "CB2", "piA0.1", "-12_0_4", "-1_1_1"):
        assert part in name
    odd = replace(res, spec=replace(res.spec, data=replace(res.spec.data, name="my data/ü (1)")))
    assert re.fullmatch(r"[A-Za-z0-9._-]+", plots.export_name(odd, "decision curves"))


def test_chart_config():
    cfg = plots.chart_config("a_b", "svg")
    assert cfg["displayModeBar"] == "hover"
    assert cfg["toImageButtonOptions"] == {"format": "svg", "filename": "a_b", "scale": 2}
    assert {"zoom2d", "pan2d", "lasso2d"} <= set(cfg["modeBarButtonsToRemove"])
    assert plots.chart_config("x")["toImageButtonOptions"]["format"] == "png"
    with pytest.raises(ValueError):
        plots.chart_config("x", "jpeg")


def test_contour_grid_title_and_no_overlaps(wahba):
    _, res = wahba
    fig = plots.contour_grid(res, CRIT, ncols=3)
    title = fig.layout.title.text
    assert plots.settings_line(res) in title.replace("<br>", " · ")      # wrapped at its " · "
    assert all(len(re.sub("<[^>]+>", "", line)) <= 100 for line in title.split("<br>"))
    cs = [tr for tr in fig.data if isinstance(tr, go.Contour)]
    doms = []
    for i, c in enumerate(cs):
        ax = fig.layout["xaxis" if i == 0 else f"xaxis{i + 1}"]
        assert ax.automargin
        x0, x1 = ax.domain
        cb = c.colorbar
        assert cb.x >= x1 and cb.thickness <= 10                    # right of its own plot
        doms.append((x0, x1, cb.x))
        ann = fig.layout.annotations[i]
        assert x0 <= ann.x <= x1 and ann.font.size <= 12               # title over its own plot
    for (a0, _, acb), (b0, _, _) in zip(doms, doms[1:]):
        if b0 > a0:                                                    # same row: next panel later
            assert acb + 0.03 < b0                                     # bar and ticks fit in between


def test_wrap_line_breaks_only_between_parts():
    text = " · ".join(["a" * 30, "b" * 30, "c" * 30, "d" * 5])
    lines = plots.wrap_line(text, width=70).split("<br>")
    assert lines == ["a" * 30 + " · " + "b" * 30, "c" * 30 + " · " + "d" * 5]
    assert plots.wrap_line("short") == "short"


def test_sure_plateau_is_hatched_exactly_where_no_point_is_at_its_bound():
    """solo_xor is separable: at small λ no point is at its bound and SURE's complexity term vanishes."""
    from svmcore.datasets.simulations import make_simulation
    from svmcore.grid import sweep
    from svmcore.spec import GridSpec
    from svmcore.viz import plots

    data = make_simulation("solo_xor", n=60, seed=0)
    res = sweep(data, GridSpec.parse("-16:0:4", "-1:0:1"), criteria=["sure", "gacv"])
    flat = res.table["sure_degenerate"].to_numpy(bool)
    assert flat.any() and not flat.all()
    fig = plots.criterion_contour(res, "sure")
    marks = [tr for tr in fig.data if tr.meta == "plateau"]
    assert len(marks) == 1
    got = sorted(zip(marks[0].x, marks[0].y))
    want = sorted(zip(res.table["log2_nlambda"][flat], res.table["log2_sigma"][flat]))
    assert got == want
    assert not [tr for tr in plots.criterion_contour(res, "gacv").data if tr.meta == "plateau"]


def test_default_panels_pair_each_proxy_with_its_target(wahba):
    from dataclasses import replace

    from svmcore import views
    from svmcore.weights import class_weights_from_costs

    _, res = wahba                                       # C_B = 2, π_A = 0.1: nonstandard
    assert views.default_panels(res) == ["gacv", "brxa", "brmisclass"]      # no GCKL in CRIT
    std = replace(res, weights=class_weights_from_costs(np.r_[np.ones(3), -np.ones(7)]))
    assert views.default_panels(std) == ["gacv", "xa", "misclass"]
    no_truth = replace(std, table=std.table.drop(columns=["misclass", "brmisclass"]))
    assert views.default_panels(no_truth) == ["gacv", "xa"]
