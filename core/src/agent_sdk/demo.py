"""``agent-sdk demo``: the contract-review hierarchy through a real framework.

An orchestrator consults legal, tax and technical reviewers (sub-agents) in one turn; each
answers a typed opinion as JSON. Legal consults tax, which tries to consult legal again and
gets the recursion error. The harshest verdict is computed in code, and a confirm tool
sends it to the client through the approval port. The final answer, the run's cost report
and the trace tree are printed.

Every agent talks to its model through the framework's own OpenAI client over HTTP: by
default to a scripted server started for the run (``SCRIPT``: the model's turns, keyed by
each agent's instructions), or with ``--base-url`` to any OpenAI-compatible endpoint — a
real model follows the same instructions. ``agent-sdk serve-scripted`` serves ``SCRIPT``
on its own, so a second process can use it exactly like a real endpoint.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TextIO, cast

from agent_sdk._integration import Integration
from agent_sdk.approval import ApprovalPort, ApprovalRequest, AutoApprove, CallbackApproval, DenyAll
from agent_sdk.errors import AgentSDKError, IntegrationError
from agent_sdk.executor import Executor
from agent_sdk.plugins import KNOWN_DISTRIBUTIONS, integrations
from agent_sdk.run import HierarchyLimits, run_scope
from agent_sdk.scripted import Harness, RunResult, ScriptedAgent, ToolCall, Turn
from agent_sdk.scripted.endpoint import Api, Endpoint
from agent_sdk.spec import ToolSpec
from agent_sdk.tracing import configure_tracing, format_tree, load_trace_file

if TYPE_CHECKING:
    from agent_sdk.scripted.server import ScriptedServer

DEFAULT_ORDER = ("ag2", "openai-agents", "autogen", "fast-agent")
CLAUSE = (
    "Clause 7: The supplier may change prices at any time without notice, invoices are due "
    "in 7 days, and the customer indemnifies the supplier for all data-protection claims."
)
OPINIONS = {
    "legal": {"verdict": "request_changes", "risk": "one-sided indemnity for data protection"},
    "tax": {"verdict": "approve", "risk": "none beyond standard VAT treatment"},
    "technical": {"verdict": "reject", "risk": "unilateral price changes break the SLA budget"},
}


DEFAULT_SEVERITY = ("approve", "approve_with_changes", "request_changes", "reject")
REVIEWERS = ("legal", "tax", "technical")
ANSWER = (
    'Answer with one JSON object and nothing else: {"reviewer": "<your name>", "verdict": '
    '"approve" | "approve_with_changes" | "request_changes" | "reject", "risk": "<one '
    'sentence>"}.'
)
PROMPTS = {
    "consult": (
        "You coordinate the review of a contract clause. Call the three reviewer tools "
        "legal, tax and technical, all three in the same turn, each with the argument "
        f"request set to: 'Review this clause for your area: {CLAUSE}'. When all three have "
        "answered, reply with the single word: collected."
    ),
    "legal": (
        "You are the legal reviewer: liability, indemnities, termination. First ask the tax "
        "reviewer (tool tax) about the VAT impact of the clause, then give your opinion. " + ANSWER
    ),
    "tax_for_legal": (
        "You are the tax reviewer, consulted by the legal reviewer. First ask the legal "
        "reviewer (tool legal) whether the indemnity changes the tax position, then give "
        "your opinion. " + ANSWER
    ),
    "legal_direct": (
        "You are the legal reviewer, consulted by a colleague. Give your opinion at once, "
        "without calling any tool. " + ANSWER
    ),
    "tax": "You are the tax reviewer. Give your opinion at once. " + ANSWER,
    "technical": (
        "You are the technical reviewer: service levels, budgets, operations. Give your "
        "opinion at once. " + ANSWER
    ),
}


def harshest(
    verdicts: Sequence[str] | Mapping[str, str], order: Sequence[str] = DEFAULT_SEVERITY
) -> str:
    """The harshest verdict by ``order`` (mildest first). Unknown verdicts are an error."""
    values = list(verdicts.values()) if isinstance(verdicts, Mapping) else list(verdicts)
    if not values:
        raise ValueError("no verdicts to aggregate")
    unknown = [v for v in values if v not in order]
    if unknown:
        raise ValueError(f"unknown verdicts {unknown}; known: {list(order)}")
    return max(values, key=order.index)


def pick_integration(name: str | None) -> Integration:
    available = {i.name: i for i in integrations() if i.harness}
    if name is not None:
        for integration in integrations():
            if name in integration.names:
                return integration
        installed = ", ".join(sorted(available)) or "none"
        known = KNOWN_DISTRIBUTIONS.get(name)
        names = ", ".join(sorted(KNOWN_DISTRIBUTIONS))
        hint = f"pip install {known}" if known else f"known integrations: {names}"
        raise IntegrationError(
            f"no integration named {name!r} is installed (installed: {installed}); {hint}"
        )
    for candidate in DEFAULT_ORDER:
        if candidate in available:
            return available[candidate]
    if available:
        return next(iter(available.values()))
    raise IntegrationError(
        "agent-sdk demo needs a framework integration with a scripted model; none is "
        "installed. Install one, e.g.: pip install agent-sdk-ag2"
    )


def approval_port(mode: str, *, stdin: TextIO, stdout: TextIO) -> ApprovalPort:
    if mode == "auto":
        return AutoApprove()
    if mode == "deny":
        return DenyAll("the demo was run with --approve deny")

    def ask(request: ApprovalRequest) -> bool:
        stdout.write(
            f"\nApprove {request.tool}({json.dumps(request.arguments)}) for run "
            f"{request.run_id}? [y/N] "
        )
        stdout.flush()
        return stdin.readline().strip().lower() in ("y", "yes")

    return CallbackApproval(ask)


def _opinion(name: str) -> str:
    return json.dumps({"reviewer": name, **OPINIONS[name]})


def _consult_calls() -> list[ToolCall]:
    request = f"Review this clause for your area: {CLAUSE}"
    return [ToolCall(name, {"request": request}) for name in REVIEWERS]


def _send_prompt(verdict: str) -> str:
    return (
        f"The reviewers' harshest verdict on clause 7 is {verdict!r}. Send it to the client "
        f"'ACME GmbH' with the send_verdict tool (client='ACME GmbH', verdict={verdict!r}), "
        "then confirm in one sentence."
    )


def _send_turns(verdict: str) -> list[Turn]:
    notify = ToolCall("send_verdict", {"client": "ACME GmbH", "verdict": verdict})
    return [
        Turn.call(notify),
        Turn.say(f"Verdict on clause 7: {verdict}. Client notified if approved."),
    ]


def script() -> dict[str, list[Turn]]:
    """The scripted model's turns for every agent of the demo, keyed by its instructions
    (what ``agent-sdk serve-scripted`` serves)."""
    turns = {
        PROMPTS["consult"]: [Turn.call(*_consult_calls()), Turn.say("collected")],
        PROMPTS["legal"]: [
            Turn.call(ToolCall("tax", {"request": "Check the VAT impact of " + CLAUSE})),
            Turn.say(_opinion("legal")),
        ],
        PROMPTS["tax_for_legal"]: [
            Turn.call(
                ToolCall("legal", {"request": "Does the indemnity change the tax position?"})
            ),
            Turn.say(_opinion("tax")),
        ],
        PROMPTS["legal_direct"]: [Turn.say(_opinion("legal"))],
        PROMPTS["tax"]: [Turn.say(_opinion("tax"))],
        PROMPTS["technical"]: [Turn.say(_opinion("technical"))],
    }
    for verdict in DEFAULT_SEVERITY:
        turns[_send_prompt(verdict)] = _send_turns(verdict)
    turns[READY] = [Turn.say("ready")]
    return turns


READY = "Answer with the single word: ready."
"""The instructions of the warm-up agent (``_warm_up``)."""


def _warm_up(loop: asyncio.AbstractEventLoop, harness: Harness) -> None:
    """One run of a tool-less agent before the trace starts, in the loop the demo then runs
    in, so that what a process and a loop pay once (the framework's lazy imports, its HTTP
    stack's first client) is not drawn as an empty stretch of the workflow span, as if the
    run spent it. Only on a model that costs nothing (the scripted server, the in-process
    model); a failure is left to the run."""
    with contextlib.suppress(Exception):
        loop.run_until_complete(_orchestrate(harness, [], [Turn.say("ready")], READY))


@contextlib.contextmanager
def _held_connection(loop: asyncio.AbstractEventLoop, harness: Harness) -> Iterator[None]:
    """The harness's OpenAI client for ``loop`` held open from before the warm-up to the
    end of the demo, so that the orchestrator's runs share it (a harness closes it when the
    loop's last run ends, and a new client costs tens of milliseconds of TLS set-up: drawn in
    the trace as empty workflow span before each run)."""
    held = harness.openai_connection()
    loop.run_until_complete(held.__aenter__())
    try:
        yield
    finally:
        loop.run_until_complete(held.__aexit__(None, None, None))


@contextlib.contextmanager
def _event_loop() -> Iterator[asyncio.AbstractEventLoop]:
    """A loop for several ``run_until_complete`` calls, closed as ``asyncio.run`` closes
    its own (``asyncio.Runner`` is Python 3.11+)."""
    loop = asyncio.new_event_loop()
    try:
        yield loop
    finally:
        try:
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            loop.close()


def build_reviewers(
    harness: Harness, *, export: Callable[[ScriptedAgent], Any] | None = None
) -> dict[str, Any]:
    """The three reviewer tools; legal consults tax, which tries legal again (recursion).
    ``export`` makes the three top-level ones (default: the harness's native agent tool; the
    distributed demo serves ToolSpecs)."""
    turns = script()

    def reviewer(
        name: str,
        prompt: str,
        description: str,
        tools: list[Any] = (),  # type: ignore[assignment]
        top: bool = False,
    ) -> Any:
        agent = ScriptedAgent(
            name,
            turns[PROMPTS[prompt]],
            description=description,
            tools=tools,
            instructions=PROMPTS[prompt],
        )
        if top and export is not None:
            return export(agent)
        return harness.export_agent_tool(agent, return_mode="json")

    inner_legal = reviewer("legal", "legal_direct", "Legal reviewer.")
    tax_for_legal = reviewer("tax", "tax_for_legal", "Tax reviewer.", [inner_legal])
    return {
        "legal": reviewer(
            "legal",
            "legal",
            "Legal reviewer: liability, indemnities, termination.",
            [tax_for_legal],
            top=True,
        ),
        "tax": reviewer("tax", "tax", "Tax reviewer.", top=True),
        "technical": reviewer("technical", "technical", "Technical reviewer.", top=True),
    }


def send_verdict_spec(sent: list[dict[str, str]]) -> ToolSpec:
    async def send_verdict(client: str, verdict: str) -> str:
        sent.append({"client": client, "verdict": verdict})
        return f"sent verdict {verdict!r} to {client}"

    return ToolSpec(
        name="send_verdict",
        description="Send the review verdict to the client (needs approval).",
        handler=send_verdict,
        input_schema={
            "type": "object",
            "properties": {"client": {"type": "string"}, "verdict": {"type": "string"}},
            "required": ["client", "verdict"],
        },
        confirm=True,
    )


class DemoError(AgentSDKError):
    """The demo could not run; the message says what to check."""


def load_demo_harness(integration: Integration, endpoint: Endpoint | None) -> Harness:
    """The integration's harness over ``endpoint``; in process where the harness has no
    HTTP mode (then ``endpoint`` must be None or the embedded one)."""
    harness: Harness = integration.load_harness()
    if endpoint is None or endpoint.api not in harness.apis:
        return harness
    built: Harness = integration.load_harness(endpoint)
    return built


async def _orchestrate(
    harness: Harness, tools: list[Any], turns: list[Turn], instructions: str
) -> RunResult:
    if harness.endpoint is None:
        return await harness.run(tools, turns)
    run = cast(Any, harness).run
    result: RunResult = await run(tools, turns, instructions=instructions)
    return result


def _result_for(result: RunResult, name: str) -> str | None:
    for seen in result.results:
        if seen.name == name:
            return seen.text
    return None


async def run_demo(
    integration: Integration | None,
    *,
    approve: str = "auto",
    out: Callable[[str], None] = print,
    stdin: TextIO = sys.stdin,
    stdout: TextIO = sys.stdout,
    endpoint: Endpoint | None = None,
    harness: Harness | None = None,
    reviewers: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Run the hierarchy; ``harness`` (already built, e.g. by the contract kit) replaces the
    integration's own; ``reviewers`` (native tools by name) replace ``build_reviewers``'."""
    if harness is None:
        if integration is None:
            raise DemoError("run_demo needs an integration or a harness")
        harness = load_demo_harness(integration, endpoint)
    endpoint = endpoint if endpoint is not None else harness.endpoint
    reviewers = reviewers if reviewers is not None else build_reviewers(harness)
    sent: list[dict[str, str]] = []
    port = approval_port(approve, stdin=stdin, stdout=stdout)
    send = harness.export_tool(send_verdict_spec(sent), executor=Executor(), approval=port)
    limits = HierarchyLimits(max_depth=3, max_model_calls=40, child_timeout=60)
    where = f"{endpoint.model!r} at {endpoint.base_url}" if harness.endpoint and endpoint else ""
    async with run_scope(limits=limits, name="contract-review") as run:
        consult = await _orchestrate(
            harness,
            list(reviewers.values()),
            [Turn.call(*_consult_calls()), Turn.say("collected")],
            PROMPTS["consult"],
        )
        opinions = {}
        for name in REVIEWERS:
            text = _result_for(consult, name)
            if text is None:
                continue
            try:
                opinion = json.loads(text)
            except ValueError:
                opinion = None
            if not isinstance(opinion, dict):
                opinion = {"verdict": "reject", "risk": f"no opinion: {text}"}
            opinions[name] = opinion
        if not opinions:
            found = await asyncio.to_thread(endpoint.diagnose) if where and endpoint else None
            if found:
                raise DemoError(found)
            said = (consult.final_text or "").strip().replace("\n", " ")[:120]
            raise DemoError(
                f"the model {where or '(scripted)'} never called the reviewer tools "
                f"(it answered: {said!r}); check that the model supports tool calling"
            )
        for name in REVIEWERS:
            opinions.setdefault(name, {"verdict": "reject", "risk": "the model never asked"})
        verdicts = {n: o.get("verdict", "reject") for n, o in opinions.items()}
        verdict = harshest(
            {n: v if v in DEFAULT_SEVERITY else "reject" for n, v in verdicts.items()}
        )
        final = await _orchestrate(harness, [send], _send_turns(verdict), _send_prompt(verdict))
        notice = _result_for(final, "send_verdict") or "(the model never called send_verdict)"
    return {
        "framework": integration.name if integration is not None else harness.integration,
        "run_id": run.run_id,
        "opinions": opinions,
        "verdict": verdict,
        "notice": notice,
        "sent": sent,
        "final": final.final_text,
        "report": run.report,
        "over_http": harness.endpoint is not None,
    }


