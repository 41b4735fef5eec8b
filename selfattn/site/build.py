"""`selfattn build OUT`: the article's Markdown, figures and numbers → a static folder.

Each language page is Markdown with three directives: `{{claim ID}}` (a number from the
model), `{{figure long-key}}` (an interactive figure, by its slug; its label "F07" is
its place in the page, counted here) and `{{params}}` (the head's matrices),
plus `$…$` maths rendered to MathML here, at build time. URLs are relative, so the
folder works from any static host or from a subfolder.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import glob
import hashlib
import html
import json
import os
import re
import secrets
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from latex2mathml.converter import convert as latex_to_mathml
from markdown_it import MarkdownIt

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no flock, and abandoned folders are left
    fcntl = None

from .. import article, heads, leak, learn
from ..files import same_access
from ..head import Head, load_head
from ..numbers import fixed
from ..signals import SWAPPED, deferred
from .bundle import BundleError, bundle
from .prose_numbers import prose_numbers
from .score_kinds import unnamed_scores
from .script_json import script_json

SITE = Path(str(resources.files("selfattn.site")))
CONTENT, STATIC, TEMPLATES = SITE / "content", SITE / "static", SITE / "templates"


@dataclass(frozen=True)
class Language:
    code: str  # the html lang attribute
    source: str  # content/<source>.md
    folder: str  # where its index.html goes, relative to the site root


LANGUAGES = (Language("zh-CN", "zh", ""), Language("en", "en", "en"))

CLAIM = re.compile(r"\{\{claim ([a-z0-9._]+)\}\}")
# a figure by its slug, the name of its module and its anchor: stable when figures are added
SLUG = r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*"
FIGURE = re.compile(r"<p>\{\{figure (" + SLUG + r")\}\}</p>")
PARAMS = re.compile(r"<p>\{\{params\}\}</p>")
MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.S)
HEADING_ID = re.compile(r"<h([1-6])>(.*?)\s*\{#([a-z0-9-]+)\}</h\1>")
# A static import or re-export at the start of a line: `import { a } from "./x.js"` (the
# braces may span lines), `import "./x.js"`, `export * from "./x.js"`. Not `import("./x.js")`:
# a dynamic import loads when its code runs, which is what main.js does for the figures.
STATIC_IMPORT = re.compile(
    r"""^(?:import|export)\b\s*(?:[^;"'()]*?\bfrom\s*)?["']([^"']+)["']""", re.M
)
ENTRY = "js/main.js"
PAGE = "js/page.js"  # what main.js runs: starting the figures, wherever their modules come from
REST = "js/figures.js"  # the second chunk: every figure after the first screen
# The first screen: the page starts every figure within a screen of the one in view, and it
# opens with a short introduction and the parameters, so the first figure is on the first
# screen and the second just under it (at 1280x900 both are started at once; on a phone the
# first). The build joins them, with everything they and the page import, into main.js: one
# request after the HTML, where separate modules took several waves (a browser opens six
# connections to a host). The rest come as one more chunk when the first of them is wanted.
FIRST_SCREEN_FIGURES = 2
# Both chunks run while the page loads (the first screen at once, the rest figure by figure
# when the browser is idle), so they say so: V8 then compiles their functions on the thread
# that streams the file in, not on the main thread at each function's first call (Chrome 136
# and later; at 4x CPU this took the long tasks of loading from 3 to 1). Others skip a comment.
CALLED_ON_LOAD = "//# allFunctionsCalledOnLoad\n"


class BuildError(ValueError):
    """The content refers to something that does not exist."""


class OutputRefused(BuildError):
    """The folder asked for is one a build must not replace."""


# Sets the colour scheme before the first paint. Inline, it costs no request and the parser
# no round trip (the page puts it before the stylesheet, so it need not wait for it); the
# Content-Security-Policy allows it by its hash, never with 'unsafe-inline'.
INLINE_SCRIPT = "js/theme.js"


def inline_script() -> str:
    """The text that goes between the head's <script> tags."""
    text = (STATIC / INLINE_SCRIPT).read_text("utf-8")
    if re.search(r"</script|<!--", text, re.I):
        raise BuildError(f"{INLINE_SCRIPT} cannot be inlined: it contains </script or <!--")
    return text


# The stylesheet goes inside the page too: one request fewer before the first figure, whose
# module no longer waits on a second file before it may run (interleaved loads of a phone
# at Fast 3G and 4x CPU: first figure 1,295 -> 1,180 ms; the first paint did not move).
# Each language carries its own copy (7.6 KiB gzipped); the policy allows it by its hash.
SHEETS = ("style.css", "css/*.css")  # the base, then each group of figures' own rules


