"""A scripted OpenAI-compatible server: real HTTP, real request validation, scripted replies.

``/v1/chat/completions`` and ``/v1/responses``, plain and streamed (server-sent events),
with well-formed ids, ``usage``, tool calls with JSON-string arguments and parallel tool
calls. Which script answers a request is chosen by the agent's system prompt (or
``instructions``): the longest registered key it contains. The turn to play is read from the
conversation itself, so the server keeps no session state and parallel agents are safe.
Every request is recorded (``requests``), and requests a real endpoint would refuse are
refused with an OpenAI-style 400 (``agent_sdk.scripted.openai_rules``).

Whatever arrives, it answers with a well-formed HTTP response and OpenAI's error body
(``{"error": {"message", "type", "param", "code"}}``), and prints nothing: 400 for a
malformed request, a bad ``Content-Length`` or JSON nested over ``MAX_JSON_DEPTH`` levels,
411 for a chunked body, 413 for a body over ``max_body_bytes``, 408 for a request that stops
arriving for ``timeout`` seconds, 503 for a connection over ``max_connections`` (each open
connection holds one thread; there are never more).

    with ScriptedServer() as server:
        endpoint = server.endpoint()          # base_url http://127.0.0.1:<port>/v1
        prompt = endpoint.instructions("You review contracts.", [Turn.say("fine")])
        ...  # build an agent on the framework's OpenAI client with base_url and prompt

It binds 127.0.0.1 on a free port and serves from threads, so it answers whatever event
loop (or none) its clients use. Starting it takes milliseconds.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import re
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, cast

from agent_sdk.errors import ConfigurationError
from agent_sdk.scripted.endpoint import Api, Endpoint
from agent_sdk.scripted.openai_rules import RequestError, Rules, check_chat, check_responses
from agent_sdk.scripted.turns import ECHO, ToolCall, Turn

MARK = "agent-sdk-script-"
MAX_BODY_BYTES = 8 * 1024 * 1024
"""The default cap on a request body (``max_body_bytes``): a long conversation with large
tool results fits many times over."""
MAX_JSON_DEPTH = 128
"""Deeper JSON is refused (400): no request of a real client nests this deep."""
TIMEOUT = 30.0
"""The default ``timeout``: seconds a connection may stay silent (between requests, or in
the middle of one) before the server closes it (408 if a request had begun)."""
MAX_CONNECTIONS = 64
"""The default ``max_connections``: connections served at once, one thread each."""
LINGER = 2.0
"""Seconds the server goes on reading (and discarding) what a client still sends after an
answer that ends the connection early: closing on unread data resets the connection, and the
client may lose the answer."""


@dataclass
class Recorded:
    """One request the server answered (or refused)."""

    path: str
    body: Any
    status: int = 200
    key: str | None = None
    """The script that answered, if any."""
    turn: int | None = None
    usage: dict[str, int] = field(default_factory=dict)
    """``input_tokens`` and ``output_tokens`` reported to the client (both APIs)."""
    error: str | None = None

    @property
    def api(self) -> Api:
        return "responses" if self.path.endswith("/responses") else "chat"


@dataclass(frozen=True)
class SentResult:
    """A tool result as it crossed the wire: what the model really saw."""

    call_id: str
    name: str | None
    text: str


class ScriptedServer:
    """An OpenAI-compatible endpoint whose model plays ``Turn``s."""

    def __init__(
        self,
        scripts: Mapping[str, Sequence[Turn]] | None = None,
        *,
        rules: Rules = "azure",
        api_key: str | None = None,
        models: Sequence[str] | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        max_body_bytes: int = MAX_BODY_BYTES,
        timeout: float | None = TIMEOUT,
        max_connections: int = MAX_CONNECTIONS,
        log: Callable[[str], None] | None = None,
    ) -> None:
        """``scripts`` maps a key (text found in an agent's system prompt) to its turns.
        ``api_key``: refuse other keys with 401. ``models``: refuse other models with 404.
        ``max_body_bytes``: larger bodies get 413 unread. ``timeout``: seconds a connection
        may stay silent (None: forever). ``max_connections``: connections served at once;
        more get 503. ``log``: called with one line per request and per error (the server
        prints nothing itself)."""
        if max_body_bytes < 0 or max_connections < 1 or (timeout is not None and timeout <= 0):
            raise ConfigurationError(
                "max_body_bytes must be >= 0, max_connections >= 1 and timeout > 0 or None; "
                f"got {max_body_bytes}, {max_connections} and {timeout}"
            )
        self.max_body_bytes = max_body_bytes
        self.timeout = timeout
        self.max_connections = max_connections
        self.log = log
        self.rules: Rules = rules
        self.api_key = api_key
        self.models = None if models is None else frozenset(models)
        self.requests: list[Recorded] = []
        self._scripts: dict[str, tuple[Turn, ...]] = {}
        self._call_turns: dict[str, dict[str, int]] = {}
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._address = (host, port)
        self._httpd: _Httpd | None = None
        self._thread: threading.Thread | None = None
        self._closing = threading.Event()  # wakes answers waiting out a turn's delay
        for key, turns in (scripts or {}).items():
            self.script(turns, key=key)

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> ScriptedServer:
        if self._httpd is None:
            self._closing.clear()
            self._httpd = _Httpd(self._address, _handler(self), self)
            self._thread = threading.Thread(
                target=self._httpd.serve_forever,
                kwargs={"poll_interval": 0.01},
                name="agent-sdk-scripted-server",
                daemon=True,
            )
            self._thread.start()
        return self

    def close(self) -> None:
        if self._httpd is not None:
            self._closing.set()
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def url(self) -> str:
        """The base URL clients use (``http://127.0.0.1:<port>/v1``)."""
        if self._httpd is None:
            raise RuntimeError("the scripted server is not started")
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    @property
    def connections(self) -> int:
        """Connections open now (each holds one thread)."""
        return 0 if self._httpd is None else self._httpd.open

    @property
    def turned_away(self) -> int:
        """Connections answered 503 because ``max_connections`` were open."""
        return 0 if self._httpd is None else self._httpd.turned_away

    def endpoint(
        self, model: str = "scripted", *, api: Api = "chat", stream: bool = False
    ) -> Endpoint:
        """An ``Endpoint`` for this server that registers agents' turns with it."""
        return Endpoint(self.url, model, self.api_key or "unused", api, stream, server=self)

    # -- scripts ---------------------------------------------------------------------------

    def script(self, turns: Sequence[Turn], *, key: str | None = None) -> str:
        """Register ``turns`` for the agents whose system prompt contains ``key`` (a fresh
        unique key if None); return the key."""
        with self._lock:
            key = key or f"[{MARK}{next(self._ids)}]"
            self._scripts[key] = tuple(turns)
            self._call_turns[key] = {
                call.id: i for i, turn in enumerate(turns) for call in turn.calls
            }
        return key

    def _find(self, system: str) -> str | None:
        with self._lock:
            found = [k for k in self._scripts if k in system]
        return max(found, key=len) if found else None

    # -- what was seen ---------------------------------------------------------------------

    def calls(self, key: str | None = None) -> list[Recorded]:
        """The answered model calls (of the script ``key``, if given)."""
        with self._lock:
            return [r for r in self.requests if r.status == 200 and (key is None or r.key == key)]

    def usage(self, key: str | None = None) -> dict[str, int]:
        """Token totals the server reported, over the answered calls."""
        total = {"calls": 0, "input_tokens": 0, "output_tokens": 0}
        for r in self.calls(key):
            total["calls"] += 1
            total["input_tokens"] += r.usage.get("input_tokens", 0)
            total["output_tokens"] += r.usage.get("output_tokens", 0)
        return total

    def tool_results(self, key: str | None = None) -> list[SentResult]:
        """Every tool result sent back to the model, once each, in the order first sent."""
        seen: dict[str, SentResult] = {}
        for r in self.calls(key):
            for result in _sent_results(r):
                seen.setdefault(result.call_id, result)
        return list(seen.values())

    # -- answering -------------------------------------------------------------------------

    def answer(
        self, path: str, body: Any, headers: Mapping[str, str]
    ) -> tuple[int, Any, Turn | None]:
        """Validate and pick the turn: (status, error body or request record, turn)."""
        record = Recorded(path, body)
        with self._lock:
            self.requests.append(record)
        try:
            refused = self.refuse_key(headers)
            if refused is not None:
                raise refused
            if not isinstance(body, dict):
                raise RequestError(
                    "We could not parse the JSON body of your request. (HINT: This likely "
                    "means you aren't using your HTTP library correctly.)"
                )
            if record.api == "responses":
                check_responses(body, self.rules)
            else:
                check_chat(body, self.rules)
            if self.models is not None and body["model"] not in self.models:
                raise RequestError(
                    f"The model `{body['model']}` does not exist or you do not have access to it.",
                    code="model_not_found",
                    status=404,
                )
            conversation = _conversation(body, record.api)
            key = self._find("\n".join(conversation.system))
            if key is None:
                raise RequestError(
                    "the scripted server has no script for this agent: none of its "
                    f"{len(self._scripts)} script keys appears in the system prompt "
                    f"{_clip(' '.join(conversation.system))!r}"
                )
            index = conversation.next_turn(self._call_turns[key])
            turns = self._scripts[key]
            if index >= len(turns):
                raise RequestError(
                    f"the scripted model {key!r} has no turn left (played {len(turns)})"
                )
            record.key, record.turn = key, index
            turn = turns[index]
            if turn.text == ECHO:
                turn = Turn(text="\n".join(conversation.texts), calls=turn.calls, delay=turn.delay)
            record.usage = {
                "input_tokens": _tokens(json.dumps([body.get(k) for k in _PROMPT_KEYS])),
                "output_tokens": _tokens(
                    (turn.text or "") + "".join(_arguments(c) for c in turn.calls)
                ),
            }
            return 200, record, turn
        except RequestError as exc:
            record.status, record.error = exc.status, str(exc)
            return exc.status, exc.body, None

    def refuse_key(self, headers: Mapping[str, str]) -> RequestError | None:
        """The 401 for a request without the server's API key (None: accepted)."""
        if self.api_key is None:
            return None
        given = headers.get("authorization", "").removeprefix("Bearer ").strip()
        given = given or headers.get("api-key", "")
        if given == self.api_key:
            return None
        return RequestError(
            f"Incorrect API key provided: {_masked(given)}.", code="invalid_api_key", status=401
        )

    def refuse(self, path: str, error: RequestError) -> None:
        """Record a request refused before its body could be read or parsed."""
        with self._lock:
            self.requests.append(Recorded(path, None, error.status, error=str(error)))

    def note(self, line: str) -> None:
        """One line for ``log``, if given (a failing ``log`` is ignored: it is not the
        client's fault)."""
        if self.log is not None:
            with contextlib.suppress(Exception):
                self.log(line)

    def new_id(self, prefix: str) -> str:
        return f"{prefix}{next(self._ids):06d}"


# -- conversations ----------------------------------------------------------------------------


@dataclass
class _Conversation:
    system: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    """Texts of every non-system message (for echo turns)."""
    since_user: list[tuple[str, list[str]]] = field(default_factory=list)
    """("assistant", call ids) or ("tool", []) items after the last user message."""

    def next_turn(self, call_turns: Mapping[str, int]) -> int:
        index, previous_assistant = -1, False
        for role, ids in self.since_user:
            if role != "assistant":
                previous_assistant = False
                continue
            known = [call_turns[i] for i in ids if i in call_turns]
            if known:
                index = max(index, *known)
            elif not previous_assistant:
                index += 1
            previous_assistant = True
        return index + 1


def _conversation(body: Mapping[str, Any], api: Api) -> _Conversation:
    c = _Conversation()
    if api == "responses":
        if body.get("instructions"):
            c.system.append(str(body["instructions"]))
        items = body["input"]
        if isinstance(items, str):
            items = [{"role": "user", "content": items}]
        for item in items:
            kind = item.get("type", "message")
            if kind == "message":
                _add(c, item.get("role"), _text(item.get("content")), [])
            elif kind == "function_call":
                _add(c, "assistant", "", [str(item["call_id"])])
            elif kind == "function_call_output":
                _add(c, "tool", _text(item.get("output")), [])
        return c
    for message in body["messages"]:
        ids = [str(call.get("id")) for call in _tool_calls(message)]
        _add(c, message.get("role"), _text(message.get("content")), ids)
    return c


def _tool_calls(message: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """An assistant message's tool calls (the rules checked their shape; on other roles a
    ``tool_calls`` field means nothing and is not looked at)."""
    return message.get("tool_calls") or [] if message.get("role") == "assistant" else []


def _add(c: _Conversation, role: Any, text: str, ids: list[str]) -> None:
    if role in ("system", "developer"):
        c.system.append(text)
        return
    if text:
        c.texts.append(text)
    if role == "user":
        c.since_user.clear()
    elif role == "assistant" and ids and c.since_user and c.since_user[-1][0] == "assistant":
        c.since_user[-1][1].extend(ids)  # one response split over several items
    else:
        c.since_user.append(("assistant" if role == "assistant" else "tool", ids))


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(p.get("text", "")) if isinstance(p, Mapping) else str(p) for p in content
        )
    return str(content)


def _sent_results(record: Recorded) -> Iterator[SentResult]:
    body = record.body
    names: dict[str, str] = {}
    if record.api == "responses":
        for item in body["input"] if isinstance(body["input"], list) else []:
            if item.get("type") == "function_call":
                names[str(item["call_id"])] = str(item.get("name"))
            elif item.get("type") == "function_call_output":
                call_id = str(item["call_id"])
                yield SentResult(call_id, names.get(call_id), _text(item.get("output")))
        return
    for message in body["messages"]:
        for call in _tool_calls(message):
            names[str(call.get("id"))] = str(call.get("function", {}).get("name"))
        if message.get("role") == "tool":
            call_id = str(message.get("tool_call_id"))
            yield SentResult(call_id, names.get(call_id), _text(message.get("content")))


def _arguments(call: ToolCall) -> str:
    return call.arguments if isinstance(call.arguments, str) else json.dumps(dict(call.arguments))


_PROMPT_KEYS = (
    "instructions",
    "messages",
    "input",
    "tools",
    "tool_choice",
    "response_format",
    "text",
)
"""What a provider reads as the prompt: the conversation, the tools, and the output schema
(``response_format`` in Chat Completions, ``text.format`` in the Responses API), which a
model is shown as surely as the tools."""


def _tokens(text: str) -> int:
    """A deterministic token count: one per four characters, at least one."""
    return max(1, len(text) // 4)


def _masked(key: str) -> str:
    return f"{key[:3]}***{key[-2:]}" if len(key) > 8 else "***"


def _clip(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- wire formats -----------------------------------------------------------------------------


def _chat_completion(
    server: ScriptedServer, body: Any, record: Recorded, turn: Turn
) -> dict[str, Any]:
    calls = [
        {
            "id": c.id,
            "type": "function",
            "function": {"name": c.name, "arguments": _arguments(c)},
        }
        for c in turn.calls
    ]
    message: dict[str, Any] = {"role": "assistant", "content": turn.text, "refusal": None}
    if calls:
        message["tool_calls"] = calls
    return {
        "id": server.new_id("chatcmpl-"),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body["model"],
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if calls else "stop",
                "logprobs": None,
            }
        ],
        "usage": _chat_usage(record),
        "system_fingerprint": "agent-sdk-scripted",
    }


def _chat_usage(record: Recorded) -> dict[str, int]:
    i, o = record.usage["input_tokens"], record.usage["output_tokens"]
    return {"prompt_tokens": i, "completion_tokens": o, "total_tokens": i + o}


def _chat_chunks(server: ScriptedServer, body: Any, record: Recorded, turn: Turn) -> Iterator[str]:
    cid, created = server.new_id("chatcmpl-"), int(time.time())

    def chunk(delta: dict[str, Any] | None, finish: str | None = None, **extra: Any) -> str:
        choices = (
            []
            if delta is None
            else [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}]
        )
        data = {
            "id": cid,
            "object": "chat.completion.chunk",
            "created": created,
            "model": body["model"],
            "choices": choices,
            **extra,
        }
        return f"data: {json.dumps(data)}\n\n"

    yield chunk({"role": "assistant", "content": ""})
    for piece in _pieces(turn.text or ""):
        yield chunk({"content": piece})
    for i, call in enumerate(turn.calls):
        head = {"index": i, "id": call.id, "type": "function"}
        yield chunk({"tool_calls": [{**head, "function": {"name": call.name, "arguments": ""}}]})
        for piece in _pieces(_arguments(call)):
            yield chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
    yield chunk({}, "tool_calls" if turn.calls else "stop")
    if (body.get("stream_options") or {}).get("include_usage"):
        yield chunk(None, usage=_chat_usage(record))
    yield "data: [DONE]\n\n"


def _pieces(text: str, size: int = 16) -> Iterator[str]:
    for start in range(0, len(text), size):
        yield text[start : start + size]


def _response(server: ScriptedServer, body: Any, record: Recorded, turn: Turn) -> dict[str, Any]:
    output: list[dict[str, Any]] = []
    if turn.text is not None:
        output.append(
            {
                "type": "message",
                "id": server.new_id("msg_"),
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": turn.text, "annotations": []}],
            }
        )
    for call in turn.calls:
        output.append(
            {
                "type": "function_call",
                "id": server.new_id("fc_"),
                "call_id": call.id,
                "name": call.name,
                "arguments": _arguments(call),
                "status": "completed",
            }
        )
    i, o = record.usage["input_tokens"], record.usage["output_tokens"]
    return {
        "id": server.new_id("resp_"),
        "object": "response",
        "created_at": int(time.time()),
        "status": "completed",
        "model": body["model"],
        "output": output,
        "instructions": body.get("instructions"),
        "parallel_tool_calls": body.get("parallel_tool_calls", True),
        "tool_choice": body.get("tool_choice", "auto"),
        "tools": body.get("tools", []),
        "temperature": body.get("temperature", 1.0),
        "top_p": body.get("top_p", 1.0),
        "metadata": body.get("metadata") or {},
        "text": {"format": {"type": "text"}},
        "truncation": "disabled",
        "error": None,
        "incomplete_details": None,
        "usage": {
            "input_tokens": i,
            "output_tokens": o,
            "total_tokens": i + o,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }


def _response_events(
    server: ScriptedServer, body: Any, record: Recorded, turn: Turn
) -> Iterator[str]:
    final = _response(server, body, record, turn)
    sequence = itertools.count()

    def event(kind: str, **data: Any) -> str:
        payload = {"type": kind, "sequence_number": next(sequence), **data}
        return f"event: {kind}\ndata: {json.dumps(payload)}\n\n"

    started = {**final, "status": "in_progress", "output": [], "usage": None}
    yield event("response.created", response=started)
    yield event("response.in_progress", response=started)
    for index, item in enumerate(final["output"]):
        if item["type"] == "message":
            text = item["content"][0]["text"]
            yield event(
                "response.output_item.added",
                output_index=index,
                item={**item, "status": "in_progress", "content": []},
            )
            part = {"type": "output_text", "text": "", "annotations": []}
            where = {"item_id": item["id"], "output_index": index, "content_index": 0}
            yield event("response.content_part.added", **where, part=part)
            for piece in _pieces(text):
                yield event("response.output_text.delta", **where, delta=piece, logprobs=[])
            yield event("response.output_text.done", **where, text=text, logprobs=[])
            yield event("response.content_part.done", **where, part={**part, "text": text})
        else:
            yield event(
                "response.output_item.added",
                output_index=index,
                item={**item, "status": "in_progress", "arguments": ""},
            )
            where = {"item_id": item["id"], "output_index": index}
            for piece in _pieces(item["arguments"]):
                yield event("response.function_call_arguments.delta", **where, delta=piece)
            yield event(
                "response.function_call_arguments.done",
                **where,
                name=item["name"],
                arguments=item["arguments"],
            )
        yield event("response.output_item.done", output_index=index, item=item)
    yield event("response.completed", response=final)


# -- the wire: connections, lengths, bodies -------------------------------------------------


class _Httpd(ThreadingHTTPServer):
    """A thread per connection, never more than ``max_connections`` of them: the others
    are answered 503 from the accepting thread, with no thread of their own."""

    daemon_threads = True
    request_queue_size = 128  # a burst of connections waits in the backlog, not on SYN retries

    def __init__(
        self,
        address: tuple[str, int],
        handler: type[BaseHTTPRequestHandler],
        owner: ScriptedServer,
    ) -> None:
        self.owner = owner
        self.open = 0
        self.turned_away = 0
        self._count = threading.Lock()
        self._busy = _busy_answer(owner.max_connections)
        # Turned-away sockets, kept open (sending side shut) until LINGER has passed, so
        # what their clients still send does not reset the connection before they read
        # the 503. Bounded: past 256, the oldest closes at once.
        self._lingering: deque[tuple[float, socket.socket]] = deque()
        super().__init__(address, handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._count:
            admitted = self.open < self.owner.max_connections
            if admitted:
                self.open += 1
            else:
                self.turned_away += 1
        if not admitted:
            self._turn_away(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._leave()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._leave()

    def _leave(self) -> None:
        with self._count:
            self.open -= 1

    def _turn_away(self, request: socket.socket) -> None:
        self.owner.note(f"503: {self.owner.max_connections} connections open, one turned away")
        try:
            request.setblocking(False)
            request.send(self._busy)  # a few hundred bytes: an empty send buffer takes them
            request.shutdown(socket.SHUT_WR)
        except OSError:
            request.close()
            return
        self._lingering.append((time.monotonic() + LINGER, request))
        while len(self._lingering) > 256:
            _discard_and_close(self._lingering.popleft()[1])

    def service_actions(self) -> None:  # called by serve_forever on every poll
        now = time.monotonic()
        while self._lingering and self._lingering[0][0] <= now:
            _discard_and_close(self._lingering.popleft()[1])

    def server_close(self) -> None:
        super().server_close()
        while self._lingering:
            _discard_and_close(self._lingering.popleft()[1])

    def handle_error(self, request: Any, client_address: Any) -> None:
        # socketserver prints a traceback to stderr; the handler answers every error it can,
        # what is left (a client gone mid-setup) is only worth a log line.
        self.owner.note(f"connection from {client_address}: {sys.exc_info()[1]!r}")


def _discard_and_close(sock: socket.socket) -> None:
    try:
        while sock.recv(65536):  # non-blocking: what has arrived, then EAGAIN or EOF
            pass
    except OSError:
        pass
    sock.close()


def _error_body(message: str, kind: str = "invalid_request_error", code: str | None = None) -> Any:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def _busy_answer(limit: int) -> bytes:
    body = json.dumps(
        _error_body(
            f"the scripted server is serving its limit of {limit} connections "
            "(max_connections); retry when one closes",
            "server_error",
            "too_many_connections",
        )
    ).encode()
    head = (
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nretry-after: 1\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


_DIGITS = re.compile(r"[0-9]+")


def _body_length(headers: Any, cap: int) -> int:
    """The declared body length, or the RequestError that refuses it."""
    if headers.get("transfer-encoding") is not None:
        raise RequestError(
            "the scripted server reads bodies of a declared Content-Length only, not "
            f"Transfer-Encoding {_clip(headers['transfer-encoding'], 40)!r}",
            status=HTTPStatus.LENGTH_REQUIRED,
        )
    values = {v.strip() for v in headers.get_all("content-length") or ()}
    if not values:
        return 0
    value = values.pop()
    if values or not _DIGITS.fullmatch(value):
        shown = ", ".join(repr(_clip(v, 40)) for v in sorted({value, *values}))
        raise RequestError(f"Content-Length must be one number of bytes, got {shown}")
    if len(value) > 18 or int(value) > cap:
        raise RequestError(
            f"the request body of {_clip(value, 40)} bytes is over the scripted server's "
            f"limit of {cap} bytes (max_body_bytes)",
            status=HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
        )
    return int(value)


def _json_body(raw: bytes) -> Any:
    """The parsed body (None if it is not JSON: ``answer`` refuses that), or a RequestError
    for JSON nested over MAX_JSON_DEPTH levels."""
    too_deep = RequestError(f"the JSON body is nested over {MAX_JSON_DEPTH} levels deep")
    try:
        body = json.loads(raw or b"null")
    except RecursionError:  # deeper than the parser goes, so over the limit
        raise too_deep from None
    except ValueError:  # not JSON, not UTF-8, or an integer of over 4300 digits
        return None
    if _deeper_than(body, MAX_JSON_DEPTH):
        raise too_deep
    return body


def _deeper_than(value: Any, limit: int) -> bool:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return False


def _handler(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        default_request_version = "HTTP/1.0"  # an HTTP/0.9 line gets a status line too
        server_version = "agent-sdk-scripted"
        timeout = server.timeout
        # Headers and body are written separately: with Nagle's algorithm the body waits for
        # the client's delayed ACK (~40 ms) on every request of a kept-alive connection.
        disable_nagle_algorithm = True
        _responded = False

        def log_message(self, format: str, *args: Any) -> None:  # printed only if asked
            server.note(format % args)

        def handle_one_request(self) -> None:
            # The standard loop, answering what it leaves unanswered: a request that stops
            # arriving (408) and a failure of this server (500), both without a traceback.
            self._responded = False
            self.command = self.requestline = ""  # read by the log line of any answer
            self.request_version = self.default_request_version
            try:
                if not cast(io.BufferedReader, self.rfile).peek(1):
                    self.close_connection = True  # the client closed between requests
                    return
            except OSError:  # silent past the timeout, or reset: no request begun
                self.close_connection = True
                return
            try:
                self.raw_requestline = self.rfile.readline(65537)
                if len(self.raw_requestline) > 65536:
                    self.requestline = self.request_version = self.command = ""
                    self.send_error(HTTPStatus.REQUEST_URI_TOO_LONG)
                    return
                if not self.parse_request():
                    return
                method = getattr(self, f"do_{self.command}", None)
                if method is None:
                    self.send_error(
                        HTTPStatus.NOT_IMPLEMENTED, f"Unsupported method ({self.command!r})"
                    )
                    return
                method()
                self.wfile.flush()
            except TimeoutError:
                self._last_word(
                    HTTPStatus.REQUEST_TIMEOUT,
                    _error_body(
                        f"the request did not arrive in full within {server.timeout} s "
                        "(the scripted server's timeout)"
                    ),
                )
            except OSError:  # the client went away (a timeout or a cancelled run)
                self.close_connection = True
            except Exception as exc:
                server.note(f"internal error on {self.requestline!r}: {exc!r}")
                self._last_word(
                    HTTPStatus.INTERNAL_SERVER_ERROR,
                    _error_body(
                        f"the scripted server failed on this request ({type(exc).__name__})",
                        "server_error",
                    ),
                )

        def _last_word(self, status: int, payload: Any) -> None:
            self.close_connection = True
            if self._responded:
                return  # an answer had begun: the close ends it
            with contextlib.suppress(OSError):  # the client is gone
                self._json(status, payload, close=True)

        def send_error(
            self, code: int, message: str | None = None, explain: str | None = None
        ) -> None:
            # The standard error page is HTML; clients of this server read OpenAI's JSON.
            text = message or self.responses.get(code, ("error",))[0]
            self.log_error("code %d, message %s", code, text)
            self._json(code, _error_body(f"{text}: {explain}" if explain else text), close=True)

        def handle_expect_100(self) -> bool:
            # A body that will be refused is refused before the client sends it.
            try:
                _body_length(self.headers, server.max_body_bytes)
            except RequestError as exc:
                self._refuse(self.path, exc)
                return False
            return super().handle_expect_100()

        def _body(self, path: str) -> bytes | None:
            """The body, read whole, or None once refused (the connection then closes:
            where the next request would begin is unknown)."""
            try:
                length = _body_length(self.headers, server.max_body_bytes)
                raw = self.rfile.read(length) if length else b""
                if len(raw) < length:
                    raise RequestError(
                        f"the request body ended after {len(raw)} of {length} bytes "
                        "(Content-Length)"
                    )
            except RequestError as exc:
                self._refuse(path, exc)
                return None
            return raw

        def _refuse(self, path: str, error: RequestError) -> None:
            server.refuse(path, error)
            self.log_error("%d %s", error.status, error)
            self._json(error.status, error.body, close=True)

        def _linger(self) -> None:
            # The answer ends the connection, maybe before the client has sent all it
            # means to: read and discard that (up to LINGER seconds) so the close does not
            # reset the connection, which can discard the answer before the client reads it.
            try:
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_WR)
                deadline = time.monotonic() + LINGER
                while (left := deadline - time.monotonic()) > 0:
                    self.connection.settimeout(left)
                    if not self.connection.recv(65536):
                        break
            except OSError:
                pass

        def do_GET(self) -> None:
            if self._body(self.path) is None:
                return
            if self.path.rstrip("/").endswith("/models"):
                headers = {k.lower(): v for k, v in self.headers.items()}
                refused = server.refuse_key(headers)
                if refused is not None:
                    self._json(refused.status, refused.body)
                    return
                models = sorted(server.models or ())  # any model is served when none is set
                self._json(
                    200,
                    {
                        "object": "list",
                        "data": [
                            {"id": m, "object": "model", "created": 0, "owned_by": "agent-sdk"}
                            for m in models
                        ],
                    },
                )
            else:
                self._not_found()

        def do_POST(self) -> None:
            path = self.path.split("?", 1)[0].rstrip("/")
            raw = self._body(path)
            if raw is None:
                return
            if not path.endswith(("/chat/completions", "/responses")):
                self._not_found()
                return
            try:
                body = _json_body(raw)
            except RequestError as exc:
                server.refuse(path, exc)
                self._json(exc.status, exc.body)
                return
            if isinstance(body, dict) and "/deployments/" in path and "model" not in body:
                body["model"] = path.split("/deployments/", 1)[1].split("/", 1)[0]
            headers = {k.lower(): v for k, v in self.headers.items()}
            status, answer, turn = server.answer(path, body, headers)
            if turn is None:
                self._json(status, answer)
                return
            if turn.delay and server._closing.wait(turn.delay):
                # Closed while waiting (its client has usually given up, e.g. a timeout
                # test): no answer, and the thread ends now rather than after the delay.
                self.close_connection = True
                return
            responses = path.endswith("/responses")
            if body.get("stream"):
                events = (_response_events if responses else _chat_chunks)(
                    server, body, answer, turn
                )
                self._stream(events)
            else:
                make = _response if responses else _chat_completion
                self._json(200, make(server, body, answer, turn))

        def _not_found(self) -> None:
            self._json(404, _error_body(f"Invalid URL ({self.command} {_clip(self.path)})"))

        def _json(self, status: int, payload: Any, *, close: bool = False) -> None:
            data = json.dumps(payload).encode()
            self._responded = True
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.send_header("x-request-id", server.new_id("req_"))
            if close:
                self.send_header("connection", "close")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)
            if close:
                self._linger()

        def _stream(self, events: Iterator[str]) -> None:
            self._responded = True
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("connection", "close")
            self.end_headers()
            self.close_connection = True
            for chunk in events:
                self.wfile.write(chunk.encode())
            self.wfile.flush()

    return Handler


__all__ = ["Recorded", "ScriptedServer", "SentResult"]
