"""The ``agent-sdk`` command: plugins, trace show, demo, serve-scripted, serve-mcp."""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Sequence

from agent_sdk._version import __version__
from agent_sdk.errors import AgentSDKError

EXIT_ERROR = 2
EXIT_INTERNAL = 70  # EX_SOFTWARE (sysexits.h): a bug in agent-sdk, not in what it was given
EXIT_INTERRUPTED = 130
EXIT_STATUS = f"""exit status:
  0    done
  1    the output was closed early (e.g. piped into head)
  {EXIT_ERROR}    an error the message explains (bad arguments, an unusable file, port or
       endpoint, a failed run or trace export)
  {EXIT_INTERNAL}   internal error: a bug in agent-sdk (-v shows the traceback; please report it)
  {EXIT_INTERRUPTED}  interrupted (Ctrl-C)
"""


def _table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    lines = [fmt.format(*header), fmt.format(*("-" * w for w in widths))]
    lines += [fmt.format(*r) for r in rows]
    return "\n".join(line.rstrip() for line in lines)


def cmd_plugins(_: argparse.Namespace) -> int:
    from agent_sdk.plugins import failed_plugins, integrations, loaded_plugins, name_clashes

    found = sorted(integrations(), key=lambda i: i.name)
    rows: list[list[str]] = []
    for integration in found:
        version = integration.framework_version()
        try:
            integration.check_framework(symbols=False)
            status = "ok"
        except AgentSDKError as exc:
            status = str(exc)
        rows.append(
            [
                integration.name,
                integration.distribution,
                _dist_version(integration.distribution),
                f"{integration.framework} {version or '(not installed)'}",
                integration.supported,
                status,
            ]
        )
    providers = {i.distribution for i in found}
    for name, claimants in sorted(name_clashes().items()):
        who = " and ".join(c.label for c in claimants)
        rows.append([name, "?", "?", "-", "-", f"error: claimed by {who}"])
        providers |= {c.distribution for c in claimants if c.distribution}
    failed = failed_plugins()
    failed_names = {f.entry_point for f in failed}
    for plugin in sorted(loaded_plugins(), key=lambda p: p.entry_point):
        if plugin.distribution not in providers and plugin.entry_point not in failed_names:
            rows.append(
                [
                    plugin.entry_point,
                    plugin.distribution or "?",
                    plugin.version or "?",
                    "-",
                    "-",
                    "ok (hooks only)",
                ]
            )
    for failure in sorted(failed, key=lambda f: f.entry_point):
        rows.append(
            [
                failure.entry_point,
                failure.distribution or "?",
                failure.version or "?",
                "-",
                "-",
                f"failed: {failure.error}"
                if (failure.error or "").startswith("hook ")
                else f"failed to load: {failure.error}",
            ]
        )
    print(
        _table(rows, ["integration", "distribution", "version", "framework", "supported", "status"])
    )
    if not rows:
        print("(no plugins installed: pip install agent-sdk-ag2, agent-sdk-autogen, ...)")
    return 0


def _dist_version(name: str) -> str:
    import importlib.metadata as md

    try:
        return md.version(name)
    except md.PackageNotFoundError:
        return "?"


def cmd_trace_show(args: argparse.Namespace) -> int:
    from agent_sdk.tracing import format_tree, load_trace_file

    print(format_tree(load_trace_file(args.file)))
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from agent_sdk import demo

    if getattr(args, "distributed", False):
        from agent_sdk.demo_distributed import Distributed

        return demo.main(args, lambda scratch: Distributed(args, scratch))
    return demo.main(args)


def cmd_serve_scripted(args: argparse.Namespace) -> int:
    from agent_sdk import demo

    return demo.serve(args)


VERBOSE = "say more: the traceback of an internal error, the OTLP exporter's own messages"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agent-sdk",
        description=__doc__,
        epilog=EXIT_STATUS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"agent-sdk {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help=VERBOSE)
    # -v after the command works too; SUPPRESS keeps a subcommand from resetting it
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "-v", "--verbose", action="store_true", default=argparse.SUPPRESS, help=VERBOSE
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("plugins", parents=[common], help="list integrations and plugins").set_defaults(
        func=cmd_plugins
    )
    demo = sub.add_parser(
        "demo",
        parents=[common],
        help="run the contract-review hierarchy over HTTP (a scripted model, or any "
        "OpenAI-compatible endpoint with --base-url) and print its trace",
    )
    demo.add_argument(
        "--framework",
        help="integration to use (default: the first installed of "
        "ag2, openai-agents, autogen, fast-agent)",
    )
    demo.add_argument(
        "--otlp",
        metavar="URL",
        help="also export the trace over OTLP/HTTP, e.g. http://localhost:4318 (Jaeger)",
    )
    demo.add_argument("--trace-file", metavar="FILE", help="write the trace as Jaeger JSON")
    demo.add_argument(
        "--approve",
        choices=("auto", "ask", "deny"),
        default="auto",
        help="how the confirm tool is approved (ask: prompt on the terminal)",
    )
    demo.add_argument(
        "--base-url",
        metavar="URL",
        help="an OpenAI-compatible endpoint, e.g. https://api.openai.com/v1 or "
        "http://localhost:11434/v1 (default: a scripted server started for the run)",
    )
    demo.add_argument("--model", help="the model (or Azure deployment) to call")
    demo.add_argument(
        "--api-key-env",
        metavar="VAR",
        default="OPENAI_API_KEY",
        help="environment variable holding the API key (default OPENAI_API_KEY)",
    )
    demo.add_argument(
        "--api",
        choices=("chat", "responses"),
        default="chat",
        help="Chat Completions (every provider) or the Responses API",
    )
    demo.add_argument("--stream", action="store_true", help="stream model responses")
    demo.add_argument(
        "--in-process",
        action="store_true",
        help="use the framework's in-process scripted model instead of HTTP",
    )
    demo.add_argument(
        "--distributed",
        action="store_true",
        help="serve the reviewers as a separate MCP service (its own process and service "
        "name, started and stopped by the demo) and call them over loopback HTTP",
    )
    demo.set_defaults(func=cmd_demo)
    serve = sub.add_parser(
        "serve-scripted",
        parents=[common],
        help="serve the demo's scripted model as an OpenAI-compatible endpoint",
    )
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=0, help="0-65535 (default: a free port)")
    serve.set_defaults(func=cmd_serve_scripted)
    from agent_sdk.serve_mcp import add_parser as add_serve_mcp

    add_serve_mcp(sub, common)
    from agent_sdk import approvals_cli

    approvals_cli.add_parser(sub, common)
    trace = sub.add_parser("trace", parents=[common], help="work with trace files")
    trace_sub = trace.add_subparsers(dest="trace_command", required=True)
    show = trace_sub.add_parser(
        "show", parents=[common], help="print the span tree of a Jaeger JSON file"
    )
    show.add_argument("file")
    show.set_defaults(func=cmd_trace_show)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):
        # A terminal that cannot show a character (PYTHONIOENCODING=ascii, a C locale on an
        # old system) gets its escape, not a UnicodeEncodeError.
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except AgentSDKError as exc:
        print(f"agent-sdk: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        # The reader went away (`agent-sdk trace show t.json | head`): stop quietly, and
        # keep Python from complaining again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        print("agent-sdk: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:  # the last resort: a terminal user never gets a traceback
        verbose = getattr(args, "verbose", False)
        if verbose:
            traceback.print_exc()
        problem = " ".join(f"{type(exc).__name__}: {exc}".split())[:500]
        hint = "" if verbose else " (-v shows the traceback)"
        print(f"agent-sdk: internal error: {problem}{hint}", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
