"""Headless Chromium driven over the DevTools protocol (websockets, no browser download):
load a page, collect its console errors, failed loads and exceptions, evaluate scripts and
read the DOM, closed shadow roots included (Material renders mermaid diagrams into one)."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from websockets.sync.client import ClientConnection, connect

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--remote-debugging-port=0",
]


def find_chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@dataclass
class PageLoad:
    url: str
    errors: list[str] = field(default_factory=list)
    """Console errors, uncaught exceptions and failed requests, in the browser's words."""
    requests: list[str] = field(default_factory=list)
    """Every URL the page asked for."""


class Browser:
    def __init__(self, ws: ClientConnection) -> None:
        self._ws = ws
        self._ids = itertools.count(1)
        self._events: list[dict[str, Any]] = []

    def send(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        """The result of one command; events that arrive meanwhile are kept for ``drain``."""
        ident = next(self._ids)
        message: dict[str, Any] = {"id": ident, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        self._ws.send(json.dumps(message))
        while True:
            reply = json.loads(self._ws.recv(timeout=30))
            if reply.get("id") == ident:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return dict(reply.get("result", {}))
            self._events.append(reply)

    def drain(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            try:
                self._events.append(json.loads(self._ws.recv(timeout=left)))
            except TimeoutError:
                return

    def load(self, url: str, ready: str, timeout: float = 20) -> tuple[PageLoad, str]:
        """Open ``url`` in a fresh tab and wait until the script ``ready`` is true (or
        ``timeout``); the page's errors and the tab's session (closed with ``close``)."""
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable", session)
        self._events.clear()
        self.send("Page.navigate", session, url=url)
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.evaluate(session, f"document.readyState === 'complete' && ({ready})"):
                break
            self.drain(0.1)
        self.drain(0.2)  # late console messages of the last render
        page = PageLoad(url)
        page.errors = [e for e in map(_error, self._events) if e]
        page.requests = [
            e["params"]["request"]["url"]
            for e in self._events
            if e.get("method") == "Network.requestWillBeSent"
        ]
        self._events.clear()
        return page, session

    def evaluate(self, session: str, expression: str) -> Any:
        result = self.send("Runtime.evaluate", session, expression=expression, returnByValue=True)[
            "result"
        ]
        return result.get("value")

    def shadow_svgs(self, session: str) -> list[str]:
        """For every ``div.mermaid`` (a rendered diagram): the text of the svg in its shadow
        root, "" when it has none."""
        root = self.send("DOM.getDocument", session, depth=-1, pierce=True)["root"]
        found: list[str] = []
        for node in _walk(root):
            attributes = node.get("attributes", [])
            classes = dict(zip(attributes[::2], attributes[1::2], strict=False)).get("class", "")
            if node.get("nodeName") == "DIV" and "mermaid" in classes.split():
                svgs = [n for s in node.get("shadowRoots", []) for n in _walk(s)]
                svg = next((n for n in svgs if n.get("nodeName", "").lower() == "svg"), None)
                found.append(_text(svg) if svg else "")
        return found

    def close(self, session: str) -> None:
        target = self.send("Target.getTargetInfo", session)["targetInfo"]["targetId"]
        self.send("Target.closeTarget", targetId=target)


def _walk(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield node
    for child in node.get("children", []):
        yield from _walk(child)
    for shadow in node.get("shadowRoots", []):
        yield from _walk(shadow)


def _text(node: dict[str, Any]) -> str:
    return " ".join(n.get("nodeValue", "") for n in _walk(node) if n.get("nodeType") == 3)


def _error(event: dict[str, Any]) -> str | None:
    method, params = event.get("method"), event.get("params", {})
    if method == "Runtime.exceptionThrown":
        details = params.get("exceptionDetails", {})
        return "exception: " + str(details.get("exception", {}).get("description") or details)
    if method == "Runtime.consoleAPICalled" and params.get("type") == "error":
        return "console: " + " ".join(
            str(a.get("value", a.get("description"))) for a in params["args"]
        )
    if method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
        entry = params["entry"]
        return f"log: {entry.get('text')} {entry.get('url', '')}".strip()
    if method == "Network.loadingFailed" and not params.get("canceled"):
        return f"request failed: {params.get('errorText')}"
    return None


@contextmanager
def chromium(binary: str) -> Iterator[Browser]:
    """A headless Chromium with a fresh profile, stopped on exit."""
    # Chromium's helper processes may still write to the profile after the browser exits:
    # they share its process group, which is ended as a whole, and a file left behind by a
    # dying helper does not fail the test.
    with tempfile.TemporaryDirectory(
        prefix="agent-sdk-chromium-", ignore_cleanup_errors=True
    ) as profile:
        process = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            url = _devtools_url(process)
            # Chromium keeps writing to stderr: drain it, or a full pipe stalls the browser.
            threading.Thread(target=process.stderr.read, daemon=True).start()  # type: ignore[union-attr]
            with connect(url, max_size=None, open_timeout=30) as ws:
                yield Browser(ws)
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)  # the helpers left, if any


def _devtools_url(process: subprocess.Popen[str]) -> str:
    assert process.stderr is not None
    seen = []
    for line in process.stderr:
        seen.append(line)
        match = re.search(r"DevTools listening on (ws://\S+)", line)
        if match:
            return match.group(1)
        if len(seen) > 200:
            break
    raise RuntimeError("chromium did not start its DevTools endpoint:\n" + "".join(seen[-20:]))
