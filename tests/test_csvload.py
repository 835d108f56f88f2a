"""Tests of the user CSV loader: one test per kind of bad input, good paths, and a property test."""
from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from svmcore._validation import SVMCoreError
from svmcore.datasets.base import Dataset
from svmcore.datasets.csvload import (CSVLoadError, dataset_from_table, default_positive,
                                      line_numbers, load_csv, read_csv_table)


def make_csv(n=12, label=None, extra=None, header="x1,x2,label"):
    """A small valid CSV as text: two features, labels alternating a/b unless given."""
    rng = np.random.default_rng(0)
    lines = [header]
    for i in range(n):
        lab = label[i] if label is not None else ("a" if i % 2 else "b")
        row = f"{rng.normal():.4f},{rng.normal():.4f},{lab}"
        if extra is not None:
            row += "," + str(extra[i])
        lines.append(row)
    return "\n".join(lines) + "\n"


def err(source, **kw) -> str:
    kw.setdefault("label", "label")
    with pytest.raises(CSVLoadError) as info:
        load_csv(source.encode() if isinstance(source, str) else source, **kw)
    return str(info.value)


def replace_cell(text, row, col, value):
    """Set data row ``row`` (1-based), column ``col`` (0-based) of a CSV text."""
    lines = text.splitlines()
    cells = lines[row].split(",")
    cells[col] = value
    lines[row] = ",".join(cells)
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- bad inputs

def test_error_type_is_svmcore_error():
    assert issubclass(CSVLoadError, SVMCoreError)


def test_empty_file():
    assert "empty" in err(b"")
    assert "empty" in err(b"   \n\n  ")


def test_nul_bytes_are_binary():
    msg = err(b"x,label\n1,\x00a\n")
    assert "binary" in msg and "NUL" in msg


def test_undecodable_bytes():
    msg = err("x,label\n1,a\n".encode() + b"\xff\xfe\n")
    assert "UTF-8" in msg and "0xff" in msg


def test_control_characters_are_binary():
    assert "binary" in err(b"x,label\n1,\x01a\n")


def test_non_numeric_feature_names_column_row_value():
    text = replace_cell(make_csv(), 3, 1, "abc")
    msg = err(text)
    assert "'x2'" in msg and "data row 3" in msg and "line 4" in msg and "'abc'" in msg


def test_missing_value_names_column_and_row():
    text = replace_cell(make_csv(), 5, 0, "")
    msg = err(text)
    assert "missing" in msg and "'x1'" in msg and "data row 5" in msg and "line 6" in msg


def test_missing_token_na():
    msg = err(replace_cell(make_csv(), 2, 0, "NA"))
    assert "missing" in msg and "'NA'" in msg and "data row 2" in msg


def test_missing_label():
    msg = err(replace_cell(make_csv(), 4, 2, ""))
    assert "missing" in msg and "label column 'label'" in msg and "data row 4" in msg


@pytest.mark.parametrize("value", ["inf", "-Infinity", "1e999"])
def test_infinite_value(value):
    msg = err(replace_cell(make_csv(), 7, 1, value))
    assert "infinite" in msg and "'x2'" in msg and "data row 7" in msg and repr(value) in msg


def test_one_class_only():
    msg = err(make_csv(label=["a"] * 12))
    assert "one class" in msg and "'a'" in msg


def test_more_than_two_classes_without_positive():
    msg = err(make_csv(label=["a", "b", "c"] * 4))
    assert "3 classes" in msg and "'a'" in msg and "'b'" in msg and "'c'" in msg
    assert "positive" in msg


def test_more_than_two_classes_with_positive_is_one_vs_rest():
    ds = load_csv(make_csv(label=["a", "b", "c"] * 4).encode(), label="label", positive="c")
    assert (ds.y > 0).sum() == 4 and ds.class_names[0] == "c"


def test_positive_not_present():
    msg = err(make_csv(), positive="z")
    assert "'z'" in msg and "not a value" in msg and "'a'" in msg and "'b'" in msg


def test_label_column_missing():
    msg = err(make_csv(), label="target")
    assert "'target'" in msg and "not in the file" in msg and "'x1'" in msg


def test_feature_not_in_file():
    msg = err(make_csv(), features=["x1", "x9"])
    assert "'x9'" in msg and "not a column" in msg


