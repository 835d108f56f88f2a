"""Issue 22 in a real browser: every lesson step from its link (its banner and figures), the Fig 1.5
preset's panels, the projector layout at 1280×720, a bad link naming each of its problems, and the
criteria and summary pages at 1440, 1000 and 390 px. Screenshots go to artifacts/ (two lesson steps
to docs/lesson_*.png instead with UPDATE_DOCS_SCREENSHOTS=1)."""
import os
from pathlib import Path

import pytest

from svmapp import lessons as L
from svmcore.views import label

ROOT = Path(__file__).resolve().parents[2]
ART = ROOT / "artifacts"
#: where the README's two lesson screenshots go: artifacts/, or docs/ with UPDATE_DOCS_SCREENSHOTS=1
#: (a test run leaves the tracked files alone)
SHOTS = ROOT / "docs" if os.environ.get("UPDATE_DOCS_SCREENSHOTS") == "1" else ART
TITLES_JS = """() => Array.from(document.querySelectorAll('.js-plotly-plot'))
  .filter(g => !g.closest('.st-key-plotly_preload') && g._fullLayout)
  .map(g => (g._fullLayout.title && g._fullLayout.title.text || '').replace(/<[^>]+>/g, ''))"""
BOXES_JS = """() => Array.from(document.querySelectorAll('.js-plotly-plot'))
  .filter(g => !g.closest('.st-key-plotly_preload') && g._fullLayout)
  .map(g => { const r = g.getBoundingClientRect();
              return [(g._fullLayout.title.text || '').replace(/<[^>]+>/g, ''), r.top, r.bottom]; })"""


#: per figure: its title, the bottom of its title block and the top of its (first) plot area
TITLE_CLEAR_JS = """() => Array.from(document.querySelectorAll('.js-plotly-plot'))
  .filter(g => !g.closest('.st-key-plotly_preload') && g._fullLayout)
  .map(g => { const t = g.querySelector('.g-gtitle'), p = g.querySelector('.nsewdrag');
              return [(g._fullLayout.title.text || '').replace(/<[^>]+>/g, '').slice(0, 40),
                      t ? t.getBoundingClientRect().bottom : 0, p ? p.getBoundingClientRect().top : 1e9]; })"""


#: legend entries whose text runs past their figure's right edge: (entry, overhang in px)
LEGEND_CUT_JS = """() => Array.from(document.querySelectorAll('.js-plotly-plot'))
  .filter(g => !g.closest('.st-key-plotly_preload') && g._fullLayout)
  .flatMap(g => { const right = g.getBoundingClientRect().right;
    return Array.from(g.querySelectorAll('.legendtext'))
      .map(e => [e.textContent, e.getBoundingClientRect().right - right]).filter(([, over]) => over > 1); })"""


def open_page(browser, url, width=1440, height=900):
    page = browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(120_000)
    page.goto(url)
    return page


def no_errors(page):
    assert page.locator('[data-testid="stException"]').count() == 0
    empty = page.locator('[data-testid="stSelectbox"] input').evaluate_all(
        "els => els.filter(e => !e.value).map(e => e.getAttribute('aria-label'))")
    assert empty == [], empty                                             # no select box left empty


def wait_titles(page, names):
    js = ("(names) => { const t = (" + TITLES_JS + ")(); return names.every(n => t.some(x => x.startsWith(n))); }")
    page.wait_for_function(js, arg=list(names))


STEPS = [(les, k) for les in L.LESSONS for k in range(1, len(les.steps) + 1)]
#: the figures each page other than the tuning page draws for a step (title prefixes)
PAGE_TITLES = {"losses": ["Loss functions"],
               "path": ["p(x) and its Bayes rule", "f(x) along the λ path", "GCKL and MISCLASS against λ"],
               "soft": ["p̂ contours", "ranGACV over"],
               "cosso": ["Tuning curves", "θ against the budget M", "Fitted components", "Decision regions"],
               "usvc": ["navia_a: class densities", "navia_a: error vs threshold", "decision boundaries"]}


@pytest.mark.parametrize("les,k", STEPS, ids=[f"{les.id}-{k}" for les, k in STEPS])
def test_each_lesson_step_loads_from_its_link(server, browser, les, k):
    """Each step from its link at 1440×900: its figures and banner, no error; on the tuning page no
    legend entry cut at its panel's edge (SURE's step: hatched plateau, other minimizers) and,
    where the step clicks a point, the decision panel's plot area inside the first screen."""
    step = les.steps[k - 1]
    page = open_page(browser, server + L.step_url(les, k))
    names = ([label(c) for c in step.values["tun_shown"]] + ["Decision curves"]
             if step.page == "tuning" else PAGE_TITLES[step.page])
    wait_titles(page, names)
    page.get_by_text(f"step {k} of {len(les.steps)}").first.wait_for()       # its banner: what to notice
    no_errors(page)
    if step.page != "tuning":                   # the link's keys are all the page's (no note)
        assert page.locator('[data-testid="stAlert"]').count() == 0
    else:
        if "selected" in step.values:
            _clicked_curve_in_view(page)
        page.wait_for_timeout(800)
        cut = page.evaluate(LEGEND_CUT_JS)
        assert not cut, cut
    if (les.id, k) in (("wahba", 5), ("wahba", 6)):
        page.screenshot(path=str(SHOTS / f"lesson_{les.id}_{k}.png"))
    page.close()


