"""Time to the first view and click latency in a real browser (the default settings).

Starts ``streamlit run app.py`` (result cache off); the first visit is the cold view (the default
sweep runs); then opens the default page ``--visits`` times in fresh browser pages and reports the
seconds until the contour panels and the decision panel are drawn (every ``.js-plotly-plot`` laid
out and visible, the decision figure among them). Each visit's tab is opened on about:blank
``--settle-ms`` before the visit, as a visitor's tab exists before they type the address
(``settle``). Then ``--clicks`` clicks on distinct grid points of the first panel: the seconds
from the click until the decision panel's legend names the clicked point (the fit at that point
included). Targets (issue 22): first view ≤ 2 s warm, ≤ 5 s cold; click ≤ 0.5 s.

``--floor`` first times, the same way, a bare Streamlit page holding one small Plotly chart (the
framework's own cost on this machine: its scripts, the websocket, plotly.js), served with the app's
own ``.streamlit/config.toml``, so the app's figures can be read against it.

    PYTHONPATH=. python bench/first_view.py --visits 5 --clicks 6
"""
from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
#: five charts laid out and visible (Streamlit draws a chart hidden while its width is unknown and
#: shows it a frame or two later), the decision figure among them
DRAWN = "x => x._fullLayout && getComputedStyle(x).visibility === 'visible'"
READY = ("() => { const g = Array.from(document.querySelectorAll('.js-plotly-plot'));"
         f" return g.length >= 5 && g.every({DRAWN})"
         " && g.some(x => (x._fullLayout.title.text || '').includes('ecision')); }")
#: screen coordinates of the grid point (x, y) in the idx-th chart
CLICK_JS = """([idx, xv, yv]) => {
  const g = Array.from(document.querySelectorAll('.js-plotly-plot'))
    .filter(x => !x.closest('.st-key-plotly_preload'))[idx];
  const fl = g._fullLayout, r = g.getBoundingClientRect();
  return [r.left + fl.xaxis._offset + fl.xaxis.l2p(xv), r.top + fl.yaxis._offset + fl.yaxis.l2p(yv)];
}"""
SHOWN_JS = """(name) => Array.from(document.querySelectorAll('.js-plotly-plot'))
  .some(g => g.innerText.includes(name))"""
#: distinct grid points of the default grid (log2 nλ −20:8:2, log2 σ −3:3:1)
POINTS = [(-6, 0), (-4, 1), (0, -1), (2, 0), (-10, 2), (4, 1), (-14, -2), (6, 0)]


def clicks(page, k: int) -> list[float]:
    """Seconds from each click to the decision panel's redraw with that point's curve."""
    times = []
    for x, y in POINTS[:k]:
        px, py = page.evaluate(CLICK_JS, [0, x, y])
        page.mouse.move(px, py)
        page.wait_for_timeout(400)
        t0 = time.perf_counter()
        page.mouse.click(px, py)
        page.wait_for_function(SHOWN_JS, arg=f"clicked point ({x:g}, {y:g})", timeout=60_000)
        times.append(time.perf_counter() - t0)
        page.wait_for_timeout(300)
    return times


BARE_APP = """import plotly.graph_objects as go
import streamlit as st
st.set_page_config(layout="wide")
st.plotly_chart(go.Figure(go.Scatter(x=[1, 2, 3], y=[1, 3, 2])), theme=None)
"""
BARE_READY = ("() => { const g = Array.from(document.querySelectorAll('.js-plotly-plot'));"
              f" return g.length >= 1 && g.every({DRAWN}); }}")


def settle(page, settle_ms: int) -> None:
    """Open ``page`` on about:blank and wait ``settle_ms``: a visitor's browser tab already exists.
    Headless Chromium starts its own tab UI (a "WebUI Top Renderer" process, omnibox popup and all)
    with every new window: ~1.6 s of CPU on the machine's two cores, during the visit when the visit
    starts at once. With ``settle_ms`` = 0 the visit starts with the new window, as before 2026-11-25."""
    if settle_ms > 0:
        page.goto("about:blank")
        page.wait_for_timeout(settle_ms)


