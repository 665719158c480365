"""The AutoGen example runs offline, exits 0 and shows what it claims."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).parents[3] / "contrib" / "examples" / "autogen_reviewers.py"


def test_the_reviewers_example_runs(tmp_path: Path) -> None:
    trace_file = tmp_path / "reviewers.json"
    env = {
        **os.environ,
        "AGENT_SDK_PLUGINS": "autogen",
    }  # other plugins' imports are not under test
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), "--trace-file", str(trace_file)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Aggregated verdict (harshest, computed in code): request_changes" in done.stdout
    assert "execute_tool scan_secrets" in done.stdout and trace_file.exists()
    assert done.stderr == "", "the example prints nothing to stderr"
