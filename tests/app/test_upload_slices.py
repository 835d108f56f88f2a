"""Issue 22: after switching uploaded files the slice-feature boxes start over (no stale names)."""
from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TINY = {"n": "60", "log2_nlambda": "-8:0:8", "log2_sigma": "0:1:1"}


def _csv(cols) -> bytes:
    rows = [",".join(cols + ["label"])]
    rows += [",".join(str((i * (j + 3)) % (7 + j)) for j in range(len(cols))) + ("," + ("yes" if i % 3 else "no"))
             for i in range(60)]
    return "\n".join(rows).encode()


def test_a_new_file_resets_the_slice_features():
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(TINY)
    at.run()
    at.radio(key="w_source").set_value("upload").run()
    at.file_uploader(key="w_upload").set_value(("one.csv", _csv(["a", "b", "c"]), "text/csv")).run()
    at.selectbox(key="w_positive").set_value("yes")
    at.button(key="w_run").click().run()
    assert not at.exception
    at.selectbox(key="tun_f0").set_value(2).run()
    assert at.session_state["features"] == (2, 1)
    at.file_uploader(key="w_upload").set_value(("two.csv", _csv(["p", "q", "r", "s"]), "text/csv")).run()
    assert not at.exception
    assert at.session_state["features"] == (0, 1)
    try:                                                    # the box starts over, not at "c"
        assert at.session_state["tun_f0"] == 0
    except KeyError:                                        # (or is not drawn until the next run)
        pass
