"""The scripted server answers every request, however malformed (issue 27, finding 9).

Bodies nested too deep, lengths that are not numbers or over the cap, requests that stop
halfway, protocol errors and wrong types each get a well-formed HTTP response with OpenAI's
error body (``{"error": {"message", "type", "param", "code"}}``) and nothing on stderr; idle
half-sent requests hold at most ``max_connections`` threads, the rest are turned away with
503. Everything here goes over real sockets: raw ``socket`` where the bytes must be wrong,
``http.client`` for the rest.
"""

from __future__ import annotations

import http.client
import json
import socket
import string
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_sdk.scripted import Turn
from agent_sdk.scripted.server import ScriptedServer

CHAT = "/v1/chat/completions"
KEY = "[fuzz-script]"
WAIT = 10.0  # the longest any client here waits for an answer (none should come close)


@pytest.fixture(autouse=True)
def _nothing_on_stderr(capfd: pytest.CaptureFixture[str]) -> Iterator[None]:
    """No traceback (nor any log line) reaches the server's terminal."""
    yield
    assert capfd.readouterr().err == ""


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def error(self) -> dict[str, Any]:
        """The OpenAI error body, checked for shape."""
        assert self.headers.get("content-type") == "application/json", self.headers
        body = json.loads(self.body)
        assert list(body) == ["error"], body
        assert set(body["error"]) == {"message", "type", "param", "code"}, body
        assert isinstance(body["error"]["message"], str) and body["error"]["message"]
        return dict(body["error"])


def answers(data: bytes) -> list[Answer]:
    """Every HTTP response in ``data``, checked for framing (status line, headers, length)."""
    found = []
    while data:
        head, end, rest = data.partition(b"\r\n\r\n")
        assert end, f"a response cut off in its headers: {data[:300]!r}"
        status_line, *lines = head.decode("latin-1").split("\r\n")
        version, status, _reason = status_line.split(" ", 2)
        assert version in ("HTTP/1.0", "HTTP/1.1") and status.isdigit(), status_line
        headers = {}
        for line in lines:
            name, colon, value = line.partition(":")
            assert colon, f"a malformed response header {line!r}"
            headers[name.strip().lower()] = value.strip()
        if 100 <= int(status) < 200:
            body, data = b"", rest
        elif "content-length" in headers:
            length = int(headers["content-length"])
            body, data = rest[:length], rest[length:]
            assert len(body) == length, f"a body cut off at {len(body)} of {length} bytes"
        else:  # a stream: the connection's close ends it
            assert headers.get("connection") == "close", headers
            body, data = rest, b""
        found.append(Answer(int(status), headers, body))
    return found


def exchange(server: ScriptedServer, data: bytes, *, finish: bool = True) -> list[Answer]:
    """Send ``data`` on a fresh connection (then end the sending side if ``finish``) and read
    until the server closes it."""
    with socket.create_connection(_address(server), timeout=WAIT) as s:
        s.sendall(data)
        if finish:
            s.shutdown(socket.SHUT_WR)
        return answers(_read_to_end(s))


def _read_to_end(s: socket.socket) -> bytes:
    received = b""
    while chunk := s.recv(65536):
        received += chunk
    return received


def _address(server: ScriptedServer) -> tuple[str, int]:
    host, port = server.url.removeprefix("http://").removesuffix("/v1").split(":")
    return host, int(port)


def post(path: str, body: bytes, *headers: str) -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: x", *headers]
    if not any(h.lower().startswith(("content-length:", "transfer-encoding:")) for h in headers):
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def chat_body(**extra: Any) -> dict[str, Any]:
    messages = [{"role": "system", "content": KEY}, {"role": "user", "content": "hi"}]
    return {"model": "m", "messages": messages, **extra}


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer({KEY: [Turn.say("fine")] * 3}) as s:
        yield s


def assert_still_serving(server: ScriptedServer) -> None:
    [ok] = exchange(server, post(CHAT, json.dumps(chat_body()).encode(), "Connection: close"))
    assert ok.status == 200 and json.loads(ok.body)["choices"][0]["message"]["content"] == "fine"


