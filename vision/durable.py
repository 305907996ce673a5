"""Durable file primitives for the saved-label store: checked writes, no-replace publishing, a lock.

Why a module of its own: a save is only as safe as its smallest step. `os.write` may write fewer
bytes than asked (a full disk, a file-size limit) and Python's buffered files hide that until
close; `os.replace` silently overwrites; a `threading.Lock` does not stop a second process. Each
helper here does one step the careful way, so `vision.labels.store` and `vision.labels.check` can
reason about "a crash here leaves ..." one line at a time. Tests: tests/vision/labels/test_faults.py.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path


class SaveError(OSError):
    """A save that did not happen, said in one line (the page shows `str()` as is).

    Subclasses OSError so callers that already catch OSError keep working; `errno` is kept
    (ENOSPC for a full disk) for callers that want to tell cases apart.
    """

    def __init__(self, code: int | None, message: str) -> None:
        super().__init__(code, message)
        self.message = message

    def __str__(self) -> str:
        return self.message


def explain(exc: OSError, what: str) -> SaveError:
    """One clear sentence for an OSError that stopped `what`; a full disk says so plainly."""
    if isinstance(exc, SaveError):
        return exc
    if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        reason = "the disk is full (or the file-size limit was reached)"
    else:
        reason = exc.strerror or str(exc) or type(exc).__name__
    return SaveError(exc.errno, f"{what}: {reason}; nothing was half-written")


def write_all(fd: int, data: bytes) -> None:
    """Write every byte or raise: a short write is retried, a write of 0 bytes is an error.

    POSIX allows `write` to return fewer bytes than asked (typically just before ENOSPC or at a
    file-size limit); ignoring the count is how a manifest line ends up torn.
    """
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        if n <= 0:
            raise OSError(errno.ENOSPC, "write made no progress (disk full?)")
        view = view[n:]


def write_synced(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Create `path` (it must not exist), write all of `data`, fsync; on failure remove it."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        write_all(fd, data)
        os.fchmod(fd, mode)  # umask must not hide saved data from other users
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise
    os.close(fd)


def fsync_dir(folder: Path) -> None:
    """Make a folder's entries (new names, renames) durable; file systems that refuse are ignored."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def same_bytes(path: Path, data: bytes) -> bool:
    """Whether `path` is a regular file holding exactly `data` (size checked before reading); a link
    is never one, whatever it leads to: a save must not adopt a file that lives elsewhere."""
    try:
        info = os.lstat(path)
        return stat.S_ISREG(info.st_mode) and info.st_size == len(data) and path.read_bytes() == data
    except OSError:
        return False


def publish(staged: Path, final: Path) -> bool:
    """Give the complete, fsynced file `staged` the name `final`, never replacing anything.

    Returns False if `final` already exists. `os.link` is atomic and fails on an existing name;
    where hard links are not supported, `os.rename` is used after an existence check, which is
    safe because every writer holds the dataset lock. On success the staged name is gone; on
    False it is left for the caller's cleanup.
    """
    try:
        os.link(staged, final)
    except FileExistsError:
        return False
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
            raise
        if os.path.lexists(final):  # a dangling link is a name taken too
            return False
        os.rename(staged, final)
    else:
        os.unlink(staged)
    fsync_dir(final.parent)
    return True


def staged_name(folder: Path, final_name: str) -> Path:
    """A unique name in the staging folder; never ends in an image or label suffix."""
    return folder / f"{final_name}.{os.getpid()}.{secrets.token_hex(4)}.part"


def append_line(path: Path, line: bytes) -> None:
    """Append one newline-terminated record durably, or leave the file exactly as it was.

    A previous torn line (no final newline: a crash or full disk in an older version) gets a
    newline first, so the new record is never glued onto it. On any failure the file is cut
    back to its old length. The caller holds the dataset lock, so the length is stable.
    """
    if not line.endswith(b"\n"):
        raise ValueError("a manifest line must end with a newline")
    created = not path.exists()
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            line = b"\n" + line
        try:
            write_all(fd, line)
            os.fsync(fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, size)
                os.fsync(fd)
            raise
    finally:
        os.close(fd)
    if created:
        fsync_dir(path.parent)


def replace_synced(path: Path, data: bytes, staging: Path) -> None:
    """Atomically replace `path` with `data` (staged, fsynced, renamed): readers see old or new."""
    staging.mkdir(parents=True, exist_ok=True)
    tmp = staged_name(staging, path.name)
    write_synced(tmp, data)
    try:
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(path.parent)


@contextlib.contextmanager
def locked(lock_file: Path, shared: bool = False) -> Iterator[None]:
    """Hold an `fcntl.flock` on `lock_file` (created if missing) for the block.

    Cross-process and cross-thread (each call opens its own file description), released by the
    kernel if the holder dies, so a `kill -9` never leaves the store locked.
    """
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_file, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock
