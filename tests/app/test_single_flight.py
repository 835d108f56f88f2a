"""Issue 19: identical sweeps requested at once by several sessions run once and are shared."""
import threading
import time

import numpy as np

from svmapp import settings as S
from svmcore.flight import in_flight


def test_eight_identical_sweeps_at_once_run_one(monkeypatch):
    import svmcore.grid as grid

    calls, gate = [], threading.Event()
    real = grid.run_grid

    def counted(*args, **kwargs):
        calls.append(1)
        gate.wait(5)                   # hold the leader until every request has arrived
        return real(*args, **kwargs)

    monkeypatch.setattr(grid, "run_grid", counted)
    s = {**S.settings_from(), "n": 40, "log2_nlambda": "-6:0:2", "log2_sigma": "0"}
    loaded = S.load_data(s)
    out: list = [None] * 8

    def request(i):
        out[i] = S.run(s, loaded, n_jobs=1)

    threads = [threading.Thread(target=request, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 10
    while not in_flight() and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.3)                    # the other seven find the leader's flight and wait
    gate.set()
    for t in threads:
        t.join(30)
    assert len(calls) == 1
    assert all(r is out[0] for r in out)
    # the shared result is the sweep itself: against a fresh, independent run
    fresh = real(S.spec_for(s, loaded.train.has_truth), loaded.train, loaded.test, n_jobs=1)
    np.testing.assert_allclose(out[0].table["gacv"], fresh.table["gacv"], rtol=1e-12)
    assert in_flight() == 0