# -- bodies ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        b"[" * 50_000 + b"]" * 50_000,
        b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
        json.dumps(chat_body(metadata={"deep": json.loads("[" * 500 + "]" * 500)})).encode(),
    ],
    ids=["array-50000", "object-50000", "500-inside-a-valid-request"],
)
def test_a_body_nested_too_deep_gets_400(server, body) -> None:
    [answer] = exchange(server, post(CHAT, body, "Connection: close"))
    assert answer.status == 400
    error = answer.error()
    assert error["type"] == "invalid_request_error" and "nest" in error["message"]
    assert_still_serving(server)


def test_a_body_that_is_not_json_gets_400_on_a_kept_alive_connection(server) -> None:
    """A refused body that was read whole leaves the connection usable."""
    good = post(CHAT, json.dumps(chat_body()).encode())
    data = post(CHAT, b"\xff\xfe not json") + post(CHAT, b"1" * 5000) + good
    bad, huge, ok = exchange(server, data)
    assert (bad.status, huge.status, ok.status) == (400, 400, 200)
    assert "parse the JSON body" in bad.error()["message"]
    assert huge.error()["type"] == "invalid_request_error"


# -- lengths --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "lengths",
    [["abc"], ["-1"], ["+5"], ["1_0"], ["0x10"], [""], ["5, 6"], ["5", "6"]],
    ids=["abc", "minus-1", "plus", "underscore", "hex", "empty", "list", "two-differing"],
)
def test_a_content_length_that_is_not_one_number_gets_400(server, lengths) -> None:
    """Before: ``abc`` was a traceback and no answer, ``-1`` read to the end of the stream
    (this client never ends it: it waits for the answer)."""
    headers = [f"Content-Length: {v}" for v in lengths]
    [answer] = exchange(server, post(CHAT, b"{}", *headers), finish=False)
    assert answer.status == 400, answer
    assert "Content-Length" in answer.error()["message"]
    assert answer.headers["connection"] == "close"  # where the next request starts is unknown
    assert_still_serving(server)


def test_the_same_length_twice_is_one_length(server) -> None:
    body = json.dumps(chat_body()).encode()
    length = f"Content-Length: {len(body)}"
    [answer] = exchange(server, post(CHAT, body, length, length, "Connection: close"))
    assert answer.status == 200


def test_a_body_over_the_cap_gets_413_before_it_is_read() -> None:
    with ScriptedServer({KEY: [Turn.say("fine")]}, max_body_bytes=1000) as server:
        for declared in ("1001", "1000000000000", "9" * 5000):
            [answer] = exchange(
                server, post(CHAT, b"", f"Content-Length: {declared}"), finish=False
            )
            assert answer.status == 413, declared
            assert "1000 bytes" in answer.error()["message"]
        # A client that waits for 100 Continue gets the 413 instead, and sends nothing.
        data = post(CHAT, b"", "Content-Length: 5000", "Expect: 100-continue")
        [answer] = exchange(server, data, finish=False)
        assert answer.status == 413
        # Within the cap, a real client is served.
        connection = http.client.HTTPConnection(*_address(server), timeout=WAIT)
        connection.request("POST", CHAT, json.dumps(chat_body()), {"Expect": "100-continue"})
        assert connection.getresponse().status == 200
        connection.close()


def test_a_client_sending_too_much_reads_the_413() -> None:
    """The server reads and discards the rest of the body before it closes: closing on unread
    data resets the connection, and http.client (which sends the whole body before reading)
    gets a broken pipe instead of the answer."""
    with ScriptedServer({KEY: [Turn.say("fine")]}, max_body_bytes=1000) as server:
        connection = http.client.HTTPConnection(*_address(server), timeout=WAIT)
        connection.request("POST", CHAT, b"x" * 4_000_000, {"content-type": "application/json"})
        response = connection.getresponse()
        assert response.status == 413
        assert "max_body_bytes" in json.loads(response.read())["error"]["message"]
        connection.close()


def test_a_chunked_body_gets_411(server) -> None:
    data = post(CHAT, b"2\r\n{}\r\n0\r\n\r\n", "Transfer-Encoding: chunked")
    [answer] = exchange(server, data, finish=False)
    assert answer.status == 411
    assert "Content-Length" in answer.error()["message"]


def test_a_body_shorter_than_its_length_gets_400(server) -> None:
    [answer] = exchange(server, post(CHAT, b"{}", "Content-Length: 50"))
    assert answer.status == 400 and "ended after 2 of 50 bytes" in answer.error()["message"]


# -- connections ----------------------------------------------------------------------------