class Remote(Protocol):
    """The reviewers served by another process (``agent_sdk.demo_distributed``): started
    inside the demo's run, their trace file merged into the demo's at the end."""

    service: str
    own_trace: Path

    def start(
        self,
        stack: contextlib.ExitStack,
        integration: Integration,
        endpoint: Endpoint | None,
        trace_file: Path,
    ) -> dict[str, Any]: ...

    def merge(self, trace_file: Path) -> None: ...

    def describe(self) -> str: ...


def main(args: Any, remote: Callable[[Path], Remote] | None = None) -> int:
    """The demo; ``remote`` makes the reviewers' service from the run's scratch folder
    (``agent-sdk demo --distributed`` passes ``demo_distributed.Distributed``)."""
    with tempfile.TemporaryDirectory(prefix="agent-sdk-demo-") as scratch:
        # Without --trace-file the trace lives in a folder that is removed afterwards.
        trace_file = Path(args.trace_file) if args.trace_file else Path(scratch) / "t.json"
        return _main(args, trace_file, remote(Path(scratch)) if remote else None)


def _endpoint(args: Any, stack: contextlib.ExitStack) -> tuple[Endpoint, str]:
    api = cast(Api, getattr(args, "api", None) or "chat")
    stream = bool(getattr(args, "stream", False))
    base_url = getattr(args, "base_url", None)
    model = getattr(args, "model", None)
    if base_url:
        if not model:
            raise DemoError(
                "--model is required with --base-url: the model (or Azure deployment) name, "
                "e.g. gpt-4o-mini or llama3.1"
            )
        env = getattr(args, "api_key_env", None) or "OPENAI_API_KEY"
        endpoint = Endpoint.from_env(base_url, model, api_key_env=env, api=api, stream=stream)
        return endpoint, f"API key from ${env}" if os.environ.get(env) else f"no ${env} set"
    from agent_sdk.scripted.server import ScriptedServer

    server = stack.enter_context(ScriptedServer(script()))
    # Used exactly as a real endpoint: no scripts are registered through the endpoint.
    return Endpoint(server.url, model or "scripted", api=api, stream=stream), "scripted server"


