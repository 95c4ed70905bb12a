"""One safe way to read a file a stranger may have supplied.

Every file Runebook reads (``.rules`` files, YAML characters and choices, the grammar
cache) goes through :func:`read_limited`. It opens without blocking, so a FIFO cannot hang
the reader; it refuses anything but a regular file (``/dev/zero``, a FIFO, a socket), decided
on the opened descriptor so that the file cannot be swapped after the check; and it stops
after ``max_bytes + 1`` bytes actually read, whatever size the file claims. A path that
resolves outside ``root`` (a symlink a pull request planted) is not opened at all unless
symlinks are followed on purpose, so nothing of an outside file can reach a log.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import attrs

from runebook.dsl.diagnostics import did_you_mean

__all__ = ["MAX_RULES_FILES", "MAX_SEARCHED", "FileRefused", "inside", "read_limited", "rules_files", "similar_path"]

_CHUNK = 1 << 16

#: How many .rules files one folder may hold, and how many entries (files and folders) a
#: search of it may visit: a folder given by mistake (``/``, a home folder) or a pull request
#: that adds a hundred thousand files is refused in a moment instead of searched for minutes.
MAX_RULES_FILES = 2_000
MAX_SEARCHED = 100_000

#: How many entries of a folder are compared with a misspelt name (a huge folder is not read whole).
MAX_NEIGHBOURS = 2_000


@attrs.frozen
class FileRefused(Exception):
    """Why a file was not read: a diagnostic code and the fields its message needs."""

    code: str
    fields: dict[str, object] = attrs.field(factory=dict)


def inside(path: Path, root: Path) -> bool:
    """Whether ``path``, with every symlink resolved, lies under ``root`` (also resolved)."""
    try:
        real = Path(os.path.realpath(path))
        base = Path(os.path.realpath(root))
    except (OSError, ValueError):
        return False
    return real == base or base in real.parents


def read_limited(path: Path, max_bytes: int, *, root: Path | None = None,
                 follow_symlinks: bool = False) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` bytes; :class:`FileRefused` otherwise.

    Codes: E0001 (cannot open), E0004 (too large), E0011 (not a regular file),
    E0012 (a symlink to somewhere outside ``root``).
    """
    shown = str(path)
    if root is not None and not follow_symlinks and not inside(path, root):
        raise FileRefused("E0012", {"path": shown, "root": str(root)})
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as error:
        fields: dict[str, object] = {"path": shown, "reason": error.strerror or str(error)}
        hint = similar_path(path) if error.errno == errno.ENOENT else None
        if hint is not None:
            fields["help"] = hint
        raise FileRefused("E0001", fields) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused("E0011", {"path": shown, "kind": _kind(info.st_mode)})
        if info.st_size > max_bytes:
            raise FileRefused("E0004", {"size": f"{info.st_size:,}", "limit": f"{max_bytes:,}"})
        chunks: list[bytes] = []
        total = 0
        while total <= max_bytes:
            chunk = os.read(fd, min(_CHUNK, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > max_bytes:
            raise FileRefused("E0004", {"size": f"more than {max_bytes:,}", "limit": f"{max_bytes:,}"})
        return b"".join(chunks)
    except OSError as error:
        raise FileRefused("E0001", {"path": shown, "reason": error.strerror or str(error)}) from None
    finally:
        os.close(fd)


def similar_path(path: str | os.PathLike[str]) -> str | None:
    """For a path that does not exist: "did you mean 'PATH'?" naming the closest entries of the
    folder it names (as the user wrote it), or None when that folder has none close or no folder
    along the way exists. Only the first :data:`MAX_NEIGHBOURS` entries are compared."""
    given = os.fspath(path)
    parent, name = os.path.split(given.rstrip("/\\") or given)
    if not name:
        return None
    try:
        with os.scandir(parent or ".") as entries:
            names = [entry.name for _, entry in zip(range(MAX_NEIGHBOURS), entries)]
    except (OSError, ValueError):
        return None
    # Names that end alike (`.rules`, `.yaml`) are compared without the ending they share, or
    # every file of the folder would look close to a misspelt one.
    suffix = os.path.splitext(name)[1].casefold()
    return did_you_mean(name, [os.path.join(parent, n) if parent else n for n in names],
                        key=lambda p: _stem(os.path.basename(p), suffix))


def _stem(name: str, suffix: str) -> str:
    folded = name.casefold()
    return folded[: -len(suffix)] if suffix and folded.endswith(suffix) else folded


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def rules_files(folder: Path, *, max_files: int | None = None, max_searched: int | None = None) -> list[Path]:
    """The files under ``folder`` whose names end in ``.rules`` (anything but a folder: a FIFO
    among them is reported when it is read), sorted. Folders reached by a symlink are not
    entered, nor hidden folders (``.git``, ``.venv``) below ``folder``; a folder that cannot be
    listed is passed over. :class:`FileRefused` (E0014) past ``max_files`` files or
    ``max_searched`` entries visited."""
    max_files = MAX_RULES_FILES if max_files is None else max_files
    max_searched = MAX_SEARCHED if max_searched is None else max_searched
    found: list[Path] = []
    searched = 0
    pending = [str(folder)]
    while pending:
        try:
            with os.scandir(pending.pop()) as entries:
                for entry in entries:
                    searched += 1
                    if searched > max_searched:
                        raise FileRefused("E0014", {"path": str(folder), "limit": f"{max_searched:,}",
                                                    "what": "files and folders"})
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            if not entry.name.startswith("."):
                                pending.append(entry.path)
                            continue
                        if not entry.name.endswith(".rules") or entry.is_dir():
                            continue
                    except OSError:
                        continue
                    found.append(Path(entry.path))
                    if len(found) > max_files:
                        raise FileRefused("E0014", {"path": str(folder), "limit": f"{max_files:,}",
                                                    "what": ".rules files"})
        except (OSError, ValueError):
            continue
    return sorted(found)
