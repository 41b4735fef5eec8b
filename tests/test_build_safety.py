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
    assert "not empty" in result.stderr and "--force" in result.stderr
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
    (out / "static" / "stale.js").write_text("from an earlier build")
    built = sample(out)  # marked: what the build wrote is replaced without asking
    assert not (out / "static" / "stale.js").exists() and (out / "index.html").is_file()
    assert built.pages == [out / "index.html", out / "en" / "index.html"]
    other = tmp_path / "other"
    other.mkdir()
    (other / "x.txt").write_text("x")
    sample(other, force=True)
    assert not (other / "x.txt").exists() and (other / builder.MARKER).is_file()
    assert leftovers(tmp_path) == []


def test_a_name_added_beside_an_earlier_build_is_never_deleted_without_force(tmp_path):
    """A gh-pages folder: a build, then the user's .git and CNAME beside what it wrote."""
    out = tmp_path / "site"
    sample(out)
    (out / ".git").mkdir()
    (out / ".git" / "HEAD").write_text("ref: refs/heads/gh-pages\n")
    (out / "CNAME").write_text("attention.example\n")
    before = kept(out)
    with pytest.raises(builder.OutputRefused, match=r"\.git, CNAME, which an earlier build"):
        sample(out)
    assert kept(out) == before
    sample(out, force=True)
    assert not (out / "CNAME").exists() and (out / builder.MARKER).is_file()


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


def _build_stopped_by(signum: int, folder: Path) -> int | None:
    """Start a build into `folder`/site, send `signum` once it writes, and return its exit
    status; None when the build ended before the signal could land (a race on a busy machine)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "selfattn", "build", str(folder / "site")],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        until = time.monotonic() + 30
        while not leftovers(folder) and proc.poll() is None and time.monotonic() < until:
            time.sleep(0.01)
        if proc.poll() == 0:
            return None
        assert leftovers(folder), "the build never started writing"
        proc.send_signal(signum)
        status = proc.wait(timeout=30)
        return None if status == 0 else status
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_build_stopped_by_a_signal_leaves_no_temporary_folder(tmp_path, signum):
    for attempt in range(5):
        folder = tmp_path / str(attempt)
        folder.mkdir()
        status = _build_stopped_by(signum, folder)
        if status is not None:
            break
    assert status == 128 + signum, "the build finished before the signal, five times"
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
