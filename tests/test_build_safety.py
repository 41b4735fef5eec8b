"""`selfattn build` replaces only what a build made, whole or not at all, and the page data
holds any string without the HTML parser reading it."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from selfattn.head import load_head
from selfattn.site import build as builder
from selfattn.site.build import build

from .site.golden import SAMPLE

ROOT = Path(__file__).resolve().parents[1]


def command(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "selfattn", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        env=env,
    )


def sample(out: Path, content: Path = SAMPLE, force: bool = False) -> builder.Built:
    return build(out, head=load_head(SAMPLE / "head.json"), content=content, force=force)


def kept(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` and its bytes (the font is not text)."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def leftovers(parent: Path) -> list[str]:
    return [p.name for p in parent.iterdir() if ".building-" in p.name or ".old-" in p.name]


def test_a_folder_no_build_made_is_refused_and_left_alone(tmp_path):
    d = tmp_path / "d"
    (d / ".git").mkdir(parents=True)
    (d / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (d / "README").write_text("keep\n")
    before = kept(d)
    result = command("build", str(d))
    assert result.returncode == 2, result.stderr
    assert "holds .git" in result.stderr and "--force" in result.stderr  # a project's folder
    assert "Traceback" not in result.stderr
    assert kept(d) == before
    assert leftovers(tmp_path) == []


def test_the_current_folder_is_refused_and_left_alone(tmp_path, monkeypatch):
    (tmp_path / "notes.txt").write_text("mine\n")
    result = command("build", ".", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "current folder" in result.stderr
    monkeypatch.chdir(tmp_path)
    for out in (tmp_path, Path(".."), Path("/")):
        with pytest.raises(builder.OutputRefused, match="current folder"):
            sample(out, force=True)
    assert kept(tmp_path) == {"notes.txt": b"mine\n"}


@pytest.mark.parametrize(
    "out",
    [
        builder.STATIC,  # inside the package: 67 source files
        builder.SITE,
        builder.SITE.parent,  # the package itself
        builder.SITE.parent.parent,  # the clone, which holds it
        SAMPLE,  # the content folder asked for
        SAMPLE.parent,
    ],
)
def test_the_sources_and_what_holds_them_are_refused_even_with_force(out):
    # asked of `replaceable`, which deletes nothing: a builder that lost the check must not
    # take the clone with it
    with pytest.raises(builder.OutputRefused):
        builder.replaceable(out, SAMPLE, force=True)


def test_a_build_into_the_package_is_refused_before_anything_is_deleted(tmp_path, monkeypatch):
    site = tmp_path / "clone" / "selfattn" / "site"
    (site / "static").mkdir(parents=True)
    (site / "static" / "page.js").write_text("source")
    monkeypatch.setattr(builder, "SITE", site)  # a stand-in package: nothing real at stake
    for out in (site / "static", tmp_path / "clone"):
        with pytest.raises(builder.OutputRefused, match="sources"):
            sample(out, force=True)
    assert (site / "static" / "page.js").read_text() == "source"


@pytest.mark.parametrize("out", [Path("/tmp"), Path("/usr"), Path.home()])
def test_system_folders_are_refused_even_with_force(out):
    with pytest.raises(builder.OutputRefused):
        builder.replaceable(out, SAMPLE, force=True)


def test_a_file_is_refused(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(builder.OutputRefused, match="not a folder"):
        sample(tmp_path / "f", force=True)
    assert (tmp_path / "f").read_text() == "x"


def test_an_earlier_build_is_replaced_whole_and_force_replaces_any_folder(tmp_path):
    out = tmp_path / "site"
    sample(out)
    assert (out / builder.MARKER).is_file() and (out / "en" / "index.html").is_file()
    (out / "static" / "stale.js").write_text("from an earlier build")  # a module since renamed
    with (out / builder.MARKER).open("a", encoding="utf-8") as marker:
        marker.write("static/stale.js\n")
    (out / "index.html").write_text("edited")
    built = sample(out)  # marked: what the build wrote is replaced without asking
    assert not (out / "static" / "stale.js").exists()
    assert (out / "index.html").read_text("utf-8") != "edited"
    assert built.pages == [out / "index.html", out / "en" / "index.html"]
    other = tmp_path / "other"
    other.mkdir()
    (other / "x.txt").write_text("x")
    sample(other, force=True)
    assert not (other / "x.txt").exists() and (other / builder.MARKER).is_file()
    assert leftovers(tmp_path) == []


def test_a_name_added_beside_an_earlier_build_is_never_deleted_without_force(tmp_path):
    """A gh-pages folder: a build, then the user's CNAME and .git beside what it wrote."""
    out = tmp_path / "site"
    sample(out)
    (out / "CNAME").write_text("attention.example\n")
    (out / "extra").mkdir()
    before = kept(out)
    with pytest.raises(builder.OutputRefused, match=r"CNAME, extra/, which an earlier build"):
        sample(out)
    assert kept(out) == before
    (out / ".git").mkdir()
    (out / ".git" / "HEAD").write_text("ref: refs/heads/gh-pages\n")
    before = kept(out)
    for force in (False, True):  # a repository: never replaced (hostile pass, low 8)
        with pytest.raises(builder.OutputRefused, match=r"holds \.git"):
            sample(out, force=force)
        assert kept(out) == before
    shutil.rmtree(out / ".git")
    sample(out, force=True)
    assert not (out / "CNAME").exists() and (out / builder.MARKER).is_file()


