"""Presets and lesson steps own the whole view (panels, curves, markers, columns, the clicked point),
and every lesson step's values pass the spec and the view's Params (so each step is a link)."""
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from svmapp import settings as S

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
TINY = {"n": 60, "log2_nlambda": "-12:0:4", "log2_sigma": "-1:1:1"}
FIG15 = next(n for n in S.PRESETS if n.startswith("Figure 1.5"))
SURE = next(n for n in S.PRESETS if "SURE" in n)


def contour_panels(at) -> list[str]:
    return [c.key.split("_")[1] for c in at.get("plotly_chart") if c.key.startswith("contour_")]


@pytest.fixture
def tiny_presets(monkeypatch):
    """The real presets' views on a tiny grid (the paper's grid is too slow for an AppTest)."""
    tiny = {f"tiny {n}": {**v, **TINY} for n, v in S.PRESETS.items() if n in (FIG15, SURE)}
    monkeypatch.setattr(S, "PRESETS", {**S.PRESETS, **tiny})
    return [f"tiny {FIG15}", f"tiny {SURE}"]


def load(at, name):
    at.selectbox(key="w_preset").set_value(name).run()
    at.button(key="w_preset_btn").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]


def test_presets_own_the_view(tiny_presets):
    fig15, sure = tiny_presets
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({k: str(v) for k, v in TINY.items()} | {"show": "gacv,xa", "ncols": "3",
                                                                    "sel": "-8,0"})
    at.run()
    assert contour_panels(at) == ["gacv", "xa"]
    load(at, fig15)
    assert contour_panels(at) == ["gckl", "gacv", "brmisclass", "brxa"]     # Fig 1.5, not the old list
    ss = at.session_state
    assert ss["tun_curves"] == ["gacv", "brxa", "brmisclass"]
    assert ss["tun_others"] is True and ss["tun_ncols"] == 2 and ss["selected"] is None
    load(at, sure)
    assert contour_panels(at) == ["sure", "gacv", "gckl", "misclass"]        # SURE's panel shown
    assert ss["tun_curves"] == ["sure", "gacv", "misclass"] and ss["tun_others"] is False
    assert at.query_params["show"] in ("sure,gacv,gckl,misclass", ["sure,gacv,gckl,misclass"])


def test_every_preset_passes_the_spec():
    for name in S.PRESETS:
        s = S.preset_settings(name)
        view = S.preset_view(name)
        assert set(view) == {p.name for p in S.VIEW_PARAMS}
        assert s["criteria"] and (view["tun_shown"] is None or set(view["tun_shown"]) <= set(S.LABELS))


def test_a_refused_preset_changes_nothing(monkeypatch):
    monkeypatch.setattr(S, "PRESETS", {**S.PRESETS, "bad": {"tun_ncols": 9}})
    with pytest.raises(S.SVMCoreError, match="preset 'bad'.*tun_ncols"):
        S.preset_view("bad")


# ------------------------------------------------------------------ lessons
from urllib.parse import parse_qsl, urlsplit  # noqa: E402

from svmapp import lessons as L  # noqa: E402
from svmapp.ui import plain  # noqa: E402
from svmcore import codec  # noqa: E402


def all_steps():
    return [(les, k) for les in L.LESSONS for k in range(1, len(les.steps) + 1)]


@pytest.mark.parametrize("les,k", all_steps(), ids=lambda v: getattr(v, "id", str(v)))
def test_every_step_passes_the_spec_and_is_a_link(les, k):
    step = les.steps[k - 1]
    assert step.page in L.PAGES and 2 <= step.text.count(". ") + 1 <= 4     # two or three sentences
    vals = L.step_values(les, k)
    if step.page in L.SWEEP_PAGES:
        s, view = S.values_settings(vals)
        codec.spec_from_values(S.spec_values_for(s))
        url = L.step_url(les, k)
        back, view2, notes = S.read_link(dict(parse_qsl(urlsplit(url).query)))
        assert not notes and back == s
        assert view2["tun_shown"] == tuple(view["tun_shown"]) and view2["lesson"] == les.id
    else:
        if "model" in vals:
            codec.spec_from_values(step.values)           # the other page's family reads these keys
        q = dict(parse_qsl(urlsplit(L.step_url(les, k)).query))
        assert codec.decode_query(q, extra=S.EVERY_PAGE_PARAMS) == ({**step.values, **S.read_every_page_link(q)[0]}, [])
        assert S.read_every_page_link(q) == ({"lesson": les.id, "lesson_step": k}, [])


def test_the_lessons_cover_the_story():
    pages = [s.page for les in L.LESSONS for s in les.steps]
    assert {"losses", "path", "soft", "cosso", "usvc"} <= set(pages) and pages.count("tuning") >= 4
    sure = next(s for s in L.WAHBA.steps if "SURE" in s.title)
    assert "sure" in sure.values["tun_shown"]


