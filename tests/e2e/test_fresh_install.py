"""A new user's first step: `pip install agent-sdk-<framework>` alone in a fresh venv, and the
integration is discovered with no other code.

CI checks the same from the built wheels in its wheel job (.ci/wheels.py, called by
.ci/run), so the two install tests below are marked ``long`` (run them with --run-long, or
run this file by itself); the copied template's own test run stays in the default run."""

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from e2e_helpers import ROOT, entry_point_name, plugin_dirs

CHECK = """
import json, sys
from agent_sdk import get_integration, integrations
from agent_sdk.plugins import failed_plugins
name = sys.argv[1]
integration = get_integration(name)
print(json.dumps({"names": [i.name for i in integrations()], "failed": [f.error for f in failed_plugins()],
                  "framework": integration.framework, "version": integration.check()}))
"""


def _venv(path: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True, timeout=120)
    return path / "bin" / "python"


def _pip(python: Path, *args: str) -> None:
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    out = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-compile", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert out.returncode == 0, out.stderr[-3000:]


def _install_one(tmp: Path, plugin: Path) -> tuple[Path, dict]:
    python = _venv(tmp / plugin.name)
    _pip(python, str(ROOT / "core"), str(plugin))
    name = entry_point_name(plugin)
    out = subprocess.run(
        [str(python), "-c", CHECK, name], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-3000:]
    import json

    return python, {"name": name, **json.loads(out.stdout.strip().splitlines()[-1])}


@pytest.mark.long
def test_core_alone_lists_no_plugins(tmp_path):
    python = _venv(tmp_path / "core")
    _pip(python, str(ROOT / "core"))
    cli = python.parent / "agent-sdk"
    out = subprocess.run([str(cli), "plugins"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "no plugins installed" in out.stdout
    demo = subprocess.run([str(cli), "demo"], capture_output=True, text=True, timeout=120)
    assert demo.returncode == 2 and "pip install agent-sdk-ag2" in demo.stderr


@pytest.mark.long
def test_each_plugin_installs_alone_and_is_discovered(tmp_path):
    plugins = plugin_dirs()
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda p: _install_one(tmp_path, p), plugins))
    for (python, info), plugin in zip(results, plugins, strict=True):
        assert info["names"] == [info["name"]], f"{plugin.name}: only its own integration: {info}"
        assert info["failed"] == []
        freeze = subprocess.run(
            [str(python), "-m", "pip", "freeze"], capture_output=True, text=True
        ).stdout.lower()
        others = [p for p in plugins if p != plugin]
        for other in others:
            dist = f"agent-sdk-{other.name.replace('_', '-')}"
            assert dist not in freeze, f"{plugin.name} pulled in {dist}"
        out = subprocess.run(
            [str(python.parent / "agent-sdk"), "plugins"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        line = next(line for line in out.stdout.splitlines() if line.startswith(info["name"]))
        assert line.rstrip().endswith("ok"), out.stdout
        # The main job works with nothing else installed, from outside the repo.
        work = tmp_path / f"{plugin.name}-work"
        work.mkdir()
        demo = subprocess.run(
            [
                str(python.parent / "agent-sdk"),
                "demo",
                "--framework",
                info["name"],
                "--trace-file",
                "t.json",
            ],
            capture_output=True,
            text=True,
            timeout=600,
            cwd=work,
        )
        assert demo.returncode == 0, f"{plugin.name}: {demo.stderr[-2000:]}"
        assert "outcome=recursion" in demo.stdout and "Traceback" not in demo.stderr
        shown = subprocess.run(
            [str(python), "-m", "agent_sdk", "trace", "show", "t.json"],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=work,
        )
        assert shown.returncode == 0 and "invoke_workflow" in shown.stdout, shown.stderr
        assert sorted(p.name for p in work.iterdir()) == ["t.json"]  # nothing else left


def test_the_plugin_template_is_a_working_plugin_when_copied(tmp_path):
    """A third party copies contrib/plugin-template, installs it beside core, and it works."""
    import shutil

    copy = tmp_path / "my-plugin"
    shutil.copytree(
        ROOT / "contrib" / "plugin-template",
        copy,
        ignore=shutil.ignore_patterns("*.egg-info", "__pycache__"),
    )
    python = _venv(tmp_path / "venv")
    _pip(python, str(ROOT / "core"), f"{copy}[test]")
    bin_dir = python.parent
    listed = subprocess.run(
        [str(bin_dir / "agent-sdk"), "plugins"], capture_output=True, text=True, timeout=120
    )
    line = next(line for line in listed.stdout.splitlines() if line.startswith("minifw"))
    assert "agent-sdk-minifw" in line and line.rstrip().endswith("ok"), listed.stdout
    tests = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", str(copy / "tests")],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert tests.returncode == 0, tests.stdout[-3000:]
    assert " passed" in tests.stdout and "failed" not in tests.stdout
    demo = subprocess.run(
        [str(bin_dir / "agent-sdk"), "demo", "--framework", "minifw"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert demo.returncode == 0 and "outcome=recursion" in demo.stdout, demo.stderr[-2000:]