# Comments are 40 % of the sheets' bytes (5 of their 12 KiB gzipped), and every page carries a
# copy. Strings come first in each pattern so that nothing inside one is touched.
CSS_STRING = r"""("(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')"""
CSS_COMMENT = re.compile(CSS_STRING + r"|/\*.*?\*/", re.S)
# A space after a colon or a comma never parts two tokens (a selector's pseudo-class has
# none after its colon; `calc` needs its spaces round + and -, which are kept).
CSS_SPACE = re.compile(CSS_STRING + r"|\s*([{};])\s*|([:,])\s+|\s+")


def compact_css(text: str) -> str:
    """`text` without comments, its white space cut to one space, none around { } ; and
    none after : or ,. Strings keep every character, so `content: "a,  b"` is left as it was."""
    text = CSS_COMMENT.sub(lambda m: m[1] or " ", text)  # a comment parts tokens as a space does
    return CSS_SPACE.sub(lambda m: m[1] or m[2] or m[3] or " ", text).strip()


def stylesheet() -> str:
    """The text that goes between the head's <style> tags."""
    base, rest = SHEETS
    text = "\n".join(p.read_text("utf-8") for p in [STATIC / base, *sorted(STATIC.glob(rest))])
    if re.search(r"</style|<!--", text, re.I):
        raise BuildError("the stylesheet cannot be inlined: it contains </style or <!--")
    return compact_css(text)


# The one Latin face (fonts/OFL.txt). Its rule sits in the page rather than the shared sheet:
# an inline sheet's url() is read from the page's address, and the English page is a folder
# deeper. `swap`: text shows at once in a system face and takes Inter when it arrives.
FONT = "fonts/inter.woff2"


def font_face(root: str) -> str:
    """The @font-face rule of a page whose way back to the site's root is `root` ("./", "../")."""
    return (
        f'@font-face{{font-family:Inter;src:url("{root}static/{FONT}") format("woff2");'
        "font-weight:400 700;font-style:normal;font-display:swap}"
    )


