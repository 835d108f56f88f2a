"""Shared by the browser tests: one Streamlit server for the whole session, and Chromium's path."""
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

HAVE_CHROMIUM = os.path.exists("/usr/bin/chromium")

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


#: one log per pytest-xdist worker (each starts its own server)
SERVER_LOG = ROOT / "artifacts" / f"e2e_server_{os.environ.get('PYTEST_XDIST_WORKER', 'main')}.log"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed browser test prints the end of the server's log (a CI run keeps nothing else)."""
    report = yield
    if report.failed and "server" in item.fixturenames and SERVER_LOG.exists():
        tail = SERVER_LOG.read_text(errors="replace").splitlines()[-40:]
        report.sections.append(("streamlit server log (last 40 lines)", "\n".join(tail)))
    return report


@pytest.fixture(scope="session")
def server():
    port = free_port()
    SERVER_LOG.parent.mkdir(exist_ok=True)
    log = open(SERVER_LOG, "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
         "--server.headless", "true", "--server.address", "127.0.0.1",
         "--browser.gatherUsageStats", "false"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
        env={**os.environ, "SVMAPP_CACHE": "off", "SVMAPP_TIMING": "1"})    # really run the sweeps; log run times
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    break
        except OSError:
            time.sleep(0.3)
    else:
        proc.terminate()
        pytest.fail("streamlit did not become healthy within 60 s")
    yield url
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the session (Debian's, through Playwright's executable_path)."""
    if not HAVE_CHROMIUM:
        pytest.skip(f"{CHROMIUM} is absent (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    (ROOT / "artifacts").mkdir(exist_ok=True)
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()
