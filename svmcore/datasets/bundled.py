"""Real two-class data sets shipped with the project as CSV files in ``data/``.

Each file has a header, numeric feature columns and a ``label`` column holding the
original class value as text. ``svmcore/datasets/data/README.md`` gives the provenance, licence and
label coding of every file; ``scripts/make_bundled.py`` is the one-off script that wrote them.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .base import Dataset
from .csvload import CSVLoadError, dataset_from_table, read_csv_table

__all__ = ["BundledSet", "BUNDLED", "DATA_DIR", "list_bundled", "load_bundled", "bundled_path"]

#: Folder holding the bundled CSV files (the repository's ``data/``).
DATA_DIR = Path(__file__).resolve().parent / "data"

_UCI = "UCI Machine Learning Repository"
_KEEL = ("via the KEEL data set repository: Alcalá-Fdez J. et al. (2011), KEEL data-mining "
         "software tool: data set repository, J. Mult.-Valued Logic Soft Comput. 17:255-287")


@dataclass(frozen=True)
class BundledSet:
    """One bundled data set.

    Attributes
    ----------
    file : str
        CSV file name inside ``data/``.
    title : str
        Human-readable name.
    description : str
        One line for the UI.
    positive : str
        The ``label`` value taken as class A (+1); the other value is class B (−1).
    negative : str
        The other ``label`` value.
    class_names : tuple of str
        Display names of (class A, class B).
    citation : str
        Where the data come from; stored in ``Dataset.source``.
    shape : tuple of int
        (rows, features), as listed in ``svmcore/datasets/data/README.md``.
    """

    file: str
    title: str
    description: str
    positive: str
    negative: str
    class_names: tuple
    citation: str
    shape: tuple


BUNDLED: dict[str, BundledSet] = {
    "wdbc": BundledSet(
        "wdbc.csv", "Breast cancer Wisconsin (diagnostic), WDBC",
        "569 breast masses, 30 nucleus features from images; malignant vs benign",
        "M", "B", ("malignant (M)", "benign (B)"),
        "Wolberg W., Mangasarian O., Street N., Street W. (1995). Breast Cancer Wisconsin "
        f"(Diagnostic). {_UCI}, https://doi.org/10.24432/C5DW2B (CC BY 4.0); "
        "copy from scikit-learn's load_breast_cancer",
        (569, 30)),
    "wisconsin": BundledSet(
        "wisconsin.csv", "Breast cancer Wisconsin (original)",
        "683 biopsies (16 with missing values dropped), 9 cytology scores 1-10; malignant vs benign",
        "4", "2", ("malignant (4)", "benign (2)"),
        f"Wolberg W. (1992). Breast Cancer Wisconsin (Original). {_UCI}, "
        f"https://doi.org/10.24432/C5HP4Z (CC BY 4.0); {_KEEL}",
        (683, 9)),
    "bupa": BundledSet(
        "bupa.csv", "BUPA liver disorders",
        "345 men, 5 blood tests and drinks per day; the UCI 'selector' field (1/2) as the class",
        "2", "1", ("selector 2", "selector 1"),
        f"Liver Disorders (1990). {_UCI}, https://doi.org/10.24432/C54G67 (CC BY 4.0; donated "
        f"by R. Forsyth, BUPA Medical Research Ltd.); {_KEEL}",
        (345, 6)),
    "pima": BundledSet(
        "pima.csv", "Pima Indians diabetes",
        "768 women of Pima heritage, 8 clinical measurements; diabetes test positive vs negative",
        "tested_positive", "tested_negative", ("diabetic (tested_positive)",
                                               "not diabetic (tested_negative)"),
        "Smith J.W., Everhart J.E., Dickson W.C., Knowler W.C., Johannes R.S. (1988). Using the "
        "ADAP learning algorithm to forecast the onset of diabetes mellitus. Proc. Symp. Computer "
        "Applications in Medical Care, 261-265; National Institute of Diabetes and Digestive and "
        f"Kidney Diseases, formerly in the {_UCI}; {_KEEL}",
        (768, 8)),
    "ionosphere": BundledSet(
        "ionosphere.csv", "Ionosphere radar returns",
        "351 radar returns, 33 pulse features (UCI attribute 2, constant, dropped); good vs bad",
        "g", "b", ("good (g)", "bad (b)"),
        f"Sigillito V., Wing S., Hutton L., Baker K. (1989). Ionosphere. {_UCI}, "
        f"https://doi.org/10.24432/C5W01B (CC BY 4.0); {_KEEL}",
        (351, 33)),
    "sonar": BundledSet(
        "sonar.csv", "Sonar, mines vs rocks",
        "208 sonar returns, 60 band energies; metal cylinder (mine) vs rock",
        "M", "R", ("mine (M)", "rock (R)"),
        "Sejnowski T., Gorman R. (1988). Connectionist Bench (Sonar, Mines vs. Rocks). "
        f"{_UCI}, https://doi.org/10.24432/C5T01Q (CC BY 4.0); {_KEEL}",
        (208, 60)),
    "haberman": BundledSet(
        "haberman.csv", "Haberman's survival",
        "306 breast-cancer surgery patients, 3 features; died within 5 years vs survived",
        "positive", "negative", ("died within 5 years (positive)", "survived 5+ years (negative)"),
        f"Haberman S. (1976). Haberman's Survival. {_UCI}, https://doi.org/10.24432/C5XK51 "
        f"(CC BY 4.0); {_KEEL}",
        (306, 3)),
    "heart": BundledSet(
        "heart.csv", "Statlog heart",
        "270 patients, 13 clinical attributes; heart disease present vs absent",
        "2", "1", ("disease present (2)", "absent (1)"),
        f"Statlog (Heart). {_UCI}, https://doi.org/10.24432/C57303 (CC BY 4.0); {_KEEL}",
        (270, 13)),
}


def list_bundled() -> list[str]:
    """Names of the bundled data sets, in display order.

    Returns
    -------
    list of str
    """
    return list(BUNDLED)


def bundled_path(name: str) -> Path:
    """Path of a bundled CSV file.

    Parameters
    ----------
    name : str
        A key of :data:`BUNDLED`.

    Returns
    -------
    pathlib.Path
    """
    if name not in BUNDLED:
        raise CSVLoadError(f"no bundled data set {name!r}; choose one of {', '.join(BUNDLED)}")
    return DATA_DIR / BUNDLED[name].file


def load_bundled(name: str, standardize: bool = True) -> Dataset:
    """Load a bundled data set.

    Parameters
    ----------
    name : str
        A key of :data:`BUNDLED` (see :func:`list_bundled`).
    standardize : bool, default True
        Centre and scale every feature (``base.standardize``).

    Returns
    -------
    Dataset
        ``p`` is None (the true P(A | x) of real data is unknown); ``source`` is the citation;
        ``y`` is +1 where ``label`` equals the set's ``positive`` value.

    Raises
    ------
    CSVLoadError
        Unknown name, or the file is missing or damaged.
    """
    entry = BUNDLED.get(name)
    path = bundled_path(name)
    df = read_csv_table(path)
    return dataset_from_table(df, "label", positive=entry.positive, standardize=standardize,
                              name=name, source=entry.citation, description=entry.description,
                              class_names=entry.class_names)
