"""End to end in a real browser: start the app, run a small sweep, click a grid point, check that
the decision panel gained the clicked point's curve, save a screenshot under artifacts/."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


CLICK_JS = """([idx, xv, yv]) => {
  const gd = document.querySelectorAll('.js-plotly-plot')[idx];
  const fl = gd._fullLayout, r = gd.getBoundingClientRect();
  return [r.left + fl.xaxis._offset + fl.xaxis.l2p(xv), r.top + fl.yaxis._offset + fl.yaxis.l2p(yv)];
}"""


def test_small_sweep_click_and_decision_panel(server, browser):
    if True:
        page = browser.new_page(viewport={"width": 1500, "height": 1100})
        page.set_default_timeout(90_000)
        # a small sweep through a link (the settings round trip through the query string)
        page.goto(server + "/?dataset=wahba2d&n=80&lam=-12:0:4&sig=-1:1:1&criteria=gacv,xa,misclass&extend=0")
        page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 4")
        page.get_by_text("grid log2(nλ) -12:0:4 × log2 σ -1:1:1").first.wait_for()

        # then a small sweep from the form: change the λ range and press Run sweep
        box = page.get_by_role("textbox", name="log2(nλ) start:stop:step")
        box.fill("-12:0:3")
        page.get_by_role("button", name="Run sweep").click()
        page.get_by_text(re.compile(r"grid log2\(nλ\) -?[0-9]+:-?[0-9]+:3 × log2 σ")).first.wait_for()
        page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 4")
        page.wait_for_timeout(1500)

        legend_before = page.locator(".js-plotly-plot").last.inner_text()
        assert "clicked point" not in legend_before

        # click the grid point (log2 nλ, log2 σ) = (-6, 0) in the first contour panel
        x, y = page.evaluate(CLICK_JS, [0, -6, 0])
        page.mouse.move(x, y)
        page.wait_for_timeout(300)
        page.mouse.click(x, y)
        page.get_by_text("Clicked grid point").first.wait_for()
        page.wait_for_function(
            "() => { const g = document.querySelectorAll('.js-plotly-plot');"
            " return g.length && g[g.length - 1].innerText.includes('clicked point'); }")
        legend_after = page.locator(".js-plotly-plot").last.inner_text()
        assert "clicked point (-6, 0)" in legend_after
        assert "sel=-6" in page.url                     # mirrored in the link
        page.screenshot(path=str(ROOT / "artifacts" / "e2e_clicked.png"), full_page=True)
        page.close()