def choose(page, select, option, tries=5):
    """Open ``select`` and click ``option``. A rerun that redraws the sidebar just then closes the
    list (in one full-suite run the option never appeared within 120 s), so a list that shows no
    such option within 10 s is closed and opened again."""
    for k in range(tries):
        select.click()
        try:
            page.get_by_role("option", name=option).click(timeout=10_000)
            return
        except Exception:                              # playwright's TimeoutError
            if k == tries - 1:
                raise
            page.keyboard.press("Escape")
            page.wait_for_timeout(1000)


def test_fig15_preset_shows_brxa_and_brmisclass(server, browser):
    page = open_page(browser, server + "/?dataset=wahba2d&n=80&lam=-12:0:4&sig=-1:1:1&show=gacv,xa")
    wait_titles(page, ["GACV", "XA"])
    choose(page, page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').first,
           "Figure 1.5")
    page.get_by_role("button", name="Load preset and run").click()
    wait_titles(page, ["GCKL", "GACV", "BRMISCLASS", "BRXA"])
    no_errors(page)
    page.screenshot(path=str(ART / "lessons_fig15.png"))
    page.close()


def test_projector_layout_at_1280x720(server, browser):
    les, k = L.WAHBA, 5
    page = open_page(browser, server + L.step_url(les, k) + "&present=1", 1280, 720)
    wait_titles(page, ["GACV", "Decision curves"])
    page.wait_for_timeout(800)
    boxes = page.evaluate(BOXES_JS)
    surface = next(b for b in boxes if b[0].startswith("GACV"))
    decision = next(b for b in boxes if b[0].startswith("Decision curves"))
    page.screenshot(path=str(ART / "lessons_projector_1280x720.png"))
    for name, top, bottom in (surface, decision):
        assert 0 <= top and bottom <= 720 + 1, (name, top, bottom)
    fonts = page.evaluate("() => Array.from(document.querySelectorAll('.js-plotly-plot .legendtext'))"
                          ".map(e => parseFloat(e.style.fontSize))")
    assert fonts and min(fonts) >= 14
    over = [(t, b, p) for t, b, p in page.evaluate(TITLE_CLEAR_JS) if b > p + 1]
    assert not over, over                                   # every title (and settings line) above its plot
    no_errors(page)
    page.close()


#: four problems in one link, and what the sidebar's note says of each (the app tests,
#: ``tests/app``, give each alone)
BAD_LINK = {"show=gacv,gacv": "twice", "dataset=../../etc/passwd": "../../etc/passwd",
            "ncols=999": "ncols", "bogus=1": "bogus"}


def test_a_bad_link_names_each_of_its_problems(server, browser):
    page = open_page(browser, server + "/?n=60&lam=-12:0:4&sig=-1:1:1&" + "&".join(BAD_LINK))
    page.locator('[data-testid="stSidebar"] [data-testid="stAlert"]').first.wait_for()
    sidebar = page.locator('[data-testid="stSidebar"]').inner_text()
    assert [q for q, needle in BAD_LINK.items() if needle not in sidebar] == []
    no_errors(page)
    page.close()


@pytest.mark.parametrize("width", [1440, 1000, 390])
def test_criteria_and_summary_layout(server, browser, width):
    page = open_page(browser, server + "/criteria", width, 900)
    page.locator(".katex-display").nth(8).wait_for()
    cut = page.evaluate("""() => Array.from(document.querySelectorAll('.katex-display')).filter(d => {
        const k = d.querySelector('.katex'); const fits = k.scrollWidth <= d.clientWidth + 3;
        return !fits && getComputedStyle(d).overflowX !== 'auto'; }).length""")
    assert cut == 0
    if width >= 1000:
        wide = page.evaluate("""() => Array.from(document.querySelectorAll('.katex-display'))
            .filter(d => d.scrollWidth > d.clientWidth + 3).length     // KaTeX overhangs by ~2 px""")
        assert wide == 0
    page.screenshot(path=str(ART / f"criteria_{width}.png"), full_page=True)
    page.goto(server + "/summary?n=60&lam=-12:0:4&sig=-1:1:1")
    page.locator('[data-testid="stDataFrame"]').first.wait_for()
    page.wait_for_timeout(1000)
    no_errors(page)
    page.screenshot(path=str(ART / f"summary_{width}.png"), full_page=True)
    page.close()


