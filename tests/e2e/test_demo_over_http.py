"""`agent-sdk demo` over real HTTP: against a scripted endpoint in another process exactly as
against a real one, and one clear line (no traceback) when the endpoint cannot serve it."""

from __future__ import annotations

import asyncio
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


@pytest.mark.parametrize("framework", ["openai-agents", "agent-framework", "pydantic-ai"])
def test_the_demos_runs_share_one_client_so_the_trace_has_no_empty_setup(framework, monkeypatch):
    # A new AsyncOpenAI costs tens of milliseconds of TLS set-up: made per orchestrator run
    # (to build the agent, then for the run's loop), it was drawn as empty workflow span
    # before each run. Now: one the agents are built with, one the loop's runs share.
    from agent_sdk.plugins import get_integration
    from agent_sdk.scripted.endpoint import Endpoint

    made: list[Endpoint] = []
    original = Endpoint.openai_client

    def counted(self: Endpoint) -> object:
        made.append(self)
        return original(self)

    monkeypatch.setattr(Endpoint, "openai_client", counted)
    with ScriptedServer(demo.script()) as server:
        harness = demo.load_demo_harness(
            get_integration(framework), Endpoint(server.url, "scripted")
        )

        async def main() -> list[str | None]:
            async with harness.openai_connection():
                return [
                    (
                        await demo._orchestrate(harness, [], [Turn.say("ready")], demo.READY)
                    ).final_text
                    for _ in range(3)
                ]

        assert asyncio.run(main()) == ["ready"] * 3
    assert len(made) == 2, made


def test_a_plain_http_endpoint_loads_no_ca_bundle_and_https_keeps_the_default() -> None:
    from agent_sdk.scripted.endpoint import Endpoint

    plain = Endpoint("http://127.0.0.1:9/v1", "m").http_client()
    assert plain is not None and plain._transport._pool._ssl_context.get_ca_certs() == []
    assert Endpoint("https://api.example.com/v1", "m").http_client() is None
    client = Endpoint("https://api.example.com/v1", "m", api_key="k").openai_client()
    assert client._client._transport._pool._ssl_context.get_ca_certs() != []
