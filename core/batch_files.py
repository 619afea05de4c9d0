"""The transcripts a batch reads: directories walked for transcript files, globs and paths."""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable

__all__ = ["TRANSCRIPT_EXTENSIONS", "BatchError", "find_transcripts"]


class BatchError(ValueError):
    """Bad batch input (nothing to analyse, an unknown engine, ...): shown to the user as is."""

#: Extensions picked up when a directory is given (globs match any file).
TRANSCRIPT_EXTENSIONS: tuple[str, ...] = (".json", ".jsonl", ".ndjson", ".traj", ".db", ".sqlite", ".sqlite3")


def _is_glob(text: str) -> bool:
    return any(ch in text for ch in "*?[")


def find_transcripts(sources: Iterable[str]) -> list[str]:
    """The files named by directories (walked, transcript extensions only), globs and paths.

    A folder a tool writes as one transcript (a Cline task folder, an OpenCode storage tree) is
    named itself, and not walked into.

    Order is sorted within each source, sources kept in the given order, duplicates dropped.
    Raises :class:`BatchError` when a source names nothing.
    """
    found: list[str] = []
    seen: set[str] = set()
    for source in sources:
        if _is_glob(source):
            # Pipes and devices a pattern matches are kept: each becomes an error row saying what it is.
            matches = sorted(m for m in glob.glob(source, recursive=True) if not os.path.isdir(m))
        elif os.path.isdir(source):
            from pathlib import Path

            from core.formats.detection import detect_directory

            matches = []
            for root, dirs, files in os.walk(source):
                if detect_directory(Path(root)) is not None:
                    # A folder a tool writes (a Cline task, an OpenCode storage tree) is one transcript;
                    # its files are pieces of it, and each would load the whole folder again.
                    matches.append(root)
                    dirs[:] = []
                    continue
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                matches.extend(
                    os.path.join(root, f)
                    for f in files
                    if not f.startswith(".") and f.lower().endswith(TRANSCRIPT_EXTENSIONS)
                )
            matches.sort()
        elif os.path.exists(source):
            matches = [source]
        else:
            raise BatchError(f"{source}: no such file or directory")
        if not matches:
            what = "pattern" if _is_glob(source) else "directory"
            raise BatchError(
                f"{source}: the {what} holds no transcript files"
                + ("" if _is_glob(source) else f" (looked for {', '.join(TRANSCRIPT_EXTENSIONS)})")
            )
        for match in matches:
            if match not in seen:
                seen.add(match)
                found.append(match)
    return found


# --- engines -------------------------------------------------------------------------------------