def _source(text: str) -> str:
    """A policy source that allows exactly this inline text: "'sha256-…'"."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


# The file that says a folder was written by a build, and so may be replaced by the next one.
MARKER = ".selfattn-build"
MARKER_TEXT = (
    "Written by `selfattn build`, which wrote every path below (a folder's ends in /). The next\n"
    "build replaces them, and refuses, without --force, a folder that holds any other path.\n"
)
HEADER = MARKER_TEXT.count("\n")  # the lines above the list
# The previous version's marker began so, and listed only the top-level names it wrote: what
# is inside them could be anyone's, so every deeper path counts as foreign (--force, once).
EARLIER = "Written by `selfattn build`, which wrote the names below;"


MARKER_MOST = 1 << 20  # bytes: a build's list is some 2 KB; a thousand times that is no build's


def _marker(folder: Path) -> tuple[set[str], str]:
    """What `folder`'s marker says a build wrote there, and which marker it is: "ours", an
    "earlier" version's, "none", or "alien" (unreadable, or not in a build's words)."""
    lines = _marker_lines(folder / MARKER)
    if isinstance(lines, str):
        return set(), lines
    if "\n".join(lines[:HEADER]) + "\n" == MARKER_TEXT:
        listed = set(lines[HEADER:])
        # a build writes plain relative paths: a line reaching out (absolute, "..") is no
        # build's, and trusting it would delete outside the folder
        if any(not p or p.startswith("/") or ".." in p.split("/") for p in listed):
            return set(), "alien"
        return listed, "ours"
    if lines and lines[0].startswith(EARLIER):  # two lines of header, then names
        names = {n for n in lines[2:] if n}
        return names | {n + "/" for n in names}, "earlier"
    return set(), "alien"


def _marker_lines(path: Path) -> list[str] | str:
    """The marker's lines, or "none" where there is none and "alien" where it cannot be a
    build's: a build writes a regular file of a few KB, so a link (to /dev/zero), a FIFO or a
    file far larger is never read whole (they ate gigabytes or hung the build)."""
    if not path.exists() and not path.is_symlink():
        return "none"
    if path.is_symlink() or not path.is_file() or path.stat().st_size > MARKER_MOST:
        return "alien"
    try:
        with path.open("rb") as f:
            return f.read(MARKER_MOST).decode("utf-8").splitlines()
    except FileNotFoundError:
        return "none"
    except (OSError, UnicodeDecodeError):  # unreadable, random bytes
        return "alien"


def tree(folder: Path, inside: Callable[[str], bool] = lambda _: True) -> list[str]:
    """Every path under `folder` but its marker, relative, a folder's ending in "/", sorted.
    A folder is walked into when `inside(its path)`; a link is named as a file, never followed."""
    paths, todo = [], [(folder, "")]
    while todo:
        parent, prefix = todo.pop()
        with os.scandir(parent) as entries:
            for entry in entries:
                path = prefix + entry.name + "/" * entry.is_dir(follow_symlinks=False)
                if path == MARKER:
                    continue
                paths.append(path)
                if path.endswith("/") and inside(path):
                    todo.append((Path(entry.path), path))
    return sorted(paths)


def foreign_paths(folder: Path) -> list[str]:
    """What `folder` holds that its marker does not list (every path, without one): each a
    path relative to it, a foreign folder named once, with its "/", and not its insides."""
    listed, _ = _marker(folder)
    return [p for p in tree(folder, inside=lambda p: p in listed) if p not in listed]


def _refuse_foreign(folder: Path, shown: Path) -> None:
    """OutputRefused if `folder` (named `shown` to the user) holds a path no earlier build
    there wrote; every path counts for a folder no build marked."""
    try:
        added = foreign_paths(folder)
    except OSError as err:
        raise OutputRefused(f"{shown} cannot be read through: {err}") from err
    if not added:
        return
    _, kind = _marker(folder)
    names = ", ".join(added[:5]) + (f" and {len(added) - 5} more" if len(added) > 5 else "")
    whose = {
        "ours": "an earlier build there did not write",
        "earlier": f"may be yours: its {MARKER} is from an earlier version of selfattn, which "
        "listed only the top-level names it wrote",
        "alien": f"`selfattn build` did not write: its {MARKER} is not one `selfattn build` wrote",
    }.get(kind, "`selfattn build` did not write")
    then = (
        "look inside, then pass --force once"
        if kind == "earlier"
        else "name a new or empty folder, or pass --force"
    )
    raise OutputRefused(
        f"{shown} is not empty: it holds {names}, which {whose}. A build replaces everything "
        f"in it: {then}"
    )


def absolute(out: Path) -> Path:
    """`out` absolute, links followed; OutputRefused for a relative one when the current
    folder was deleted (the error said only "No such file or directory")."""
    out = out.expanduser()
    if not out.is_absolute() and _here() is None:
        raise OutputRefused(
            f"the current folder no longer exists, so {out} leads nowhere: cd into a folder "
            "that exists, or name the output folder by its full path"
        )
    return out.resolve()


def _here() -> Path | None:
    """The current folder, or None if it was deleted."""
    try:
        return Path.cwd().resolve()
    except FileNotFoundError:
        return None


def replaceable(out: Path, content: Path = CONTENT, force: bool = False) -> Path:
    """`out` as an absolute path, once it is known that a build may replace it; else
    OutputRefused saying why. A symlink is followed: the build goes where it points."""
    real = absolute(out)
    _never_replaced(out, real, content)
    if real.exists() and not real.is_dir():
        raise OutputRefused(f"{out} exists and is not a folder")
    blocker = next((p for p in real.parents if p.exists()), None)  # `/` at least
    if blocker is not None and not blocker.is_dir():
        raise OutputRefused(f"{out} cannot be made: {blocker} is a file")
    if real.is_dir() and not force:
        _refuse_foreign(real, out)
    real.parent.mkdir(parents=True, exist_ok=True)
    return real


def _never_replaced(out: Path, real: Path, content: Path) -> None:
    """OutputRefused for a folder no build may replace, even with --force."""
    here = _here()
    if here is not None and (real == here or real in here.parents):
        raise OutputRefused(f"{out} is the current folder or holds it")
    home = Path.home().resolve()
    if real == home or real in home.parents:  # /data/home/alice's /data/home too
        raise OutputRefused(f"{out} is the home folder or holds it")
    if len(real.parts) <= 2 or os.path.ismount(real):  # /tmp, /usr; a disk of its own
        raise OutputRefused(f"{out} is a top-level folder or a mount point")
    for source in {SITE.parent.resolve(), content.resolve()}:
        if real == source or real in source.parents:
            raise OutputRefused(f"{out} holds the article's sources ({source})")
        if source in real.parents:
            raise OutputRefused(f"{out} is inside the article's sources ({source})")
    # a disk mounted inside: deleting the old copy would go into it (--force deleted it all)
    inside = next((m for m in _mount_points() if real in m.parents), None)
    if inside is not None:
        raise OutputRefused(f"{out} holds a mount point ({inside})")
    _no_project(real, out)


# what only a project's own folder holds: a repository, a package's description. No build
# writes one, and --force deleted a project's .git, tests/ and docs/ (hostile pass, low 8)
PROJECT = (".git", ".hg", ".svn", "pyproject.toml", "setup.py", "package.json", "pyvenv.cfg")
# a repository's own store: `build .git --force` deleted a project's history (hostile pass 7)
STORES = (".git", ".hg", ".svn")


def _no_project(folder: Path, shown: Path) -> None:
    """OutputRefused, even with --force, for a folder holding one of PROJECT (a venv's
    pyvenv.cfg too), a repository's store or a folder inside one, or a bare repository."""
    store = next((p for p in (folder, *folder.parents) if p.name in STORES), None)
    if store is not None or ((folder / "HEAD").is_file() and (folder / "objects").is_dir()):
        raise OutputRefused(
            f"{shown} is a repository's own store{f' ({store})' if store else ''}: a build "
            "never replaces it, even with --force; name a folder of its own for the site"
        )
    found = next((n for n in PROJECT if os.path.lexists(folder / n)), None)
    if found is not None:
        raise OutputRefused(
            f"{shown} holds {found}, so it is a project's folder: a build never replaces one, "
            "even with --force; name a folder of its own for the site"
        )


