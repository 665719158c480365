"""One-use approval tokens.

A tool call from a model (or a remote peer) is a request, never an approval. Only a port's
decision mints a token, in the process that runs the agent. A token is bound to the run,
thread, call, tool and a digest of the validated arguments, HMAC-signed with a per-process
secret, and good for one use.
"""

from __future__ import annotations

import base64
import hmac
import json
import os
import threading
import time
from dataclasses import dataclass, field

from agent_sdk.errors import ApprovalError


@dataclass(frozen=True)
class ApprovalToken:
    """Proof that a port approved one call. Opaque to everyone but the authority that made it."""

    run_id: str
    thread_id: str | None
    call_id: str | None
    tool: str
    digest: str
    nonce: str
    signature: str = field(repr=False)

    def payload(self) -> bytes:
        return _payload(
            self.run_id, self.thread_id, self.call_id, self.tool, self.digest, self.nonce
        )

    def encode(self) -> str:
        body = json.dumps(
            [self.run_id, self.thread_id, self.call_id, self.tool, self.digest, self.nonce]
        ).encode()
        return base64.urlsafe_b64encode(body).decode() + "." + self.signature

    @classmethod
    def decode(cls, text: str) -> ApprovalToken:
        try:
            body, signature = text.rsplit(".", 1)
            run_id, thread_id, call_id, tool, digest, nonce = json.loads(
                base64.urlsafe_b64decode(body.encode("ascii"))
            )
            token = cls(run_id, thread_id, call_id, tool, digest, nonce, signature)
        except Exception as exc:
            raise ApprovalError("not an approval token") from exc
        # One token, one spelling: base64 leaves low bits of the last character unused, so
        # several texts decode to the same token. Only the canonical encoding is accepted.
        if token.encode() != text:
            raise ApprovalError("not an approval token")
        return token


def _payload(
    run_id: str, thread_id: str | None, call_id: str | None, tool: str, digest: str, nonce: str
) -> bytes:
    return "\x00".join((run_id, thread_id or "", call_id or "", tool, digest, nonce)).encode()


class TokenAuthority:
    """Mints and verifies one-use tokens with a secret that never leaves this process."""

    def __init__(self, *, ttl: float = 600.0, secret: bytes | None = None) -> None:
        self._secret = secret or os.urandom(32)
        self._outstanding: dict[str, float] = {}
        self._lock = threading.Lock()
        self.ttl = ttl

    def _sign(self, payload: bytes) -> str:
        return hmac.digest(self._secret, payload, "sha256").hex()  # one-shot, in C

    def mint(
        self, *, run_id: str, thread_id: str | None, call_id: str | None, tool: str, digest: str
    ) -> ApprovalToken:
        nonce = os.urandom(16).hex()
        signature = self._sign(_payload(run_id, thread_id, call_id, tool, digest, nonce))
        token = ApprovalToken(run_id, thread_id, call_id, tool, digest, nonce, signature)
        now = time.monotonic()
        with self._lock:
            self._prune(now)
            self._outstanding[token.nonce] = now + self.ttl
        return token

    def consume(
        self,
        token: ApprovalToken,
        *,
        run_id: str,
        thread_id: str | None,
        call_id: str | None,
        tool: str,
        digest: str,
    ) -> bool:
        """True once for a genuine, unexpired token bound to exactly this call."""
        if not isinstance(token, ApprovalToken):
            return False
        try:  # a decoded token may carry anything: non-text fields, non-ASCII signatures
            expected = self._sign(token.payload())
            genuine = hmac.compare_digest(expected.encode(), str(token.signature).encode())
        except (TypeError, ValueError):
            return False
        if not genuine:
            return False
        binding = (token.run_id, token.thread_id, token.call_id, token.tool, token.digest)
        if binding != (run_id, thread_id, call_id, tool, digest):
            return False
        now = time.monotonic()
        with self._lock:
            expires = self._outstanding.pop(token.nonce, None)
        return expires is not None and expires >= now

    def discard(self, token: ApprovalToken | None) -> None:
        """Drop a token that its call did not take."""
        if token is not None:
            with self._lock:
                self._outstanding.pop(token.nonce, None)

    def outstanding(self) -> int:
        with self._lock:
            return len(self._outstanding)

    def _prune(self, now: float) -> None:
        if len(self._outstanding) > 1024:
            for nonce in [n for n, exp in self._outstanding.items() if exp < now]:
                del self._outstanding[nonce]


AUTHORITY = TokenAuthority()
"""The process-wide token authority every gate and executor uses."""
