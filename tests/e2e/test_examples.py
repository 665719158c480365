"""Every example in contrib/examples runs offline and exits 0 (each asserts what it shows)."""

import subprocess
import sys

import pytest
from e2e_helpers import ROOT

EXAMPLES = sorted((ROOT / "contrib" / "examples").glob("*.py"))


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.name for e in EXAMPLES])
def test_example_runs(example, tmp_path):
    out = subprocess.run(
        [sys.executable, str(example)], capture_output=True, text=True, timeout=180, cwd=tmp_path
    )
    assert out.returncode == 0, (
        f"{example.name} failed:\n{out.stdout[-2000:]}\n{out.stderr[-4000:]}"
    )
    assert out.stdout.strip(), f"{example.name} printed nothing"
