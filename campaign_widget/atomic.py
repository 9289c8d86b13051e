"""Every file the package writes is written whole or not at all.

The bytes go to a temporary file in the target's folder (same file system, so the final rename is
atomic), are flushed and fsynced, and only then ``os.replace`` the target. If anything fails on the
way — an encoding error, a full disk, an exception in the caller's code — the temporary file is
removed, the old target is left byte for byte as it was, and the error names the target path.

One rule for every writer: a file ``open(path, "w")`` may not write — or whose mode lets no one
write it (``chmod 444``), which root's ``open`` would ignore — is refused with a ``PermissionError``
naming it, before anything is written (a rename would replace it whatever its mode).

A temporary file is named after its target, the process and the host
(``.out.txt.<pid>-<host>-<random>.tmp``): a process killed between write and rename leaves one behind,
and the next write into the same folder, or the next load from it, removes those it can prove are
debris (docs/workload-files.md#temporary-files): ours by their name, and written on this host by a process no
longer running, or older than a day.

>>> import pathlib, tempfile
>>> target = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
>>> _ = write_atomic(target, "first\\n")
>>> try:
...     with atomic_write(target, "w") as f:
...         _ = f.write("half of a new ")
...         raise RuntimeError("interrupted")
... except RuntimeError as e:
...     print(e.__notes__[0].split(":")[0])
(nothing was written
>>> target.read_text()
'first\\n'
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import socket
import stat
import time
import zlib
from pathlib import Path
from typing import NoReturn

from .errors import ArgumentError, CampaignWidgetError, WrongTypeError, short_repr

__all__ = ["atomic_path", "atomic_write", "check_writable", "remove_stale", "write_atomic"]

# which host a temporary file's process runs on: a process id means nothing on another machine
_HOST = f"{zlib.crc32(socket.gethostname().encode('utf-8', 'replace')):08x}"


def _target(path) -> Path:
    """The file to replace: symlinks are followed (the link stays a link); a folder is refused."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise WrongTypeError(
            f"path={short_repr(path)} must be a file path (str or os.PathLike), not {type(path).__name__}"
        )
    path = Path(os.fsdecode(os.fspath(path)))
    if "\x00" in str(path):
        raise CampaignWidgetError(f"path {short_repr(str(path))} contains a NUL character, which no file name can hold")
    try:
        os.fsencode(path)
    except UnicodeEncodeError as e:
        raise CampaignWidgetError(
            f"path {short_repr(str(path))} contains {ascii(str(path)[e.start])}, which no file name on this system "
            "can hold"
        ) from None
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    folder = path.parent
    if not folder.is_dir():
        raise FileNotFoundError(errno.ENOENT, f"{os.strerror(errno.ENOENT)} (no folder {str(folder)!r})", str(path))
    check_writable(path)
    return path


