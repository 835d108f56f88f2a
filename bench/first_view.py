"""Time to the first view in a real browser against a warm server (the default settings).

Starts ``streamlit run app.py`` (result cache off), visits once to warm it, then opens the default
page ``--visits`` times in fresh browser pages and reports the seconds until the contour panels and
the decision panel are drawn (every ``.js-plotly-plot`` laid out, the decision figure among them).

    PYTHONPATH=. python bench/first_view.py --visits 5
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
READY = ("() => { const g = Array.from(document.querySelectorAll('.js-plotly-plot'));"
         " return g.length >= 5 && g.every(x => x._fullLayout)"
         " && g.some(x => (x._fullLayout.title.text || '').includes('ecision')); }")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--visits", type=int, default=5)
    ap.add_argument("--width", type=int, default=1400)
    args = ap.parse_args(argv)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
                             "--server.headless", "true", "--server.address", "127.0.0.1"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, "SVMAPP_CACHE": "off"})
    url = f"http://127.0.0.1:{port}/"
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(url + "_stcore/health", timeout=2)
                break
            except OSError:
                time.sleep(0.3)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            page = browser.new_page(viewport={"width": args.width, "height": 900})
            t0 = time.perf_counter()
            page.goto(url)
            page.wait_for_function(READY, timeout=180_000)
            print(f"cold (the default sweep runs): {time.perf_counter() - t0:.2f} s")
            page.close()
            times = []
            for _ in range(args.visits):
                page = browser.new_page(viewport={"width": args.width, "height": 900})
                t0 = time.perf_counter()
                page.goto(url)
                page.wait_for_function(READY, timeout=60_000)
                times.append(time.perf_counter() - t0)
                page.close()
            browser.close()
        print("warm visits: " + ", ".join(f"{t:.2f}" for t in times) + " s")
        print(f"median {statistics.median(times):.2f} s, max {max(times):.2f} s on {os.cpu_count()} cores")
    finally:
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    main()