def tree(folder: Path) -> list[str]:
    """Every path under `folder` but the marker, a folder's ending in /."""
    return sorted(
        p.relative_to(folder).as_posix() + "/" * p.is_dir()
        for p in folder.rglob("*")
        if p.name != builder.MARKER
    )


def listed(folder: Path) -> list[str]:
    """What `folder`'s marker lists, below its header."""
    lines = (folder / builder.MARKER).read_text("utf-8").splitlines()
    return lines[builder.MARKER_TEXT.count("\n") :]


def test_the_marker_lists_every_path_the_build_wrote(tmp_path):
    out = tmp_path / "site"
    sample(out)
    lines = (out / builder.MARKER).read_text("utf-8").splitlines()
    header = builder.MARKER_TEXT.count("\n")
    assert "\n".join(lines[:header]) + "\n" == builder.MARKER_TEXT
    assert lines[header:] == tree(out)
    assert "static/js/main.js" in lines and "static/js/" in lines
    assert (out / builder.MARKER).stat().st_size < 8_000  # small enough to read


def test_a_path_added_inside_an_earlier_builds_folders_is_never_deleted_without_force(tmp_path):
    """The user's own files beside the build's, a folder or two down."""
    out = tmp_path / "site"
    sample(out)
    (out / "static" / "mine.js").write_text("mine")
    (out / "en" / "notes").mkdir()
    (out / "en" / "notes" / "todo.txt").write_text("todo")
    before = kept(out)
    with pytest.raises(builder.OutputRefused, match=r"en/notes/, static/mine\.js, which"):
        sample(out)
    assert kept(out) == before
    sample(out, force=True)
    assert not (out / "static" / "mine.js").exists()
    assert leftovers(tmp_path) == []


def test_a_file_put_where_the_build_wrote_a_folder_is_foreign(tmp_path):
    out = tmp_path / "site"
    sample(out)
    shutil.rmtree(out / "kit")
    (out / "kit").write_text("a file of mine named like the gallery's folder")
    with pytest.raises(builder.OutputRefused, match="holds kit,"):
        sample(out)
    assert (out / "kit").is_file()