def check_writable(path) -> None:
    """Refuse to replace a file that is read-only: one ``open(path, "w")`` may not write, or one whose
    mode gives no one write permission (root's ``open`` ignores the mode; a read-only mode still says
    "keep this"). Raises ``PermissionError`` naming ``path``; a missing file is writable."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return  # no such file (yet): creating it is the folder's business
    if stat.S_ISREG(info.st_mode) and (not info.st_mode & 0o222 or not os.access(path, os.W_OK)):
        raise PermissionError(
            errno.EACCES,
            f"{os.strerror(errno.EACCES)}: the file is read-only (mode {stat.filemode(info.st_mode)}); make it "
            "writable (chmod u+w) or write elsewhere",
            str(path),
        )
    if stat.S_ISREG(info.st_mode) and _sticky_elsewhere(Path(path), info):
        raise PermissionError(
            errno.EPERM,
            f"{os.strerror(errno.EPERM)}: the file belongs to another user in a sticky folder (like /tmp), "
            "where only its owner may replace it; write elsewhere",
            str(path),
        )


def _sticky_elsewhere(path: Path, info: os.stat_result) -> bool:
    """Whether the rename that replaces ``path`` would be refused: its folder is sticky, and neither the
    file nor the folder is ours (root may rename anything)."""
    euid = os.geteuid() if hasattr(os, "geteuid") else None
    if euid is None or euid == 0 or info.st_uid == euid:
        return False
    try:
        folder = os.stat(path.parent)
    except OSError:
        return False
    return bool(folder.st_mode & stat.S_ISVTX) and folder.st_uid != euid


# ours: ".<target>.<pid>-<host>-<8 hex>.tmp" (and the target's suffix after it, for a writer that picks
# its format by suffix); before the host was in the name: ".<target>.<pid>-<8 hex>.tmp"
_OURS = re.compile(
    r"\.(?P<target>.+)\.(?P<pid>\d{1,10})-(?:(?P<host>[0-9a-f]{8})-)?[0-9a-f]{8}\.tmp(?:\.[^.]*)?", re.DOTALL
)
STALE_SECONDS = 24 * 3600  # a temporary file of ours this old is debris, whatever host wrote it


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):  # PermissionError: running, as another user
        return True
    return True


def _stale(name: str, modified: float, now: float) -> bool:
    """Whether a file named ``name`` is provably debris of ours: our temporary files' pattern, and either
    its process (on this host) runs no more or it is older than STALE_SECONDS."""
    found = _OURS.fullmatch(name)
    if found is None:
        return False
    if now - modified > STALE_SECONDS:
        return True
    pid = int(found.group("pid"))
    mine = found.group("host") == _HOST and os.name == "posix"  # os.kill(pid, 0) tests a process only on POSIX
    return mine and pid != os.getpid() and not _running(pid)


def remove_stale(folder) -> int:
    """Remove from ``folder`` the temporary files that writes killed on the way left (``_stale``); the
    number removed. Called by every write into a folder and by every load from one; never raises."""
    removed = 0
    now = time.time()
    with contextlib.suppress(OSError, ValueError, TypeError), os.scandir(folder) as entries:
        for entry in entries:
            if not entry.name.startswith(".") or ".tmp" not in entry.name:
                continue
            with contextlib.suppress(OSError):
                info = entry.stat(follow_symlinks=False)
                if stat.S_ISREG(info.st_mode) and _stale(entry.name, info.st_mtime, now):
                    os.unlink(entry.path)
                    removed += 1
    return removed


def _temporary(target: Path) -> tuple[Path, int]:
    """A new file next to ``target`` (created exclusively; the umask applies as for any new file)."""
    remove_stale(target.parent)
    for _ in range(100):
        temp = target.with_name(f".{target.name}.{os.getpid()}-{_HOST}-{secrets.token_hex(4)}.tmp")
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
        except FileExistsError:
            continue
        except OSError as e:
            raise _named(e, target) from None
        return temp, fd
    raise FileExistsError(errno.EEXIST, "no free temporary file name in its folder", str(target))


def _named(error: OSError, target: Path) -> OSError:
    """The same kind of OSError, naming the target rather than the temporary file
    (``str()`` gives ``[Errno N] reason: 'target'``; ``.filename`` is the target)."""
    if error.filename == str(target):
        return error
    reason = error.strerror or str(error)
    try:
        return type(error)(error.errno, reason, str(target))
    except TypeError:  # an OSError subclass with another signature
        return OSError(error.errno, reason, str(target))


def _finish(temp: Path, target: Path) -> None:
    with contextlib.suppress(OSError):
        os.chmod(temp, stat.S_IMODE(os.stat(target).st_mode))  # keep an existing file's permissions
    os.replace(temp, target)
    with contextlib.suppress(OSError):  # make the rename itself durable (best effort; not on every OS)
        folder = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


@contextlib.contextmanager
def atomic_write(path, mode: str = "wb", *, encoding: str | None = None, newline: str | None = None):
    """``with atomic_write(path, "w") as f: f.write(...)``: ``path`` gets the whole content or stays as it was.

    ``mode`` is ``"wb"`` (bytes) or ``"w"`` (text; ``encoding`` defaults to UTF-8). On any error
    inside the block or while writing, the temporary file is removed and the error propagates; an
    ``OSError`` is re-raised naming ``path`` (``.filename`` is ``path``).
    """
    if mode not in ("w", "wb"):
        raise ArgumentError(f"mode={mode!r} must be 'w' or 'wb'")
    target = _target(path)
    temp, fd = _temporary(target)
    try:
        if mode == "wb":
            handle = os.fdopen(fd, "wb")
        else:
            handle = os.fdopen(fd, "w", encoding=encoding or "utf-8", newline=newline)
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        _finish(temp, target)
    except BaseException as e:
        _fail(e, temp, target)


@contextlib.contextmanager
def atomic_path(path):
    """``with atomic_path(path) as temp: writer(temp)``: for code that wants a file name, not a file.

    ``temp`` is a path in the same folder with the same suffix; when the block ends without error
    and ``temp`` holds the written file, it replaces ``path``; otherwise ``temp`` is removed and
    ``path`` stays as it was.
    """
    target = _target(path)
    temp, fd = _temporary(target)
    os.close(fd)
    temp_with_suffix = temp.with_name(temp.name + target.suffix)  # writers pick the format by suffix
    try:
        os.replace(temp, temp_with_suffix)
    except OSError as e:
        _fail(e, temp, target)
    try:
        yield temp_with_suffix
        if not temp_with_suffix.is_file() or temp_with_suffix.stat().st_size == 0:
            raise OSError(errno.EIO, "the writer wrote nothing", str(temp_with_suffix))
        with open(temp_with_suffix, "rb+") as handle:
            os.fsync(handle.fileno())
        _finish(temp_with_suffix, target)
    except BaseException as e:
        _fail(e, temp_with_suffix, target)


def _fail(error: BaseException, temp: Path, target: Path) -> NoReturn:
    """Remove ``temp`` and re-raise ``error``: an ``OSError`` naming ``target``, anything else with a
    note that ``target`` is unchanged. Called inside the ``except`` block, so tracebacks chain."""
    _discard(temp)
    cause = _os_error_under(error) if isinstance(error, Exception) else None  # never an interrupt
    if cause is not None and cause is not error:  # a writer that broke on the file system's error (a
        raise _named(cause, target) from error  # full disk) and raised its own on top: the cause is news
    if isinstance(error, OSError):
        named = _named(error, target)
        if named is not error:
            raise named from error
    elif hasattr(error, "add_note"):
        error.add_note(f"(nothing was written: {str(target)!r} is unchanged)")
    raise error


def _os_error_under(error: BaseException) -> OSError | None:
    """``error`` itself if an OSError, else the OSError it was raised while handling (its ``__context__``
    chain, a few levels down), or None."""
    seen = 0
    while error is not None and seen < 8:
        if isinstance(error, OSError):
            return error
        error, seen = error.__context__, seen + 1
    return None


def write_atomic(path, data: bytes | str, *, encoding: str = "utf-8") -> Path:
    """Write ``data`` (bytes, or text encoded with ``encoding``) to ``path`` whole or not at all.

    Text is encoded before any file is touched, so text that cannot be encoded (a lone surrogate)
    leaves ``path`` as it was: a CampaignWidgetError names the path, the character and where it is.
    Returns ``Path(path)``.
    """
    if isinstance(data, str):
        try:
            data = data.encode(encoding)
        except UnicodeEncodeError as e:
            raise CampaignWidgetError(
                f"{short_repr(str(path))}: nothing written: character {ascii(data[e.start])} at position {e.start:,} "
                f"cannot be encoded as {encoding} ({e.reason})"
            ) from None
    elif not isinstance(data, (bytes, bytearray, memoryview)):
        raise WrongTypeError(f"data must be bytes or str, got {type(data).__name__}")
    with atomic_write(path, "wb") as handle:
        handle.write(data)
    return Path(path)


def _discard(temp: Path) -> None:
    with contextlib.suppress(OSError):
        os.unlink(temp)