def _mount_points() -> list[Path]:
    """Every mount point, from the kernel's table where there is one (a bind mount of the same
    disk shares its device, so os.path.ismount cannot see it), else none known."""
    try:
        table = Path("/proc/self/mountinfo").read_text("utf-8", "replace")
    except OSError:
        return []
    # the fifth field, its space, tab, newline and backslash written as octal escapes
    fields = (line.split() for line in table.splitlines())
    return [Path(_OCTAL.sub(lambda m: chr(int(m[1], 8)), f[4])) for f in fields if len(f) > 4]


_OCTAL = re.compile(r"\\([0-7]{3})")


def _no_link_out_of(folder: Path) -> None:
    """BuildError for a symlink under `folder` that leads outside it: copying the folder
    would copy what it points at into the site."""
    root = folder.resolve()
    for parent, dirs, files in os.walk(folder):
        for name in [*dirs, *files]:
            path = Path(parent) / name
            if path.is_symlink() and root not in path.resolve().parents:
                raise BuildError(f"{path} is a symlink leading outside {folder}")


SHORT = 200  # bytes of a name kept in a temporary name beside it: with `.building-…`, < 255


def short_name(out: Path) -> str:
    """`out`'s name, cut to at most SHORT bytes (whole characters), for the temporary names
    beside it: a file name has at most 255 bytes, and a 240-character OUT failed on them."""
    return out.name.encode()[:SHORT].decode("utf-8", "ignore")


def _beside(out: Path, what: str) -> Path:
    """A name no file has yet in `out`'s folder, hidden: `.site.building-3f9a…`."""
    while (path := out.with_name(f".{short_name(out)}.{what}-{secrets.token_hex(6)}")).exists():
        pass
    return path


def _restore_aside(out: Path) -> None:
    """Put back the earlier build a build killed outright (SIGKILL) between the swap's two
    renames left moved aside (`.site.old-3f9a…`, `out` missing), so this build swaps as if
    that one had never begun. Only where `out` is missing and exactly one folder has a name
    `_beside` could have given it; several are left as they are."""
    if out.exists() or out.is_symlink():
        return
    aside = [
        p
        for p in out.parent.glob(f".{glob.escape(short_name(out))}.old-*")
        if _ASIDE.fullmatch(p.name[len(short_name(out)) + 2 :])
        and p.is_dir()
        and not p.is_symlink()
    ]
    if len(aside) == 1:
        with contextlib.suppress(OSError):  # made meanwhile: the build goes on without it
            aside[0].rename(out)


_ASIDE = re.compile(r"old-[0-9a-f]{12}")
_BUILDING = re.compile(r"building-[0-9a-f]{12}")
# In a build's temporary folder until its marker is written: the folder is a build's.
BUILDING = ".selfattn-building"


def _hold(folder: Path) -> int | None:
    """An open descriptor holding an flock on `folder` while this build lives (it moves
    with the folder, and ends with the process however it ends): a folder beside `out` whose
    lock can be taken is no running build's. None where there is no flock."""
    if fcntl is None:
        return None
    fd = os.open(folder, os.O_RDONLY)
    with contextlib.suppress(OSError):
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return fd


def _clear_abandoned(out: Path) -> None:
    """Delete the `.out.building-3f9a…` folders builds killed outright (SIGKILL) left beside
    `out`: only those a build made (BUILDING or its marker inside) that no running build holds
    (its flock can be taken)."""
    if fcntl is None:
        return
    base = short_name(out)
    for path in out.parent.glob(f".{glob.escape(base)}.building-*"):
        if not _BUILDING.fullmatch(path.name[len(base) + 2 :]) or not _ours(path):
            continue
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # fails while a build holds it
            shutil.rmtree(path, ignore_errors=True)
        except OSError:
            pass
        finally:
            os.close(fd)


