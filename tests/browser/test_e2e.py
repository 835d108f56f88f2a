"""End to end in a real browser, against one running server (tests/browser/conftest.py):

- the first view of the default settings on a warm server;
- a setting changed in the sidebar: a cheap sweep runs by itself, an expensive one marks the view stale,
  and a running sweep can be cancelled with the earlier result kept;
- a click on a grid point redraws the decision panel, timed from the server's last message;
- the shared link (the page's URL) opened in a new session shows the same panels, criteria and point.
Screenshots go to artifacts/.
"""
import re
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: n = 300: exact LOO on this grid is estimated at about 18 s on the 2-core AMD EPYC of the rates (27 s in
#: one process, its 3 columns on 2 workers), so it stays above the 2 s auto-run bar (and runs long
#: enough to be cancelled) on a machine 9× faster (at n = 80 it was 1.9 s there, and ran by itself).
#: At n = 300 the first sweep once started worker processes whatever its size, and their start
#: entered the rates and kept the cheap change below from running by itself (now: sweeps estimated
#: under 1 s stay in one process, ``svmcore.grid.auto_jobs``, and only those enter the rates,
#: ``svmapp.estimate.record_rate``)
SMALL = "/?dataset=wahba2d&n=300&lam=-12:0:4&sig=-1:1:1&criteria=gacv,xa,misclass&extend=0"

#: records when each websocket message arrives and when the last chart first shows "clicked point"
TIMING_JS = """(() => {
  window.__ws = [];
  const Orig = window.WebSocket;
  window.WebSocket = function(...a) {
    const ws = new Orig(...a);
    ws.addEventListener('message', () => window.__ws.push(performance.now()));
    return ws;
  };
  window.WebSocket.prototype = Orig.prototype;
  Object.assign(window.WebSocket, Orig);
  window.__redraw = null;
  new MutationObserver(() => {
    if (window.__redraw !== null || !window.__armed) return;
    const g = document.querySelectorAll('.js-plotly-plot');
    if (g.length && g[g.length - 1].innerText.includes('clicked point')) window.__redraw = performance.now();
  }).observe(document, {subtree: true, childList: true, characterData: true});
})();"""

CLICK_JS = """([idx, xv, yv]) => {
  const gd = document.querySelectorAll('.js-plotly-plot')[idx];
  const fl = gd._fullLayout, r = gd.getBoundingClientRect();
  return [r.left + fl.xaxis._offset + fl.xaxis.l2p(xv), r.top + fl.yaxis._offset + fl.yaxis.l2p(yv)];
}"""

PANEL_TITLES_JS = """() => Array.from(document.querySelectorAll('.js-plotly-plot'))
  .filter(g => !g.closest('.st-key-plotly_preload'))
  .map(g => (g._fullLayout && g._fullLayout.title && g._fullLayout.title.text || '').replace(/<[^>]+>/g, ''))"""


def wait_charts(page, k):
    page.wait_for_function(f"document.querySelectorAll('.js-plotly-plot').length >= {k}")


def no_errors(page):
    assert page.locator('[data-testid="stException"]').count() == 0


def test_first_view_on_a_warm_server(server, browser):
    """The default view renders for a second visitor (timed in bench/first_view.py, not here)."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.set_default_timeout(120_000)
    page.goto(server + "/")                      # warms the server: the default sweep is stored
    wait_charts(page, 3)
    page.close()
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    t0 = time.perf_counter()
    page.goto(server + "/")
    wait_charts(page, 3)
    seconds = time.perf_counter() - t0
    print(f"first view on a warm server: {seconds:.2f} s")
    no_errors(page)
    page.screenshot(path=str(ROOT / "artifacts" / "e2e_first_view.png"))
    page.close()


def test_live_sidebar_click_and_shared_link(server, browser):
    page = browser.new_page(viewport={"width": 1500, "height": 1100})
    page.set_default_timeout(90_000)
    page.add_init_script(TIMING_JS)
    page.goto(server + SMALL)
    wait_charts(page, 4)
    page.get_by_text("grid log2(nλ) -12:0:4 × log2 σ -1:1:1").first.wait_for()

    # a cheap change runs by itself: no Run pressed
    box = page.get_by_role("textbox", name="log2(nλ)", exact=True)
    box.fill("-12:0:3")
    box.press("Enter")
    page.get_by_text("grid log2(nλ) -12:0:3 × log2 σ -1:1:1").first.wait_for()
    assert page.get_by_text("Stale:").count() == 0

    # an expensive change (exact LOO: about 18 s estimated here) waits for Run and marks the view stale at once
    page.get_by_text("exact LOO").first.click()
    page.get_by_text("Stale:").first.wait_for()
    assert "criteria:" in page.get_by_text("Stale:").first.inner_text()
    page.screenshot(path=str(ROOT / "artifacts" / "e2e_stale.png"), full_page=True)
    # run it, cancel while it runs: the earlier result stays
    page.get_by_role("button", name="Run sweep").last.click()
    page.get_by_role("button", name="Cancel").wait_for()
    page.get_by_text("Sweep: ≈").first.wait_for()      # its progress loop runs (as a user sees it)
    page.get_by_role("button", name="Cancel").click()
    page.get_by_text("Sweep cancelled; the earlier result is kept.").wait_for()
    page.get_by_text("grid log2(nλ) -12:0:3 × log2 σ -1:1:1").first.wait_for()
    page.get_by_text("Stale:").first.wait_for()
    page.get_by_text("exact LOO").first.click()                # back to the shown settings
    page.wait_for_function("() => !document.body.innerText.includes('Stale:')")
    wait_charts(page, 4)
    page.wait_for_timeout(800)

    # click the grid point (-6, 0) in the first panel; time the redraw from the server's last message
    assert "clicked point" not in page.locator(".js-plotly-plot").last.inner_text()
    x, y = page.evaluate(CLICK_JS, [0, -6, 0])
    page.mouse.move(x, y)
    page.wait_for_timeout(300)
    page.evaluate("() => { window.__armed = true; window.__redraw = null; }")
    page.mouse.click(x, y)
    page.wait_for_function("() => window.__redraw !== null")
    redraw, msgs = page.evaluate("() => [window.__redraw, window.__ws]")
    answered = max(t for t in msgs if t <= redraw)
    latency = (redraw - answered) / 1000
    print(f"decision panel redrawn {latency * 1000:.0f} ms after the server's last message")
    assert latency <= 0.5
    legend = page.locator(".js-plotly-plot").last.inner_text()
    assert "clicked point (-6, 0)" in legend
    assert "sel=-6" in page.url
    no_errors(page)
    titles = page.evaluate(PANEL_TITLES_JS)
    page.screenshot(path=str(ROOT / "artifacts" / "e2e_clicked.png"), full_page=True)

    # the link, opened in a fresh session, restores the same view
    link = page.url
    other = browser.new_page(viewport={"width": 1500, "height": 1100})
    other.set_default_timeout(90_000)
    other.goto(link)
    # every chart drawn (the panels may still be streaming in when the decision panel has its curve)
    other.wait_for_function("(n) => { const g = Array.from(document.querySelectorAll('.js-plotly-plot'))"
                            ".filter(x => !x.closest('.st-key-plotly_preload'));"
                            " return g.length >= n && g.every(x => x._fullLayout)"
                            " && g[n - 1].innerText.includes('clicked point (-6, 0)'); }", arg=len(titles))
    assert other.evaluate(PANEL_TITLES_JS) == titles
    # the linked point is marked on the surfaces (the clicking page shows Plotly's own selection)
    assert other.evaluate("() => Array.from(document.querySelectorAll('.js-plotly-plot'))"
                          ".filter(g => !g.closest('.st-key-plotly_preload'))[0].innerText"
                          ".includes('clicked point')")
    assert re.search(r"log2_nlambda=-12(%3A|:)0(%3A|:)3", other.url) and re.search(r"sel=-6(%2C|,)0", other.url)
    no_errors(other)
    other.close()
    page.close()
