"""replace_file, the writer of every file a user names (a saved map, fit's --out): whole or
not at all, through a link, never over a folder, a device or a file it may not write."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from selfattn.files import replace_file


def test_a_file_is_replaced_whole_and_keeps_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "map.html"
    path.write_text("old")
    path.chmod(0o640)
    replace_file(path, "new")
    assert path.read_text() == "new" and stat.S_IMODE(path.stat().st_mode) == 0o640
    assert os.listdir(tmp_path) == ["map.html"]


def test_a_link_stays_a_link_and_its_file_is_replaced(tmp_path: Path) -> None:
    real, link = tmp_path / "real.html", tmp_path / "link.html"
    real.write_text("old")
    link.symlink_to(real)
    replace_file(link, "new")
    assert link.is_symlink() and real.read_text() == "new"


def test_a_folder_is_refused_and_left_alone(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "keep").write_text("x")
    with pytest.raises(IsADirectoryError):
        replace_file(tmp_path / "d", "new")
    assert (tmp_path / "d" / "keep").read_text() == "x"


def test_text_utf8_cannot_write_fails_before_any_file_is_touched(tmp_path: Path) -> None:
    path = tmp_path / "map.html"
    path.write_text("old")
    with pytest.raises(UnicodeEncodeError):
        replace_file(path, "caf\udce9")
    assert path.read_text() == "old" and os.listdir(tmp_path) == ["map.html"]


def test_a_file_it_may_not_write_is_not_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "map.html"
    path.write_text("old")
    path.chmod(0o444)
    if os.geteuid() == 0:  # root may write any file: the tests run as root in CI's container
        monkeypatch.setattr(os, "access", lambda *_: False)
    with pytest.raises(PermissionError):
        replace_file(path, "new")
    assert path.read_text() == "old" and os.listdir(tmp_path) == ["map.html"]


def test_a_read_only_folder_still_takes_a_writable_file_in_place(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root may write in any folder")
    folder = tmp_path / "ro"
    folder.mkdir()
    (folder / "map.html").write_text("old")
    folder.chmod(0o555)
    try:
        replace_file(folder / "map.html", "new")
        assert (folder / "map.html").read_text() == "new"
    finally:
        folder.chmod(0o755)


def test_what_is_no_regular_file_is_written_to_not_replaced(tmp_path: Path) -> None:
    """save_html("/dev/stdout") or a FIFO: renaming over it would replace the device."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as f:
            got.append(f.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    replace_file(fifo, "through the pipe")
    reader.join(5)
    assert stat.S_ISFIFO(fifo.lstat().st_mode), "the FIFO was replaced by a file"
    assert got == [b"through the pipe"]


def test_a_name_at_the_length_limit_is_written(tmp_path: Path) -> None:
    path = tmp_path / ("m" * 250 + ".html")  # 255 bytes: the temporary's name must be shorter
    replace_file(path, "new")
    assert path.read_text() == "new" and os.listdir(tmp_path) == [path.name]


def test_a_name_of_wide_characters_at_the_limit_is_written(tmp_path: Path) -> None:
    path = tmp_path / ("猫" * 83 + ".h")  # 251 bytes in UTF-8
    replace_file(path, "new")
    assert path.read_text() == "new"


def test_a_path_ending_in_a_slash_names_a_folder_and_nothing_is_written(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError, match="ends in a slash"):
        replace_file(f"{tmp_path / 'x.html'}/", "text")
    assert list(tmp_path.iterdir()) == []


def test_a_failed_write_names_the_users_path_never_the_temporary_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_room(fd: int) -> None:
        raise OSError(28, "No space left on device", "/somewhere/.x.html.1a2b3c4d.tmp")

    monkeypatch.setattr(os, "fsync", no_room)
    path = tmp_path / "x.html"
    with pytest.raises(OSError) as raised:
        replace_file(path, "text")
    assert str(path) in str(raised.value) and ".tmp" not in str(raised.value)
    assert list(tmp_path.iterdir()) == []


def test_a_failure_with_no_errno_keeps_its_own_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An OSError raised with a message only has errno None: rebuilt from (errno, strerror)
    it would print "None" and lose what went wrong."""

    def quota(fd: int) -> None:
        raise OSError("disk quota exceeded on the share")

    monkeypatch.setattr(os, "fsync", quota)
    with pytest.raises(OSError, match="disk quota exceeded on the share"):
        replace_file(tmp_path / "x.html", "text")
    assert list(tmp_path.iterdir()) == []


def test_a_private_files_new_text_is_never_readable_by_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hostile pass, low 13: the temporary file was made 0644 (the umask's), and chmod'ed to
    the replaced file's 0600 only after the new text was in it."""
    path = tmp_path / "private.html"
    path.write_text("old")
    path.chmod(0o600)
    modes: list[int] = []
    fsync = os.fsync

    def spy(fd: int) -> None:  # the text is written, the chmod not yet made
        modes.append(stat.S_IMODE(os.fstat(fd).st_mode))
        fsync(fd)

    monkeypatch.setattr(os, "fsync", spy)
    old = os.umask(0o022)
    try:
        replace_file(path, "secret")
    finally:
        os.umask(old)
    assert modes == [0o600] and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text() == "secret"


def test_a_missing_folder_is_named_by_the_users_path(tmp_path: Path) -> None:
    """Hostile pass 7: save_html("nodir/x.html") named `.x.html.c2acddc2.tmp`."""
    path = tmp_path / "nodir" / "x.html"
    with pytest.raises(FileNotFoundError) as raised:
        replace_file(path, "text")
    assert str(path) in str(raised.value) and ".tmp" not in str(raised.value)
