"""A scripted OpenAI-compatible server: real HTTP, real request validation, scripted replies.

``/v1/chat/completions`` and ``/v1/responses``, plain and streamed (server-sent events),
with well-formed ids, ``usage``, tool calls with JSON-string arguments and parallel tool
calls. Which script answers a request is chosen by the agent's system prompt (or
``instructions``): the longest registered key it contains. The turn to play is read from the
conversation itself, so the server keeps no session state and parallel agents are safe.
Every request is recorded (``requests``), and requests a real endpoint would refuse are
refused with an OpenAI-style 400 (``agent_sdk.scripted.openai_rules``).

    with ScriptedServer() as server:
        endpoint = server.endpoint()          # base_url http://127.0.0.1:<port>/v1
        prompt = endpoint.instructions("You review contracts.", [Turn.say("fine")])
        ...  # build an agent on the framework's OpenAI client with base_url and prompt

It binds 127.0.0.1 on a free port and serves from threads, so it answers whatever event
loop (or none) its clients use. Starting it takes milliseconds.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from agent_sdk.scripted.endpoint import Api, Endpoint
from agent_sdk.scripted.openai_rules import RequestError, Rules, check_chat, check_responses
from agent_sdk.scripted.turns import ECHO, ToolCall, Turn

MARK = "agent-sdk-script-"


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
    ) -> None:
        """``scripts`` maps a key (text found in an agent's system prompt) to its turns.
        ``api_key``: refuse other keys with 401. ``models``: refuse other models with 404."""
        self.rules: Rules = rules
        self.api_key = api_key
        self.models = None if models is None else frozenset(models)
        self.requests: list[Recorded] = []
        self._scripts: dict[str, tuple[Turn, ...]] = {}
        self._call_turns: dict[str, dict[str, int]] = {}
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._address = (host, port)
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._closing = threading.Event()  # wakes answers waiting out a turn's delay
        for key, turns in (scripts or {}).items():
            self.script(turns, key=key)

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> ScriptedServer:
        if self._httpd is None:
            self._closing.clear()
            self._httpd = ThreadingHTTPServer(self._address, _handler(self))
            self._httpd.daemon_threads = True
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
                "input_tokens": _tokens(
                    json.dumps(
                        [body.get(k) for k in ("instructions", "messages", "input", "tools")]
                    )
                ),
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
        ids = [str(call.get("id")) for call in message.get("tool_calls") or []]
        _add(c, message.get("role"), _text(message.get("content")), ids)
    return c


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
        for call in message.get("tool_calls") or []:
            names[str(call.get("id"))] = str(call.get("function", {}).get("name"))
        if message.get("role") == "tool":
            call_id = str(message.get("tool_call_id"))
            yield SentResult(call_id, names.get(call_id), _text(message.get("content")))


def _arguments(call: ToolCall) -> str:
    return call.arguments if isinstance(call.arguments, str) else json.dumps(dict(call.arguments))


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


def _handler(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "agent-sdk-scripted"
        # Headers and body are written separately: with Nagle's algorithm the body waits for
        # the client's delayed ACK (~40 ms) on every request of a kept-alive connection.
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:  # no printing
            pass

        def do_GET(self) -> None:
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
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length)
            if not path.endswith(("/chat/completions", "/responses")):
                self._not_found()
                return
            try:
                body = json.loads(raw or b"null")
            except ValueError:
                body = None
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
            try:
                if body.get("stream"):
                    events = (_response_events if responses else _chat_chunks)(
                        server, body, answer, turn
                    )
                    self._stream(events)
                else:
                    make = _response if responses else _chat_completion
                    self._json(200, make(server, body, answer, turn))
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client went away (a timeout or a cancelled run)

        def _not_found(self) -> None:
            self._json(
                404,
                {
                    "error": {
                        "message": f"Invalid URL (POST {self.path})",
                        "type": "invalid_request_error",
                        "param": None,
                        "code": None,
                    }
                },
            )

        def _json(self, status: int, payload: Any) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.send_header("x-request-id", server.new_id("req_"))
            self.end_headers()
            self.wfile.write(data)

        def _stream(self, events: Iterator[str]) -> None:
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