def test_a_request_that_stops_halfway_gets_408_after_the_timeout() -> None:
    with ScriptedServer({KEY: [Turn.say("fine")]}, timeout=0.2) as server:
        half_headers = b"POST /v1/chat/completions HTTP/1.1\r\nContent-Len"
        half_body = post(CHAT, b'{"model": "m"', "Content-Length: 100")
        for data in (b"POS", half_headers, half_body):
            [answer] = exchange(server, data, finish=False)
            assert answer.status == 408, data
            assert answer.error()["type"] == "invalid_request_error"
        # A connection that never starts a request is closed without an answer.
        assert exchange(server, b"", finish=False) == []
        assert_still_serving(server)


def test_idle_half_sent_requests_hold_at_most_max_connections_threads() -> None:
    """Before: 100 idle half-sent requests held 100 threads, forever. Now ``max_connections``
    are held (each until its timeout) and the others are answered 503 at once."""
    bound = 8
    with ScriptedServer({KEY: [Turn.say("fine")]}, max_connections=bound, timeout=30) as server:
        before = threading.active_count()
        sockets = [socket.create_connection(_address(server), timeout=WAIT) for _ in range(100)]
        try:
            for s in sockets:
                s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 10\r\n")
            turned_away = []
            for s in sockets[bound:]:  # accepted in order: the first ones hold the slots
                [answer] = answers(_read_to_end(s))
                turned_away.append(answer)
            assert [a.status for a in turned_away] == [503] * (100 - bound)
            assert "connections" in turned_away[0].error()["message"]
            assert turned_away[0].error()["type"] == "server_error"
            assert server.connections == bound and server.turned_away == 100 - bound
            assert threading.active_count() - before <= bound
        finally:
            for s in sockets:
                s.close()
        _wait_for(lambda: server.connections == 0)  # the held ones see the close and end
        assert_still_serving(server)
        _wait_for(lambda: threading.active_count() <= before)  # every thread ends


def _wait_for(condition: Any) -> None:
    event = threading.Event()
    for _ in range(int(WAIT / 0.01)):
        if condition():
            return
        event.wait(0.01)
    raise AssertionError("the condition never held")


def test_the_settings_are_checked_and_log_gets_one_line_per_request() -> None:
    from agent_sdk.errors import ConfigurationError

    for bad in ({"max_connections": 0}, {"timeout": 0}, {"max_body_bytes": -1}):
        with pytest.raises(ConfigurationError, match="max_connections"):
            ScriptedServer(**bad)
    lines: list[str] = []
    with ScriptedServer({KEY: [Turn.say("fine")]}, log=lines.append) as server:
        exchange(server, post(CHAT, b"{}", "Content-Length: abc"))
        assert_still_serving(server)
    assert len(lines) == 3, lines  # the refusal's error line, then one access line each
    assert "400" in lines[0] and "200" in lines[2] and all("\n" not in line for line in lines)


# -- protocol errors ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "status"),
    [
        (b"PUT /v1/chat/completions HTTP/1.1\r\nHost: x\r\n\r\n", 501),
        (b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\n\r\n", 414),
        (b"GET /v1/models HTTP/1.1\r\nX: " + b"a" * 70_000 + b"\r\n\r\n", 431),
        (b"GET /v1/models HTTP/1.1\r\n" + b"X: 1\r\n" * 101 + b"\r\n", 431),
        (b"GET /v1/models HTTP/x\r\n\r\n", 400),
        (b"GET /v1/models HTTP/2.0\r\n\r\n", 505),
        (b"garbage\r\n\r\n", 400),
        (b"GET /v1/models\r\n", 200),  # HTTP/0.9's request line: answered with a status line
        (b"GET /nowhere HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc", 404),
    ],
    ids=["method", "long-line", "long-header", "many-headers", "version", "http2", "garbage",
         "http09", "get-with-body"],
)  # fmt: skip
def test_protocol_errors_are_answered_with_the_error_body(server, data, status) -> None:
    [answer] = exchange(server, data)
    assert answer.status == status
    if status != 200:
        answer.error()


def test_head_gets_headers_only(server) -> None:
    connection = http.client.HTTPConnection(*_address(server), timeout=WAIT)
    connection.request("HEAD", "/v1/models")
    response = connection.getresponse()
    assert response.status == 501 and response.read() == b""
    connection.close()


# -- wrong types ----------------------------------------------------------------------------