def test_constant_features_named():
    lines = make_csv(header="x1,x2,label,c1", extra=[5] * 12).splitlines()
    lines = [lines[0] + ",c2"] + [ln + ",0" for ln in lines[1:]]  # c1 = 5, c2 = 0 everywhere
    msg = err("\n".join(lines) + "\n")
    assert "constant" in msg and "'c1'" in msg and "'c2'" in msg


def test_fewer_than_ten_rows():
    msg = err(make_csv(n=9))
    assert "9 data rows" in msg and "10" in msg


def test_duplicate_column_names_from_header():
    text = make_csv().replace("x1,x2,label", "x1,x1,label", 1)
    msg = err(text)
    assert "duplicate" in msg and "'x1'" in msg
    with pytest.raises(CSVLoadError, match="duplicate"):
        read_csv_table(text.encode())


def test_probability_outside_unit_interval():
    p = [0.5] * 12
    p[5] = 1.3
    msg = err(make_csv(header="x1,x2,label,p", extra=p), p_column="p")
    assert "[0, 1]" in msg and "'p'" in msg and "data row 6" in msg and "1.3" in msg


def test_probability_non_numeric():
    p = [0.5] * 12
    p[2] = "high"
    msg = err(make_csv(header="x1,x2,label,p", extra=p), p_column="p")
    assert "probability column 'p'" in msg and "not numeric" in msg and "'high'" in msg
    assert "data row 3" in msg


def test_too_many_rows_for_criteria():
    msg = err(make_csv(n=40), max_rows=30, criteria_note="LOO")
    assert msg == "LOO is limited to 30 rows; this file has 40"
    msg = err(make_csv(n=40), max_rows=30)
    assert "30" in msg and "40" in msg


def test_ragged_row():
    text = make_csv()
    lines = text.splitlines()
    lines[3] += ",7,8"
    msg = err("\n".join(lines))
    assert "data row 3" in msg and "line 4" in msg and "5 fields" in msg and "3 columns" in msg


def test_header_only():
    assert "no data rows" in err(b"x1,x2,label\n")


def test_empty_column_name():
    text = make_csv().replace("x1,x2,label", ",x2,label", 1)
    msg = err(text)
    assert "column 1" in msg and "empty name" in msg


def test_label_cannot_be_feature():
    assert "label" in err(make_csv(), features=["x1", "label"])


def test_bad_source_type():
    with pytest.raises(CSVLoadError, match="int"):
        read_csv_table(42)


def test_missing_path(tmp_path):
    with pytest.raises(CSVLoadError, match="not found"):
        read_csv_table(tmp_path / "nope.csv")


def test_row_numbers_skip_blank_lines():
    text = make_csv()
    lines = text.splitlines()
    lines.insert(2, "")  # blank line after data row 1
    text = "\n".join(lines) + "\n"
    msg = err(replace_cell(text, 4, 0, "oops"))  # file line 5 = data row 3
    assert "data row 3 (line 5 of the file)" in msg


def test_table_without_line_numbers_gives_data_row():
    df = pd.DataFrame({"x": ["1", "2", "zz"] + [str(i) for i in range(9)], "label": ["a", "b"] * 6})
    with pytest.raises(CSVLoadError, match=r"data row 3 has 'zz'"):
        dataset_from_table(df, "label")


# ----------------------------------------------------------------------------- good paths

def test_numeric_labels_positive_as_string_or_number():
    text = make_csv(label=[0, 1] * 6)
    for pos in ("1", 1, 1.0, "1.0"):
        ds = load_csv(text.encode(), label="label", positive=pos)
        assert isinstance(ds, Dataset)
        assert (ds.y > 0).sum() == 6
        assert ds.class_names == ("1", "0")
    ds = load_csv(text.encode(), label="label", positive=0)
    assert ds.class_names == ("0", "1")


def test_default_positive_rules():
    assert default_positive(["0", "1"]) == "1"
    assert default_positive(["-1", "1"]) == "1"
    assert default_positive(["2", "10"]) == "10"
    assert default_positive(["no", "yes"]) == "yes"
    assert default_positive(["benign", "malignant"]) == "malignant"
    assert default_positive(["tested_negative", "tested_positive"]) == "tested_positive"
    assert default_positive(["R", "M"]) == "R"


def test_string_labels_default_positive():
    ds = load_csv(make_csv(label=["yes", "no"] * 6).encode(), label="label")
    assert ds.class_names == ("yes", "no")
    assert np.array_equal(ds.y, np.array([1.0, -1.0] * 6))


