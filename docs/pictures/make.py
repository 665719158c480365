"""Regenerate the docs' pictures of the demo's trace in the real Jaeger UI (on demand, not CI).

    python docs/pictures/make.py --jaeger-ui DIR [--frameworks ag2,autogen]

For each installed framework: ``agent-sdk demo --framework X --trace-file`` writes the trace
file (for the headline framework also with ``--distributed``: one trace, two services), the
Jaeger UI tools' ``view.sh`` (a static build of jaegertracing/jaeger-ui and a headless-Chromium
script that uploads the file and screenshots each view) takes the pictures, and Pillow crops
the empty space, scales and palettes them. ``DIR`` is the folder holding ``view.sh`` (or set
``AGENT_SDK_JAEGER_UI``); it needs node and Debian's ``chromium``. The span count of every
trace goes to ``pictures.json``, which the captions quote and the docs test checks.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, cast

HERE = Path(__file__).resolve().parent
HEADLINE = "ag2"
"""The framework whose timeline, detail and GenAI view the home and Jaeger pages show."""
VIEWS = {"timeline": "timeline", "detail": "detail", "default-view": "genai"}
TIMELINE = {"timeline": "timeline"}
DISTRIBUTED = "distributed"
"""The headline framework's demo with ``--distributed``: one trace over two services."""
WIDTH = 1200


def installed_frameworks() -> list[str]:
    from agent_sdk.plugins import KNOWN_DISTRIBUTIONS, integrations

    # The published plugins (not, e.g., the plugin template's example, if installed).
    return sorted(i.name for i in integrations() if i.harness and i.name in KNOWN_DISTRIBUTIONS)


def crop(source: Path, target: Path) -> tuple[int, int]:
    """``source`` without the blank rows under the trace, ``WIDTH`` wide, 256 colours (the
    octree keeps the small red error marks that a median cut loses)."""
    from PIL import Image

    image = Image.open(source).convert("RGB")
    gray = image.convert("L")
    width, height = gray.size
    bottom = height
    pixels = gray.load()
    assert pixels is not None
    # A row is blank when (but for the UI's one-pixel column dividers) it is all background.

    def inked(y: int) -> int:
        return sum(cast(int, pixels[x, y]) < 235 for x in range(0, width, 4))

    while bottom > 200 and inked(bottom - 1) < 4:
        bottom -= 1
    image = image.crop((0, 0, width, min(height, bottom + 8)))
    scaled = image.resize((WIDTH, round(image.height * WIDTH / width)), Image.Resampling.LANCZOS)
    scaled.quantize(colors=256, method=Image.Quantize.FASTOCTREE).save(target, optimize=True)
    return scaled.size


def spans_of(trace_file: Path) -> int:
    data = json.loads(trace_file.read_text())
    return sum(len(t.get("spans", [])) for t in data.get("data", []))


class _Shooter:
    """Runs the demo with some arguments, pictures its trace in the Jaeger UI, and notes the
    trace's span count and depth in the index under the picture's name."""

    def __init__(self, view: Path, scratch: Path, out: Path, index: dict[str, Any]) -> None:
        self.view, self.scratch, self.out, self.index = view, scratch, out, index

    def __call__(self, name: str, demo_args: list[str], views: dict[str, str]) -> None:
        trace = self.scratch / f"{name}.json"
        demo = [sys.executable, "-m", "agent_sdk", "demo", *demo_args]
        subprocess.run([*demo, "--trace-file", str(trace)], check=True, capture_output=True)
        shots = self.scratch / name
        seen = subprocess.run(
            ["bash", str(self.view), str(trace), str(shots)],
            check=True,
            capture_output=True,
            text=True,
        )
        report = json.loads(seen.stdout.strip().splitlines()[-1])
        spans = spans_of(trace)
        if report.get("ui_spans") != spans or report.get("page_errors"):
            raise SystemExit(f"{name}: the Jaeger UI showed {report} for {spans} spans")
        for shot, label in views.items():
            size = crop(Path(f"{shots}-{shot}.png"), self.out / f"{name}-{label}.png")
            print(f"{name}-{label}.png {size[0]}x{size[1]}")
        self.index[name] = {"spans": spans, "depth": report.get("depth")}
        print(f"{name}: {spans} spans")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--jaeger-ui",
        default=os.environ.get("AGENT_SDK_JAEGER_UI"),
        help="the folder with the Jaeger UI tools' view.sh (default: $AGENT_SDK_JAEGER_UI)",
    )
    parser.add_argument("--frameworks", help="comma-separated (default: every installed one)")
    parser.add_argument("--out", default=str(HERE), help="where the PNGs go (default: here)")
    args = parser.parse_args(argv)
    if not args.jaeger_ui or not (Path(args.jaeger_ui) / "view.sh").is_file():
        parser.error("--jaeger-ui DIR (or AGENT_SDK_JAEGER_UI) must name the folder of view.sh")
    view = Path(args.jaeger_ui) / "view.sh"
    out = Path(args.out)
    frameworks = args.frameworks.split(",") if args.frameworks else installed_frameworks()
    index_file = out / "pictures.json"
    index = json.loads(index_file.read_text()) if index_file.is_file() else {}
    with tempfile.TemporaryDirectory(prefix="agent-sdk-pictures-") as scratch:
        shoot = _Shooter(view, Path(scratch), out, index)
        for name in frameworks:
            shoot(name, ["--framework", name], VIEWS if name == HEADLINE else TIMELINE)
        if HEADLINE in frameworks:  # the reviewers served by a second process over MCP
            shoot(f"{HEADLINE}-{DISTRIBUTED}", ["--framework", HEADLINE, "--distributed"], TIMELINE)
    index_file.write_text(json.dumps(dict(sorted(index.items())), indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
