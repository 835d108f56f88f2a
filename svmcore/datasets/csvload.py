"""Load a user's CSV file into a :class:`~svmcore.datasets.base.Dataset`, with clear errors.

Two stages, so that an app can show the columns before the user picks the label:

1. :func:`read_csv_table` turns a path, ``bytes`` or a file-like object into a
   :class:`pandas.DataFrame` whose cells are the file's text (nothing is converted yet);
2. :func:`dataset_from_table` picks the label, the optional probability column and the
   features, converts them to numbers and builds the ``Dataset``.

:func:`load_csv` does both. Every problem with the input raises :class:`CSVLoadError`
(never another exception type) with one message that names the column, the row and the
offending value.

Row numbers in messages
-----------------------
"data row k" counts the data rows from 1, after the header line and skipping blank lines;
"line L of the file" counts every line of the file from 1, the header being line 1. A
table built by :func:`read_csv_table` remembers the line of each row (in ``df.attrs``,
see :func:`line_numbers`); for any other table, or one whose rows were since filtered,
only the data row is given.

Default positive class
----------------------
When the label column has exactly two values and no ``positive`` is given, class A (+1)
is chosen by these rules, in order:

1. both values are numbers: the larger one (``1`` of 0/1 or −1/1, ``4`` of 2/4);
2. exactly one value is a "positive" word, case-insensitively: ``yes``, ``y``, ``true``,
   ``t``, ``positive``, ``pos``, ``tested_positive``, ``malignant``, ``present``;
3. otherwise the value that sorts last (case-insensitively).

With more than two values a positive class must be chosen; the other values become class B.

Reading rules
-------------
Text must be UTF-8 (a byte-order mark is allowed). The separator is a comma, unless the
header line has no comma but has semicolons or tabs, in which case the more frequent of
those is used. Cells and column names are stripped of surrounding blanks. A feature cell is a number
when Python's ``float`` reads it (``1``, ``-2.5``, ``1e-3``, ``1_000``), except ``nan``
and infinities. Empty cells and
``NA``, ``N/A``, ``NaN``, ``null``, ``None``, ``?``, ``#N/A``, ``missing`` (any case) are
missing values. A wholly empty column with an empty name (a trailing separator on every
line) is dropped. Nothing is ever unpickled or evaluated.
"""
from __future__ import annotations

import csv
import io
import os
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from .._validation import SVMCoreError
from ..limits import MAX_CSV_BYTES, MAX_CSV_CELLS, MAX_CSV_COLUMNS, MAX_CSV_ROWS
from .base import Dataset
from .base import standardize as _standardize

__all__ = ["CSVLoadError", "read_csv_table", "dataset_from_table", "load_csv",
           "default_positive", "line_numbers", "MIN_ROWS"]

#: Fewest data rows accepted.
MIN_ROWS = 10

MISSING_TOKENS = frozenset({"", "na", "n/a", "nan", "null", "none", "?", "#n/a", "missing"})
POSITIVE_WORDS = ("yes", "y", "true", "t", "positive", "pos", "tested_positive", "malignant",
                  "present")

_NUM_RE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INF_RE = re.compile(r"[+-]?(?:inf|infinity)", re.IGNORECASE)
# Control characters that never occur in a text CSV (tab, LF, VT, FF, CR are allowed).
_CTRL_RE = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
_LINES_ATTR = "svmcore_line_numbers"


class CSVLoadError(SVMCoreError):
    """A CSV file (or table) that cannot become a data set; the message says why and where."""


# --------------------------------------------------------------------------- helpers

def _q(value) -> str:
    """Quote a value for a message, shortening very long text."""
    s = str(value)
    if len(s) > 60:
        s = s[:57] + "..."
    return repr(s)


def _list(values, limit: int = 10) -> str:
    vals = [_q(v) for v in values]
    if len(vals) > limit:
        return ", ".join(vals[:limit]) + f", ... ({len(vals)} in all)"
    return ", ".join(vals)


def _fmt_number(x: float) -> str:
    s = format(float(x), ".15g")
    return "0" if s == "-0" else s