def test_chosen_features_in_order():
    text = make_csv(header="x1,x2,label,x3", extra=list(range(12)))
    ds = load_csv(text.encode(), label="label", features=["x3", "x1"], standardize=False)
    assert ds.feature_names == ["x3", "x1"]
    assert ds.d == 2 and ds.X[4, 0] == 4.0


def test_default_features_exclude_label_and_p():
    p = np.linspace(0.05, 0.95, 12).round(3)
    ds = load_csv(make_csv(header="x1,x2,label,p", extra=p).encode(), label="label", p_column="p")
    assert ds.feature_names == ["x1", "x2"]
    assert ds.has_truth and np.allclose(ds.p, p)


def test_standardization_mean0_sd1():
    ds = load_csv(make_csv(n=50).encode(), label="label")
    assert ds.standardized
    assert np.allclose(ds.X.mean(axis=0), 0, atol=1e-12)
    assert np.allclose(ds.X.std(axis=0), 1)
    raw = load_csv(make_csv(n=50).encode(), label="label", standardize=False)
    assert not raw.standardized
    assert np.allclose(ds.X * ds.scale + ds.center, raw.X)


def test_file_like_path_and_text_sources(tmp_path):
    text = make_csv()
    path = tmp_path / "d.csv"
    path.write_text(text)
    a = load_csv(path, label="label").X
    b = load_csv(str(path), label="label").X
    c = load_csv(io.BytesIO(text.encode()), label="label").X
    d = load_csv(io.StringIO(text), label="label").X
    for other in (b, c, d):
        assert np.array_equal(a, other)


def test_semicolon_separator_bom_and_crlf():
    text = make_csv().replace(",", ";").replace("\n", "\r\n")
    ds = load_csv(b"\xef\xbb\xbf" + text.encode(), label="label")
    assert ds.n == 12 and ds.feature_names == ["x1", "x2"]


def test_trailing_separator_and_spaces_tolerated():
    lines = make_csv().splitlines()
    lines = [" , ".join(ln.split(",")) + "," for ln in lines]
    ds = load_csv("\n".join(lines).encode(), label="label")
    assert ds.feature_names == ["x1", "x2"] and ds.n == 12


def test_numeric_dataframe_accepted():
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"a": rng.normal(size=20), "b": rng.normal(size=20),
                       "y": [0, 1] * 10})
    ds = dataset_from_table(df, "y")
    assert ds.class_names == ("1", "0") and ds.d == 2
    df.loc[3, "a"] = np.nan
    with pytest.raises(CSVLoadError, match=r"missing value in column 'a' at data row 4"):
        dataset_from_table(df, "y")


def test_read_table_keeps_text():
    df = read_csv_table(make_csv().encode())
    assert list(df.columns) == ["x1", "x2", "label"]
    assert all(isinstance(v, str) for v in df["x1"])
    assert list(line_numbers(df)) == list(range(2, 14))
    assert line_numbers(df.iloc[:3]) is None


# ----------------------------------------------------------------------------- properties

@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_only_raise_csvloaderror(data):
    try:
        df = read_csv_table(data)
    except CSVLoadError:
        return
    try:
        dataset_from_table(df, df.columns[-1])
    except CSVLoadError:
        pass


_cell = st.one_of(
    st.integers(-5, 5).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["", "NA", "?", "a", "b", "yes", "no", "inf", "1e999", " 3 ", "\"q,x\"", "0.5",
                     "1", "0", "-", "1,2", "é", "\"\""]),
    st.text(max_size=4),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ncol=st.integers(1, 4), rows=st.lists(st.lists(_cell, min_size=1, max_size=5), max_size=15),
       header=st.lists(st.sampled_from(["a", "b", "label", "p", "", "a "]), min_size=1, max_size=4),
       positive=st.one_of(st.none(), st.sampled_from(["a", "1", "yes", 0])),
       use_p=st.booleans(), max_rows=st.one_of(st.none(), st.integers(0, 20)))
def test_random_tables_only_raise_csvloaderror(ncol, rows, header, positive, use_p, max_rows):
    text = ",".join(header[:ncol]) + "\n" + "\n".join(",".join(r[:ncol]) for r in rows)
    try:
        ds = load_csv(text.encode("utf-8"), label="label", positive=positive,
                      p_column="p" if use_p else None, max_rows=max_rows)
    except CSVLoadError:
        return
    assert np.isfinite(ds.X).all()
    assert set(np.unique(ds.y)) == {-1.0, 1.0}
