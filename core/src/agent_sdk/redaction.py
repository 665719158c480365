"""Exception text that is safe to show a model or a log: no host paths, no secrets."""

from __future__ import annotations

import json
import os
import re

_PATH = re.compile(r"(?<![\w.])(?:[A-Za-z]:\\|/)(?:[\w.\-~]+(?: [\w.\-~]+)*[/\\])+[\w.\-~]*")


def safe_message(exc: BaseException, *, limit: int = 500) -> str:
    """An exception as a short message with host paths and environment values removed."""
    try:
        detail = str(exc)
    except Exception:  # an exception whose __str__ fails still gets a message
        detail = ""
    text = f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__
    # Environment values first (a value may contain '/'), also as repr() and JSON spell
    # them (a KeyError shows repr(value)); then host paths.
    for value in os.environ.values():
        if len(value) >= 8:
            for form in {value, repr(value)[1:-1], json.dumps(value)[1:-1]}:
                if form in text:
                    text = text.replace(form, "<redacted>")
    text = _PATH.sub("<path>", text)
    return text[:limit]