def _ours(folder: Path) -> bool:
    """Whether `folder` is a build's temporary folder: a real folder holding BUILDING (a
    regular file), or a marker a build wrote."""
    if folder.is_symlink() or not folder.is_dir():
        return False
    mark = folder / BUILDING
    return (mark.is_file() and not mark.is_symlink()) or _marker(folder)[1] == "ours"


def _swap(fresh: Path, out: Path, force: bool) -> list[str]:
    """Put the complete build `fresh` where `out` is, and delete what `out` held; return what
    of it was kept (see _discard). What `out` holds is looked at again once it is moved aside:
    a name added since the build began (a CNAME) puts it back and refuses."""
    if not out.exists():
        fresh.rename(out)  # a folder made there meanwhile: fails unless empty, then replaced
        return []
    same_access(out, fresh)  # the folder the user prepared keeps its mode, group and ACL
    old = _beside(out, "old")
    out.rename(old)
    try:
        _no_project(old, out)  # made one meanwhile
        if not force:
            _refuse_foreign(old, out)
        fresh.rename(out)
    except BaseException:
        old.rename(out)  # put it back
        raise
    return _discard(old, out, force)


def _discard(old: Path, out: Path, force: bool) -> list[str]:
    """Delete from the earlier build `old` (moved aside from `out`) what its marker lists, and
    then `old`; return, in words, what did not go. A process whose working folder is inside
    `old` can still write there after the last look: each listed file is unlinked and each
    folder removed only once empty, never a whole tree, so what it wrote stays; it is moved
    back into `out` where the new build has no path of that name, else left in `old`."""
    if force:  # asked to replace whatever is there
        shutil.rmtree(old, ignore_errors=True)
    else:
        listed, _ = _marker(old)
        # only what is really there under the names listed: never a path through a link
        present = set(tree(old, inside=lambda p: p in listed))
        for path in sorted((listed & present) | {MARKER}, key=_depth):
            _remove(old / path, folder=path.endswith("/"))
    if not old.exists():
        return []
    back = []
    for path in tree(old, inside=lambda p: (out / p).is_dir()):
        if not (out / path).exists():  # a folder the new build also has was walked into
            with contextlib.suppress(OSError):
                (old / path).rename(out / path)
                back.append(path)
    for path in sorted(tree(old), key=_depth):  # the folders emptied by the moves
        _remove(old / path, folder=True)
    _remove(old, folder=True)
    notes = [_named(back, f"written into {out.name} during the swap, are kept in it")]
    if old.exists():
        notes.append(_named(tree(old), f"could not be deleted or moved back, are left in {old}"))
    return [n for n in notes if n]


def _depth(path: str) -> tuple[int, str]:
    """Deepest first: a folder's insides before the folder."""
    return -path.rstrip("/").count("/"), path


def _named(paths: list[str], what: str) -> str:
    """ "a, b and 3 more {what}", or "" for no paths."""
    if not paths:
        return ""
    more = f" and {len(paths) - 5} more" if len(paths) > 5 else ""
    return f"{', '.join(paths[:5])}{more}, {what}"


def _remove(path: Path, folder: bool) -> None:
    """Delete one file or link, or one folder if it is empty (rmdir never follows a link);
    leave anything else, and anything that cannot go, as it is."""
    with contextlib.suppress(OSError):
        path.rmdir() if folder else path.unlink()


@dataclass(frozen=True)
class Built:
    """What a build wrote: its pages, and the policy sources ("'sha256-…'") that allow the
    inline script and stylesheet exactly as they went into them."""

    pages: list[Path]
    scripts: list[str]
    styles: list[str]
    kept: tuple[str, ...] = ()  # what the swap found it did not write, and left (_discard)


def figure_modules() -> dict[str, str]:
    """long-key → 'js/figures/long-key.js' for every figure that has a module."""
    return {
        path.stem: path.relative_to(STATIC).as_posix()
        for path in sorted((STATIC / "js" / "figures").glob("*.js"))
    }


def figure_label(place: int) -> str:
    """The name a reader sees, from the figure's place in the page (0 → "F01"): computed at
    each build, so adding a figure renumbers the labels and nothing else."""
    return f"F{place + 1:02d}"


def static_imports(module: str) -> list[str]:
    """The modules one module imports statically, as paths relative to static/:
    "js/tools.js" → ["js/figure.js", "js/share.js", "js/export.js"]."""
    imports = []
    for specifier in STATIC_IMPORT.findall((STATIC / module).read_text("utf-8")):
        if not specifier.startswith(("./", "../")):
            raise BuildError(f"{module}: import {specifier!r} is not a relative path")
        target = (STATIC / module).parent / specifier
        path = Path(os.path.normpath(target)).relative_to(STATIC).as_posix()
        if not (STATIC / path).is_file():
            raise BuildError(f"{module}: imports {specifier!r}, which does not exist")
        imports.append(path)
    return imports