def start_server(script: str, cwd, env=None):
    """``streamlit run script`` on a free port; (process, url) once its health check answers."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", script, "--server.port", str(port),
                             "--server.headless", "true", "--server.address", "127.0.0.1"],
                            cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, **(env or {})})
    url = f"http://127.0.0.1:{port}/"
    for _ in range(200):
        try:
            urllib.request.urlopen(url + "_stcore/health", timeout=2)
            break
        except OSError:
            time.sleep(0.3)
    return proc, url


def visits(browser, url: str, ready: str, k: int, width: int,
           settle_ms: int) -> tuple[list[float], list[float]]:
    """Seconds to ``ready`` for k fresh pages, then for k pages of one context (HTTP cache warm);
    each page is opened on about:blank and left ``settle_ms`` before the visit (``settle``)."""
    fresh = []
    for _ in range(k):
        page = browser.new_page(viewport={"width": width, "height": 900})
        settle(page, settle_ms)
        t0 = time.perf_counter()
        page.goto(url)
        page.wait_for_function(ready, timeout=60_000)
        fresh.append(time.perf_counter() - t0)
        page.close()
    # the same visits in one browser context: plotly.js and the app's scripts come from the
    # HTTP cache (served immutable), as for a returning visitor
    ctx = browser.new_context(viewport={"width": width, "height": 900})
    ctx.new_page().goto(url)
    cached = []
    for _ in range(k):
        page = ctx.new_page()
        settle(page, settle_ms)
        t0 = time.perf_counter()
        page.goto(url)
        page.wait_for_function(ready, timeout=60_000)
        cached.append(time.perf_counter() - t0)
        page.close()
    ctx.close()
    return fresh, cached


def floor(browser, k: int, width: int, settle_ms: int) -> None:
    """The bare page's times (``BARE_APP``)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "bare.py").write_text(BARE_APP)
        Path(tmp, ".streamlit").mkdir()        # the app's server settings (.streamlit/config.toml)
        Path(tmp, ".streamlit", "config.toml").write_text((ROOT / ".streamlit" / "config.toml").read_text())
        proc, url = start_server("bare.py", tmp)
        try:
            page = browser.new_page()
            page.goto(url)
            page.wait_for_function(BARE_READY, timeout=60_000)
            page.close()
            fresh, cached = visits(browser, url, BARE_READY, k, width, settle_ms)
        finally:
            proc.terminate()
            proc.wait(10)
    print(f"floor, a bare Streamlit page with one Plotly chart: median {statistics.median(fresh):.2f} s "
          f"fresh, {statistics.median(cached):.2f} s browser-cache warm")


def report(times, cached, click_times) -> None:
    print("warm visits: " + ", ".join(f"{t:.2f}" for t in times) + " s")
    print(f"median {statistics.median(times):.2f} s, max {max(times):.2f} s on {os.cpu_count()} cores")
    print("warm visits, browser cache warm: " + ", ".join(f"{t:.2f}" for t in cached) + " s")
    print(f"median {statistics.median(cached):.2f} s, max {max(cached):.2f} s")
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    if click_times:
        print("clicks (click → decision panel with the point's curve): "
              + ", ".join(f"{t:.2f}" for t in click_times) + " s")
        print(f"click median {statistics.median(click_times):.2f} s, max {max(click_times):.2f} s")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--visits", type=int, default=5)
    ap.add_argument("--clicks", type=int, default=6)
    ap.add_argument("--width", type=int, default=1400)
    ap.add_argument("--floor", action="store_true", help="first time a bare Streamlit + Plotly page")
    ap.add_argument("--settle-ms", type=int, default=2000,
                    help="open each visit's tab on about:blank this long before the visit (0: the visit "
                         "starts with the new window and pays headless Chromium's tab UI start)")
    args = ap.parse_args(argv)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        if args.floor:
            floor(browser, args.visits, args.width, args.settle_ms)
        proc, url = start_server("app.py", ROOT, {"SVMAPP_CACHE": "off"})
        try:
            page = browser.new_page(viewport={"width": args.width, "height": 900})
            settle(page, args.settle_ms)
            t0 = time.perf_counter()
            page.goto(url)
            page.wait_for_function(READY, timeout=180_000)
            print(f"cold (the default sweep runs): {time.perf_counter() - t0:.2f} s")
            page.close()
            times, cached = visits(browser, url, READY, args.visits, args.width, args.settle_ms)
            page = browser.new_context(viewport={"width": args.width, "height": 900}).new_page()
            page.goto(url)
            page.wait_for_function(READY, timeout=60_000)
            page.wait_for_timeout(1000)
            click_times = clicks(page, args.clicks)
            browser.close()
        finally:
            proc.terminate()
            proc.wait(10)
    report(times, cached, click_times)


if __name__ == "__main__":
    main()
