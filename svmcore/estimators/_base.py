"""What the scikit-learn estimators share: labels, input checks, the one RunSpec helper, JSON.

Labels: any two classes (strings, ints, …). ``classes_`` is sorted (``np.unique``) and
``classes_[1]`` is class A (y = +1) of the families, ``classes_[0]`` class B (y = −1): the
scikit-learn convention that a positive decision value means ``classes_[1]``. The costs follow:
``cost_a`` = C_A, the cost of calling a ``classes_[0]`` point a ``classes_[1]``; ``cost_b`` = C_B,
the cost of the opposite mistake (Wahba, Lin, Lee & Zhang 2001, §1.7; ``docs/svm.md`` §3).
"""
from __future__ import annotations

import json
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ..datasets.base import Dataset
from ..spec import MAX_SEED, DataSpec, make_spec

#: version of the JSON written by ``to_json`` (bumped when its layout changes)
JSON_VERSION = 1
JSON_FORMAT = "svmcore-estimator"


def _make_spec(model: str, n: int, *, log2_nlambda="0", log2_sigma="0", kernel=None, **settings):
    """The one place the estimators build a ``RunSpec`` (``svmcore.spec.make_spec``).

    Parameters
    ----------
    model : family name ("svm", "logistic", "cosso", "usvc").
    n : training rows (recorded in the inline DataSpec's name; the data are passed in code).
    log2_nlambda, log2_sigma : grid axes, "START:STOP:STEP" or one number.
    settings : other RunSpec fields (cost_a, cost_b, prior_a, criteria, cv_folds, cv_seed,
        xa_rho, solver, extend_grid, options).
    """
    data = DataSpec(source="inline", name=f"estimator fit (n = {n})")
    return make_spec(model, data=data, log2_nlambda=log2_nlambda, log2_sigma=log2_sigma,
                     kernel=kernel, **settings)


def seed_of(random_state) -> int:
    """An integer seed in [0, 2^32 − 1] from scikit-learn's ``random_state`` (None → 0, so that
    an unseeded fit is still reproducible, as the families' own default seeds are)."""
    if random_state is None:
        return 0
    if isinstance(random_state, Integral):
        return int(random_state) % (MAX_SEED + 1)
    return int(check_random_state(random_state).randint(0, 2**31 - 1))


def axis_text(value) -> str:
    """A grid axis setting as ``svmcore.spec.Axis`` text: "START:STOP:STEP", one number, or a
    (start, stop, step) tuple."""
    if isinstance(value, (tuple, list)):
        if len(value) != 3:
            raise ValueError(f"a grid axis is (start, stop, step); got {value!r}")
        return ":".join(repr(float(v)) for v in value)
    return str(value)


