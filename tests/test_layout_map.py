"""README's layout map (section Development) names every module and folder of knowledge_engine/, and
nothing that does not exist: a moved, added or deleted module fails here until the map tells the truth.

The map's shape: one line per top-level entry (`  name.py   what it does` or `  name/   its modules`),
continued on deeper-indented lines; inside a folder's text every `x.py` and `sub/` is one of its
entries, and `sub/ (a.py, b.py)` lists a sub-folder's modules. A sub-package's __init__.py need not be
named (it is the folder); other files (data, py.typed) may be named and must then exist.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "knowledge_engine"
README = ROOT / "README.md"
TOKEN = re.compile(r"(\w+/)\s*\(|\w+\.py\b|\w+/|\(|\)")
ENTRY = re.compile(r"^  (\S+)\s{2,}(.*)$")


def map_block(text: str) -> list[str]:
    """The lines of the fenced block under README's "Layout (" paragraph, after `knowledge_engine/`."""
    start = text.index("\nLayout (")
    fence = text.index("```\nknowledge_engine/\n", start)
    end = text.index("\n```", fence + 4)
    return text[fence:end].splitlines()[2:]


def entries(lines: list[str]) -> dict[str, str]:
    """Top-level entry -> its text (continuation lines joined)."""
    out: dict[str, str] = {}
    current = None
    for line in lines:
        match = ENTRY.match(line)
        if match:
            current = match.group(1)
            out[current] = match.group(2)
        elif current is not None and line.strip():
            out[current] += " " + line.strip()
    return out


def folder_names(folder: str, text: str) -> set[str]:
    """Every path a folder's text names: `x.py` and `sub/` here, `sub/ (...)` inside sub/."""
    names: set[str] = set()
    stack = [folder]
    for match in TOKEN.finditer(text):
        token, sub = match.group(0), match.group(1)
        if sub:  # `sub/ (`: what follows up to `)` is inside sub/
            names.add(stack[-1] + sub)
            stack.append(stack[-1] + sub)
        elif token == "(":
            stack.append(stack[-1])
        elif token == ")":
            if len(stack) > 1:
                stack.pop()
        else:
            names.add(stack[-1] + token)
    return names


def mapped(readme: str) -> set[str]:
    names: set[str] = set()
    for name, text in entries(map_block(readme)).items():
        names.add(name)
        if name.endswith("/"):
            names |= folder_names(name, text)
    return names


def on_disk(package: Path) -> set[str]:
    """What the map must name: every module (but a sub-package's __init__.py) and every folder."""
    names: set[str] = set()
    for path in package.rglob("*"):
        rel = path.relative_to(package)
        if "__pycache__" in rel.parts:
            continue
        if path.is_dir():
            names.add(rel.as_posix() + "/")
        elif path.suffix == ".py" and not (path.name == "__init__.py" and len(rel.parts) > 1):
            names.add(rel.as_posix())
    return names


def test_the_map_names_every_module_and_folder() -> None:
    missing = sorted(on_disk(PACKAGE) - mapped(README.read_text(encoding="utf-8")))
    assert missing == [], f"add these to the Layout block of README.md (section Development): {missing}"


def test_the_map_names_nothing_that_does_not_exist() -> None:
    stale = sorted(n for n in mapped(README.read_text(encoding="utf-8")) if not (PACKAGE / n).exists())
    assert stale == [], f"the Layout block of README.md names what is gone: {stale}"


def test_the_parser_reads_folders_sub_folders_and_continuations() -> None:
    readme = (
        "intro\n\nLayout (x):\n\n```\nknowledge_engine/\n"
        "  a.py             the a (not b.py)\n"
        "  pkg/             one.py (+ two.py: helper), sub/ (x.py, y.py),\n"
        "                   three.py\n"
        "```\n"
    )
    assert mapped(readme) == {
        "a.py",
        "pkg/",
        "pkg/one.py",
        "pkg/two.py",
        "pkg/sub/",
        "pkg/sub/x.py",
        "pkg/sub/y.py",
        "pkg/three.py",
    }
