"""The docs cannot drift: the site builds strictly, the Jaeger page's code exports to a real
OTLP receiver, and the compose file is what the page describes. (Every Python block of the
docs and READMEs runs or compiles: test_snippets.py.)"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from agent_sdk.testing.otlp import OTLPReceiver

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
BLOCK = re.compile(
    r"<!-- test: (?P<kind>\w+) -->\n```python\n(?P<code>.*?)```\n(?:\n```\n(?P<output>.*?)```)?",
    re.S,
)


def blocks(kind):
    found = []
    for page in sorted(DOCS.rglob("*.md")):
        for i, m in enumerate(BLOCK.finditer(page.read_text())):
            if m["kind"] == kind:
                found.append(
                    pytest.param(m["code"], m["output"], id=f"{page.relative_to(DOCS)}#{i}")
                )
    return found


def run_python(code, tmp_path, env=None):
    script = tmp_path / "block.py"
    script.write_text(code)
    return subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, **(env or {})},
    )


def test_there_is_one_jaeger_block():
    # Every other Python block of the docs and READMEs: tests/docs/test_snippets.py.
    assert len(blocks("jaeger")) == 1


@pytest.mark.parametrize(("code", "output"), blocks("jaeger"))
def test_jaeger_page_exports_to_an_otlp_endpoint(code, output, tmp_path):
    with OTLPReceiver() as receiver:
        out = run_python(code, tmp_path, {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url})
        assert out.returncode == 0, out.stderr[-3000:]
        spans = list(receiver.spans())
    run_id = out.stdout.split("run id:")[1].strip()
    assert {service for service, _, _ in spans} == {"contract-review"}
    names = {s.name for _, _, s in spans}
    assert names == {"invoke_workflow review", "execute_tool legal", "invoke_agent legal"}
    for _, _, span in spans:
        attrs = {a.key: a.value.string_value for a in span.attributes}
        assert attrs["agent_sdk.run_id"] == run_id


def test_compose_file_runs_jaeger_v2_with_otlp_and_the_ui():
    compose = yaml.safe_load((ROOT / "contrib" / "jaeger" / "docker-compose.yml").read_text())
    service = compose["services"]["jaeger"]
    assert re.fullmatch(r"jaegertracing/jaeger:2\.\d+\.\d+", service["image"])
    assert {"16686:16686", "4317:4317", "4318:4318"} <= set(service["ports"])


def _docker_compose() -> str | None:
    docker = shutil.which("docker")
    if (
        docker
        and subprocess.run([docker, "compose", "version"], capture_output=True).returncode == 0
    ):
        return docker
    return None


@pytest.mark.skipif(_docker_compose() is None, reason="docker compose is not installed here")
def test_docker_compose_accepts_the_jaeger_file():
    checked = subprocess.run(
        [
            _docker_compose(),
            "compose",
            "-f",
            str(ROOT / "contrib" / "jaeger" / "docker-compose.yml"),
            "config",
        ],
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0, checked.stderr


def test_site_builds_strictly(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-4000:]
    framework_page = (tmp_path / "site" / "frameworks" / "ag2" / "index.html").read_text()
    assert "ag2_agent_tool" in framework_page, "framework pages include the plugin READMEs"
    assert "ToolSpec" in (tmp_path / "site" / "reference" / "index.html").read_text()


def test_readme_has_the_two_fresh_machine_commands():
    readme = (ROOT / "README.md").read_text()
    block = readme.split("## Two commands for a fresh machine")[1].split("```")[1]
    commands = [line.split("#")[0].strip() for line in block.strip().splitlines()]
    assert commands == ["./dev demo", "./dev test"]
    ci = (ROOT / ".ci" / "run").read_text()
    assert "./dev test" in ci