WRONG_TYPES = {
    "role-list": {"messages": [{"role": ["user"], "content": "x"}]},
    "tool-call-id-list": {
        "messages": [
            {"role": "system", "content": KEY},
            {
                "role": "assistant",
                "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{}"}}],
            },
            {"role": "tool", "tool_call_id": ["c"], "content": "x"},
        ]
    },
    "user-tool-calls-number": {"messages": [{"role": "user", "content": "x", "tool_calls": 5}]},
    "user-tool-calls-list": {"messages": [{"role": "user", "content": "x", "tool_calls": [1]}]},
    "stream-options-list": {"stream": True, "stream_options": [1]},
    "strict-properties-list": {
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "f",
                    "strict": True,
                    "parameters": {
                        "type": "object",
                        "properties": [1],
                        "required": 2,
                        "additionalProperties": False,
                    },
                },
            }
        ]
    },
    "strict-any-of-number": {
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "f",
                    "strict": True,
                    "parameters": {
                        "type": "object",
                        "properties": {},
                        "additionalProperties": False,
                        "anyOf": 3,
                        "$defs": [1],
                    },
                },
            }
        ]
    },
}


@pytest.mark.parametrize("extra", WRONG_TYPES.values(), ids=WRONG_TYPES)
def test_wrong_types_get_400_not_a_failure(server, extra) -> None:
    body = json.dumps({**chat_body(), **extra}).encode()
    [answer] = exchange(server, post(CHAT, body, "Connection: close"))
    assert answer.status == 400, answer
    assert answer.error()["type"] == "invalid_request_error"


# -- fuzzing --------------------------------------------------------------------------------

_TOKEN = st.text(string.ascii_letters + string.digits + "-_!#$%&'*+.^`|~", min_size=1, max_size=12)
_LENGTHS = st.one_of(
    st.sampled_from(["abc", "-1", "", " ", "+1", "1_0", "0x10", "1e3", "00", "5, 6", "9" * 5000]),
    st.integers(min_value=-(10**6), max_value=10**30).map(str),
)
_VALUE = st.one_of(
    st.binary(max_size=40).map(lambda b: b.replace(b"\r", b"").replace(b"\n", b"")),
    st.integers(min_value=60_000, max_value=70_000).map(lambda n: b"v" * n),
)
_HEADER = st.one_of(
    st.tuples(st.sampled_from([b"Content-Length", b"content-length"]), _LENGTHS.map(str.encode)),
    st.tuples(
        st.sampled_from(
            [b"Transfer-Encoding", b"Expect", b"Connection", b"Authorization", b"Content-Type"]
        ),
        st.sampled_from([b"chunked", b"100-continue", b"close", b"keep-alive", b"Bearer x"])
        | _VALUE,
    ),
    st.tuples(_TOKEN.map(str.encode), _VALUE),
    st.tuples(st.binary(min_size=1, max_size=20), st.binary(max_size=20)),  # anything at all
)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)


def _deep(depth: int, kind: str) -> bytes:
    if kind == "[":
        return b"[" * depth + b"]" * depth
    return b'{"a":' * depth + b"1" + b"}" * depth


def _mutated(body: dict[str, Any], path: list[Any], value: Any) -> bytes:
    """A valid request with the value at ``path`` (as far as it exists) replaced."""
    node: Any = body
    for step in path[:-1]:
        try:
            node = node[step]
        except (KeyError, IndexError, TypeError):
            break
    else:
        if isinstance(node, dict) or (isinstance(node, list) and path[-1] < len(node)):
            node[path[-1]] = value
    return json.dumps(body).encode()


def _valid(api: str, stream: bool) -> dict[str, Any]:
    tool = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    if api == "chat":
        body = chat_body(stream=stream)
        function = {"name": "f", "parameters": tool, "strict": False}
        body["tools"] = [{"type": "function", "function": function}]
        body["messages"].append(
            {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
                                                  "function": {"name": "f", "arguments": "{}"}}]}
        )  # fmt: skip
        body["messages"].append({"role": "tool", "tool_call_id": "c1", "content": "r"})
        return body
    items: list[Any] = [{"role": "user", "content": "hi"}]
    items.append({"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"})
    items.append({"type": "function_call_output", "call_id": "c1", "output": "r"})
    return {"model": "m", "instructions": KEY, "input": items, "stream": stream,
            "tools": [{"type": "function", "name": "f", "parameters": tool}]}  # fmt: skip