def _main(args: Any, trace_file: Path, distributed: Remote | None = None) -> int:
    integration = pick_integration(args.framework)
    integration.check_framework()
    reviewers = None
    with contextlib.ExitStack() as stack:
        endpoint: Endpoint | None = None
        source = ""
        if not getattr(args, "in_process", False):
            endpoint, source = _endpoint(args, stack)
        if distributed is not None:  # the reviewers' service, its process stopped at the end
            reviewers = distributed.start(stack, integration, endpoint, trace_file)
        own_trace = distributed.own_trace if distributed is not None else trace_file
        loop = stack.enter_context(_event_loop())
        try:
            harness = load_demo_harness(integration, endpoint)
        except AgentSDKError as exc:
            raise DemoError(_with_trace(str(exc), args)) from exc
        stack.enter_context(_held_connection(loop, harness))
        if endpoint is None or source == "scripted server":
            _warm_up(loop, harness)  # no global tracer yet: it records nothing
        provider = configure_tracing("agent-sdk-demo", file=own_trace, set_global=True)
        export = None
        if args.otlp:
            export = _WatchedExport(args.otlp)
            provider.add_span_processor(export.processor())
            if not getattr(args, "verbose", False):  # said once, below, in one line
                stack.enter_context(_quiet("opentelemetry.exporter.otlp"))
        try:
            result = loop.run_until_complete(
                run_demo(
                    integration,
                    approve=args.approve,
                    endpoint=endpoint,
                    harness=harness,
                    reviewers=reviewers,
                )
            )
        except AgentSDKError as exc:
            raise DemoError(_with_trace(str(exc), args)) from exc
        except Exception as exc:
            problem = (endpoint.problem(exc) if endpoint else None) or (
                f"the demo failed: {type(exc).__name__}: {exc}"
            )
            raise DemoError(_with_trace(problem, args)) from exc
        finally:
            provider.force_flush()
            provider.shutdown()
    if distributed is not None:
        distributed.merge(trace_file)
    print(f"framework: {result['framework']}   run: {result['run_id']}")
    if result["over_http"] and endpoint is not None:
        mode = endpoint.api + (", streamed" if endpoint.stream else "")
        print(f"model: {endpoint.model} at {endpoint.base_url} ({mode}; {source})")
    else:
        print("model: the framework's in-process scripted model (its harness has no HTTP mode)")
    if distributed is not None:
        print(distributed.describe())
    print("\nopinions:")
    for name, opinion in result["opinions"].items():
        print(f"  {name:<10} {opinion.get('verdict'):<16} {opinion.get('risk', '')}")
    print(f"\nharshest verdict (computed in code): {result['verdict']}")
    print(f"send_verdict: {result['notice']}")
    print(f"\nfinal answer: {result['final']}")
    print("\ncost report:")
    print(result["report"].format())
    print("\ntrace:")
    print(format_tree(load_trace_file(trace_file)))
    if args.trace_file:
        print(f"\ntrace written to {trace_file} (Jaeger UI: Search > JSON File)")
    if export is not None:
        export.check()
        services = "services agent-sdk-demo and " + distributed.service if distributed else ""
        print(f"\ntrace exported to {export.url} (Jaeger: {services or 'service agent-sdk-demo'},")
        print(f"  tag agent_sdk.run_id={result['run_id']})")
    return 0


