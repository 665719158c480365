"""Every fenced Python block in the READMEs and the docs runs offline, or says it is a fragment.

Found automatically: README.md, core/README.md, every plugins/*/README.md, every README.md
under contrib/, every page under docs/ (a page added later is covered with no edit here).
The line just before a ```python fence says what the block is (docs/contributing.md):

- nothing, or ``<!-- test: run -->``: a program. It runs in a fresh interpreter, in an empty
  temporary directory, and must exit 0 and leave that directory empty. A bare fence (```)
  that follows it, with only blank lines between, is what it prints: stdout must match it
  line for line (trailing spaces ignored).
- ``<!-- fragment -->``: part of a program (names of yours, a model config); it must compile.
- ``<!-- test: KIND -->``: a program that its own test runs (``jaeger``: tests/docs/test_docs.py,
  ``plugin``: tests/core/test_plugin_api.py); compiled here.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[\w+-]*)[^\n]*$")
MARKER = re.compile(r"^<!-- (?:(?P<fragment>fragment)|test: (?P<kind>\w+)) -->$")
PYTHON = {"python", "py", "python3"}


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    kind: str  # "run", "fragment", or the name of the test that runs it
    code: str
    output: str | None

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def pages() -> list[Path]:
    found = [ROOT / "README.md", ROOT / "core" / "README.md"]
    found += sorted((ROOT / "plugins").glob("*/README.md"))
    found += sorted((ROOT / "contrib").rglob("README.md"))
    found += sorted((ROOT / "docs").rglob("*.md"))
    return [p for p in found if p.is_file()]


def parse(text: str, page: str = "page.md") -> list[Block]:
    """The Python blocks of a Markdown text, each with its kind and shown output."""
    lines = text.splitlines()
    fences = []  # (start line index, end line index, language)
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m:
            end = next(
                (j for j in range(i + 1, len(lines)) if lines[j].strip() == "```"), len(lines)
            )
            fences.append((i, end, m["lang"]))
            i = end + 1
        else:
            i += 1
    blocks = []
    for n, (start, end, lang) in enumerate(fences):
        if lang not in PYTHON:
            continue
        before = lines[start - 1].strip() if start else ""
        marker = MARKER.match(before)
        kind = "run" if not marker else ("fragment" if marker["fragment"] else marker["kind"])
        output = None
        if n + 1 < len(fences):
            next_start, next_end, next_lang = fences[n + 1]
            between = lines[end + 1 : next_start]
            if next_lang == "" and all(not line.strip() for line in between):
                output = "\n".join(lines[next_start + 1 : next_end])
        code = "\n".join(lines[start + 1 : end]) + "\n"
        blocks.append(Block(page, start + 1, kind, code, output))
    return blocks


def all_blocks() -> list[Block]:
    return [
        block for page in pages() for block in parse(page.read_text(), str(page.relative_to(ROOT)))
    ]


BLOCKS = all_blocks()


def test_blocks_are_found_in_every_kind_of_page():
    found = {b.page for b in BLOCKS}
    assert "README.md" in found and "core/README.md" in found
    assert {f"plugins/{p.parent.name}/README.md" for p in ROOT.glob("plugins/*/README.md")} <= found
    assert any(page.startswith("docs/") for page in found)
    assert {b.kind for b in BLOCKS} >= {"run", "fragment"}


def test_the_parser_tells_programs_fragments_and_outputs_apart():
    text = (
        "<!-- fragment -->\n```python\nx = y\n```\n\n"
        "```python\nprint(1)\n```\n\n```\n1\n```\n"
        "Prose.\n\n```python\nprint(2)\n```\n\n```bash\nls\n```\n"
        "<!-- test: jaeger -->\n```python\npass\n```\n"
    )
    blocks = parse(text)
    assert [(b.kind, b.output) for b in blocks] == [
        ("fragment", None),
        ("run", "1"),
        ("run", None),
        ("jaeger", None),
    ]
    assert blocks[1].code == "print(1)\n" and blocks[1].line == 6


@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_every_block_compiles(block):
    compile(block.code, block.id, "exec")


RUNNABLE = [b for b in BLOCKS if b.kind == "run"]


@pytest.mark.parametrize("block", RUNNABLE, ids=[b.id for b in RUNNABLE])
def test_runnable_block_runs_offline_and_prints_what_the_page_shows(block, tmp_path):
    work, script = tmp_path / "cwd", tmp_path / "block.py"
    work.mkdir()
    script.write_text(block.code)
    out = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=work,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert out.returncode == 0, f"{block.id} failed:\n{out.stderr[-3000:]}"
    if block.output is not None:
        got = [line.rstrip() for line in out.stdout.strip().splitlines()]
        assert got == [line.rstrip() for line in block.output.strip().splitlines()], block.id
    left = sorted(p.name for p in work.iterdir())
    assert left == [], f"{block.id} left files in the working directory: {left}"


# -- the READMEs PyPI shows ---------------------------------------------------------------
PUBLISHED = [ROOT / "core" / "README.md", *sorted(ROOT.glob("plugins/*/README.md"))]
PUBLISHED.append(ROOT / "contrib" / "plugin-template" / "README.md")
LINK = re.compile(r"\]\(([^)\s]+)")
CODE_SPAN = re.compile(r"`([^`\n]+)`")


def prose(text: str) -> str:
    """``text`` without its fenced blocks (commands and programs are checked above)."""
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


@pytest.mark.parametrize("readme", PUBLISHED, ids=lambda p: str(p.relative_to(ROOT)))
def test_published_readmes_need_no_repository(readme):
    text = prose(readme.read_text())
    relative = [t for t in LINK.findall(text) if not t.startswith(("https://", "http://", "#"))]
    assert relative == [], f"links that do not work on PyPI: {relative}"
    repo_paths = [
        span
        for span in CODE_SPAN.findall(text)
        if "/" in span
        and " " not in span
        and not span.startswith(("http", "agent_sdk"))
        and (ROOT / span.strip("./")).exists()
    ]
    assert repo_paths == [], f"paths that exist only in the repository: {repo_paths}"
