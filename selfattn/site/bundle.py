"""Join the article's ES modules into one, with no bundler: one request instead of a waterfall.

Each module is wrapped in its own function scope, so private names never meet; its imports
become reads from the modules it names, in dependency order. Anything the rewrite cannot
account for fails the build instead of shipping a broken page: an import of a name a module
does not export, a name bound twice in one module (a clash), a cycle, an `import()` where it
was not allowed, or an `export` form this reader does not know.

Two uses: the notebook widget's single module (anywidget's `_esm`), and the page's two
chunks, the first screen and the rest, where the rest reads the modules it shares with the
first from the first's `modules` export instead of holding a second copy.

>>> text = bundle(Path("selfattn/notebook/js/entry.js"))  # doctest: +SKIP
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from pathlib import Path

PREFIX = "__selfattn_module_"

IMPORT = re.compile(
    r"^import\s+(?:\{(?P<names>[^}]*)\}|\*\s+as\s+(?P<star>\w+))"
    r'\s+from\s+"(?P<path>[^"]+)";?[ \t]*$'
    r'|^import\s+"(?P<bare>[^"]+)";?[ \t]*$',
    re.M,
)
ANY_IMPORT = re.compile(r"^\s*import\b|\bimport\s*\(", re.M)
COMMENT = re.compile(r"/\*.*?\*/|(?:^|(?<=\s))//[^\n]*", re.S)
DECLARED = re.compile(
    r"^(?:export\s+)?(?:async\s+)?(?:function\*?|class|const|let|var)\s+(\w+)", re.M
)
EXPORT_DECL = re.compile(
    r"^export\s+((?:async\s+)?(?:function\*?|class|const|let|var)\s+(\w+))", re.M
)
EXPORT_LIST = re.compile(r"^export\s+\{(?P<names>[^}]*)\};?[ \t]*$", re.M)
EXPORT_DEFAULT = re.compile(r"^export\s+default\s+", re.M)
ANY_EXPORT = re.compile(r"^\s*export\b", re.M)


def quiet(body: str) -> str:
    """`body` without its whole-line comments and its lines' indentation: the reader's copy is
    the module file, served beside the bundle, and comments were a third of the page's gzipped
    weight, indentation another 6 %.

    Only lines that are nothing but a comment go, with comments after the code of a line;
    indentation and those comments go only from lines that start outside a template literal
    (where it is the literal's text), never inside one (a backtick count kept over the code,
    inline `/* … */` left out of it). A body whose backticks do not pair, or a block comment
    that ends in code, leaves the module whole.
    """
    kept, ticks, block = [], 0, False
    for line in body.split("\n"):
        bare = line.strip()
        if block:
            block = "*/" not in bare
            if not block and not bare.endswith("*/"):
                return body
            continue
        comment = _comment(bare) if ticks % 2 == 0 else None
        if comment is not None:
            block = comment == "opens"
            continue
        kept.append(line if ticks % 2 else _code(line))
        ticks += len(re.findall(r"(?<!\\)`", INLINE_COMMENT.sub("", line)))
    return body if ticks % 2 or block else "\n".join(kept)


# a comment after code that holds a slash of its own (a division, a regular expression):
# white space, //, then no quote or backtick (a string holding "//" closes on its own line,
# so its quote would follow)
TRAILING_COMMENT = re.compile(r"\s+//[^\"'`]*$")


# a type written for the checker inside the code, `/** @type {T} */ (x)`: for the checker
# only (it reads the module files), and 0.7 KiB of a page's gzipped scripts
TYPE_COMMENT = re.compile(r"/\*\*\s*@type\s.*?\*/ ?")


def _code(line: str) -> str:
    """A line that starts outside a template literal, without its indentation and, when it
    holds no backtick or quote, without a comment after its code (comments were 4 % more)
    or a type inside it."""
    line = line.lstrip()
    if "`" in line:
        return line
    line = _uncommented(line)
    return line if "'" in line or '"' in line else TYPE_COMMENT.sub("", line)


def _uncommented(line: str) -> str:
    """`line` without a comment after its code, found by reading the line's strings, so a
    comment's apostrophe ("the figure's") or a string's "//" is never misread. Where the
    code has a slash of its own first, a regular expression's quote could be misread: then
    only a comment with no quote in it goes."""
    quote = ""
    i = 0
    while i < len(line):
        c = line[i]
        if quote:
            i += 2 if c == "\\" else 1
            quote = "" if c == quote else quote
            continue
        if c in "\"'":
            quote = c
        elif c == "/":
            if line.startswith("//", i) and i:
                return line[:i].rstrip()
            return TRAILING_COMMENT.sub("", line)
        i += 1
    return line


def _comment(bare: str) -> str | None:
    """What a stripped line outside a template literal is: a whole-line comment ("whole"), a
    block comment that goes on to later lines ("opens"), or code (None)."""
    if bare.startswith("//"):
        return "whole"
    if bare.startswith("/*") and "*/" not in bare[2:]:
        return "opens"
    if bare.startswith("/*") and bare.endswith("*/") and bare.count("*/") == 1:
        return "whole"
    return None


INLINE_COMMENT = re.compile(r"/\*.*?\*/")


class BundleError(Exception):
    """The modules cannot be joined into one without changing what they mean."""


def _pairs(names: str, where: Path) -> list[tuple[str, str]]:
    """`a, b as c` → [("a", "a"), ("b", "c")]: (name in the source module, local name)."""
    out = []
    for part in names.split(","):
        words = part.split()
        if not words:
            continue
        if len(words) == 1:
            out.append((words[0], words[0]))
        elif len(words) == 3 and words[1] == "as":
            out.append((words[0], words[2]))
        else:
            raise BundleError(f"{where}: cannot read the import or export list {names!r}")
    return out


class _Module:
    def __init__(
        self, path: Path, index: int, dynamic: bool = False, text: str | None = None
    ) -> None:
        self.path = path
        self.var = f"{PREFIX}{index}"
        self.text = path.read_text(encoding="utf-8") if text is None else text
        if PREFIX in self.text:
            raise BundleError(f"{path}: uses the bundle's reserved prefix {PREFIX}")
        self.imports: list[tuple[Path, list[tuple[str, str]] | str | None]] = []
        for m in IMPORT.finditer(self.text):
            target = (path.parent / (m["path"] or m["bare"])).resolve()
            if m["names"] is not None:
                self.imports.append((target, _pairs(m["names"], path)))
            elif m["star"]:
                self.imports.append((target, m["star"]))
            else:
                self.imports.append((target, None))
        body = IMPORT.sub("", self.text)
        left = COMMENT.sub("", body)
        if dynamic:  # `import(url)` loads at run time, relative to the bundle's own URL
            left = re.sub(r"\bimport\s*\(", "", left)
        if ANY_IMPORT.search(left):
            raise BundleError(
                f"{path}: an import this bundler cannot rewrite (dynamic or multi-line)"
            )
        self.exports: dict[str, str] = {}  # exported name → local name
        for m in EXPORT_DECL.finditer(body):
            self.exports[m[2]] = m[2]
        body = EXPORT_DECL.sub(r"\1", body)
        for m in EXPORT_LIST.finditer(body):
            for local, exported in _pairs(m["names"], path):
                self.exports[exported] = local
        body = EXPORT_LIST.sub("", body)
        if len(EXPORT_DEFAULT.findall(body)) > 1:
            raise BundleError(f"{path}: two default exports")
        if EXPORT_DEFAULT.search(body):
            body = EXPORT_DEFAULT.sub(f"const {PREFIX}default = ", body)
            self.exports["default"] = f"{PREFIX}default"
        if ANY_EXPORT.search(body):
            raise BundleError(f"{path}: an export form this bundler cannot rewrite")
        self.body = quiet(body).strip("\n")
        self.declared = DECLARED.findall(self.text)


def bundle(
    entry: Path,
    *,
    export_default: bool = True,
    provided: Mapping[Path, str] | None = None,
    dynamic: bool = False,
    share: Path | None = None,
    entry_text: str | None = None,
) -> str:
    """The entry module and everything it imports, as the text of one ES module.

    With `export_default` the text ends in `export default`, as anywidget wants; without,
    the entry's exports are left in a constant named `selfattn_entry`, for a page's own
    inline script to use. `provided` maps modules not to include to an expression that is
    their namespace at run time (another bundle's); `dynamic` allows `import()` (which then
    resolves against the bundle's URL); `share` adds `export const modules`, every bundled
    module's namespace by its path relative to that folder, for another bundle to read.
    `entry_text` is the entry's text when the caller writes it (`entry` then only places it:
    its imports resolve from there), as a saved notebook page names only the view it shows.
    """
    given = {p.resolve(): expr for p, expr in (provided or {}).items()}
    order = _collect(entry, given, dynamic, entry_text)
    root = order[-1]
    modules = {m.path: m for m in order}
    read: dict[Path, dict[str, str]] = {}  # the exports of provided modules, as read
    parts = [f"// {len(order)} modules joined by selfattn.site.bundle; do not edit."]
    parts += [_wrapped(m, _bindings(m, modules, given, read)) for m in order]
    if share is not None:
        folder = share.resolve()
        table = ", ".join(f'"{m.path.relative_to(folder).as_posix()}": {m.var}' for m in order)
        parts.append(f"export const modules = Object.freeze({{ {table} }});")
    if export_default:
        if "default" not in root.exports:
            raise BundleError(f"{entry}: has no default export for anywidget")
        parts.append(f"export default {root.var}.default;")
    elif share is None:
        parts.append(f"const selfattn_entry = {root.var};")
    return "\n".join(parts) + "\n"


def _collect(
    entry: Path, given: Mapping[Path, str], dynamic: bool, entry_text: str | None
) -> list[_Module]:
    """The entry and every module it imports that is not `given`, each after the modules it
    imports (the entry last); BundleError on a cycle, a missing file, or a provided entry."""
    modules: dict[Path, _Module] = {}
    order: list[_Module] = []
    visiting: list[Path] = []
    numbers = itertools.count(1)

    def visit(path: Path) -> None:
        path = path.resolve()
        if path in given or path in modules:
            return
        if path in visiting:
            chain = " → ".join(p.name for p in [*visiting, path])
            raise BundleError(f"import cycle: {chain}")
        if not path.is_file():
            raise BundleError(f"no module at {path}")
        visiting.append(path)
        text = entry_text if path == entry.resolve() else None
        module = _Module(path, next(numbers), dynamic, text)
        for target, _ in module.imports:
            visit(target)
        visiting.pop()
        modules[path] = module
        order.append(module)

    visit(entry)
    if entry.resolve() in given:
        raise BundleError(f"{entry}: the entry is itself provided")
    return order


def _bindings(
    module: _Module,
    modules: Mapping[Path, _Module],
    given: Mapping[Path, str],
    read: dict[Path, dict[str, str]],
) -> list[str]:
    """The module's imports as `const local = namespace.name;` lines; BundleError for a name
    its module does not export, or a local name bound twice."""
    bound: dict[str, str] = {}
    lines = []
    for target, what in module.imports:
        if what is None:
            continue
        source = modules.get(target)
        namespace = given[target] if source is None else source.var
        if source is None and target not in read:  # read each provided module once
            read[target] = _exports_of(target)
        exports = read[target] if source is None else source.exports
        for name, local in [("*", what)] if isinstance(what, str) else what:
            _bind(module, target, name, local, exports, bound)
            lines.append(f"const {local} = {namespace}{'' if name == '*' else '.' + name};")
    return lines


def _bind(
    module: _Module,
    target: Path,
    name: str,
    local: str,
    exports: Mapping[str, str],
    bound: dict[str, str],
) -> None:
    """Bind `local` to `name` from `target` in `module`, or BundleError saying why not."""
    if name != "*" and name not in exports:
        raise BundleError(f"{module.path}: imports {name!r}, which {target} does not export")
    if local in bound:
        raise BundleError(
            f"{module.path}: name clash, {local!r} comes from both {bound[local]} and {target.name}"
        )
    if local in module.declared:
        raise BundleError(
            f"{module.path}: name clash, {local!r} is imported from "
            f"{target.name} and declared here too"
        )
    bound[local] = target.name


def _wrapped(module: _Module, lines: list[str]) -> str:
    """The module in a function scope of its own: its imports bound, its body, and its
    exports returned as a frozen namespace."""
    exported = ", ".join(
        f"{name}: {local}" if name != local else name for name, local in module.exports.items()
    )
    return (
        f"const {module.var} = (() => {{ // {module.path.name}\n"
        + "".join(line + "\n" for line in lines)
        + module.body
        + f"\n;return Object.freeze({{ {exported} }});\n}})();"
    )


def _exports_of(path: Path) -> dict[str, str]:
    """The names a provided module exports, read from its source, to check imports against."""
    return _Module(path, 0, dynamic=True).exports
