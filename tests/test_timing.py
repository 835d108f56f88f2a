"""svmcore.timing: rates recorded, interpolated on the log-log line, extrapolated, persisted as data."""
import json
import math

import pytest

from svmcore.timing import DEFAULT_POWER, RateBook, workload


def test_workload_keys():
    assert workload(["gacv", "xa"]) == "insample"
    assert workload(["gacv", "cv"], 10) == "cv10"
    assert workload(["loo", "cv"], 5) == "cv5+loo"


def test_exact_interpolated_and_extrapolated_rates():
    book = RateBook()
    book.add("path", "insample", 100, 10, 1.0)            # 0.1 s/point at n = 100
    book.add("path", "insample", 400, 10, 16.0)           # 1.6 s/point at n = 400: slope 2
    assert book.seconds_per_point("path", "insample", 100) == pytest.approx(0.1)
    # between the two: on the line through them, 0.1 * (200/100)^2
    assert book.seconds_per_point("path", "insample", 200) == pytest.approx(0.4)
    # beyond: the measured slope (2), from the nearest measurement
    assert book.seconds_per_point("path", "insample", 800) == pytest.approx(1.6 * 4)
    assert book.estimate("path", ["gacv"], 200, points=50) == pytest.approx(20.0)
    assert book.seconds_per_point("cvxopt", "insample", 200) is None      # never measured
    assert book.estimate("path", ["cv"], 200, points=5) is None


def test_one_measurement_uses_the_default_power_and_median_of_repeats():
    book = RateBook()
    for sec in (1.0, 3.0, 2.0):
        book.add("path", "loo", 100, 1, sec)
    assert book.seconds_per_point("path", "loo", 100) == 2.0
    assert book.seconds_per_point("path", "loo", 50) == pytest.approx(2.0 * 0.5 ** DEFAULT_POWER)


def test_bad_records_are_ignored_and_round_trip_is_data_only():
    book = RateBook()
    book.add("path", "insample", 100, 0, 1.0)
    book.add("path", "insample", 100, 5, math.nan)
    assert book.records == []
    book.add("path", "insample", 100, 4, 2.0)
    back = RateBook.from_records(json.loads(book.to_json())["records"] + [{"solver": "x"}])
    assert back.records == book.records


def test_baseline_rates_were_measured_here():
    """The shipped rates come from bench/measure_rates.py: positive, and growing with n."""
    book = RateBook.baseline()
    assert book.records, "svmcore/data/rates.json is missing"
    small = book.seconds_per_point("path", "insample", 100)
    large = book.seconds_per_point("path", "insample", 400)
    assert 0 < small < large