def test_a_lesson_step_from_its_link_and_the_next_button(monkeypatch):
    """Step 2 on a tiny grid: its panels, the banner; Next applies step 3's view (clicked point)."""
    steps = tuple(L.Step(s.title, s.text, {**s.values, **TINY} if s.page == "tuning" else s.values, s.page)
                  for s in L.WAHBA.steps)
    les = L.Lesson("wahba", L.WAHBA.title, L.WAHBA.intro, steps)
    monkeypatch.setattr(L, "LESSONS", (les, L.BEYOND))
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(dict(parse_qsl(urlsplit(L.step_url(les, 2)).query)))
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert contour_panels(at) == ["gckl", "misclass"]
    assert any("step 2 of" in m.value for m in at.markdown)
    at.button(key="lesson_next").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert contour_panels(at) == ["misclass", "gckl"]
    assert at.session_state["selected"][1] == -1.0            # step 3's point (the grid may extend left)
    assert at.session_state["selected"][0] <= -12.0
    assert at.session_state["lesson_step"] == 3


def test_the_lessons_page_shows_every_step_and_switches_page():
    at = AppTest.from_file(APP, default_timeout=120)
    at.switch_page("app_pages/lessons.py").run()
    assert not at.exception
    n = sum(len(les.steps) for les in L.LESSONS)
    assert len([b for b in at.button if b.key and b.key.startswith("go_")]) == n
    at.button(key="go_wahba_1").click().run()            # the losses page, with the banner
    assert not at.exception
    assert any("step 1 of" in m.value for m in at.markdown)
    assert at.get("plotly_chart")[0].key == "loss_fig"


#: what each page other than the tuning page draws from a step's link: its charts' keys
STEP_CHARTS = {"losses": {"loss_fig"}, "path": {"path_truth", "path_fig", "gckl_fig"},
               "soft": {"soft_contours", "soft_spread"},
               "cosso": {"cosso_theta_fig", "cosso_tuning_fig", "cosso_region_fig"},
               "usvc": {"usvc_dens", "usvc_therr", "usvc_surf_svc", "usvc_surf_usvc"}}
OTHER_STEPS = [(les, k) for les, k in all_steps() if les.steps[k - 1].page != "tuning"]


def link_notes(at) -> list[str]:
    return [i.value for i in at.info if "link" in i.value]


@pytest.mark.parametrize("les,k", OTHER_STEPS, ids=[f"{les.id}-{k}" for les, k in OTHER_STEPS])
def test_a_step_on_another_page_from_its_link_shows_its_banner_and_figures(les, k):
    """A fresh session opened on the step's link: the step's text, Back and Next above the page's
    own figures (run from the link), and no note about the link's keys."""
    step = les.steps[k - 1]
    at = AppTest.from_file(APP, default_timeout=120)
    at.switch_page(L.PAGES[step.page][0])
    at.query_params.update(dict(parse_qsl(urlsplit(L.step_url(les, k)).query)))
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(f"step {k} of {len(les.steps)}: {plain(step.title)}" in m.value for m in at.markdown)
    assert at.button(key="lesson_next").disabled == (k == len(les.steps))
    assert STEP_CHARTS[step.page] <= {c.key for c in at.get("plotly_chart")}
    assert link_notes(at) == []
    edge = [t.value for t in at.text if "edge" in t.value]
    assert not edge, edge                                # the step's picks lie inside its grid


