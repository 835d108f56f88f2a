"""In a real browser: the pages of the other model families and of studies run with small settings
set through their own widgets and draw their figures, with no exception and no error alert.
Screenshots go to artifacts/<page>.png."""
import re
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VIEWPORT = {"width": 1500, "height": 1100}
PLOTS = ".js-plotly-plot"
#: the title and the subplot titles (annotations) of every Plotly figure on the page, in order
#: (Streamlit's theme wraps titles in <b>: tags are dropped)
FIGURES_JS = """() => { const bare = s => (s || '').replace(/<[^>]+>/g, '');
  return Array.from(document.querySelectorAll('.js-plotly-plot')).map(gd => ({
    title: bare(gd.layout.title && gd.layout.title.text),
    annotations: (gd.layout.annotations || []).map(a => bare(a.text)),
    traces: gd.data.map(t => t.name || '')})); }"""


@pytest.fixture
def page(browser):
    pg = browser.new_page(viewport=VIEWPORT)
    pg.set_default_timeout(60_000)
    yield pg
    pg.close()


def _open(page, server, path, ready_text):
    page.goto(f"{server}/{path}")
    page.get_by_text(ready_text).first.wait_for()


def _set(page, label, value):
    """Type into a number or text input (found by its label) and commit it with Enter."""
    box = page.get_by_label(label, exact=True)
    box.fill(str(value))
    box.press("Enter")


def _wait_plots(page, count):
    page.wait_for_function(f"document.querySelectorAll('{PLOTS}').length >= {count}")
    page.wait_for_timeout(300)                       # let the last figure finish its first draw


def _figure_by_title(figures, prefix):
    hits = [f for f in figures if f["title"].startswith(prefix)]
    assert hits, (prefix, [f["title"] for f in figures])
    return hits[0]


def _assert_clean(page, name):
    page.screenshot(path=str(ROOT / "artifacts" / f"{name}.png"), full_page=True)
    assert page.locator('[data-testid="stException"]').count() == 0
    empty = page.locator('[data-testid="stSelectbox"] input').evaluate_all(
        "els => els.filter(e => !e.value).map(e => e.getAttribute('aria-label'))")
    assert empty == [], empty                                             # no select box left empty
    errors = page.locator('[data-testid="stAlertContentError"]')
    assert errors.count() == 0, errors.all_inner_texts()


def test_soft_page_small_run(server, page):
    _open(page, server, "soft", "Choose the settings and press")
    assert page.locator(PLOTS).count() == 0                    # nothing is fitted before Run
    # a bad grid text is reported, and shown as typed (not as Markdown: the stars stay)
    _set(page, "log₂(nλ) START:STOP:STEP", "*a*:0:1")
    page.get_by_role("button", name="Run", exact=True).click()
    alert = page.locator('[data-testid="stAlertContentError"]')
    alert.wait_for()
    assert "*a*" in alert.inner_text() and "log2(nλ)" in alert.inner_text()
    _set(page, "n", 40)
    _set(page, "log₂(nλ) START:STOP:STEP", "-8:0:4")
    _set(page, "log₂σ START:STOP:STEP", "-1:0:1")
    _set(page, "ranGACV R", 1)
    page.get_by_role("button", name="Run", exact=True).click()
    page.get_by_text("shown: solo_xor, n = 40, seed 0, log2(nλ) -8:0:4 × log2 σ -1:0:1, R = 1, "
                     "with CV").wait_for()
    assert "log2_nlambda=-8%3A0%3A4" in page.url or "log2_nlambda=-8:0:4" in page.url   # the link
    _wait_plots(page, 2)
    figs = page.evaluate(FIGURES_JS)
    contours = _figure_by_title(figs, "p̂ contours")
    assert contours["annotations"] == ["CKL", "GACV", "ranGACV", "CV"]      # one panel per criterion
    for crit in ("CKL", "GACV", "ranGACV", "CV"):
        assert f"p̂ {crit}" in contours["traces"]
    assert {"true p = ½", "SVM f = 0", "A", "B"} <= set(contours["traces"])
    spread = _figure_by_title(figs, "ranGACV over 10 draws")
    assert {"GACV (exact)", "CKL (target)", "ranGACV, R = 1 (each draw)"} <= set(spread["traces"])
    assert "true p = ½" in page.locator(PLOTS).first.inner_text()           # the legend is drawn
    _assert_clean(page, "soft")


def test_cosso_page_small_fit(server, page):
    _open(page, server, "cosso", "Variable selection (COSSO)")
    _set(page, "n (simulations)", 50)
    _set(page, "M grid size", 4)
    page.get_by_role("button", name="Fit COSSO").click()
    page.get_by_text(re.compile(r"^selected: ")).wait_for()
    _wait_plots(page, 5)
    figs = page.evaluate(FIGURES_JS)
    paths = _figure_by_title(figs, "θ against the budget M")
    assert [f"x{j}" for j in range(1, 11)] == paths["traces"][:10]        # zhang_additive: 10 inputs
    tuning = _figure_by_title(figs, "Tuning curves (M chosen by gckl)")
    assert "GCKL" in tuning["annotations"] and "GCKL" in tuning["traces"]   # one panel per curve
    assert paths["traces"][10:] == ["chosen M"]                             # the chosen M
    comps = _figure_by_title(figs, "Fitted components")
    assert "fitted" in comps["traces"] and comps["annotations"]            # one panel per main effect
    _figure_by_title(figs, "Decision regions")
    _figure_by_title(figs, "Test error")
    assert "n_M=4" in page.url and "model=cosso" in page.url                  # the shown fit's link
    _assert_clean(page, "cosso")
    _restored_from_link_equals(page, 5, "cosso_restored")


