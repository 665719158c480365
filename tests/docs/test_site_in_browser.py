"""The docs site as a reader sees it: built strictly, every nav page loaded in headless
Chromium (Debian's; ``.ci/run`` installs it), no console error, no failed or off-machine
request, every picture loaded, every mermaid diagram rendered, every promised picture shown.
And the check itself fails on a site with a picture removed and a diagram broken."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from docs_chromium import chromium, find_chromium
from docs_site_check import ROOT, Page, check_page, nav_pages, serve

CHROMIUM = find_chromium()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    assert CHROMIUM, "chromium is not installed (apt-get install -y chromium)"
    out = tmp_path_factory.mktemp("site") / "site"
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert built.returncode == 0, built.stderr[-4000:]
    return out


def test_every_nav_page_shows_its_pictures_and_diagrams_without_errors(site: Path) -> None:
    assert CHROMIUM
    pages = nav_pages()
    assert len(pages) > 20
    problems: list[str] = []
    with serve(site) as base, chromium(CHROMIUM) as browser:
        for page in pages:
            problems += check_page(browser, base, page)
    assert not problems, "\n".join(problems)


def test_the_check_reports_a_removed_picture_and_a_broken_diagram(
    site: Path, tmp_path: Path
) -> None:
    assert CHROMIUM
    broken = tmp_path / "site"
    shutil.copytree(site, broken)
    (broken / "pictures" / "ag2-genai.png").unlink()
    approvals = broken / "concepts" / "approvals" / "index.html"
    html = approvals.read_text()
    # The first diagram's source with a line mermaid cannot parse.
    html, count = re.subn(
        r'(<pre class="mermaid"><code>)', r"\1participant -&gt;&gt; ((\n", html, count=1
    )
    assert count == 1
    approvals.write_text(html)
    with serve(broken) as base, chromium(CHROMIUM) as browser:
        jaeger = check_page(browser, base, Page("jaeger.md", "jaeger/"), timeout=10)
        diagrams = check_page(
            browser, base, Page("concepts/approvals.md", "concepts/approvals/"), timeout=3
        )
        intact = check_page(browser, base, Page("concepts/tools.md", "concepts/tools/"))
    assert any("picture does not load: /pictures/ag2-genai.png" in p for p in jaeger), jaeger
    assert any("did not render" in p for p in diagrams), diagrams
    assert intact == [], "an intact page of the same copy passes"


def test_the_captions_count_the_spans_of_the_pictured_traces() -> None:
    """pictures.json is written by docs/pictures/make.py from the trace files it pictured;
    every caption that names a framework's span count quotes it."""
    index = json.loads((ROOT / "docs" / "pictures" / "pictures.json").read_text())
    quoted = 0
    for page in ("index.md", "quickstart.md", "jaeger.md", "across-hosts.md"):
        text = (ROOT / "docs" / page).read_text()
        for framework, spans in re.findall(
            r"<!-- spans: ([\w-]+) -->.*?(\d+)\s+spans", text, re.DOTALL
        ):
            assert int(spans) == index[framework]["spans"], (page, framework)
            quoted += 1
    assert quoted >= 4


def test_the_pictured_span_count_is_the_demos(tmp_path: Path) -> None:
    """The demo is deterministic in span count (the contract's C13 skeleton), so a fresh
    trace of the headline framework has the count the pictures and captions show."""
    index = json.loads((ROOT / "docs" / "pictures" / "pictures.json").read_text())
    trace = tmp_path / "trace.json"
    demo = [sys.executable, "-m", "agent_sdk", "demo", "--framework", "ag2"]
    ran = subprocess.run(
        [*demo, "--trace-file", str(trace)], capture_output=True, text=True, timeout=120
    )
    assert ran.returncode == 0, ran.stderr[-2000:]
    spans = sum(len(t["spans"]) for t in json.loads(trace.read_text())["data"])
    assert spans == index["ag2"]["spans"]