class BinaryKernelClassifier(ClassifierMixin, BaseEstimator):
    """Base of the estimators: two-class labels, input checks, ``predict``, JSON persistence.

    Subclasses set ``_STATE`` (the fitted attributes that ``to_json`` writes) and implement
    ``fit`` and ``decision_function``.
    """

    _STATE: tuple = ()
    #: fitted attributes read back as integer arrays, and those kept as plain (nested) lists
    _INT_STATE = ("support_", "n_support_", "selected_features_", "kept_")
    _LIST_STATE = ("comps_", "notes_")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.allow_nan = False
        return tags

    # ------------------------------------------------------------ input
    def _encode(self, X, y):
        """Validated X and the ±1 labels of y (classes_[1] → +1); sets ``classes_``."""
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        classes = np.unique(y)
        if len(classes) > 2:
            raise ValueError(f"Only binary classification is supported. {type(self).__name__} is a "
                             f"two-class classifier; y has {len(classes)} "
                             f"classes ({', '.join(map(str, classes[:5]))}{'…' if len(classes) > 5 else ''}). "
                             "Choose two classes, or wrap it in sklearn.multiclass.OneVsRestClassifier.")
        if len(classes) < 2:
            raise ValueError(f"{type(self).__name__} needs two classes; y has only one class "
                             f"({classes[0]!r})")
        self.classes_ = classes
        return X, np.where(y == classes[1], 1.0, -1.0)

    def _check_X(self, X) -> np.ndarray:
        check_is_fitted(self)
        return validate_data(self, X, reset=False, dtype=np.float64)

    @staticmethod
    def _dataset(X, y_pm) -> Dataset:
        return Dataset("inline", X, y_pm)

    def _class_weight_factors(self, y, sample_weight=None) -> tuple[float, float]:
        """(factor on C_A, factor on C_B) from ``class_weight`` and a per-class ``sample_weight``.

        A class weight w multiplies the hinge terms of that class: exactly the cost weights
        L(±1) scaled by w (docs/svm.md §3), so w(classes_[1]) multiplies C_B (which sets L(+1)) and
        w(classes_[0]) multiplies C_A (which sets L(−1)). Sample weights are exact only when
        constant within each class; other sample weights raise ``ValueError``.
        """
        from sklearn.utils.class_weight import compute_class_weight

        fa = fb = 1.0
        cw = getattr(self, "class_weight", None)
        if cw is not None:
            w = compute_class_weight(cw, classes=self.classes_, y=np.where(y > 0, self.classes_[1],
                                                                           self.classes_[0]))
            fa, fb = float(w[0]), float(w[1])
        if sample_weight is not None:
            from sklearn.utils.validation import _check_sample_weight
            sw = _check_sample_weight(sample_weight, np.zeros((len(y), 1)))
            pos, neg = sw[y > 0], sw[y < 0]
            if np.ptp(pos) > 1e-12 * max(1.0, pos.max()) or np.ptp(neg) > 1e-12 * max(1.0, neg.max()):
                raise ValueError(f"{type(self).__name__} takes sample weights only when they are "
                                 "constant within each class (then they are exactly class weights, "
                                 "mapped to the costs); per-point weights are not supported by the "
                                 "λ-path. Use class_weight or cost_a / cost_b.")
            fa, fb = fa * float(neg[0]), fb * float(pos[0])
        if fa <= 0 or fb <= 0:
            raise ValueError("class and sample weights must be positive")
        return fa, fb

    # ------------------------------------------------------------ predictions
    def predict(self, X):
        """The class of each row: ``classes_[1]`` where f(x) > 0, else ``classes_[0]`` (f = 0
        counts as class B, as everywhere in svmcore)."""
        f = self.decision_function(X)
        return self.classes_[(f > 0).astype(int)]

    # ------------------------------------------------------------ persistence
    def to_json(self) -> str:
        """The settings and fitted state as JSON: numbers as lists (nothing executable is stored).

        Layout: ``{"format": "svmcore-estimator", "version": 1, "estimator": class name,
        "params": get_params(), "state": {attribute: value}}``; ``classes_`` keeps its dtype.
        """
        check_is_fitted(self)
        state = {k: _plain(getattr(self, k)) for k in self._STATE if hasattr(self, k)}
        state["classes_"] = {"values": self.classes_.tolist(), "dtype": self.classes_.dtype.str
                             if self.classes_.dtype != object else "object"}
        if hasattr(self, "feature_names_in_"):
            state["feature_names_in_"] = [str(v) for v in self.feature_names_in_]
        out = {"format": JSON_FORMAT, "version": JSON_VERSION, "estimator": type(self).__name__,
               "params": _plain(self.get_params()), "state": state}
        return json.dumps(out, indent=1, allow_nan=False)

    @classmethod
    def from_json(cls, text: str):
        """Rebuild a fitted estimator written by :meth:`to_json` (no refit)."""
        d = json.loads(text) if isinstance(text, (str, bytes)) else dict(text)
        if d.get("format") != JSON_FORMAT:
            raise ValueError("not an svmcore estimator file (no 'format': 'svmcore-estimator')")
        if d.get("version") != JSON_VERSION:
            raise ValueError(f"estimator file version {d.get('version')!r}; this svmcore reads "
                             f"version {JSON_VERSION}")
        if d.get("estimator") != cls.__name__:
            raise ValueError(f"the file holds a {d.get('estimator')}, not a {cls.__name__}")
        est = cls(**d["params"])
        state = dict(d["state"])
        cl = state.pop("classes_")
        est.classes_ = np.asarray(cl["values"], dtype=object if cl["dtype"] == "object" else cl["dtype"])
        if "feature_names_in_" in state:
            est.feature_names_in_ = np.asarray(state.pop("feature_names_in_"), dtype=object)
        for k, v in state.items():
            setattr(est, k, est._restore(k, v))
        return est

    def _restore(self, name: str, value):
        """A JSON value back as the fitted attribute (lists of numbers → arrays)."""
        if name in self._LIST_STATE or not isinstance(value, list):
            return value
        if value and isinstance(value[0], (str, dict)):
            return value
        return np.asarray(value, dtype=int if name in self._INT_STATE else float)

    def model_card(self, format: str = "dict"):
        """Settings and pick as a dict, or as Markdown with ``format="markdown"``."""
        check_is_fitted(self)
        card = {"estimator": type(self).__name__, "settings": _plain(self.get_params()),
                "classes": {"A (+1)": _plain(self.classes_[1]), "B (-1)": _plain(self.classes_[0])},
                "n_features_in": int(self.n_features_in_)}
        card.update(self._card_fit())
        if format == "dict":
            return card
        if format != "markdown":
            raise ValueError(f"format must be 'dict' or 'markdown', got {format!r}")
        lines = [f"# {card['estimator']}", ""]
        for key, value in card.items():
            if key == "estimator":
                continue
            if isinstance(value, dict):
                lines += ([""] if lines[-1] else []) + [f"## {key}", "", "| name | value |", "|---|---|"]
                lines += [f"| {k} | {v} |" for k, v in value.items()]
                lines.append("")
            else:
                lines += [f"- **{key}**: {value}"]
        return "\n".join(lines) + "\n"

    def _card_fit(self) -> dict:
        return {}


def _plain(v):
    """JSON-able copy: arrays → lists, numpy scalars → Python numbers, NaN → None."""
    if isinstance(v, np.ndarray):
        return _plain(v.tolist())
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, np.generic):
        return _plain(v.item())
    if isinstance(v, float) and not np.isfinite(v):
        return None
    return v
