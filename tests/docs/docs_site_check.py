"""The built docs site checked page by page in headless Chromium: what a reader would see
broken (a console error, a failed request, a picture that does not load, a diagram that does
not render, a request that leaves the machine, a page without the pictures it promises)."""

from __future__ import annotations

import functools
import http.server
import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from docs_chromium import Browser

ROOT = Path(__file__).resolve().parents[2]

PLOTS = [f"performance/{name}.png" for name in ("calls", "fanout", "memory", "imports")]
PROMISED: Mapping[str, Sequence[str]] = {
    "index.md": ["pictures/ag2-timeline.png"],
    "quickstart.md": ["pictures/ag2-timeline.png"],
    "jaeger.md": ["pictures/ag2-timeline.png", "pictures/ag2-detail.png", "pictures/ag2-genai.png"],
    "performance.md": PLOTS,
}
"""Pictures a page promises (its prose points at them): the page fails without them."""

READY = (
    "[...document.images].every(i => i.complete)"
    " && document.querySelectorAll('pre.mermaid').length === 0"
)


@dataclass(frozen=True)
class Page:
    source: str
    """The page's markdown file, relative to docs/."""
    url: str
    """The page's path in the site."""


class _Loader(yaml.SafeLoader):
    """mkdocs.yml with its ``!!python/name:`` tags read as plain strings."""


_Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, tag, node: tag)


def nav_pages(config: Path = ROOT / "mkdocs.yml") -> list[Page]:
    nav = yaml.load(config.read_text(), Loader=_Loader)["nav"]

    def leaves(items: Any) -> Iterator[str]:
        for item in items:
            value = next(iter(item.values())) if isinstance(item, dict) else item
            if isinstance(value, list):
                yield from leaves(value)
            elif value.endswith(".md"):
                yield value

    pages = []
    for source in leaves(nav):
        stem = source[: -len(".md")]
        url = (
            ""
            if stem == "index"
            else (stem[: -len("index")] if stem.endswith("/index") else stem + "/")
        )
        pages.append(Page(source, url))
    return pages


def promised(page: Page, docs: Path = ROOT / "docs") -> tuple[list[str], int]:
    """The pictures ``page`` must show (site paths) and how many mermaid diagrams."""
    text = (docs / page.source).read_text()
    diagrams = len(re.findall(r"^```mermaid\s*$", text, flags=re.MULTILINE))
    # Images, not the code that shows how to write one.
    text = re.sub(r"`[^`\n]*`", "", re.sub(r"^```.*?^```", "", text, flags=re.M | re.S))
    base = Path(page.source).parent
    images = [
        str(Path(base, src).as_posix()).removeprefix("./")
        for src in re.findall(r"!\[[^\]]*\]\(([^)\s]+)", text)
        if "://" not in src
    ]
    wanted = list(dict.fromkeys([*PROMISED.get(page.source, []), *images]))
    return wanted, diagrams


@contextmanager
def serve(site: Path) -> Iterator[str]:
    """``site`` over HTTP on 127.0.0.1 (a free port), for the browser."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def check_page(browser: Browser, base: str, page: Page, timeout: float = 20) -> list[str]:
    """What is wrong with ``page`` as the browser shows it, one line each; [] when nothing."""
    wanted, diagrams = promised(page)
    load, session = browser.load(base + page.url, READY, timeout=timeout)
    try:
        problems = [f"{page.source}: {error}" for error in load.errors]
        problems += [
            f"{page.source}: request leaves the machine: {url}"
            for url in load.requests
            if not url.startswith((base, "data:", "blob:", "about:"))
        ]
        images = browser.evaluate(
            session,
            "[...document.images].map(i => [new URL(i.src).pathname, i.naturalWidth,"
            " i.getAttribute('alt') || ''])",
        )
        shown = {}
        for path, width, alt in images:
            shown[path] = width
            if width == 0:
                problems.append(f"{page.source}: picture does not load: {path}")
            elif not alt.strip():
                problems.append(f"{page.source}: picture without alt text: {path}")
        for path in wanted:
            if shown.get("/" + path, 0) == 0 and "/" + path not in shown:
                problems.append(f"{page.source}: promised picture missing: {path}")
        unrendered = browser.evaluate(session, "document.querySelectorAll('pre.mermaid').length")
        svgs = browser.shadow_svgs(session)
        if unrendered:
            problems.append(f"{page.source}: {unrendered} mermaid diagram(s) did not render")
        for text in svgs:
            if not text.strip() or "Syntax error" in text:
                problems.append(f"{page.source}: a mermaid diagram rendered empty or as an error")
        if len(svgs) < diagrams and not unrendered:
            problems.append(f"{page.source}: {diagrams} mermaid diagrams, {len(svgs)} rendered")
        return problems
    finally:
        browser.close(session)
