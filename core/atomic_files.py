"""Output files written atomically, and never over the input they were made from.

A file is written to a temporary file in the same folder and renamed over the target only once
it is complete, so a failure half-way (a full disk, an interrupted run, an exception in the
writer) leaves the old file as it was and no partial one behind. The rename stays within one
file system because the temporary file sits next to the target.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path


class SameFileError(ValueError):
    """An output path names one of the input files."""


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Do ``a`` and ``b`` name one file (through symlinks, ``..``, relative paths or hard links)?"""
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet): compare where they would resolve
        return Path(a).resolve() == Path(b).resolve()


def refuse_overwriting_inputs(output: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]]) -> None:
    """Raise :class:`SameFileError` when ``output`` is one of ``inputs``."""
    for source in inputs:
        if same_file(output, source):
            raise SameFileError(
                f"{output}: the output would overwrite the input file {source}; choose another output path"
            )


@contextlib.contextmanager
def atomic_path(target: str | os.PathLike[str]) -> Iterator[str]:
    """A temporary path next to ``target``; renamed to ``target`` when the block ends without error.

    On an error the temporary file is removed and ``target`` is left untouched. An existing
    target's permission bits carry over to the new file; a symlink target is replaced through
    to the file it points at.
    """
    final = Path(os.path.realpath(target))
    handle, temporary = tempfile.mkstemp(dir=final.parent, prefix=f".{final.name}.", suffix=".partial")
    os.close(handle)
    try:
        yield temporary
        try:
            mode = stat.S_IMODE(os.stat(final).st_mode)
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(temporary, mode)
        os.replace(temporary, final)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write_text_atomically(target: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``target`` atomically (flushed to disk before the rename)."""
    write_atomically(target, lambda path: _write_synced(path, text.encode(encoding)))


def write_atomically(target: str | os.PathLike[str], writer: Callable[[str], object]) -> None:
    """Call ``writer(temporary_path)`` and move the finished file over ``target``."""
    with atomic_path(target) as temporary:
        writer(temporary)


def _write_synced(path: str, data: bytes) -> None:
    with open(path, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
