"""Outputs that are complete or absent, checked before any work; inputs read under a byte budget.

* :func:`check_output` refuses an output path before any work: its folder is missing, it is a
  folder, it is not writable, it is the same file as an input (resolved path, or device and inode),
  or it lies inside a saved run folder.
* :func:`atomic_write` writes to a temporary file in the same folder, flushes it to disk (fsync)
  and moves it into place with :func:`os.replace`, so a reader, a concurrent writer or an
  interrupted run sees the old file or the complete new one, never a mix or a truncated file.
  A full or read-only disk is one :class:`SVMCoreError` and leaves no file behind.
* :func:`atomic_folder` does the same for a folder (a saved run): it is written under a temporary
  name and renamed when complete.
* :func:`read_bounded` reads at most a byte budget from a path or a file object.
"""
from __future__ import annotations

import contextlib
import errno
import io
import os
import shutil
import stat
import uuid
from pathlib import Path
from typing import Callable, Iterable, Iterator

from ._validation import SVMCoreError

#: files that mark a saved run folder (``svmcore.store``)
RUN_MARKERS = ("spec.json", "table.parquet")
_CHUNK = 1 << 20


def _tmp_name(path: Path) -> Path:
    return path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")


def _same_file(a: Path, b: Path) -> bool:
    """True when ``a`` and ``b`` name one file: equal resolved paths, or equal device and inode."""
    try:
        if a.resolve() == b.resolve():
            return True
    except OSError:
        pass
    try:
        sa, sb = os.stat(a), os.stat(b)
    except OSError:
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def in_run_folder(path) -> Path | None:
    """The saved run folder that holds ``path`` (any ancestor with a spec.json), or None."""
    p = Path(path).expanduser().absolute()
    for folder in p.parents:
        if (folder / RUN_MARKERS[0]).is_file():
            return folder
    return None


def check_output(path, inputs: Iterable = (), what: str = "--out", *, allow_in_run: bool = False) -> Path:
    """Refuse an output path before any work is done.

    Parameters
    ----------
    path : str or os.PathLike
        The file to be written.
    inputs : iterable of str or os.PathLike
        Files the command reads (None entries are ignored); the output may not be one of them.
    what : str
        The option naming the output, for messages (``"--out"``, ``"--save"``).
    allow_in_run : bool
        Allow a path inside a saved run folder.

    Returns
    -------
    pathlib.Path
        The output path.

    Raises
    ------
    SVMCoreError
        Naming the problem: a folder, a missing folder, not writable, an input, a saved run.
    """
    if path is None or str(path) == "":
        raise SVMCoreError(f"{what} is empty; give a file name")
    p = Path(path).expanduser()
    if p.is_dir():
        raise SVMCoreError(f"{what} {path} is a folder; give a file name")
    parent = p.absolute().parent
    if not parent.is_dir():
        raise SVMCoreError(f"{what} {path}: the folder {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise SVMCoreError(f"{what} {path} is not writable")
    if p.exists() and not p.is_file():
        raise SVMCoreError(f"{what} {path} is not a regular file")
    for src in inputs:
        if src is not None and str(src) != "" and _same_file(p, Path(src).expanduser()):
            raise SVMCoreError(f"{what} {path} is the input file {src}; writing it would destroy "
                               "the input: give another name")
    run = in_run_folder(p)
    if run is not None and not allow_in_run:
        raise SVMCoreError(f"{what} {path} is inside the saved run {run}; writing there would "
                           "damage it: give a path outside")
    return p


def check_save_dir(path, what: str = "--save") -> Path:
    """Refuse a folder of saved runs before any work: a file, a missing parent, not writable."""
    p = Path(path).expanduser()
    if p.exists() and not p.is_dir():
        raise SVMCoreError(f"{what} {path} is a file; give a folder of saved runs")
    probe = p if p.exists() else p.absolute().parent
    if not probe.is_dir():
        raise SVMCoreError(f"{what} {path}: the folder {probe} does not exist")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise SVMCoreError(f"{what} {path} is not writable")
    if in_run_folder(p / "x") is not None:
        raise SVMCoreError(f"{what} {path} is inside a saved run; give the folder of saved runs")
    return p


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _os_error(path, exc: OSError) -> SVMCoreError:
    why = {errno.ENOSPC: "the disk is full", errno.EDQUOT: "the disk quota is exceeded",
           errno.EROFS: "the file system is read-only", errno.EACCES: "permission denied"}
    reason = why.get(exc.errno, exc.strerror or str(exc))
    return SVMCoreError(f"cannot write {path}: {reason}; nothing was written")


def atomic_write(path, write: Callable[[io.IOBase], None], *, binary: bool = False) -> Path:
    """Write ``path`` completely or not at all.

    Parameters
    ----------
    path : str or os.PathLike
        The destination.
    write : callable
        ``write(fh)`` writes the content to an open file object (text, UTF-8, or binary).
    binary : bool
        Open the temporary file in binary mode.

    Returns
    -------
    pathlib.Path
        The destination.

    Raises
    ------
    SVMCoreError
        When the file cannot be written (full or read-only disk, permission); no file is left.
    """
    dest = Path(path).expanduser()
    tmp = _tmp_name(dest)
    try:
        with open(tmp, "xb" if binary else "x", **({} if binary else {"encoding": "utf-8",
                                                                        "newline": ""})) as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, dest)
    except OSError as exc:
        raise _os_error(path, exc) from None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    _fsync_dir(dest.absolute().parent)
    return dest


