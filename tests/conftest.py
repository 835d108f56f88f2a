import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _keep_main_module():
    """AppTest runs page scripts as ``__main__`` and leaves one in ``sys.modules``; a process that
    multiprocessing spawns later (a Dask nanny) would re-run that page. Put the real one back."""
    main = sys.modules.get("__main__")
    yield
    if main is not None:
        sys.modules["__main__"] = main