def _canonical(value) -> str | None:
    """Class value as comparable text: numbers in shortest form ("1.0" -> "1"), None if missing."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, float, np.integer, np.floating)):
        x = float(value)
        return None if np.isnan(x) else _fmt_number(x)
    s = str(value).strip()
    if s.lower() in MISSING_TOKENS:
        return None
    if _NUM_RE.fullmatch(s):
        return _fmt_number(float(s))
    return s


def _is_number_text(s: str) -> bool:
    return bool(_NUM_RE.fullmatch(s))


def default_positive(values) -> str:
    """Choose class A among exactly two class values (see the module notes for the rules).

    Parameters
    ----------
    values : iterable
        The two distinct class values (canonical text, as in the label column).

    Returns
    -------
    str
        The value taken as class A (+1).
    """
    vals = sorted({str(v) for v in values})
    if len(vals) != 2:
        raise CSVLoadError(f"default_positive needs exactly two class values, got {_list(vals)}")
    if all(_is_number_text(v) for v in vals):
        return max(vals, key=float)
    hits = [v for v in vals if v.lower() in POSITIVE_WORDS]
    if len(hits) == 1:
        return hits[0]
    return sorted(vals, key=lambda v: (v.lower(), v))[-1]


# --------------------------------------------------------------------------- stage 1: read

_TOO_BIG = (f"the file is larger than {MAX_CSV_BYTES // 2**20} MB, the most that is read "
            "(svmcore.limits.MAX_CSV_BYTES)")


def _raw_bytes(source) -> bytes | str:
    """The source's content, read under the byte budget ``limits.MAX_CSV_BYTES``."""
    from ..safeio import read_bounded

    try:
        if isinstance(source, (bytes, bytearray, memoryview)):
            if len(source) > MAX_CSV_BYTES:
                raise CSVLoadError(_TOO_BIG)
            return bytes(source)
        if isinstance(source, (str, os.PathLike)):
            return read_bounded(source, MAX_CSV_BYTES, _q(Path(source)))
    except CSVLoadError:
        raise
    except SVMCoreError as exc:
        raise CSVLoadError(str(exc)) from None
    return _read_file_object(source)


def _read_file_object(source) -> bytes | str:
    from ..safeio import read_bounded

    getvalue = getattr(source, "getvalue", None)
    read = getattr(source, "read", None)
    if getvalue is None and read is None:
        raise CSVLoadError(
            f"cannot read a CSV from a {type(source).__name__}; give a path, bytes or an open file")
    try:
        data = getvalue() if getvalue is not None else read_bounded(source, MAX_CSV_BYTES)
    except SVMCoreError as exc:
        raise CSVLoadError(str(exc)) from None
    except Exception as exc:  # noqa: BLE001 - any failure of a foreign reader is an input problem
        raise CSVLoadError(f"cannot read the uploaded file: {exc}") from None
    if isinstance(data, (bytes, bytearray, memoryview, str)) and len(data) > MAX_CSV_BYTES:
        raise CSVLoadError(_TOO_BIG)
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    if isinstance(data, str):
        return data
    raise CSVLoadError(f"reading the file gave a {type(data).__name__}, not text or bytes")


def _decode(data: bytes | str) -> str:
    if isinstance(data, str):
        text = data
    else:
        if not data.strip():
            raise CSVLoadError("the file is empty")
        nul = data.find(b"\x00")
        if nul >= 0:
            raise CSVLoadError(
                f"this is not a CSV file: it has binary content (a NUL byte at byte {nul}); "
                "save the data as comma-separated text")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            bad = data[exc.start:exc.start + 1].hex()
            raise CSVLoadError(
                f"this is not a UTF-8 text CSV file: byte 0x{bad} at byte {exc.start} cannot be "
                "decoded; save the file as CSV (UTF-8)") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        raise CSVLoadError("the file is empty")
    m = _CTRL_RE.search(text)
    if m:
        line = text.count("\n", 0, m.start()) + 1
        raise CSVLoadError(
            f"this is not a CSV file: it has binary content (control character "
            f"{m.group()!r} on line {line}); save the data as comma-separated text")
    return text