def module_graph(entry: str) -> list[str]:
    """The entry and every module it reaches by static imports, breadth first."""
    order = [entry]
    for module in order:  # grows while it is walked
        order.extend(m for m in static_imports(module) if m not in order)
    return order


def first_screen(source: str) -> list[str]:
    """The modules of the first figures in the article's order (see FIRST_SCREEN_FIGURES)."""
    modules = figure_modules()
    figures = [f for f in re.findall(r"\{\{figure (" + SLUG + r")\}\}", source) if f in modules]
    return [modules[f] for f in figures[:FIRST_SCREEN_FIGURES]]


STATIC_LINK = re.compile(r'(?:(?:href|src)="|url\(")(?:\.\./|\./)?static/([^"]+)"')


def loaded_files(site: Path, page: str) -> list[str]:
    """What a built page loads, relative to static/: what its HTML names, and the chunk of
    later figures main.js imports (the modules' own files are never fetched)."""
    text = (site / page).read_text("utf-8")
    return sorted(set(STATIC_LINK.findall(text)) | {REST})


def write_chunks(static: Path, first: list[str]) -> None:
    """Replace `static`'s main.js by the first screen in one module, and write the rest.

    `first` are the first screen's figure modules, relative to static/. main.js shares its
    modules with the rest chunk (`export const modules`), so the rest holds no second copy
    of a module the first screen already ran.
    """
    js = static / "js"
    rest = [m for m in figure_modules().values() if m not in first]

    def entry(name: str, modules: list[str], tail: str) -> Path:
        lines = [
            f'import * as figure{k} from "./{Path(m).relative_to("js").as_posix()}";'
            for k, m in enumerate(modules)
        ]
        table = ", ".join(f'"{m}": figure{k}' for k, m in enumerate(modules))
        path = js / name
        path.write_text("\n".join([*lines, f"const figures = {{ {table} }};", tail, ""]), "utf-8")
        return path

    head = entry(
        "first-screen.entry.js",
        first,
        f'import {{ startPage }} from "./{Path(PAGE).name}";\n'
        "startPage((el) => {\n"
        "  const mine = figures[el.dataset.module];\n"
        f'  return mine ? Promise.resolve(mine) : import("./{Path(REST).name}")'
        ".then((rest) => rest.figures[el.dataset.module]);\n"
        "});",
    )
    tail = entry("rest.entry.js", rest, "export { figures };")
    try:
        main = bundle(head, export_default=False, dynamic=True, share=js)
        shared = dict.fromkeys(m for f in [PAGE, *first] for m in module_graph(f))
        provided = {
            static / m: f'modules["{Path(m).relative_to("js").as_posix()}"]' for m in shared
        }
        others = bundle(tail, export_default=False, provided=provided)
    except BundleError as error:
        raise BuildError(f"the modules cannot be joined: {error}") from error
    finally:
        head.unlink()
        tail.unlink()
    (static / ENTRY).write_text(CALLED_ON_LOAD + main, "utf-8")
    (static / REST).write_text(
        f'{CALLED_ON_LOAD}import {{ modules }} from "./{Path(ENTRY).name}";\n{others}'
        "export const figures = selfattn_entry.figures;\n",
        "utf-8",
    )


def _sections(body: str) -> str:
    """Each part that opens with an <h2> in a <section> of its own, so that the stylesheet can
    let the browser skip laying out the sections far from the screen (content-visibility)."""
    first, *parts = re.split(r"(?=<h2[ >])", body)
    return first + "".join(f"<section>\n{part}</section>\n" for part in parts)


def _math(source: str, stash: list[str]) -> str:
    """Swap maths for placeholders, so Markdown never sees the MathML it would mangle."""

    def one(match: re.Match) -> str:
        display = match.group(1) is not None
        mathml = latex_to_mathml(match.group(1) or match.group(2))
        # HTML needs no MathML namespace, and inline is the default: the page's weight
        mathml = mathml.replace(' xmlns="http://www.w3.org/1998/Math/MathML"', "")
        if display:
            # a wide formula scrolls sideways on a phone: keyboard users reach it too
            mathml = mathml.replace('display="inline"', 'display="block" tabindex="0"')
        else:
            mathml = mathml.replace(' display="inline"', "")
        stash.append(mathml)
        return f"MATH{len(stash) - 1}MATH"

    return MATH.sub(one, source)