class _WatchedExport:
    """The demo's OTLP/HTTP export, watched: the OTLP exporter only logs why a batch failed,
    and the demo must say whether its trace arrived."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.sent = self.failed = 0
        self.error: str | None = None  # the last HTTP status or connection error

    def processor(self) -> Any:
        try:
            import requests
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
            from opentelemetry.sdk.trace.export import BatchSpanProcessor
        except ImportError:  # pragma: no cover - depends on the install
            raise DemoError(
                "--otlp needs the OTLP exporter: pip install 'agent-sdk[otel]'"
            ) from None
        watch = self

        class Session(requests.Session):
            def request(self, *args: Any, **kwargs: Any) -> requests.Response:
                try:
                    response = super().request(*args, **kwargs)
                except Exception as exc:
                    watch.error = _root_cause(exc)
                    raise
                if response.status_code >= 400:
                    watch.error = f"HTTP {response.status_code} {response.reason}"
                return response

        # The HTTP exporter uses an explicit endpoint verbatim: accept the base URL users know.
        url = self.url.rstrip("/")
        url += "" if url.endswith("/v1/traces") else "/v1/traces"
        self._exporter: Any = OTLPSpanExporter(endpoint=url, session=Session())
        return BatchSpanProcessor(cast(Any, self))

    def export(self, spans: Any) -> Any:
        from opentelemetry.sdk.trace.export import SpanExportResult

        result = self._exporter.export(spans)
        if result is SpanExportResult.SUCCESS:
            self.sent += 1
        else:
            self.failed += 1
        return result

    def shutdown(self) -> None:
        self._exporter.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return bool(self._exporter.force_flush(timeout_millis))

    def check(self) -> None:
        """DemoError naming the URL and the error unless every batch arrived."""
        if self.sent and not self.failed:
            return
        why = f": {self.error}" if self.error else ""
        if self.sent:
            raise DemoError(
                f"part of the trace was not exported to {self.url}{why} ({self.failed} of "
                f"{self.failed + self.sent} batches failed)"
            )
        raise DemoError(f"the trace was not exported to {self.url}{why}")


def _root_cause(exc: BaseException) -> str:
    """The innermost error under the HTTP client's wrappers, in one line ("Connection
    refused", "Name or service not known")."""
    seen: set[int] = set()
    while id(exc) not in seen:
        seen.add(id(exc))
        reason = getattr(exc, "reason", None)  # urllib3 keeps the cause of a retry there
        inner = reason if isinstance(reason, BaseException) else exc.__cause__ or exc.__context__
        if inner is None:
            break
        exc = inner
    text = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or repr(exc)
    return " ".join(text.split())[:300]