#: every figure's title and its traces' names and data, and every number box's value
VIEW_JS = """() => ({ boxes: Array.from(document.querySelectorAll('[data-testid="stNumberInput"] input'))
    .map(e => e.value),
  figures: Array.from(document.querySelectorAll('.js-plotly-plot')).map(gd => JSON.stringify([
    gd.layout.title && gd.layout.title.text,
    gd.data.map(t => [t.name || '', t.x, t.y, t.z])])) })"""


def _restored_from_link_equals(page, n_figures, name):
    """A new tab opened on ``page``'s link draws the same figures from the same settings."""
    first = page.evaluate(VIEW_JS)
    assert len(first["figures"]) >= n_figures and "50" in first["boxes"]     # n = 50 was typed
    again = page.context.browser.new_page(viewport=VIEWPORT)                 # a new session
    again.set_default_timeout(60_000)
    again.goto(page.url)
    _wait_plots(again, n_figures)
    again.wait_for_timeout(1000)
    second = again.evaluate(VIEW_JS)
    assert second["boxes"] == first["boxes"] and len(second["figures"]) == len(first["figures"])
    assert second["figures"] == first["figures"]
    _assert_clean(again, name)
    again.close()


def test_usvc_page_small_n(server, page):
    _open(page, server, "usvc", "Kernel machine on prototypes")
    _set(page, "n", 50)
    page.get_by_text("navia_a: n = 50 training points").wait_for()
    _wait_plots(page, 6)
    figs = page.evaluate(FIGURES_JS)
    dens = _figure_by_title(figs, "navia_a: class densities")
    assert dens["traces"] == ["π₊ f(x | +1)", "π₋ f(x | −1)"]
    err = _figure_by_title(figs, "navia_a: error vs threshold")
    assert "theoretical CE" in err["traces"] and "training CE" in err["traces"]
    chosen = [a for a in err["annotations"] if re.match(r"^(LS|SVC|USVC): -?[0-9.]+$", a)]
    assert sorted(a.split(":")[0] for a in chosen) == ["LS", "SVC", "USVC"]    # the chosen thresholds
    surfaces = [f for f in figs if any("surface" in a for a in f["annotations"])]
    assert [f["annotations"][0].split()[0] for f in surfaces] == ["SVC", "USVC"]
    assert "SVC (IRWLS from LS)" in surfaces[0]["traces"]                   # trajectories on the surface
    assert {"SVC (IRWLS from LS)", "USVC (from SVC)"} <= set(surfaces[1]["traces"])
    _figure_by_title(figs, "decision boundaries")
    page.get_by_text("theoretical CE").first.wait_for()                     # the thresholds table
    _assert_clean(page, "usvc")


def test_study_page_five_replicates_within_30_s(server, page):
    _open(page, server, "study", "press Run study")
    _set(page, "n per replicate", 40)
    _set(page, "replicates R", 5)
    _set(page, "log2(nλ) START:STOP:STEP", "-6:0:2")
    _set(page, "log2 σ START:STOP:STEP", "-1:1:1")
    t0 = time.perf_counter()
    page.get_by_role("button", name="Run study").click()
    page.wait_for_function(
        "() => Array.from(document.querySelectorAll('.js-plotly-plot'))"
        ".some(gd => gd.layout.title && gd.layout.title.text.includes('Inefficiency per criterion'))",
        timeout=60_000)
    seconds = time.perf_counter() - t0
    print(f"study page: 5 replicates, box plots after {seconds:.1f} s")
    page.get_by_text(re.compile(r"^5 replicates × 2 weightings: 15 tasks")).wait_for()   # 5 × 3 σ columns
    figs = page.evaluate(FIGURES_JS)
    box = _figure_by_title(figs, "Inefficiency per criterion")
    assert box["traces"][:2] == ["standard", "nonstandard"]
    _figure_by_title(figs, "Where the picks fall")
    _assert_clean(page, "study")
    assert seconds <= 30.0, f"the study took {seconds:.1f} s"


def test_saved_runs_page_empty_folder(server, page, tmp_path):
    _open(page, server, "saved", "Saved runs")
    page.get_by_text("Store:").wait_for()                  # the configured store only
    assert page.get_by_label("folder of saved runs").count() == 0
    assert page.locator('[data-testid="stException"]').count() == 0           # whatever it holds
    _assert_clean(page, "saved")


