"""Guided lessons as data: a teacher steps through a story with the app live.

Each step is a view (flat values by Param name: the run's data, costs, grid and criteria, and the
view's panels, curves, markers and clicked point, ``svmapp.settings.VIEW_PARAMS``) on one page, and
two or three sentences on what to notice, written for a student who knows logistic regression and
little else. A step's values go through the same settings and codec as a pasted link, so each step
IS a link (``step_url``); tests/app/test_presets_lessons.py checks every step against the spec.
Steps on the other model families' pages carry that family's own link keys (``model`` and its
Params, ``svmcore.codec.link_params``). Every step's link names its lesson and step
(``settings.EVERY_PAGE_PARAMS``), so every page opened from it shows the step's banner.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlencode

from svmapp import settings as S
from svmcore import codec

#: the pages a step can name: {page: (script, url path)}; the first two read the shared sidebar
PAGES = {"tuning": ("app_pages/tuning.py", ""), "summary": ("app_pages/summary.py", "summary"),
         "losses": ("app_pages/losses.py", "losses"), "criteria": ("app_pages/criteria.py", "criteria"),
         "path": ("app_pages/path.py", "path"), "soft": ("app_pages/soft.py", "soft"),
         "cosso": ("app_pages/cosso.py", "cosso"), "usvc": ("app_pages/usvc.py", "usvc")}
#: pages whose view is the sidebar's sweep: a step there sets the run settings and the view
SWEEP_PAGES = ("tuning", "summary")


@dataclass(frozen=True)
class Step:
    title: str
    text: str
    values: dict = field(default_factory=dict)
    page: str = "tuning"


@dataclass(frozen=True)
class Lesson:
    id: str
    title: str
    intro: str
    steps: tuple[Step, ...]


QUICK = {"source": "simulation", "dataset": "wahba2d", "n": 200, "seed": 0,
         "log2_nlambda": "-20:8:2", "log2_sigma": "-3:3:1"}
ALL = ["obs", "gacv", "xa", "brxa", "sure", "gckl", "misclass", "brmisclass"]

WAHBA = Lesson("wahba", "Tuning an SVM: what GACV and XA aim at",
               "Wahba, Lin, Lee & Zhang (2001), §1.3–1.8, on the app's quick 15 × 7 grid.", (
    Step("The losses (Fig 1.1)",
         "Logistic regression fits f by minimising the loss log(1 + e^(−τ)), τ = y·f(x). The SVM swaps it "
         "for the hinge (1 − τ)₊: also convex, but exactly zero once a point is beyond the margin. Notice "
         "that both lie above the 0–1 step, the error we really care about.", page="losses"),
    Step("The target: what a good λ would minimise (Fig 1.2)",
         "In a simulation we know the true P(A|x), so we can score every (λ, σ) by GCKL (the expected "
         "hinge loss on new data) and MISCLASS (the expected error rate). Dark is small: notice that both "
         "valleys sit in the same region. The dotted black curve is the Bayes boundary we hope to recover.",
         {**QUICK, "criteria": ALL, "tun_shown": ["gckl", "misclass"], "tun_curves": ["misclass"],
          "tun_ncols": 2}),
    Step("Too little and too much smoothing",
         "The clicked point is far left: λ is tiny, so the SVM bends around every training point. Click a "
         "point far right (large λ) and watch the curve flatten. MISCLASS's pick sits in between; its "
         "curve hugs the Bayes boundary.",
         {**QUICK, "criteria": ALL, "tun_shown": ["misclass", "gckl"], "tun_curves": ["misclass"],
          "selected": "-20,-1"}),
    Step("The λ path in one dimension (Fig 1.3)",
         "The same story along λ alone, on a 1-D example: each small panel is f(x) for one λ. Notice that "
         "near the best λ (red) f looks like a step function, ±1: the SVM estimates the sign of "
         "p(x) − ½, not the probability itself as logistic regression would.", page="path"),
    Step("Standard case: GACV and XA against their targets (Fig 1.4 left)",
         "GCKL and MISCLASS need the truth; GACV and XA are computed from the data alone. Each proxy's star "
         "should land where its target is small. Compare the decision curves they pick with MISCLASS's "
         "and the Bayes boundary.",
         {**QUICK, "criteria": ALL, **S.FIG14_LEFT, "tun_others": True}),
    Step("Nonstandard case: unequal costs and priors (Figs 1.4 right, 1.5)",
         "Now calling an A a B costs twice as much and A is rare in the population (π_A = 0.1): the "
         "Bayes boundary moves. BRXA and BRMISCLASS are the cost-weighted versions; notice GACV and BRXA "
         "follow the moved target, and the curves shift with the boundary.",
         {**QUICK, "criteria": ALL, **S.NONSTANDARD, **S.FIG14_RIGHT, "tun_others": True}),
    Step("SURE's plateau (Solo)",
         "SURE estimates the error of a logistic-type fit. On the XOR-like data its surface is flat over "
         "a wide range of λ: notice the plateau, so its star can wander along it while MISCLASS barely "
         "changes. A flat criterion is a weak guide.",
         {"source": "simulation", "dataset": "solo_xor", "n": 200, "seed": 0, "log2_nlambda": "-24:0:2",
          "log2_sigma": "-3:3:1", "criteria": ["sure", "gacv", "xa", "gckl", "misclass"],
          "tun_shown": ["sure", "misclass"], "tun_curves": ["sure", "gacv", "misclass"], "tun_others": True}),
))

BEYOND = Lesson("beyond", "Beyond the SVM sweep",
                "The other pages: probabilities, variable selection and an unbiased classifier. "
                "Each page opens on its own defaults for the data set named.", (
    Step("Soft classification: GACV vs ranGACV vs CKL",
         "Penalised logistic regression estimates the probability itself. CKL is its target (it needs "
         "the truth); GACV approximates it from the data alone and ranGACV is a cheaper randomised "
         "version. Notice in the table where each pick lands and how little CKL it gives up against "
         "the best point of the grid (its inefficiency).",
         # solo_xor: the page's own default, whose picks all lie inside the grid (on wahba2d none does)
         {"model": "logistic", "dataset": "solo_xor"}, page="soft"),
    Step("COSSO: which variables matter",
         "COSSO adds a penalty that can switch whole input variables off. Follow the selection path: as "
         "the penalty grows, the noise variables drop out first and the truly used ones stay.",
         {"model": "cosso", "dataset": "zhang_additive"}, page="cosso"),
    Step("Unbiased SVC: moving the threshold",
         "An SVM's f(x) is not a probability, so its 0 threshold can be biased when classes are "
         "unbalanced. The unbiased SVC re-estimates the threshold; notice how the error changes as it "
         "moves.",
         {"model": "usvc", "dataset": "navia_a"}, page="usvc"),
))

LESSONS: tuple[Lesson, ...] = (WAHBA, BEYOND)


def lesson(lesson_id: str | None) -> Lesson | None:
    return next((les for les in LESSONS if les.id == lesson_id), None)


def link_note(lesson_id: str | None, k: int | None) -> str | None:
    """One note naming what is wrong with a link's lesson and step, or None when both are good
    (or the link names no lesson)."""
    if lesson_id is None and k is None:
        return None
    les = lesson(lesson_id)
    if les is None:
        return (f"link key 'lesson': no lesson {lesson_id!r}; choose from "
                f"{', '.join(x.id for x in LESSONS)}; it was ignored")
    if k is None or not 1 <= k <= len(les.steps):
        given = "none was given" if k is None else f"not {k}"
        return (f"link key 'step': lesson {les.id!r} has steps 1 to {len(les.steps)}, {given}; "
                "no lesson step is shown")
    return None


def step_values(les: Lesson, k: int) -> dict:
    """Step ``k`` (1-based) as flat values, with the lesson and step named (every page shows the
    step's banner)."""
    return {**les.steps[k - 1].values, "lesson": les.id, "lesson_step": k}


def step_query(les: Lesson, k: int) -> dict:
    """The link parameters of step ``k``: the sweep's settings and view through the app's settings
    (``svmapp.settings.to_query``), another family's Params through ``svmcore.codec``."""
    st_ = les.steps[k - 1]
    vals = step_values(les, k)
    if st_.page in SWEEP_PAGES:
        s, view = S.values_settings(vals, f"lesson {les.id!r} step {k}")
        view = S.view_state(view)
        return S.to_query(s, view["selected"], view["slice_features"],
                          {n: view[n] for n in S.VIEW_KEYS})
    if "model" in vals:
        return codec.to_query(vals, [*codec.link_params(vals["model"]), *S.EVERY_PAGE_PARAMS])
    return codec.to_query(vals, S.VIEW_PARAMS)


def step_url(les: Lesson, k: int) -> str:
    """The step's link, relative to the app's root (``/`` + page + query)."""
    q = step_query(les, k)
    return "/" + PAGES[les.steps[k - 1].page][1] + ("?" + urlencode(q) if q else "")