def _clicked_curve_in_view(page):
    """A step with a clicked point (at 1440×900): the decision panel's plot area is inside the
    first screen, and every title (and settings line) above its plot."""
    page.wait_for_function("() => Array.from(document.querySelectorAll('.js-plotly-plot'))"
                           ".some(g => g.innerText.includes('clicked point'))")
    box = page.evaluate("""() => { const g = Array.from(document.querySelectorAll('.js-plotly-plot'))
        .find(g => g.innerText.includes('clicked point'));
        const r = g.querySelector('.nsewdrag').getBoundingClientRect(); return [r.top, r.bottom]; }""")
    page.screenshot(path=str(ART / "lessons_clicked_1440x900.png"))
    assert 0 <= box[0] and box[1] <= 900, box
    over = [(t, b, p) for t, b, p in page.evaluate(TITLE_CLEAR_JS) if b > p + 1]
    assert not over, over


@pytest.mark.parametrize("present", [False, True])
def test_next_and_back_cross_pages(server, browser, present):
    """From a tuning step, Next opens the path page's step with its banner and figures, and Next
    again the tuning page's next step; Back returns; the address bar names each step (and
    presentation mode, when on)."""
    page = open_page(browser, server + L.step_url(L.WAHBA, 3) + ("&present=1" if present else ""))
    wait_titles(page, ["MISCLASS", "Decision curves"])
    page.get_by_role("button", name="Next").click()
    page.get_by_text("step 4 of 7").first.wait_for()
    wait_titles(page, PAGE_TITLES["path"])
    assert "/path?" in page.url and "step=4" in page.url
    assert ("present=true" in page.url) == present
    page.get_by_role("button", name="Next").click()
    page.get_by_text("step 5 of 7").first.wait_for()
    wait_titles(page, ["GACV", "XA", "Decision curves"])
    page.wait_for_function("() => location.search.includes('step=5')")
    page.locator(".st-key-lesson_prev button").first.click()    # presenting, Back is its arrow
    page.get_by_text("step 4 of 7").first.wait_for()
    wait_titles(page, PAGE_TITLES["path"])
    no_errors(page)
    page.close()


#: the figure each family page's step is about, which presentation mode puts on the first screen
#: (the soft step is about its table of picks, which comes first; its figure follows)
STEP_FIGURE = {"path": "f(x) along the λ path", "soft": "p̂ contours", "cosso": "θ against the budget M",
               "usvc": "navia_a: error vs threshold"}
FAMILY_STEPS = [(les, k) for les, k in STEPS if les.steps[k - 1].page in STEP_FIGURE]
TABLE_BOX_JS = """() => { const r = document.querySelector('[data-testid="stDataFrame"]')
  .getBoundingClientRect(); return [r.top, r.bottom]; }"""


@pytest.mark.parametrize("les,k", FAMILY_STEPS, ids=[f"{les.id}-{k}" for les, k in FAMILY_STEPS])
def test_family_steps_in_presentation_mode_at_1280x720(server, browser, les, k):
    """Presenting, a step on another family's page shows its banner and the top of the figure it
    is about on the first screen (the page's controls in a popover, its introduction left out)."""
    name = STEP_FIGURE[les.steps[k - 1].page]
    page = open_page(browser, server + L.step_url(les, k) + "&present=1", 1280, 720)
    wait_titles(page, [name])
    page.get_by_text(f"step {k} of {len(les.steps)}").first.wait_for()
    page.wait_for_timeout(800)
    top = next(t for n, t, _ in page.evaluate(BOXES_JS) if n.startswith(name))
    page.screenshot(path=str(ART / f"present_{les.id}_{k}.png"))
    if les.steps[k - 1].page == "soft":
        table_top, table_bottom = page.evaluate(TABLE_BOX_JS)
        assert 0 <= table_top and table_bottom <= 720 and top <= 720 - 200, (table_bottom, top)
    else:
        assert 0 <= top <= 720 - 250, (name, top)           # its title and most of a panel
    assert page.get_by_role("button", name="Settings").count() == 1         # the controls
    no_errors(page)
    page.close()


def test_legend_entries_fit_their_panels_presenting(server, browser):
    """SURE's step presenting (1280×720): no legend entry is cut at its panel's edge (on a screen,
    1440×900, ``test_each_lesson_step_loads_from_its_link`` checks every tuning step)."""
    les, k = L.WAHBA, next(i for i, s in enumerate(L.WAHBA.steps, 1) if "SURE" in s.title)
    page = open_page(browser, server + L.step_url(les, k) + "&present=1", 1280, 720)
    wait_titles(page, ["SURE", "MISCLASS", "Decision curves"])
    page.wait_for_timeout(800)
    cut = page.evaluate(LEGEND_CUT_JS)
    assert not cut, cut
    no_errors(page)
    page.close()
