"""``agent-sdk serve-mcp``: what it refuses to serve, in one line and exit status 2."""

from __future__ import annotations

import socket

import pytest

from agent_sdk.cli import main


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["mcp_served"], "is not MODULE:ATTR"),
        (["no_such_module_xyz:tools"], "cannot import 'no_such_module_xyz'"),
        (["mcp_served:nope"], "has no attribute 'nope'"),
        (["mcp_served:BACK_URL"], "is a str; serve a Registry"),
        (["mcp_served:tools", "--port", "70000"], "--port must be 0-65535"),
        (["mcp_served:tools", "--max-depth", "0"], "max_depth must be at least 1"),
        (["mcp_served:tools", "--host", "no-such-host.invalid"], "unknown host"),
    ],
)
def test_what_it_cannot_serve_is_one_line(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve-mcp", *argv]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err and err.count("\n") == 1


def test_a_port_in_use_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve-mcp", "mcp_served:tools", "--port", str(port)]) == 2
    assert f"cannot serve on 127.0.0.1:{port}: the port is in use" in capsys.readouterr().err