def test_next_walks_the_other_pages_and_each_step_owns_its_page():
    """Soft → COSSO → USVC with Next, the COSSO page visited before with other settings: the step's
    values replace them and its fit runs; the link names the lesson and step; End leaves it."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.switch_page("app_pages/cosso.py")
    at.query_params.update({"model": "cosso", "dataset": "wdbc"})
    at.run()
    assert at.session_state["cosso_dataset"] == "wdbc"
    at.switch_page("app_pages/lessons.py").run()
    at.button(key="go_beyond_1").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert {"soft_contours", "soft_spread"} <= {c.key for c in at.get("plotly_chart")}
    at.button(key="lesson_next").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["cosso_dataset"] == "zhang_additive"           # the step's, not wdbc
    assert STEP_CHARTS["cosso"] <= {c.key for c in at.get("plotly_chart")}
    assert any("step 2 of 3" in m.value for m in at.markdown)
    q = codec.last_values(at.query_params)
    assert q["lesson"] == "beyond" and q["step"] == "2" and q["model"] == "cosso"
    at.button(key="lesson_next").click().run()
    assert not at.exception and STEP_CHARTS["usvc"] <= {c.key for c in at.get("plotly_chart")}
    at.button(key="lesson_end").click().run()
    assert not any("step 3 of" in m.value for m in at.markdown) and at.session_state["lesson"] is None


@pytest.mark.parametrize("page,query,named", [
    ("losses", {"lesson": "nope", "step": "1"}, "'lesson': no lesson 'nope'"),
    ("usvc", {"model": "usvc", "lesson": "beyond", "step": "9"}, "'step': lesson 'beyond' has steps 1 to 3, not 9"),
    ("path", {"lesson": "wahba"}, "'step': lesson 'wahba' has steps 1 to 7, none was given"),
    ("path", {"lesson": "wahba", "step": "x"}, "'step'"),
    ("tuning", {**{k: str(v) for k, v in TINY.items()}, "lesson": "wahba", "step": "12"},
     "'step': lesson 'wahba' has steps 1 to 7, not 12"),
])
def test_a_bad_lesson_in_a_link_is_one_note_naming_it(page, query, named):
    at = AppTest.from_file(APP, default_timeout=120)
    at.switch_page(L.PAGES[page][0])
    at.query_params.update(query)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    notes = link_notes(at)
    assert len(notes) == 1 and named in notes[0].replace("\\", ""), notes
    assert not any("step " in m.value and " of " in m.value for m in at.markdown)   # no banner


@pytest.mark.parametrize("page", ["path", "usvc"])
def test_presentation_mode_and_the_step_stay_in_every_pages_link(page):
    """``present=1`` and a step on a page with its own link: presentation mode on, no note, and the
    link the page writes back keeps both beside the page's own settings."""
    les, k = next((les, k) for les, k in OTHER_STEPS if les.steps[k - 1].page == page)
    q = {**dict(parse_qsl(urlsplit(L.step_url(les, k)).query)), "present": "true"}
    at = AppTest.from_file(APP, default_timeout=120)
    at.switch_page(L.PAGES[page][0])
    at.query_params.update(q)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["w_present"] is True and link_notes(at) == []
    back = codec.last_values(at.query_params)
    assert back["present"] == "true" and back["lesson"] == les.id and back["step"] == str(k)
    at.toggle(key="w_present").set_value(False).run()            # the page's own switch leaves it
    assert not at.exception and at.session_state["w_present"] is False
    assert "present" not in at.query_params and at.query_params["lesson"] in (les.id, [les.id])


def test_end_leaves_the_lesson_and_its_link():
    at = AppTest.from_file(APP, default_timeout=120)
    at.switch_page("app_pages/usvc.py")
    at.query_params.update(dict(parse_qsl(urlsplit(L.step_url(L.BEYOND, 3)).query)))
    at.run()
    assert at.query_params["lesson"] in ("beyond", ["beyond"])
    at.button(key="lesson_end").click().run()
    assert not at.exception and at.session_state["lesson"] is None
    assert "lesson" not in at.query_params and "step" not in at.query_params
    assert at.query_params["model"] in ("usvc", ["usvc"])                   # the page's own link stays


def test_lesson_pages_read_their_own_link_flags():
    """``go_step`` makes a step's page re-read its link through the flag ``<page>_link_read``
    (svmapp.links.restore): each page's prefix is its name in ``lessons.PAGES``."""
    from svmapp import cosso_page, path_page, soft_page, usvc_page

    for page, mod in (("path", path_page), ("soft", soft_page), ("cosso", cosso_page), ("usvc", usvc_page)):
        assert mod.PREFIX == page + "_" and page in L.PAGES


# ------------------------------------------------------------------ the settings file
def test_settings_file_round_trip_and_refusal(monkeypatch):
    """The settings JSON goes through the link codec: a good file applies its settings and view, a
    bad one names each refused value and changes nothing."""
    import json

    from svmapp import tuning as T
    from svmapp import ui

    applied = []
    monkeypatch.setattr(ui, "apply_values", lambda values, what: applied.append(values) or True)
    s = S.settings_from({**TINY, "cost_b": 2.0})
    good = {"link_query": S.to_query(s, (-4.0, 0.0), None, {"tun_shown": ["gacv"], "tun_axes": "sklearn"})}
    assert T.load_settings(json.dumps(good).encode()) == []
    (vals,) = applied
    assert vals["cost_b"] == 2.0 and vals["log2_nlambda"] == TINY["log2_nlambda"]
    assert vals["tun_shown"] == ("gacv",) and vals["tun_axes"] == "sklearn" and vals["selected"] == "-4,0"
    bad = {"link_query": {**good["link_query"], "dataset": "../../etc/passwd", "ncols": "999"}}
    notes = " ".join(T.load_settings(json.dumps(bad).encode()))
    assert "../../etc/passwd" in notes and "ncols" in notes and len(applied) == 1
    assert T.load_settings(b"not json")[0].startswith("not a settings JSON")
    assert "no settings" in T.load_settings(b"[]")[0]


def test_summary_table_puts_inefficiency_first_and_never_says_none():
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({k: str(v) for k, v in TINY.items()})
    at.switch_page("app_pages/summary.py").run()
    assert not at.exception
    df = at.dataframe[0].value
    assert list(df.columns[:3]) == ["criterion", "inefficiency", "inefficiency range"]
    assert not (df.astype(str) == "None").any().any()
