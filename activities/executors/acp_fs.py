"""The ACP client's fs/* methods confined to a run's working copy: a path is followed only while it stays inside,
lexically and through symbolic links (checked again on the opened file), reads are bounded, and no `.git` is ever
written. Depends on nothing of the git layer: the root is a directory, whatever made it."""

import os
import posixpath
from pathlib import Path
from stat import S_ISREG

from routing.permissions import inside


def confine(root: Path | str, path: str) -> Path:
    """`path` (absolute, or relative to the working copy) when it stays inside the working copy, lexically and
    after following symlinks; PermissionError otherwise."""
    lexical_root = posixpath.normpath(os.path.abspath(root))
    if not inside(path, lexical_root):
        raise PermissionError(f"{path} is outside the run's working copy")
    full = posixpath.normpath(posixpath.join(lexical_root, path))
    real_root, real = os.path.realpath(lexical_root), os.path.realpath(full)
    if real != real_root and not real.startswith(real_root.rstrip(os.sep) + os.sep):
        raise PermissionError(f"{path} leads outside the run's working copy (through a symbolic link)")
    return Path(full)


# fs/read_text_file refuses a whole file larger than this, and a `line`/`limit` read whose lines come to more: the
# worker holds what it reads and sends it to the agent in one JSON-RPC message. The agent can read a bigger file in
# `line`/`limit` slices (streamed: the worker never reads more of the file than up to the last line asked for).
MAX_READ_BYTES = 8 * 1024 * 1024
_READ_BLOCK = 1024 * 1024


class FileTooLargeError(ValueError):
    """A read the worker refuses to hold: the message names the file, its size and MAX_READ_BYTES."""


def _too_large(path: str, what: str, advice: str = "read it in parts with line and limit") -> FileTooLargeError:
    limit = f"{MAX_READ_BYTES // (1024 * 1024)} MiB"
    return FileTooLargeError(
        f"{path}: {what} than the {limit} limit of fs/read_text_file (MAX_READ_BYTES = {MAX_READ_BYTES} bytes); "
        f"{advice}"
    )


def _open_inside(root: Path | str, path: str, target: Path, flags: int) -> int:
    """Opens a confined path and checks what was opened: a regular file whose real path (the kernel's, from
    /proc/self/fd) is inside the working copy, so a symlink swapped in after `confine` looked is refused too."""
    fd = os.open(target, flags | os.O_NONBLOCK | os.O_CLOEXEC, 0o666)  # a FIFO must never block a worker thread
    try:
        if not S_ISREG(os.fstat(fd).st_mode):
            raise PermissionError(f"{path} is not a regular file")
        try:
            opened = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            opened = None  # no /proc: confine's check stands
        real_root = os.path.realpath(root)
        if opened is not None and opened != real_root and not opened.startswith(real_root.rstrip(os.sep) + os.sep):
            raise PermissionError(f"{path} leads outside the run's working copy")
    except BaseException:
        os.close(fd)
        raise
    return fd


def _read(fd: int, size: int) -> bytes:
    """Up to `size` bytes (fewer only at the end of the file)."""
    data = bytearray()
    while len(data) < size and (block := os.read(fd, size - len(data))):
        data += block
    return bytes(data)


def _read_lines(fd: int, path: str, first: int, count: int | None) -> bytes:
    """Lines `first` (1-based) to `first + count - 1` of an open file, read in blocks: lines before `first` are
    counted and dropped, reading stops after the last line wanted, and no more than MAX_READ_BYTES are kept."""
    kept = bytearray()
    number = 1  # the line the next byte read belongs to
    last = None if count is None else first + count  # the first line not wanted
    while last is None or number < last:
        block = _read(fd, _READ_BLOCK)
        if not block:
            break
        start = 0
        if number < first:
            need = first - number
            if block.count(b"\n") < need:
                number += block.count(b"\n")
                continue
            pos = -1
            for _ in range(need):
                pos = block.index(b"\n", pos + 1)
            number, start = first, pos + 1
        end = len(block)
        if last is not None:
            pos = start - 1
            while number < last and (pos := block.find(b"\n", pos + 1)) >= 0:
                number += 1
            if number >= last:
                end = pos + 1
        kept += block[start:end]
        if len(kept) > MAX_READ_BYTES:
            raise _too_large(path, "the lines asked for come to more", "ask for fewer lines")
    return bytes(kept)


def read_text_file(root: Path | str, path: str, line: int | None = None, limit: int | None = None) -> str:
    """ACP fs/read_text_file confined to the working copy (`line` is 1-based; lines end at `\\n`). A whole file
    larger than MAX_READ_BYTES is refused from its size, before any of it is read (FileTooLargeError names the
    limit); a `line`/`limit` read streams the file and keeps only the lines asked for."""
    fd = _open_inside(root, path, confine(root, path), os.O_RDONLY)
    try:
        if line is None and limit is None:
            size = os.fstat(fd).st_size
            if size > MAX_READ_BYTES:
                raise _too_large(path, f"the file has {size} bytes, more")
            data = _read(fd, MAX_READ_BYTES + 1)
            if len(data) > MAX_READ_BYTES:  # it grew since
                raise _too_large(path, "the file has more bytes")
        else:
            data = _read_lines(fd, path, max(line or 1, 1), None if limit is None else max(limit, 0))
    finally:
        os.close(fd)
    return data.decode("utf-8", errors="replace")


def _names_git(parts: tuple[str, ...]) -> bool:
    return any(part.casefold() == ".git" for part in parts)


def write_text_file(root: Path | str, path: str, content: str) -> None:
    """ACP fs/write_text_file confined to the working copy; no `.git` is ever written, at any depth (the working
    copy's own points into the worker's mirror; a nested repository's config can make git run programs)."""
    target = confine(root, path)
    lexical_root = posixpath.normpath(os.path.abspath(root))
    refused = PermissionError("the working copy's .git (and any nested .git) belongs to the office, not the agent")
    if _names_git(target.relative_to(lexical_root).parts):
        raise refused
    target.parent.mkdir(parents=True, exist_ok=True)
    confine(root, str(target))  # a directory that already existed may be a symlink: check the real path again
    if _names_git(Path(os.path.realpath(target)).relative_to(os.path.realpath(lexical_root)).parts):
        raise refused
    with os.fdopen(_open_inside(root, path, target, os.O_WRONLY | os.O_CREAT), "wb") as f:
        f.truncate(0)  # only now: a file found outside was refused before anything in it changed
        f.write(content.encode("utf-8"))