@contextlib.contextmanager
def _quiet(name: str) -> Iterator[None]:
    """The logger ``name`` says nothing while the demo runs (the demo reports instead)."""
    import logging

    logger = logging.getLogger(name)
    handler = logging.NullHandler()
    propagate = logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


def _with_trace(message: str, args: Any) -> str:
    if args.trace_file:
        return f"{message} (the partial trace is in {args.trace_file})"
    return message


def serve(args: Any) -> int:
    """``agent-sdk serve-scripted``: the demo's scripted model as a standalone endpoint."""
    import threading

    server = _listening(args.host, args.port)
    try:
        print(f"serving the demo's scripted model at {server.url}", flush=True)
        print(
            f"  try: agent-sdk demo --base-url {server.url} --model scripted   (Ctrl-C stops)",
            flush=True,
        )
        threading.Event().wait()
    finally:
        server.close()
    return 0  # pragma: no cover - ends with Ctrl-C


def _listening(host: str, port: int) -> ScriptedServer:
    """The demo's scripted server, started on ``host:port``; DemoError naming what is wrong
    with the address (out of range, unknown host, in use, not ours), never the socket's
    traceback."""
    import errno
    import socket

    from agent_sdk.scripted.server import ScriptedServer

    where = f"{host}:{port}"
    if not 0 <= port <= 65535:
        raise DemoError(f"cannot serve on {where}: --port must be 0-65535 (0: a free port)")
    server = ScriptedServer(script(), host=host, port=port)
    try:
        return server.start()
    except socket.gaierror as exc:
        raise DemoError(
            f"cannot serve on {where}: unknown host {host!r} ({exc.strerror})"
        ) from None
    except OSError as exc:
        hint = {
            errno.EADDRINUSE: "the port is in use; pick another --port, or 0 for a free one",
            errno.EACCES: "permission denied (ports below 1024 need privileges)",
            errno.EADDRNOTAVAIL: f"{host} is not an address of this machine",
        }.get(exc.errno or 0, exc.strerror or str(exc))
        raise DemoError(f"cannot serve on {where}: {hint}") from None
    except (OverflowError, ValueError) as exc:
        raise DemoError(f"cannot serve on {where}: {exc}") from None