def render_article(
    source: str, numbers: dict[str, str], lang: str, env: Environment, content: Path = CONTENT
) -> str:
    """Markdown with directives → the article's HTML body."""
    stash: list[str] = []
    text = _math(source, stash)

    def claim(match: re.Match) -> str:
        claim_id = match.group(1)
        if claim_id not in numbers:
            raise BuildError(f"{lang}: unknown claim {claim_id!r}")
        return f'<span data-claim="{claim_id}">{html.escape(numbers[claim_id])}</span>'

    text = CLAIM.sub(claim, text)
    body = MarkdownIt("commonmark", {"html": True, "typographer": False}).render(text)
    body = HEADING_ID.sub(r'<h\1 id="\3">\2</h\1>', body)
    body = _sections(body)
    modules = figure_modules()
    captions = json.loads((content / "figures.json").read_text("utf-8"))
    seen: list[str] = []

    def figure(match: re.Match) -> str:
        slug = match.group(1)
        if slug not in captions:
            raise BuildError(f"{lang}: no caption for figure {slug}")
        seen.append(slug)
        return env.get_template("figure.html").render(
            slug=slug,
            label=figure_label(len(seen) - 1),
            module=modules.get(slug),
            caption=captions[slug][lang],
        )

    body = FIGURE.sub(figure, body)
    if len(seen) != len(set(seen)):
        raise BuildError(f"{lang}: a figure appears twice")
    body = PARAMS.sub(lambda _: "PARAMS", body)
    if "{{" in body:
        left = re.search(r"\{\{[^}]*\}\}?", body)
        raise BuildError(
            f"{lang}: a directive was not understood: {left.group(0) if left else '{{'}"
        )
    body = body.replace("<pre>", '<pre tabindex="0">')  # a scrolling block must take focus
    return re.sub(r"MATH(\d+)MATH", lambda m: stash[int(m.group(1))], body)


def predictions(lang: str, numbers: dict[str, str], content: Path = CONTENT) -> dict:
    """The predict-then-see questions in one language, their numbers filled in."""
    data = json.loads((content / "predictions.json").read_text("utf-8"))

    def fill(text: str) -> str:
        return CLAIM.sub(lambda m: numbers[m.group(1)], text)

    return {
        fid: {
            "answer": spec["answer"],
            "question": fill(spec[lang]["question"]),
            "options": [fill(o) for o in spec[lang]["options"]],
            "why": fill(spec[lang]["why"]),
        }
        for fid, spec in data.items()
    }


def matrix_math(name: str, rows: list[list[float]], labels: list[str] | None = None) -> str:
    """A parameter typeset as the maths around it: `W_Q = [[a, b], [c, d]]` in MathML."""
    body = r" \\ ".join(" & ".join(f"{v:.2f}" for v in row) for row in rows)
    side = ""
    if labels:
        side = r"\begin{matrix}" + r" \\ ".join(rf"\text{{{t}}}" for t in labels) + r"\end{matrix}"
    mathml = latex_to_mathml(rf"{name} = {side}\begin{{bmatrix}}{body}\end{{bmatrix}}")
    # Brackets drawn by the stylesheet: a stretched [ needs a maths font, which many
    # readers lack, and without one it stays one line tall beside a six-row table.
    mathml = mathml.replace("<mo>&#x0005B;</mo><mtable>", '<mtable class="bracketed">')
    mathml = mathml.replace("</mtable><mo>&#x0005D;</mo>", "</mtable>")
    return mathml.replace('display="inline"', 'display="block"')


def page_data(head: Head, numbers: dict[str, str], lang: str, content: Path = CONTENT) -> dict:
    """What the scripts read: the head's parameters, the numbers the article picks, the two
    training runs of the leak (F19), part two's pronoun task (F27), the two heads (F29) and the
    predict-then-see questions, numbers filled in."""
    questions = predictions(lang, numbers, content)
    return {
        "head": head.to_json(),
        "article": article.for_page(),
        "training": leak.measured().to_json(),
        "learn": learn.pronoun_task(head).to_json(),
        "heads": heads.two_heads(head).to_json(),
        "predictions": questions,
    }


GALLERY = "kit"  # the kit's gallery page, kit/index.html: every part of the kit, live


def write_gallery(out: Path, env: Environment, head: Head, script: str, sheet: str) -> Path:
    """The kit's gallery (not linked from the article): the same head, script and stylesheet
    as the pages, so the policy that allows theirs allows it."""
    folder = out / GALLERY
    folder.mkdir(parents=True, exist_ok=True)
    data = script_json({"head": head.to_json()})
    page = env.get_template("kit.html").render(inline_script=script, stylesheet=sheet, data=data)
    (folder / "index.html").write_text(page, "utf-8")
    return folder / "index.html"


