"""Caps on what one command or page may read or start, as named constants in one place.

Every CSV reader (``svmcore.datasets.csvload``), the study runner and the one-shot commands check
these before any work; the parameter tables of ``svmcore.spec`` may import them. A value over a
cap is refused with one message naming the cap; nothing is clamped silently.
"""
from __future__ import annotations

#: largest CSV input read, in bytes (checked from the file's size, then enforced while reading, so
#: a pipe or ``/dev/zero`` stops at the budget)
MAX_CSV_BYTES = 50 * 2**20
#: most data rows of a CSV file (the training set is capped lower, ``spec.MAX_ROWS``; a held-out
#: test set or a subsample may come from a larger file)
MAX_CSV_ROWS = 100_000
#: most columns of a CSV file
MAX_CSV_COLUMNS = 2_000
#: most cells (rows × columns) of a CSV file: bounds the memory of the parsed text table
MAX_CSV_CELLS = 2_000_000
#: most replicates of one study
MAX_REPLICATES = 10_000
#: fewest rows of each class left for training after a test fraction is held out
MIN_TRAIN_ROWS_PER_CLASS = 5
#: fewest rows of each class in a held-out test set
MIN_TEST_ROWS_PER_CLASS = 1
#: most COSSO components (features, plus d(d−1)/2 interactions with ``--interactions``)
MAX_COSSO_COMPONENTS = 500
#: work estimated above this many seconds is announced on stderr first, and on a terminal
#: needs ``--yes``
CONFIRM_SECONDS = 60.0
#: a Dask study with no finished task for this long (every worker lost, a stalled cluster) stops
DASK_STALL_SECONDS = 60.0