def _delimiter(header_line: str) -> str:
    if "," in header_line:
        return ","
    semi, tab = header_line.count(";"), header_line.count("\t")
    if semi == 0 and tab == 0:
        return ","
    return ";" if semi >= tab else "\t"


def _header_hint(names) -> str:
    if names and all(_is_number_text(n) or not n for n in names):
        return " (the first line looks like data: the file needs a header line of column names)"
    return ""


def _check_width(ncol: int) -> None:
    if ncol > MAX_CSV_COLUMNS:
        raise CSVLoadError(f"the file has {ncol} columns; at most {MAX_CSV_COLUMNS} are read "
                           "(svmcore.limits.MAX_CSV_COLUMNS)")


def _too_many_rows(ncol: int, max_rows: int) -> str:
    cap = min(MAX_CSV_ROWS, MAX_CSV_CELLS // max(ncol, 1))
    why = ("MAX_CSV_ROWS" if cap == MAX_CSV_ROWS else
           f"MAX_CSV_CELLS = {MAX_CSV_CELLS:,} cells over {ncol} columns")
    return (f"the file has more than {cap:,} data rows, the most that are read "
            f"(svmcore.limits.{why})")


def read_csv_table(source) -> pd.DataFrame:
    """Read a CSV file into a table of text cells, checking that it is a well-formed CSV.

    Parameters
    ----------
    source : str, os.PathLike, bytes or file-like
        A path; the file's bytes; or an object with ``getvalue()`` or ``read()`` returning
        bytes or text (an open file, ``io.BytesIO``, a Streamlit upload).

    Returns
    -------
    pandas.DataFrame
        One column per header name, cells as stripped ``str`` (object dtype, nothing
        converted), a default ``RangeIndex``; :func:`line_numbers` gives the line of the
        file where each data row starts.

    Raises
    ------
    CSVLoadError
        Empty file; binary or non-UTF-8 content; a malformed CSV; no data rows; a row with
        a different number of fields than the header; an empty or duplicated column name.
    """
    text = _decode(_raw_bytes(source))
    first = next(line for line in text.splitlines() if line.strip())
    header, header_line, rows, lines = _records(text, _delimiter(first))
    header, rows = _even_rows(header, header_line, rows, lines)
    _check_header(header, header_line, rows)
    df = pd.DataFrame(rows, columns=header, dtype=object)
    # Stored as immutable bytes: pandas deep-copies ``attrs`` on every column access and
    # compares them with ``==`` in concat, which a list (slow) or an array (ambiguous) spoils.
    df.attrs[_LINES_ATTR] = np.asarray(lines, dtype=np.int64).tobytes()
    return df


def _records(text: str, delim: str) -> tuple[list[str], int, list[list[str]], list[int]]:
    """(header, its line, data rows as stripped cells, each row's first line) of a CSV text,
    under the row and cell caps; blank lines are skipped."""
    max_rows = MAX_CSV_ROWS
    header, header_line, rows, lines, start = None, 0, [], [], 1
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delim)
    try:
        for rec in reader:
            if not rec or all(not c.strip() for c in rec) and len(rec) <= 1:
                start = reader.line_num + 1
                continue
            if header is None:
                header, header_line = [c.strip() for c in rec], start
                _check_width(len(header))
                max_rows = min(MAX_CSV_ROWS, MAX_CSV_CELLS // max(len(header), 1))
            else:
                rows.append([c.strip() for c in rec])
                lines.append(start)
                if len(rows) > max_rows:
                    raise CSVLoadError(_too_many_rows(len(header), max_rows))
            start = reader.line_num + 1
    except csv.Error as exc:
        hint = "; is a quote (\") left unclosed?" if "field limit" in str(exc) else ""
        raise CSVLoadError(
            f"malformed CSV near line {reader.line_num} of the file: {exc}{hint}") from None
    if header is None:  # pragma: no cover - excluded by the empty check
        raise CSVLoadError("the file is empty")
    return header, header_line, rows, lines


def _even_rows(header, header_line, rows, lines):
    """Every row as wide as the header: a trailing separator on the data lines but not the header
    (or the reverse) is tolerated; any other width is refused naming the row and its line. A wholly
    empty, unnamed column (from a trailing separator) is dropped."""
    ncol = len(header)
    for k, (row, line) in enumerate(zip(rows, lines), start=1):
        if len(row) == ncol:
            continue
        if len(row) == ncol - 1 and header[-1] == "":
            row.append("")
            continue
        if not (len(row) == ncol + 1 and row[-1] == "" and header[-1] != ""):
            hint = ""
            if any("\n" in c or "\r" in c for c in row):
                hint = ("; a quoted field runs over several lines there: is a quote (\") "
                        "left unclosed?")
            raise CSVLoadError(
                f"data row {k} (line {line} of the file) has {len(row)} "
                f"field{'s' if len(row) != 1 else ''} but the header (line {header_line}) has "
                f"{ncol} column{'s' if ncol != 1 else ''}{hint}")
        del row[-1]
    keep = [j for j in range(ncol) if header[j] or any(r[j] for r in rows)]
    if len(keep) < ncol:
        header = [header[j] for j in keep]
        rows = [[r[j] for j in keep] for r in rows]
    return header, rows


def _check_header(header, header_line, rows) -> None:
    """Columns present, each named once, and at least one data row."""
    if not header:
        raise CSVLoadError("the file has no columns")
    for j, name in enumerate(header):
        if not name:
            raise CSVLoadError(
                f"column {j + 1} has an empty name in the header (line {header_line}); give every "
                "column a name (a row index written by pandas' to_csv looks like this)")
    dups = [n for n, c in Counter(header).items() if c > 1]
    if dups:
        raise CSVLoadError(
            f"duplicate column name(s) in the header (line {header_line}): {_list(dups)}; "
            f"every column needs its own name{_header_hint(header)}")
    if not rows:
        raise CSVLoadError(f"the file has a header line but no data rows{_header_hint(header)}")


# --------------------------------------------------------------------------- stage 2: convert

class _Where:
    """Describe row positions of one table in messages."""

    def __init__(self, df: pd.DataFrame):
        raw = df.attrs.get(_LINES_ATTR) if hasattr(df, "attrs") else None
        lines = None
        if isinstance(raw, bytes) and len(raw) % 8 == 0:
            lines = np.frombuffer(raw, dtype=np.int64)
        self.lines = lines if lines is not None and len(lines) == len(df) else None

    def __call__(self, i: int) -> str:
        if self.lines is not None:
            return f"data row {i + 1} (line {self.lines[i]} of the file)"
        return f"data row {i + 1}"


def line_numbers(df: pd.DataFrame) -> np.ndarray | None:
    """Line of the file where each data row of a table from :func:`read_csv_table` starts.

    Parameters
    ----------
    df : pandas.DataFrame

    Returns
    -------
    numpy.ndarray of int or None
        1-based line numbers (the header is line 1), or None when the table does not carry
        them or its number of rows changed since it was read.
    """
    return _Where(df).lines


def _texts(col: pd.Series) -> list:
    """Cells of a non-numeric column as stripped text (None for NaN/None)."""
    out = []
    for v in col.tolist():
        if v is None or (isinstance(v, float) and np.isnan(v)) or v is pd.NA or v is pd.NaT:
            out.append(None)
        else:
            out.append(str(v).strip())
    return out


def _numeric(col: pd.Series, what: str, where: _Where) -> np.ndarray:
    """Convert one column to floats or raise CSVLoadError at its first bad cell.

    ``what`` names the column in messages, e.g. "column 'age'".
    """
    if pd.api.types.is_bool_dtype(col.dtype):
        return col.to_numpy(dtype=float)
    if pd.api.types.is_numeric_dtype(col.dtype) and not pd.api.types.is_complex_dtype(col.dtype):
        x = col.to_numpy(dtype=float, na_value=np.nan)
        bad = ~np.isfinite(x)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            if np.isnan(x[i]):
                raise CSVLoadError(f"missing value in {what} at {where(i)} (empty cell)")
            raise CSVLoadError(f"infinite value {_q(_fmt_number(x[i]))} in {what} at {where(i)}")
        return x
    try:  # fast path: every cell is a finite number
        x = np.asarray(col.to_numpy(dtype=object), dtype=float)
        if x.ndim == 1 and np.isfinite(x).all():
            return x
    except (TypeError, ValueError, OverflowError):
        pass
    texts = _texts(col)
    x = np.empty(len(texts))
    for i, s in enumerate(texts):
        if s is None or s.lower() in MISSING_TOKENS:
            cell = "empty cell" if not s else f"the cell reads {_q(s)}"
            raise CSVLoadError(f"missing value in {what} at {where(i)} ({cell})")
        try:
            v = float(s)
        except (ValueError, OverflowError):
            v = None
        if v is not None and np.isnan(v):
            raise CSVLoadError(f"missing value in {what} at {where(i)} (the cell reads {_q(s)})")
        if v is not None and np.isinf(v):
            extra = "" if _INF_RE.fullmatch(s) else " (too large for a floating-point number)"
            raise CSVLoadError(f"infinite value {_q(s)} in {what} at {where(i)}{extra}")
        if v is not None:
            x[i] = v
        else:
            raise CSVLoadError(f"{what} is not numeric: {where(i)} has {_q(s)}")
    return x


def _columns_text(df) -> str:
    return _list([str(c) for c in df.columns], limit=20)


def _check_column(df, name, role: str) -> str:
    if name is None or (isinstance(name, str) and not name.strip()):
        raise CSVLoadError(f"no {role} column chosen; columns are: {_columns_text(df)}")
    if name not in df.columns:
        stripped = str(name).strip()
        if stripped in df.columns:
            return stripped
        raise CSVLoadError(f"{role} column {_q(name)} is not in the file; "
                           f"columns are: {_columns_text(df)}"
                           f"{_header_hint([str(c) for c in df.columns])}")
    return name


def _class_labels(df, label, where) -> list:
    raw = df[label]
    if pd.api.types.is_numeric_dtype(raw.dtype) or pd.api.types.is_bool_dtype(raw.dtype):
        cells = raw.tolist()
    else:
        cells = _texts(raw)
    seen: dict = {}
    out = []
    for i, v in enumerate(cells):
        try:
            c = seen[v]
        except KeyError:
            c = seen[v] = _canonical(v)
        except TypeError:  # unhashable cell
            c = _canonical(v)
        if c is None:
            shown = "empty cell" if v is None or str(v).strip() == "" or (
                isinstance(v, float) and np.isnan(v)) else f"the cell reads {_q(v)}"
            raise CSVLoadError(f"missing value in label column {_q(label)} at {where(i)} ({shown})")
        out.append(c)
    return out


def _match_positive(positive, classes: list, label) -> str:
    pos = _canonical(positive)
    if pos is not None and pos in classes:
        return pos
    if pos is not None:
        folded = [c for c in classes if c.lower() == pos.lower()]
        if len(folded) == 1:
            return folded[0]
    raise CSVLoadError(f"positive class {_q(positive)} is not a value of label column {_q(label)}; "
                       f"its values are: {_list(classes)}")


def _feature_columns(df, cols, features, label, p_column) -> list:
    """The feature columns: all but the label and probability columns, or the checked choice."""
    if features is None:
        features = [c for c in cols if c != label and c != p_column]
    else:
        if isinstance(features, str):
            features = [features]
        features = [str(f) for f in features]
        for f in features:
            if f not in df.columns:
                raise CSVLoadError(f"feature {_q(f)} is not a column in the file; "
                                   f"columns are: {_columns_text(df)}")
            if f == label:
                raise CSVLoadError(f"column {_q(f)} is the label; it cannot also be a feature")
            if f == p_column:
                raise CSVLoadError(f"column {_q(f)} is the probability column; it cannot also be a feature")
        twice = [f for f, c in Counter(features).items() if c > 1]
        if twice:
            raise CSVLoadError(f"feature(s) listed twice: {_list(twice)}")
    if not features:
        raise CSVLoadError(f"no feature columns: the file has only {_columns_text(df)}")
    return features


def _standardized(X, features):
    """(Z, center, scale) of the features, or CSVLoadError naming a column that cannot be scaled."""
    with np.errstate(all="ignore"):
        Z, center, scale = _standardize(X)
        badcol = ~np.isfinite(Z).all(axis=0) | ~np.isfinite(scale) | ~np.isfinite(center)
        if badcol.any():
            j = int(np.flatnonzero(badcol)[0])
            raise CSVLoadError(f"column {_q(features[j])} has values too large to standardize "
                               f"(largest magnitude {_fmt_number(np.abs(X[:, j]).max())})")
        tiny = np.abs(Z.std(axis=0) - 1.0) > 1e-6
        if tiny.any():
            j = int(np.flatnonzero(tiny)[0])
            raise CSVLoadError(f"column {_q(features[j])} varies too little to standardize "
                               f"(its values differ by only {_fmt_number(np.ptp(X[:, j]))})")
    return Z, center, scale


def dataset_from_table(df: pd.DataFrame, label, positive=None, p_column=None, features=None,
                       standardize: bool = True, name: str = "uploaded", max_rows: int | None = None,
                       criteria_note: str | None = None, *, source: str = "uploaded CSV file",
                       description: str | None = None, class_names=None) -> Dataset:
    """Build a two-class :class:`Dataset` from a table, checking every value.

    Parameters
    ----------
    df : pandas.DataFrame
        Usually from :func:`read_csv_table` (text cells); numeric columns are accepted too.
    label : str
        The column holding the class of each row.
    positive : str or number, optional
        The label value that is class A (+1); every other value is class B (−1). Required
        when the label has more than two values; otherwise chosen by
        :func:`default_positive`. ``1``, ``1.0`` and ``"1"`` all match a label ``1``.
    p_column : str, optional
        A column of true probabilities P(A | x) in [0, 1]; becomes ``Dataset.p``.
    features : list of str, optional
        Feature columns, in order; default every column except ``label`` and ``p_column``.
    standardize : bool, default True
        Centre each feature at its mean and scale to unit standard deviation.
    name : str
        Name of the data set.
    max_rows : int, optional
        The most rows the chosen criteria allow; a larger table is refused.
    criteria_note : str, optional
        What imposes ``max_rows``, for the message (e.g. ``"LOO"``).
    source : str
        Provenance stored in ``Dataset.source``.
    description : str, optional
        One line for the UI; a default is written when omitted.
    class_names : tuple of str, optional
        Display names of (class A, class B); default the label values.

    Returns
    -------
    Dataset

    Raises
    ------
    CSVLoadError
        On any problem, naming the column, the row and the value.
    """
    df, label, p_column, features = _table_columns(df, label, p_column, features)
    n, where = len(df), _Where(df)
    _check_rows(n, max_rows, criteria_note)
    y, pos, others = _two_classes(df, label, positive, where)
    X = _feature_matrix(df, features, where)
    p = _probabilities(df, p_column, where)
    center = scale = None
    if standardize:
        X, center, scale = _standardized(X, features)
    if class_names is None:
        neg = others[0] if len(others) == 1 else (
            "other (" + ", ".join(others[:3]) + (", ..." if len(others) > 3 else "") + ")")
        class_names = (pos, neg)
    if description is None:
        description = (f"{name}: {n} rows x {len(features)} features from {source}; "
                       f"class A = label {pos!r}")
    try:
        return Dataset(name=name, X=X, y=y, p=p, feature_names=list(features),
                       class_names=tuple(class_names), description=description, source=source,
                       standardized=bool(standardize), center=center, scale=scale)
    except CSVLoadError:
        raise
    except (SVMCoreError, ValueError) as exc:  # pragma: no cover - the checks above come first
        raise CSVLoadError(str(exc)) from None


def _table_columns(df, label, p_column, features):
    """(table with text column names, label, probability column or None, feature columns): each
    column present, named once and used for one thing."""
    if not isinstance(df, pd.DataFrame):
        raise CSVLoadError(f"expected a table (pandas DataFrame), got a {type(df).__name__}")
    cols = [str(c) for c in df.columns]
    dups = [n for n, c in Counter(cols).items() if c > 1]
    if dups:
        raise CSVLoadError(f"duplicate column name(s): {_list(dups)}; every column needs its own name")
    if df.columns.tolist() != cols:
        df = df.set_axis(cols, axis=1)
    if len(df) == 0:
        raise CSVLoadError("the table has no data rows")
    label = _check_column(df, label, "label")
    if p_column is not None and not (isinstance(p_column, str) and not p_column.strip()):
        p_column = _check_column(df, p_column, "probability")
        if p_column == label:
            raise CSVLoadError(f"column {_q(label)} cannot be both the label and the probability column")
    else:
        p_column = None
    return df, label, p_column, _feature_columns(df, cols, features, label, p_column)


def _check_rows(n: int, max_rows, criteria_note) -> None:
    """At least MIN_ROWS rows, and at most ``max_rows`` (what imposes it named)."""
    if max_rows is not None:
        try:
            max_rows = int(max_rows)
        except (TypeError, ValueError):
            raise CSVLoadError(f"max_rows must be a whole number, got {max_rows!r}") from None
        if n > max_rows:
            what = f"{criteria_note} is" if criteria_note else "the table is"
            raise CSVLoadError(f"{what} limited to {max_rows} rows; this file has {n}")
    if n < MIN_ROWS:
        raise CSVLoadError(f"the file has only {n} data row{'s' if n != 1 else ''}; "
                           f"at least {MIN_ROWS} are needed")


def _two_classes(df, label, positive, where):
    """(y as ±1, the class-A label value, the other values): two classes or more with class A
    chosen."""
    labels = _class_labels(df, label, where)
    classes = sorted(set(labels), key=lambda v: (v.lower(), v))
    if len(classes) == 1:
        raise CSVLoadError(f"only one class in label column {_q(label)}: every row has {_q(classes[0])}; "
                           "two classes are needed")
    if positive is None or (isinstance(positive, str) and not positive.strip()):
        if len(classes) > 2:
            raise CSVLoadError(
                f"label column {_q(label)} has {len(classes)} classes ({_list(classes)}); choose the "
                "positive class (class A); the others become class B")
        pos = default_positive(classes)
    else:
        pos = _match_positive(positive, classes, label)
    y = np.where(np.asarray(labels, dtype=object) == pos, 1.0, -1.0)
    return y, pos, [c for c in classes if c != pos]


def _feature_matrix(df, features, where) -> np.ndarray:
    """The features as numbers, none constant."""
    X = np.empty((len(df), len(features)))
    for j, f in enumerate(features):
        X[:, j] = _numeric(df[f], f"column {_q(f)}", where)
    with np.errstate(all="ignore"):
        const = [f for j, f in enumerate(features) if np.ptp(X[:, j]) == 0]
    if const:
        raise CSVLoadError(f"constant feature column(s) {_list(const)}: every row has the same value; "
                           "deselect or remove them")
    return X


def _probabilities(df, p_column, where):
    """The true P(A|x) column as numbers in [0, 1], or None."""
    if p_column is None:
        return None
    p = _numeric(df[p_column], f"probability column {_q(p_column)}", where)
    bad = (p < 0) | (p > 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise CSVLoadError(f"probability column {_q(p_column)} must lie in [0, 1]; "
                           f"{where(i)} has {_fmt_number(p[i])}")
    return p


def load_csv(source, label, positive=None, p_column=None, features=None, standardize: bool = True,
             name: str = "uploaded", max_rows: int | None = None, criteria_note: str | None = None,
             **kwargs) -> Dataset:
    """Read a CSV file and build a :class:`Dataset` in one call.

    Parameters
    ----------
    source : str, os.PathLike, bytes or file-like
        As for :func:`read_csv_table`.
    label, positive, p_column, features, standardize, name, max_rows, criteria_note, **kwargs
        As for :func:`dataset_from_table`.

    Returns
    -------
    Dataset

    Raises
    ------
    CSVLoadError
        On any problem with the file or the choices.
    """
    df = read_csv_table(source)
    return dataset_from_table(df, label, positive=positive, p_column=p_column, features=features,
                              standardize=standardize, name=name, max_rows=max_rows,
                              criteria_note=criteria_note, **kwargs)
