import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _share_the_cores_among_workers() -> None:
    """Under pytest-xdist, give each worker (and the servers and CLIs it starts) its share of the
    cores' BLAS threads, unless the caller chose a number. Two workers of two BLAS threads each on
    two cores took turns on them: one path test took 57 s instead of 4–7 s, the suite 506 s
    instead of 481 s."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers <= 1:
        return
    threads = str(max(1, (os.cpu_count() or 1) // workers))
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, threads)
    from threadpoolctl import threadpool_limits     # for a BLAS already loaded by a plugin

    threadpool_limits(int(os.environ["OPENBLAS_NUM_THREADS"]), user_api="blas")


_share_the_cores_among_workers()


import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _keep_main_module():
    """AppTest runs page scripts as ``__main__`` and leaves one in ``sys.modules``; a process that
    multiprocessing spawns later (a Dask nanny) would re-run that page. Put the real one back."""
    main = sys.modules.get("__main__")
    yield
    if main is not None:
        sys.modules["__main__"] = main


class RandomElbow:
    """A path state (``_Path``) on 120 random 2-D points (Gaussian σ = 0.2: cond(K) ≤ 3e5, so LU
    is accurate to ~1e-11) with 40 of them in its elbow, for the maintained inverse's tests:
    ``step()`` makes one random change (a leave or an enter, half and half). ``factored``: the
    block-LU base held as LU factors (``FACTORED_FROM`` 0)."""

    def __init__(self, seed: int, schur: bool, factored: bool = False):
        import numpy as np

        from svmcore.families.svm.solvers import path as P
        from svmcore.kernels import gaussian_gram

        self.rng = rng = np.random.default_rng(seed)
        X = rng.normal(size=(120, 2))
        self.K = gaussian_gram(X, sigma=0.2)
        y = np.where(rng.random(120) < 0.5, 1.0, -1.0)
        self.state = st = P._Path(self.K, y, np.ones(120))
        st.SCHUR_FROM = 0 if schur else 10 ** 9
        st.FACTORED_FROM = 0 if factored else 10 ** 9
        st.status = np.zeros(120, dtype=np.int8)
        for p in rng.permutation(120)[:40]:
            assert st.try_add(int(p))
        st.refactor()

    def step(self) -> None:
        import numpy as np

        st, rng = self.state, self.rng
        out = np.setdiff1d(np.arange(120), st.E)
        if rng.random() < 0.5 and st.m > 5:
            st.remove(int(rng.integers(st.m)))
        else:
            st.try_add(int(rng.choice(out)))


@pytest.fixture
def random_elbow():
    """``RandomElbow(seed, schur, factored=False)``."""
    return RandomElbow


def _sent_array(value):
    """A figure's array as plotly sends it: numpy, or typed base64 (``{"dtype", "bdata", "shape"}``)."""
    import base64

    import numpy as np

    if not isinstance(value, dict):
        return np.asarray(value)
    shape = [int(v) for v in str(value.get("shape", -1)).split(",")]
    return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"]).reshape(shape)


@pytest.fixture
def sent_array():
    """``sent_array(trace.z)``, or of an array in a chart's JSON: the array with the dtype it
    travels in."""
    return _sent_array
