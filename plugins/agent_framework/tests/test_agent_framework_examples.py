"""The Microsoft Agent Framework example runs offline, exits 0 and shows what it claims (it
asserts the cut circle and the trace itself)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).parents[3] / "contrib" / "examples" / "agent_framework_reviewers.py"


def test_the_reviewers_example_runs(tmp_path: Path) -> None:
    trace_file = tmp_path / "reviewers.json"
    env = {**os.environ, "AGENT_SDK_PLUGINS": "agent-framework"}  # only this plugin loads
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), "--trace-file", str(trace_file)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "max_depth=2: 'collected', harshest verdict (in code): reject" in done.stdout
    assert "outcome=depth-exceeded" in done.stdout and "outcome=recursion" in done.stdout
    assert trace_file.exists() and done.stderr == "", "the example prints nothing to stderr"
