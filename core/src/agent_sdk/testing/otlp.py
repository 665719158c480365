"""A local OTLP/HTTP receiver for tests: decodes the real ``ExportTraceServiceRequest``
protobuf, so an export can be checked end to end without Jaeger.

Needs ``opentelemetry-proto`` (a test dependency, not a runtime one).
"""

from __future__ import annotations

import gzip
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class OTLPReceiver:
    """Listens on 127.0.0.1 (a free port); ``url`` is the base URL to export to."""

    def __init__(self) -> None:
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest,
        )

        self.requests: list[tuple[str, Any]] = []
        received = self.requests

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                received.append((self.path, request))
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def spans(self) -> Iterator[tuple[str, str, Any]]:
        """(service name, instrumentation scope, protobuf span) for every span received."""
        for _, request in self.requests:
            for resource_spans in request.resource_spans:
                attrs = {a.key: a.value.string_value for a in resource_spans.resource.attributes}
                for scope_spans in resource_spans.scope_spans:
                    for span in scope_spans.spans:
                        yield attrs.get("service.name", ""), scope_spans.scope.name, span

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> OTLPReceiver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