def test_an_earlier_versions_marker_is_read_as_naming_only_the_top(tmp_path):
    """The previous format listed the top-level names only: what is inside them could be
    anyone's, so the first rebuild over it asks for --force, once."""
    out = tmp_path / "site"
    sample(out)
    (out / builder.MARKER).write_text(
        "Written by `selfattn build`, which wrote the names below; the next build replaces them,\n"
        "and refuses, without --force, a folder that has gained a name of its own (.git, CNAME).\n"
        "en\nindex.html\nkit\nstatic\n",
        "utf-8",
    )
    before = kept(out)
    with pytest.raises(builder.OutputRefused, match="earlier version") as refused:
        sample(out)
    assert "--force" in str(refused.value) and "static/" in str(refused.value)
    assert kept(out) == before
    sample(out, force=True)
    sample(out)  # its own marker now: no --force needed


@pytest.mark.parametrize(
    "junk", [bytes(range(256)) * 4, b"", b"en\nstatic\n"], ids=["bytes", "empty", "names"]
)
def test_a_marker_no_build_wrote_means_the_folder_is_not_a_build(tmp_path, junk):
    out = tmp_path / "site"
    out.mkdir()
    (out / "index.html").write_text("mine")
    (out / builder.MARKER).write_bytes(junk)
    with pytest.raises(builder.OutputRefused, match="not one `selfattn build` wrote"):
        sample(out)
    assert (out / "index.html").read_text() == "mine"


@pytest.mark.parametrize("reach", ["absolute", "parent"])
def test_a_marker_naming_paths_outside_the_folder_is_no_builds(tmp_path, reach):
    """A marker edited (or committed) to list a path outside: trusting it would delete there."""
    out = tmp_path / "site"
    sample(out)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    line = str(victim) if reach == "absolute" else "../victim.txt"
    with (out / builder.MARKER).open("a", encoding="utf-8") as marker:
        marker.write(line + "\n")
    with pytest.raises(builder.OutputRefused, match="not one `selfattn build` wrote"):
        sample(out)
    assert victim.read_text() == "precious"


def test_a_path_listed_through_a_link_is_never_followed(tmp_path):
    out = tmp_path / "site"
    sample(out)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "v.txt").write_text("precious")
    (out / "lnk").symlink_to(mine)
    with (out / builder.MARKER).open("a", encoding="utf-8") as marker:
        marker.write("lnk\nlnk/v.txt\n")
    sample(out)  # the link is listed, so the rebuild replaces it; what it points to stays
    assert (mine / "v.txt").read_text() == "precious"


def test_a_name_added_while_the_build_runs_is_not_lost(tmp_path, monkeypatch):
    """A CNAME written into the folder after the first look and before the swap."""
    out = tmp_path / "site"
    sample(out)
    write = builder._write

    def and_meanwhile(*args, **kwargs):
        done = write(*args, **kwargs)
        (out / "CNAME").write_text("attention.example\n")
        return done

    monkeypatch.setattr(builder, "_write", and_meanwhile)
    with pytest.raises(builder.OutputRefused, match="CNAME"):
        sample(out)
    assert (out / "CNAME").read_text() == "attention.example\n"
    assert (out / "index.html").is_file() and leftovers(tmp_path) == []


def test_a_name_added_to_an_empty_folder_while_the_build_runs_is_not_lost(tmp_path, monkeypatch):
    out = tmp_path / "site"
    out.mkdir()
    write = builder._write

    def and_meanwhile(*args, **kwargs):
        done = write(*args, **kwargs)
        (out / "CNAME").write_text("attention.example\n")
        return done

    monkeypatch.setattr(builder, "_write", and_meanwhile)
    with pytest.raises(builder.OutputRefused, match="CNAME"):
        sample(out)
    assert kept(out) == {"CNAME": b"attention.example\n"} and leftovers(tmp_path) == []