def write_text(path, text: str) -> Path:
    """:func:`atomic_write` of a text (UTF-8)."""
    return atomic_write(path, lambda fh: fh.write(text))


def write_csv(path, table) -> Path:
    """:func:`atomic_write` of a pandas table as CSV without its index."""
    return atomic_write(path, lambda fh: table.to_csv(fh, index=False))


@contextlib.contextmanager
def atomic_folder(dest) -> Iterator[Path]:
    """Build a folder under a temporary name, then move it to ``dest`` in one rename.

    Yields the temporary folder; on a clean exit its files are flushed to disk and it replaces
    ``dest`` (an older ``dest`` is moved aside first and removed). On any exception (an interrupt
    included) the temporary folder is removed and ``dest`` is left as it was.
    """
    dest = Path(dest).expanduser()
    tmp = _tmp_name(dest)
    try:
        tmp.mkdir()
    except OSError as exc:
        raise _os_error(dest, exc) from None
    try:
        yield tmp
        for f in tmp.iterdir():
            with open(f, "rb") as fh:
                os.fsync(fh.fileno())
        _fsync_dir(tmp)
        old = None
        if dest.exists():
            old = _tmp_name(dest)
            os.rename(dest, old)
        os.rename(tmp, dest)
        _fsync_dir(dest.parent)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except OSError as exc:
        raise _os_error(dest, exc) from None
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def _too_big(what: str, limit: int) -> SVMCoreError:
    return SVMCoreError(f"{what} is larger than {limit // 2**20} MB, the most that is read "
                        "(svmcore.limits.MAX_CSV_BYTES)")


def read_bounded(source, limit: int, what: str | None = None) -> bytes:
    """At most ``limit`` bytes of a file, or SVMCoreError when it holds more.

    Parameters
    ----------
    source : str, os.PathLike or binary file object
        A regular file is refused from its size before reading; a pipe, a device (``/dev/zero``)
        or a file object is read in 1 MB chunks and refused as soon as the budget is passed.
    limit : int
        The byte budget.
    what : str, optional
        The input's name in messages.

    Returns
    -------
    bytes
    """
    if isinstance(source, (str, os.PathLike)):
        name = what or repr(str(source))
        try:
            st = os.stat(source)
            if stat.S_ISDIR(st.st_mode):
                raise SVMCoreError(f"{name} is a folder, not a CSV file")
            if stat.S_ISREG(st.st_mode) and st.st_size > limit:
                raise _too_big(name, limit)
            with open(source, "rb") as fh:
                return _read_chunks(fh, limit, name)
        except SVMCoreError:
            raise
        except FileNotFoundError:
            raise SVMCoreError(f"file not found: {name}") from None
        except (OSError, ValueError) as exc:
            raise SVMCoreError(f"cannot read {name}: {exc}") from None
    return _read_chunks(source, limit, what or "the file")


def _read_chunks(fh, limit: int, name: str) -> bytes:
    buf = bytearray()
    while True:
        chunk = fh.read(min(_CHUNK, limit + 1 - len(buf)))
        if not chunk:
            return bytes(buf)
        if isinstance(chunk, str):
            chunk = chunk.encode("utf-8")
        buf += chunk
        if len(buf) > limit:
            raise _too_big(name, limit)