#: the subplot titles of the path figure, as boxes on the screen
TITLE_BOXES_JS = """() => { const gd = Array.from(document.querySelectorAll('.js-plotly-plot'))
  .find(g => (g.layout.title.text || '').includes('along the λ path'));
  return Array.from(gd.querySelectorAll('.annotation')).map(a => {
    const r = a.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }); }"""
#: the width of each figure on the screen, by title
WIDTHS_JS = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(gd =>
  [(gd.layout.title && gd.layout.title.text || '').replace(/<[^>]+>/g, '') || gd.parentElement.className,
   gd.getBoundingClientRect().width])"""


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("width", [1440, 1000, 390])
def test_path_page_at_three_widths(server, browser, width):
    pg = browser.new_page(viewport={"width": width, "height": 900})
    pg.set_default_timeout(60_000)
    try:
        pg.goto(f"{server}/path?model=svm&n=129&every=3&cols=3")
        pg.get_by_text("The regularization path (lin1d)").first.wait_for()
        _wait_plots(pg, 3)
        figs = pg.evaluate(FIGURES_JS)
        truth = _figure_by_title(figs, "p(x) and its Bayes rule")
        assert {"p(x) = P(A | x)", "Bayes rule 1{p(x) > ½}"} <= set(truth["traces"])
        panels = _figure_by_title(figs, "f(x) along the λ path")
        assert 9 <= len(panels["annotations"]) <= 11                       # every 3rd λ, last, best
        boxes = pg.evaluate(TITLE_BOXES_JS)
        clash = [(i, j) for i in range(len(boxes)) for j in range(i) if _overlap(boxes[i], boxes[j])]
        assert not clash, (width, clash)
        widths = dict(pg.evaluate(WIDTHS_JS))
        assert all(w >= min(300, width - 60) for w in widths.values()), widths
        assert pg.get_by_label("n", exact=True).input_value() == "129"      # restored from the link
        pg.screenshot(path=str(ROOT / "artifacts" / f"path_{width}.png"), full_page=True)
        for k, name in enumerate(("truth", "panels")):              # the figures below the fold
            pg.locator(PLOTS).nth(k).screenshot(path=str(ROOT / "artifacts" / f"path_{width}_{name}.png"))
        assert pg.locator('[data-testid="stException"]').count() == 0
        assert pg.locator('[data-testid="stAlertContentError"]').count() == 0
    finally:
        pg.close()


#: per figure: its title, its legend's box, its colour bars' boxes, the boxes of the tick labels of
#: its second subplot and of its annotations (subplot titles), on the screen
LEGEND_BOXES_JS = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(gd => {
  const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const all = sel => Array.from(gd.querySelectorAll(sel)).map(box);
  const leg = gd.querySelector('g.legend');
  return [(gd.layout.title && gd.layout.title.text || '').replace(/<[^>]+>/g, ''), leg ? box(leg) : null,
          all('g.colorbar'), all('g.x2tick text, g.y2tick text'), all('g.annotation')]; })"""


@pytest.mark.parametrize("width", [1440, 1000, 390])
@pytest.mark.parametrize("path,count", [("cosso?model=cosso&n=50&n_M=4", 5), ("usvc?model=usvc", 6)])
def test_legends_bars_and_labels_clear_at_three_widths(server, browser, path, count, width):
    """The Unbiased SVC's and COSSO's figures at 1440, 1000 and 390 px: a legend clear of its
    colour bar, the bar clear of the next subplot's ticks, no two annotations (subplot titles, the
    chosen thresholds' labels) over each other, and no figure squeezed."""
    pg = browser.new_page(viewport={"width": width, "height": 900})
    pg.set_default_timeout(60_000)
    try:
        pg.goto(f"{server}/{path}")
        _wait_plots(pg, count)
        pg.wait_for_timeout(700)
        figs = pg.evaluate(LEGEND_BOXES_JS)
        with_bars = [f for f in figs if f[1] and f[2]]
        assert with_bars, figs                                   # the check has something to check
        for title, leg, bars, ticks, _ in with_bars:
            assert not any(_overlap(leg, b) for b in bars), (width, title, leg, bars)
            assert not any(_overlap(t, b) for t in ticks for b in bars), (width, title, "ticks")
        for title, _, _, _, notes in figs:                       # subplot titles, threshold labels
            clash = [(i, j) for i in range(len(notes)) for j in range(i) if _overlap(notes[i], notes[j])]
            assert not clash, (width, title, "annotations", clash)
        widths = pg.evaluate(WIDTHS_JS)
        assert all(w >= min(300, width - 60) for _, w in widths), widths
        name = path.split("?")[0]
        pg.screenshot(path=str(ROOT / "artifacts" / f"{name}_{width}.png"), full_page=True)
        first_bar = next(i for i, f in enumerate(figs) if f[1] and f[2])            # below the fold
        pg.locator(PLOTS).nth(first_bar).screenshot(path=str(ROOT / "artifacts" / f"{name}_{width}_bar.png"))
        assert pg.locator('[data-testid="stException"]').count() == 0
        assert pg.locator('[data-testid="stAlertContentError"]').count() == 0
    finally:
        pg.close()