def _interrupt_at(monkeypatch, where: str, out: Path) -> None:
    """Send this process SIGINT in the middle of the swap: just after the earlier build is
    moved aside ("aside"), or as it is being deleted ("delete")."""
    if where == "aside":
        rename = Path.rename

        def renamed(self, target):
            done = rename(self, target)
            if self == out:
                os.kill(os.getpid(), signal.SIGINT)
            return done

        monkeypatch.setattr(Path, "rename", renamed)
    else:
        discard = builder._discard

        def removed(old, *args, **kwargs):
            os.kill(os.getpid(), signal.SIGINT)
            return discard(old, *args, **kwargs)

        monkeypatch.setattr(builder, "_discard", removed)


@pytest.mark.parametrize("where", ["aside", "delete"])
def test_a_signal_during_the_swap_lets_it_finish_and_says_so(tmp_path, monkeypatch, where):
    out = tmp_path / "site"
    sample(out)
    (out / "index.html").write_text("the earlier build")
    _interrupt_at(monkeypatch, where, out)
    with pytest.raises(KeyboardInterrupt) as stop:
        sample(out)
    assert builder.SWAPPED in getattr(stop.value, "__notes__", [])
    assert (out / "index.html").read_text("utf-8") != "the earlier build"
    assert tree(out) == listed(out)
    assert leftovers(tmp_path) == []


def _write_into_the_old_copy(monkeypatch, out: Path, names: dict[str, str]) -> None:
    """Once the new build is in place and before the old copy is deleted, write `names` into
    the old copy, as a process whose working folder is inside it can (hostile pass 3, M1)."""
    rename = Path.rename

    def renamed(self, target):
        done = rename(self, target)
        if Path(target) == out and ".building-" in self.name:
            (old,) = out.parent.glob(f".{out.name}.old-*")
            for name, text in names.items():
                (old / name).write_text(text)
        return done

    monkeypatch.setattr(Path, "rename", renamed)


def test_a_file_written_into_the_old_copy_during_the_swap_is_kept_and_named(tmp_path, monkeypatch):
    out = tmp_path / "site"
    sample(out)
    _write_into_the_old_copy(monkeypatch, out, {"static/precious.txt": "data"})
    built = sample(out)
    assert (out / "static" / "precious.txt").read_text() == "data"
    assert any("static/precious.txt" in note for note in built.kept)
    assert leftovers(tmp_path) == []


def test_a_file_written_into_the_old_copy_under_a_name_the_build_has_is_left_there(
    tmp_path, monkeypatch
):
    out = tmp_path / "site"
    sample(out)
    (out / "index.html").unlink()  # the old copy lacks it, and its marker; the new build has it
    marker = out / builder.MARKER
    marker.write_text(marker.read_text("utf-8").replace("\nindex.html\n", "\n"), "utf-8")
    _write_into_the_old_copy(monkeypatch, out, {"index.html": "mine"})
    built = sample(out)
    (old,) = tmp_path.glob(".site.old-*")
    assert (old / "index.html").read_text() == "mine" and kept(old) == {"index.html": b"mine"}
    assert any("index.html" in note and str(old) in note for note in built.kept)


def test_an_old_copy_that_cannot_be_deleted_is_named(tmp_path, monkeypatch):
    """A file the build wrote that cannot be deleted (chattr +i): the old copy stays, named."""
    out = tmp_path / "site"
    sample(out)
    unlink = Path.unlink

    def stuck(self, *args, **kwargs):
        if ".old-" in str(self) and self.name == "index.html" and self.parent.name == "kit":
            raise PermissionError(1, "Operation not permitted", str(self))
        return unlink(self, *args, **kwargs)

    monkeypatch.setattr(Path, "unlink", stuck)
    built = sample(out)
    (old,) = tmp_path.glob(".site.old-*")
    assert list(kept(old)) == ["kit/index.html"]
    assert any(str(old) in note and "kit/index.html" in note for note in built.kept)


