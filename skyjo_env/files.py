"""Files written whole or not at all: a stop at any moment (Ctrl-C, SIGKILL, a full disk) leaves
either the old file or the new one, never a cut one, and no temporary file that a later run would
read.

The pattern is the usual one: write a temporary file beside the target, flush it to disk
(`fsync`), rename it over the target (atomic on POSIX and on Windows' `os.replace`), then flush
the folder so that the rename itself survives a power cut.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

TEMPORARY = ".tmp"  # every temporary file is named `.NAME.tmp`, beside NAME


def temporary_name(path: Path) -> Path:
    """Where `path` is written before it is renamed into place."""
    return path.with_name(f".{path.name}{TEMPORARY}")


def is_temporary(path: Path) -> bool:
    return path.name.startswith(".") and path.name.endswith(TEMPORARY)


def _fsync(path: Path) -> None:
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) if path.is_dir() else os.O_RDONLY
    try:
        fd = os.open(path, flags)
    except OSError:  # a folder cannot be opened on Windows; the rename is durable there anyway
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def fsync_tree(path: Path) -> None:
    """Flush a file, or every file of a folder and the folder itself."""
    if path.is_dir():
        for sub in sorted(path.rglob("*")):
            _fsync(sub)
    _fsync(path)


@contextlib.contextmanager
def replacing(path: str | Path) -> Iterator[Path]:
    """A temporary path to write `path`'s new contents to (a file or a folder); when the block ends
    without an error it is flushed and renamed over `path`, and on an error it is removed.

        with replacing(run / "final_model.zip") as tmp:
            model.save(tmp)
    """
    path = Path(path)
    tmp = temporary_name(path)
    remove(tmp)
    try:
        yield tmp
        fsync_tree(tmp)
        tmp.replace(path)
    except BaseException:
        remove(tmp)
        raise
    _fsync(path.parent)


def move(source: Path, target: Path) -> None:
    """Rename `source` over `target`, durably."""
    source.replace(target)
    _fsync(target.parent)


def remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        import shutil

        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def write_text(path: str | Path, text: str) -> None:
    """`Path.write_text`, whole or not at all."""
    with replacing(path) as tmp:
        tmp.write_text(text)


def write_json(path: str | Path, data: Any) -> None:
    write_text(path, json.dumps(data, indent=2) + "\n")


def remove_temporaries(folder: Path) -> list[Path]:
    """Remove the temporary files a stop left under `folder` (any depth); return them."""
    found = sorted(p for p in folder.rglob(f".*{TEMPORARY}") if is_temporary(p))
    for path in found:
        remove(path)
    return found