def build(
    out: Path, head: Head | None = None, content: Path = CONTENT, force: bool = False
) -> Built:
    """Write the site into `out` (replacing an earlier build there); return what it wrote.

    `out` may be missing, empty, or an earlier build holding only the paths its MARKER lists,
    looked at before the build and again at the swap; any other folder is refused
    (OutputRefused) unless `force`, and so, always, are the current folder, a folder
    holding the sources or the current folder, anything inside the package, the home folder,
    a top-level folder (/tmp), a mount point and a project's folder (PROJECT: .git,
    pyproject.toml).
    A signal (Ctrl-C, or SIGTERM within signals.ended_by_signals) stops it leaving `out` as it
    was; one that comes during the swap is held until the swap is done, and the exception it
    raises then carries the note SWAPPED: `out` holds the new build.
    `content` holds each language's Markdown, figures.json and predictions.json;
    the tests build a small sample site from their own.
    """
    head = head or load_head()
    numbers = prose_numbers(head)
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=StrictUndefined,
        keep_trailing_newline=True,
    )
    env.filters["fixed"] = fixed
    env.globals["matrix_math"] = matrix_math
    _restore_aside(absolute(Path(out)))
    out = replaceable(Path(out), content, force)
    _no_link_out_of(STATIC)
    # written beside `out` and swapped in whole: a build that fails, or is stopped, leaves
    # what was there as it was, and nothing of its own. The steps that must not be cut in
    # half (making the folder, the swap, deleting a folder) hold a signal until they are done.
    with deferred():
        _clear_abandoned(out)
    fresh, made, swapped, held = _beside(out, "building"), False, False, None
    try:
        with deferred():
            fresh.mkdir()  # not mkdtemp's: its mode 0700 would keep a web server out of the site
            made = True
            held = _hold(fresh)
            (fresh / BUILDING).write_text(f"a build in progress (process {os.getpid()})\n")
        built = _write(fresh, out, head, env, numbers, content)
        with deferred():
            built = dataclasses.replace(built, kept=tuple(_swap(fresh, out, force)))
            swapped = True
    except BaseException as stop:
        if swapped:  # a signal held through the swap: the build is done, and the caller told
            stop.add_note(SWAPPED)
        with deferred():
            if made:
                shutil.rmtree(fresh, ignore_errors=True)
        raise
    finally:
        if held is not None:
            os.close(held)
    return built


def _write(
    out: Path, final: Path, head: Head, env: Environment, numbers: dict, content: Path
) -> Built:
    """Write the site into `out`; the pages it returns are named where they end, in `final`."""
    # what goes inside the pages is not copied beside them
    inlined = shutil.ignore_patterns(Path(INLINE_SCRIPT).name, "style.css", "css")
    shutil.copytree(STATIC, out / "static", ignore=inlined)
    pages = []
    firsts, faces = set(), set()
    script, sheet = inline_script(), stylesheet()  # the same inside every page
    for language in LANGUAGES:
        source = (content / f"{language.source}.md").read_text("utf-8")
        title_line, _, rest = source.partition("\n")
        title = MarkdownIt("commonmark").renderInline(title_line.lstrip("# ").strip())
        firsts.add(tuple(first_screen(rest)))
        if problems := unnamed_scores(rest, language.source):
            raise BuildError("a score does not say which kind it is:\n" + "\n".join(problems))
        body = render_article(rest, numbers, language.source, env, content)
        body = body.replace(
            "PARAMS",
            env.get_template("params.html").render(head=head.to_json(), lang=language.source),
        )
        data = script_json(
            page_data(head, numbers, language.source, content),
            ensure_ascii=False,
            separators=(",", ":"),
        )
        folder = out / language.folder
        folder.mkdir(parents=True, exist_ok=True)
        root = "../" if language.folder else "./"
        face = font_face(root)
        faces.add(_source(face))
        other = next(lang for lang in LANGUAGES if lang != language)
        page = env.get_template("page.html").render(
            lang=language.code,
            short=language.source,
            title=html.unescape(re.sub(r"<[^>]+>", "", title)),  # <title> holds plain text
            heading=title,
            body=body,
            root=root,
            data=data,
            inline_script=script,
            stylesheet=sheet,
            font_face=face,
            other_href=root + (other.folder + "/" if other.folder else ""),
            other_name=other.source,
        )
        (folder / "index.html").write_text(page, "utf-8")
        pages.append(final / language.folder / "index.html")
    if len(firsts) != 1:
        raise BuildError(f"the languages open with different figures: {sorted(firsts)}")
    write_gallery(out, env, head, script, sheet)
    write_chunks(out / "static", list(firsts.pop()))
    (out / BUILDING).unlink(missing_ok=True)  # the marker says it is a build's from here on
    (out / MARKER).write_text(MARKER_TEXT + "".join(p + "\n" for p in tree(out)), "utf-8")
    # hashed from the text the pages hold, not read again: an edit landing meanwhile would
    # give a policy that refuses this build's inline script until the next one
    return Built(pages, [_source(script)], [_source(sheet), *sorted(faces)])