@pytest.mark.parametrize(("swapped", "said"), [(True, "holds the new build"), (False, "as it was")])
def test_the_command_says_truthfully_where_an_interrupted_build_stands(
    tmp_path, monkeypatch, capsys, swapped, said
):
    from selfattn.__main__ import main

    def interrupted(*args, **kwargs):
        stop = KeyboardInterrupt()
        if swapped:
            stop.add_note(builder.SWAPPED)
        raise stop

    monkeypatch.setattr(builder, "build", interrupted)
    assert main(["build", str(tmp_path / "site")]) == 130
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1


def test_a_signal_once_the_build_is_in_place_changes_nothing(tmp_path, monkeypatch, capsys):
    """A SIGTERM just as "built" is printed (hostile pass 3): the build is done, so the
    command says so and ends 0, not "stopped; OUT is as it was"."""
    import selfattn.__main__ as cli

    def done(*args, **kwargs):
        return builder.Built([], [], [], kept=("static/x.txt, written into site, are kept",))

    def print_then_signal(*args, **kwargs):
        print(*args, **kwargs)
        if "built" in str(args[0]):
            os.kill(os.getpid(), signal.SIGTERM)

    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    monkeypatch.setattr(builder, "build", done)
    monkeypatch.setattr(cli, "print", print_then_signal, raising=False)
    try:
        assert cli.main(["build", str(tmp_path / "site")]) == 0
    finally:
        for s, handler in handlers.items():
            signal.signal(s, handler)
    out, err = capsys.readouterr()
    assert "built" in out and "stopped" not in err and "static/x.txt" in err


def test_a_signal_while_the_build_module_is_half_imported_is_reported_plainly(
    monkeypatch, capsys, tmp_path
):
    """The handler must not import site.build again (hostile pass 3, M3): here it cannot."""
    import selfattn.__main__ as cli

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setitem(sys.modules, "selfattn.site.build", None)
    monkeypatch.setattr(cli, "_build_now", interrupted)
    assert cli.main(["build", str(tmp_path / "site")]) == 130
    assert "is as it was" in capsys.readouterr().err