_PATHS = [
    ["model"], ["stream"], ["stream_options"], ["tools"], ["tools", 0], ["tools", 0, "function"],
    ["tools", 0, "function", "parameters"], ["tools", 0, "function", "strict"],
    ["tools", 0, "parameters"], ["tools", 0, "parameters", "properties"],
    ["messages"], ["messages", 1], ["messages", 1, "role"], ["messages", 1, "content"],
    ["messages", 1, "tool_calls"], ["messages", 2, "tool_calls"], ["messages", 2, "tool_calls", 0],
    ["messages", 2, "tool_calls", 0, "id"], ["messages", 3, "tool_call_id"],
    ["messages", 3, "content"], ["input"], ["input", 0], ["input", 0, "content"],
    ["input", 1, "call_id"], ["input", 2, "call_id"], ["input", 2, "output"], ["instructions"],
    ["temperature"], ["metadata"],
]  # fmt: skip

_BODY = st.one_of(
    st.binary(max_size=300),
    st.builds(_deep, st.integers(min_value=1, max_value=60_000), st.sampled_from("[{")),
    st.integers(min_value=1, max_value=10_000).map(lambda n: b"1" * n),
    st.sampled_from([b"1e999999", b"-1e999999", b"NaN", b'{"model": 1e999999}']),
    _JSON.map(lambda v: json.dumps(v).encode()),
    st.builds(
        _mutated,
        st.builds(_valid, st.sampled_from(["chat", "responses"]), st.booleans()),
        st.sampled_from(_PATHS),
        _JSON | st.sampled_from([10**4000, 1e308 * 10, "x" * 2000]),
    ),
    st.builds(
        lambda api, stream: json.dumps(_valid(api, stream)).encode(),
        st.sampled_from(["chat", "responses"]),
        st.booleans(),
    ),
)


@st.composite
def requests(draw: st.DrawFn) -> bytes:
    method = draw(st.sampled_from([b"POST", b"POST", b"GET", b"DELETE"]) | _TOKEN.map(str.encode))
    path = draw(
        st.sampled_from([b"/v1/chat/completions", b"/v1/responses", b"/v1/models",
                         b"/openai/deployments/m/chat/completions"])
        | st.binary(max_size=30).map(lambda b: b"/" + b.replace(b"\r", b"").replace(b"\n", b""))
    )  # fmt: skip
    version = draw(
        st.sampled_from([b"HTTP/1.1", b"HTTP/1.1", b"HTTP/1.0", b""]) | _TOKEN.map(str.encode)
    )
    body = draw(_BODY)
    headers = draw(st.lists(_HEADER, max_size=6))
    if draw(st.booleans()):  # the right length, usually
        headers.insert(0, (b"Content-Length", str(len(body)).encode()))
    if draw(st.integers(0, 20)) == 0:
        headers += [(b"X-Many", b"1")] * 101
    lines = [b" ".join(p for p in (method, path, version) if p)]
    lines += [name + b": " + value for name, value in headers]
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def _check_fuzzed(server: ScriptedServer, data: bytes) -> None:
    found = exchange(server, data)
    assert found, "no answer at all"
    for answer in found:
        assert answer.status != 500, answer.body[:500]
        if 100 <= answer.status < 200:
            continue
        if answer.status != 200:
            answer.error()
        elif answer.headers.get("content-type") == "text/event-stream":
            events = [line[6:] for line in answer.body.decode().split("\n") if line[:6] == "data: "]
            assert events[-1] == "[DONE]" or json.loads(events[-1])["type"] == "response.completed"
        else:
            assert json.loads(answer.body)["object"] in ("chat.completion", "response", "list")


@pytest.fixture(scope="module")
def fuzzed() -> Iterator[ScriptedServer]:
    with ScriptedServer({KEY: [Turn.say("fine")] * 3}, max_body_bytes=256 * 1024, timeout=5) as s:
        yield s


def _fuzz(examples: int) -> Any:
    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.function_scoped_fixture,  # the stderr check runs once, after all
        ],
    )


@_fuzz(300)
@given(data=requests())
def test_every_fuzzed_request_gets_a_well_formed_answer(fuzzed, data) -> None:
    _check_fuzzed(fuzzed, data)


@pytest.mark.long
@_fuzz(5000)
@given(data=requests())
def test_every_fuzzed_request_gets_a_well_formed_answer_long(fuzzed, data) -> None:
    _check_fuzzed(fuzzed, data)
