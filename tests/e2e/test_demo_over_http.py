"""`agent-sdk demo` over real HTTP: against a scripted endpoint in another process exactly as
against a real one, and one clear line (no traceback) when the endpoint cannot serve it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from e2e_helpers import entry_point_name, plugin_dirs

from agent_sdk import demo
from agent_sdk.scripted import Turn
from agent_sdk.scripted.server import ScriptedServer

HTTP_FRAMEWORKS = [n for n in map(entry_point_name, plugin_dirs()) if n != "minifw"]


def agent_sdk(*args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 300):
    return subprocess.run(
        [sys.executable, "-m", "agent_sdk", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env={**os.environ, **(env or {})},
    )


def test_the_embedded_scripted_server_is_used_over_http(tmp_path):
    out = agent_sdk("demo", "--framework", "ag2", cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "model: scripted at http://127.0.0.1:" in out.stdout
    assert "(chat; scripted server)" in out.stdout


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """`agent-sdk serve-scripted` in its own process."""
    process = subprocess.Popen(
        [sys.executable, "-m", "agent_sdk", "serve-scripted"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path_factory.mktemp("server"),
    )
    try:
        line = process.stdout.readline()
        assert line.startswith("serving the demo's scripted model at http://127.0.0.1:"), (
            line + process.stderr.read()
        )
        yield line.rsplit(" ", 1)[1].strip()
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.mark.parametrize("framework", HTTP_FRAMEWORKS)
@pytest.mark.parametrize(
    "options",
    [(), pytest.param(("--stream",), marks=pytest.mark.long)],  # C13 streams the demo too
    ids=["plain", "stream"],
)
def test_demo_against_a_separate_endpoint_process(served, framework, options, tmp_path):
    trace = tmp_path / "t.json"
    out = agent_sdk(
        "demo",
        "--framework",
        framework,
        "--base-url",
        served,
        "--model",
        "scripted",
        "--trace-file",
        str(trace),
        *options,
        cwd=tmp_path,
        env={"OPENAI_API_KEY": "sk-demo"},
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert f"model: scripted at {served}" in out.stdout
    assert "harshest verdict (computed in code): reject" in out.stdout
    assert "send_verdict: sent verdict 'reject' to ACME GmbH" in out.stdout
    total = out.stdout.split("\ntotal", 1)[1].split()
    assert int(total[2]) > 0 and int(total[3]) > 0, "tokens from the endpoint's usage"
    assert "outcome=recursion" in out.stdout
    json.loads(trace.read_text())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("framework", HTTP_FRAMEWORKS)
def test_endpoint_failures_end_in_one_clear_line(framework, tmp_path):
    silent = demo.script()
    silent[demo.PROMPTS["consult"]] = [Turn.say("I would rather not use tools.")]
    with (
        ScriptedServer(demo.script(), api_key="sk-right") as keyed,
        ScriptedServer(demo.script(), models=["gpt-x"]) as models,
        ScriptedServer(silent) as chatty,
    ):
        cases = {
            "unreachable": (f"http://127.0.0.1:{_free_port()}/v1", "m", "cannot reach"),
            "key": (keyed.url, "m", "refused the API key (401)"),
            "model": (models.url, "nope", "does not know the model 'nope'"),
            "no tools": (chatty.url, "m", "never called the reviewer tools"),
        }

        def attempt(case: str):
            url, model, _ = cases[case]
            folder = tmp_path / case.replace(" ", "-")
            folder.mkdir()
            return agent_sdk(
                "demo",
                "--framework",
                framework,
                "--base-url",
                url,
                "--model",
                model,
                "--trace-file",
                str(folder / "t.json"),
                cwd=folder,
                env={"OPENAI_API_KEY": "sk-wrong"},
                timeout=240,
            )

        with ThreadPoolExecutor(4) as pool:
            outcomes = dict(zip(cases, pool.map(attempt, cases), strict=True))
    for case, out in outcomes.items():
        url, _, expected = cases[case]
        assert out.returncode == 2, (case, out.stdout[-2000:], out.stderr[-2000:])
        lines = out.stderr.strip().splitlines()
        assert "Traceback" not in out.stderr, (case, out.stderr[-3000:])
        assert any(expected in line and url.split("/v1")[0] in line for line in lines), (
            case,
            out.stderr[-2000:],
        )
        trace = tmp_path / case.replace(" ", "-") / "t.json"
        spans = [s for t in json.loads(trace.read_text())["data"] for s in t["spans"]]
        assert any(s["operationName"] == "invoke_workflow contract-review" for s in spans), case