@pytest.mark.parametrize("under", ["afile/sub", "afile/sub/deeper"])
def test_a_folder_under_a_file_is_one_clear_line(tmp_path, under):
    (tmp_path / "afile").write_text("x")
    result = command("build", under, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "afile is a file" in result.stderr
    assert (tmp_path / "afile").read_text() == "x"


def test_a_failed_build_leaves_the_last_one_as_it_was_and_nothing_else(tmp_path):
    out = tmp_path / "site"
    sample(out)
    before = kept(out)
    content = tmp_path / "content"
    shutil.copytree(SAMPLE, content)
    en = content / "en.md"
    en.write_text(en.read_text("utf-8") + "\n{{claim no.such.claim}}\n", "utf-8")
    with pytest.raises(builder.BuildError, match=r"no\.such\.claim"):
        sample(out, content=content)
    assert kept(out) == before
    assert leftovers(tmp_path) == []


def test_a_symlink_out_of_the_static_folder_is_not_copied_into_the_site(tmp_path, monkeypatch):
    secret = tmp_path / "secret.txt"
    secret.write_text("outside the sources")
    static = tmp_path / "static"
    shutil.copytree(builder.STATIC, static)
    (static / "leak.txt").symlink_to(secret)
    monkeypatch.setattr(builder, "STATIC", static)
    with pytest.raises(builder.BuildError, match=r"leak\.txt"):
        sample(tmp_path / "site")
    assert not (tmp_path / "site").exists()


def _build_stopped_by(signum: int, folder: Path) -> tuple[int, str] | None:
    """Start a build into `folder`/site, send `signum` once it writes, and return its exit
    status and what it printed on stderr; None when the build ended before the signal could
    land (a race on a busy machine)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "selfattn", "build", str(folder / "site")],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        until = time.monotonic() + 30
        while not leftovers(folder) and proc.poll() is None and time.monotonic() < until:
            time.sleep(0.01)
        if proc.poll() == 0:
            return None
        assert leftovers(folder), "the build never started writing"
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=30)
        return None if proc.returncode == 0 else (proc.returncode, err)
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_build_stopped_by_a_signal_leaves_no_temporary_folder(tmp_path, signum):
    for attempt in range(5):
        folder = tmp_path / str(attempt)
        folder.mkdir()
        stopped = _build_stopped_by(signum, folder)
        if stopped is not None:
            break
    assert stopped is not None, "the build finished before the signal, five times"
    status, err = stopped
    assert status == (130 if signum == signal.SIGINT else 128 + signum), err
    assert "Traceback" not in err and err.count("\n") == 1 and "as it was" in err, err
    assert leftovers(folder) == [] and not (folder / "site").exists()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_the_server_stopped_by_a_signal_deletes_its_build(tmp_path, signum):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "selfattn", "serve", "--port", "0"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None and "serving" in proc.stdout.readline()
        assert list(tmp_path.iterdir())
        proc.send_signal(signum)
        proc.wait(timeout=30)
    finally:
        proc.kill()
        proc.wait()
        if proc.stdout:
            proc.stdout.close()
    assert list(tmp_path.iterdir()) == []


HOSTILE = "<!--<script>x</script>&\u2028\u2029"


def test_the_page_data_holds_any_string_without_the_parser_seeing_it(tmp_path):
    content = tmp_path / "content"
    shutil.copytree(SAMPLE, content)
    questions = json.loads((content / "predictions.json").read_text("utf-8"))
    questions["long-key"]["en"]["question"] = HOSTILE
    (content / "predictions.json").write_text(json.dumps(questions), "utf-8")
    sample(tmp_path / "site", content=content)
    page = (tmp_path / "site" / "en" / "index.html").read_text("utf-8")
    found = re.search(
        r'<script type="application/json" id="selfattn-data">(.*?)</script>', page, re.S
    )
    assert found
    data = found.group(1)
    for c in "<>&\u2028\u2029":
        assert c not in data
    assert json.loads(data)["predictions"]["long-key"]["question"] == HOSTILE


def test_the_server_does_not_delete_a_folder_no_build_made(tmp_path):
    from selfattn.site.serve import Site

    d = tmp_path / "d"
    d.mkdir()
    (d / "keep.txt").write_text("x")
    with pytest.raises(builder.BuildError, match="not empty"):
        Site(d, watch=False, content=SAMPLE)
    assert (d / "keep.txt").read_text() == "x"


def test_the_home_folder_and_what_holds_it_are_refused_even_with_force(tmp_path, monkeypatch):
    """Home three levels down (/data/home/alice): --force on /data/home deleted alice's files,
    since only home itself was refused."""
    home = tmp_path / "data" / "home" / "alice"
    home.mkdir(parents=True)
    (home / "thesis.txt").write_text("mine\n")
    monkeypatch.setenv("HOME", str(home))
    for out in (home, home.parent, home.parent.parent):
        with pytest.raises(builder.OutputRefused, match="home folder"):
            sample(out, force=True)
    assert (home / "thesis.txt").read_text() == "mine\n"


def test_a_folder_holding_a_mount_point_is_refused_even_with_force(tmp_path):
    """--force deleted the files of a disk mounted inside OUT, through the old copy's rmtree."""
    disk, out = tmp_path / "disk", tmp_path / "out" / "inner"
    disk.mkdir()
    out.mkdir(parents=True)
    (disk / "precious.txt").write_text("mine\n")
    mounted = subprocess.run(["mount", "--bind", str(disk), str(out)], capture_output=True)
    if mounted.returncode:
        pytest.skip("cannot bind-mount here (not root)")
    try:
        with pytest.raises(builder.OutputRefused, match="mount point"):
            sample(out.parent, force=True)
    finally:
        subprocess.run(["umount", str(out)], check=False)
    assert (disk / "precious.txt").read_text() == "mine\n"


@pytest.mark.parametrize("kind", ["link", "fifo", "huge"])
def test_a_marker_that_is_no_file_of_a_builds_size_is_never_read(tmp_path, kind):
    """A marker linked to /dev/zero ate memory, a FIFO hung the build, 300 MB took 22 s."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n")
    marker = out / builder.MARKER
    if kind == "link":
        marker.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(marker)
    else:
        with marker.open("wb") as f:
            f.write(builder.MARKER_TEXT.encode())
            f.truncate(builder.MARKER_MOST + 1)
    with pytest.raises(builder.OutputRefused, match="not one `selfattn build` wrote"):
        sample(out)
    assert (out / "notes.txt").read_text() == "mine\n"


KILLED_BETWEEN_THE_RENAMES = """
import os, signal, sys
from pathlib import Path
sys.path.insert(0, {tests!r})
from tests.test_build_safety import sample
out, rename = Path({out!r}), Path.rename
def renamed(self, target):
    done = rename(self, target)
    if self == out:  # the earlier build just moved aside, the new one not yet in place
        os.kill(os.getpid(), signal.SIGKILL)
    return done
Path.rename = renamed
sample(out)
"""


def test_a_build_killed_between_the_swaps_renames_is_put_right_by_the_next(tmp_path):
    """Hostile pass 5 (Low): SIGKILL between the swap's two renames left `out` missing, its
    earlier build moved aside for good."""
    out = tmp_path / "site"
    sample(out)
    script = KILLED_BETWEEN_THE_RENAMES.format(tests=str(ROOT), out=str(out))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    killed = subprocess.run([sys.executable, "-c", script], env=env, timeout=120)
    assert killed.returncode == -signal.SIGKILL
    assert not out.exists() and [n for n in leftovers(tmp_path) if ".old-" in n]
    sample(out)
    assert tree(out) == listed(out)
    assert [n for n in leftovers(tmp_path) if ".old-" in n] == []


# -- hostile pass 6: the folder a user prepared keeps its access ------------------------------


def test_a_prepared_folder_keeps_its_mode_and_group(tmp_path):
    out = tmp_path / "site"
    out.mkdir()
    os.chmod(out, 0o2750)  # private, setgid: new files take the folder's group
    before = out.stat()
    sample(out)
    after = out.stat()
    assert oct(after.st_mode & 0o7777) == oct(0o2750)  # 0o755 before: world-readable
    assert (after.st_uid, after.st_gid) == (before.st_uid, before.st_gid)


def _acl(named_uid: int) -> bytes:
    """A POSIX access ACL as the kernel stores it: owner rwx, a named user r-x, group r-x,
    mask r-x, other none (linux/posix_acl_xattr.h)."""
    import struct

    entries = [(0x01, 7, 0xFFFFFFFF), (0x02, 5, named_uid), (0x04, 5, 0xFFFFFFFF)]
    entries += [(0x10, 5, 0xFFFFFFFF), (0x20, 0, 0xFFFFFFFF)]
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries)


def test_a_prepared_folder_keeps_its_acl(tmp_path):
    out = tmp_path / "site"
    out.mkdir()
    try:
        os.setxattr(out, "system.posix_acl_access", _acl(os.getuid() + 4242))
    except (OSError, AttributeError):
        pytest.skip("no POSIX ACLs on this file system")
    acl = os.getxattr(out, "system.posix_acl_access")
    sample(out)
    assert os.getxattr(out, "system.posix_acl_access") == acl


# -- hostile pass 6: what a build killed outright leaves beside OUT ---------------------------


def test_a_killed_builds_folder_is_removed_by_the_next_but_no_other(tmp_path):
    import fcntl

    out = tmp_path / "site"
    abandoned = tmp_path / ".site.building-0123456789ab"  # as a SIGKILLed build leaves it
    (abandoned / "static").mkdir(parents=True)
    (abandoned / ".selfattn-building").write_text("a build in progress (process 1)\n")
    running = tmp_path / ".site.building-ba9876543210"  # a build still running holds it
    running.mkdir()
    (running / ".selfattn-building").write_text("a build in progress\n")
    foreign = tmp_path / ".site.building-aaaaaaaaaaaa"  # named so, but by no build
    foreign.mkdir()
    (foreign / "mine.txt").write_text("keep")
    fd = os.open(running, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        sample(out)
    finally:
        os.close(fd)
    assert not abandoned.exists()
    assert running.exists() and (foreign / "mine.txt").read_text() == "keep"
    assert not (out / ".selfattn-building").exists()


def test_a_build_killed_outright_leaves_a_folder_the_next_one_removes(tmp_path):
    out = tmp_path / "site"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    script = (
        "from pathlib import Path; from tests.test_build_safety import sample; "
        f"sample(Path({str(out)!r}))"
    )
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, env=env)
    try:
        until = time.monotonic() + 60
        while not list(tmp_path.glob(".site.building-*/static")) and time.monotonic() < until:
            time.sleep(0.005)
    finally:
        proc.kill()
        proc.wait()
    assert list(tmp_path.glob(".site.building-*")), "the build ended before it was killed"
    sample(out)
    assert leftovers(tmp_path) == [], leftovers(tmp_path)


@pytest.mark.parametrize("project", [".git", "pyproject.toml"])
def test_a_projects_folder_is_refused_even_with_force_in_one_line(tmp_path, project):
    """Hostile pass, low 8: `build --force OUT` deleted a project's .git, tests/ and docs/."""
    d = tmp_path / "project"
    (d / "tests").mkdir(parents=True)
    (d / "tests" / "test_x.py").write_text("keep\n")
    if project == ".git":
        (d / ".git").mkdir()
        (d / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    else:
        (d / project).write_text("[project]\n")
    before = kept(d)
    result = command("build", "--force", str(d))
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and f"holds {project}" in result.stderr
    assert "even with --force" in result.stderr
    assert kept(d) == before and leftovers(tmp_path) == []


def test_an_out_name_of_240_characters_builds(tmp_path):
    """Hostile pass, low 9: the temporary name beside it (`.NAME.building-…`) passed 255 bytes."""
    out = tmp_path / ("a" * 240)
    sample(out)
    sample(out)  # and an earlier build there is replaced, through `.NAME.old-…`
    assert (out / "index.html").is_file() and leftovers(tmp_path) == []


def test_a_deleted_current_folder_is_named(tmp_path, monkeypatch):
    """Hostile pass, low 9: "No such file or directory", for a folder the user could not see."""
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    with pytest.raises(builder.OutputRefused, match="current folder no longer exists"):
        sample(Path("site"))
    sample(tmp_path / "site")  # a full path needs no current folder
    assert (tmp_path / "site" / "index.html").is_file()


@pytest.mark.parametrize("where", [".git", ".git/refs", "bare", "venv"])
def test_a_repositorys_store_or_a_venv_is_refused_even_with_force(tmp_path, where):
    """Hostile pass 7, high: `build .git --force` deleted a repository's whole history (the
    guard looked for .git inside OUT, not at OUT being it); a bare repository or a venv alike."""
    project = tmp_path / "project"
    store = project / ".git"
    (store / "refs").mkdir(parents=True)
    (store / "objects").mkdir()
    (store / "HEAD").write_text("ref: refs/heads/main\n")
    bare = tmp_path / "bare.git"
    bare.mkdir()
    (bare / "objects").mkdir()
    (bare / "HEAD").write_text("ref: refs/heads/main\n")
    venv = tmp_path / "venv"
    venv.mkdir()
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    out = {".git": store, ".git/refs": store / "refs", "bare": bare, "venv": venv}[where]
    (out / "keep").write_text("keep\n")
    before = kept(tmp_path)
    result = command("build", "--force", str(out))
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "even with --force" in result.stderr
    assert kept(tmp_path) == before
