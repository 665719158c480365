"""The command behaves as a user expects: ``python -m agent_sdk``, no traceback on a closed
pipe, no temp files left behind, unknown names answered with the known ones."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import agent_sdk


def cli(
    *args: str, env: dict[str, str] | None = None, **kw: object
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agent_sdk", *args],
        capture_output=True,
        text=True,
        timeout=120,
        # The core tests switch plugin loading off for themselves; the command gets it back.
        env={**os.environ, "AGENT_SDK_DISABLE_PLUGIN_AUTOLOAD": "", **(env or {})},
        **kw,  # type: ignore[arg-type]
    )


def test_python_dash_m_is_the_command():
    out = cli("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"agent-sdk {agent_sdk.__version__}"


def test_a_closed_pipe_ends_quietly(tmp_path):
    spans = [
        {"spanID": f"s{i}", "operationName": f"op {i}", "references": []} for i in range(20000)
    ]
    trace = tmp_path / "t.json"
    trace.write_text(json.dumps({"data": [{"traceID": "t", "spans": spans}]}))
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_sdk", "trace", "show", str(trace)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()  # read one line, then go away like `| head -1`
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


def test_an_unknown_framework_is_answered_with_the_known_ones():
    out = cli("demo", "--framework", "nope")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    from agent_sdk.plugins import KNOWN_DISTRIBUTIONS

    assert {"ag2", "autogen", "fast-agent", "openai-agents"} <= set(KNOWN_DISTRIBUTIONS)
    assert f"known integrations: {', '.join(sorted(KNOWN_DISTRIBUTIONS))}" in out.stderr
    assert "pip install agent-sdk-nope" not in out.stderr


def test_the_demo_leaves_no_temp_files(tmp_path):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    out = cli(
        "demo",
        "--framework",
        "minifw",
        env={"TMPDIR": str(scratch), "AGENT_SDK_PLUGINS": "minifw"},
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    assert "invoke_workflow" in out.stdout  # the trace was printed from the temp file
    assert list(scratch.iterdir()) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["tmp"]
    assert tempfile.gettempdir() != str(scratch)  # this process's own temp dir is untouched


def test_plugins_are_listed_sorted():
    out = cli("plugins")
    names = [line.split()[0] for line in out.stdout.splitlines()[2:] if line.strip()]
    assert names == sorted(names) and len(names) >= 4
    assert Path(agent_sdk.__file__).exists()


# -- no traceback for a terminal user (issue 27, findings 7, 10 and 12) --------------------
def test_an_internal_error_is_one_line_and_its_own_exit_code(monkeypatch, capsys, tmp_path):
    """The last-resort handler: a bug in a command is reported in one line, the traceback
    only with -v; the exit code is the one the help documents."""
    from agent_sdk import cli as command

    def broken(args):
        raise RuntimeError("the bug\nsecond line")

    monkeypatch.setattr(command, "cmd_trace_show", broken)
    assert command.main(["trace", "show", str(tmp_path / "t.json")]) == command.EXIT_INTERNAL
    err = capsys.readouterr().err
    assert (
        err
        == "agent-sdk: internal error: RuntimeError: the bug second line (-v shows the traceback)\n"
    )
    for argv in (["-v", "trace", "show", "x"], ["trace", "show", "--verbose", "x"]):
        assert command.main(argv) == command.EXIT_INTERNAL
        err = capsys.readouterr().err
        assert "Traceback (most recent call last)" in err and "in broken" in err
        assert err.rstrip().endswith("agent-sdk: internal error: RuntimeError: the bug second line")


def test_the_help_documents_the_exit_codes():
    from agent_sdk import cli as command

    out = cli("--help")
    assert out.returncode == 0
    for code in ("0 ", "2 ", f"{command.EXIT_INTERNAL} ", "130 "):
        assert f"\n  {code}" in out.stdout, out.stdout


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def one_line_error(out: subprocess.CompletedProcess[str], *expected: str) -> None:
    assert out.returncode == 2, (out.returncode, out.stdout, out.stderr)
    assert "Traceback" not in out.stderr and out.stderr.count("\n") == 1, out.stderr
    assert out.stderr.startswith("agent-sdk: "), out.stderr
    for text in expected:
        assert text in out.stderr, out.stderr


def test_serve_scripted_on_a_port_in_use_says_so():
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        out = cli("serve-scripted", "--port", str(port))
    one_line_error(out, f"127.0.0.1:{port}", "in use")


def test_serve_scripted_on_a_port_out_of_range_says_so():
    one_line_error(cli("serve-scripted", "--port", "99999"), "99999", "0-65535")


def test_serve_scripted_on_an_unknown_host_says_so():
    one_line_error(
        cli("serve-scripted", "--host", "no-such-host.invalid"),
        "no-such-host.invalid",
    )


# The exporter's own setting: an export to a dead URL gives up after 1 s (its default is 10 s
# of retries), so the failing case stays short.
MINIFW = {"AGENT_SDK_PLUGINS": "minifw", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "1"}


def test_demo_says_when_the_otlp_export_failed(tmp_path):
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    out = cli("demo", "--framework", "minifw", "--otlp", url, env=MINIFW, cwd=tmp_path)
    assert "trace exported to" not in out.stdout
    assert "invoke_workflow" in out.stdout  # the run itself worked and was shown
    one_line_error(out, f"not exported to {url}", "refused")


def test_demo_says_when_the_otlp_export_worked(tmp_path):
    from agent_sdk.testing.otlp import OTLPReceiver

    with OTLPReceiver() as receiver:
        out = cli("demo", "--framework", "minifw", "--otlp", receiver.url, env=MINIFW)
        assert out.returncode == 0, out.stderr
        assert f"trace exported to {receiver.url}" in out.stdout and out.stderr == ""
        services = {service for service, _, _ in receiver.spans()}
    assert services == {"agent-sdk-demo"}
