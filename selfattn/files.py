"""Writing a file a user named so that a failure leaves what was there before.

The text is encoded before anything is opened, written to a new file beside the target and
renamed over it (a rename within a folder replaces in one step): an error, Ctrl-C or a full
disk midway leaves the old file whole and removes the new one. A symlink is followed, so the
file it points to is replaced and the link stays a link. What is no regular file (a device
such as /dev/stdout, a FIFO) is written to, never replaced; a file that may not be written is
refused, as writing it would be; a file whose folder cannot be written to (but which itself
can be) is written in place, as `Path.write_text` would: no temporary file can go beside it.
A file replaced keeps its permissions but is a new file: a hard link to the old one keeps
the old text. Only a process killed outright (SIGKILL, a power cut)
during the write leaves a hidden `.NAME.*.tmp` beside the file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path


def replace_file(path: str | Path, text: str) -> Path:
    """Write `text` (UTF-8) to `path` whole or not at all; returns `path`."""
    data = text.encode("utf-8")  # before any file is touched: an unwritable text fails here
    if str(path).endswith(("/", os.sep)):  # Path() would drop the slash and write a file
        raise IsADirectoryError(f"{path} ends in a slash, so it names a folder: name a file")
    path = Path(path)
    real = Path(os.path.realpath(path))
    if real.is_dir():
        raise IsADirectoryError(f"{path} is a folder, not a file")
    if real.exists() and not real.is_file():  # /dev/stdout, a FIFO: written to, not replaced
        with open(real, "wb") as f:
            f.write(data)
        return path
    if real.exists() and not os.access(real, os.W_OK):  # as writing it would
        raise PermissionError(f"{path} may not be written")
    # a name of its own, short enough (40 characters are at most 160 bytes) beside a name at
    # the 255-byte limit
    temporary = real.with_name(f".{real.name[:40]}.{secrets.token_hex(4)}.tmp")
    # made with the replaced file's mode from the start (the umask applies, and the chmod
    # below widens what it took away): made 0644 then chmod'ed, a 0600 file's new text was
    # readable by all for a moment
    mode = stat.S_IMODE(real.stat().st_mode) & 0o777 if real.exists() else 0o666
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except PermissionError:
        if not os.access(real, os.W_OK):
            raise
        real.write_bytes(data)  # a read-only folder: in place, as before
        return path
    except FileNotFoundError:  # no such folder: named by the user's path, not the temporary one
        raise FileNotFoundError(errno.ENOENT, "No such folder", str(path)) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        with contextlib.suppress(FileNotFoundError):  # a file replaced keeps its permissions
            os.chmod(temporary, stat.S_IMODE(real.stat().st_mode))
        os.replace(temporary, real)
    except OSError as exc:  # named by the user's path: the temporary name means nothing to them
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if exc.errno is None:  # no errno to rebuild from (a message only): keep the message
            raise
        raise type(exc)(exc.errno, exc.strerror, str(path)) from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return path


ACLS = ("system.posix_acl_access", "system.posix_acl_default")


def same_access(model: Path, folder: Path) -> None:
    """Give `folder` `model`'s access: its owner and group where permitted, its mode (the
    setgid bit too) and its POSIX ACLs where the file system has them; what may not be copied
    is skipped quietly. A folder swapped in for one the user prepared (chmod 2750, a group, an
    ACL) would otherwise come with the defaults, and a private folder turn world-readable."""
    st = model.stat()
    for uid in (st.st_uid, -1):  # the owner only root may give; the group, any member
        with contextlib.suppress(OSError, AttributeError):
            os.chown(folder, uid, st.st_gid)
            break
    os.chmod(folder, stat.S_IMODE(st.st_mode))
    for name in ACLS if hasattr(os, "getxattr") else ():
        try:
            acl = os.getxattr(model, name)
        except OSError:
            continue  # none, or no ACLs here
        with contextlib.suppress(OSError):
            os.setxattr(folder, name, acl)
