"""Properties of one-use approval tokens (issue 9, part 1).

For any run, thread, call, tool and arguments, a token verifies only for exactly that
binding and only once; any field change, replay, truncation or bit flip is rejected; many
tasks and threads verifying one token at once succeed at most once.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import json
import threading

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from reliability_helpers import Calls

from agent_sdk import ApprovalError, ApprovalToken, CallContext, ErrorKind, Executor
from agent_sdk.approval import AUTHORITY, TokenAuthority
from agent_sdk.spec import arguments_digest

ids = st.text(min_size=1, max_size=24)
maybe_ids = st.none() | ids
tool_names = st.from_regex(r"[A-Za-z0-9_-]{1,16}", fullmatch=True)
json_leaf = st.none() | st.booleans() | st.integers() | st.text(max_size=12)
arguments = st.dictionaries(
    st.text(max_size=8), st.recursive(json_leaf, lambda c: st.lists(c, max_size=3), max_leaves=6)
)
FIELDS = ("run_id", "thread_id", "call_id", "tool", "digest")
SETTINGS = settings(
    max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


def digest_of(tool: str, args: dict) -> str:
    from pydantic import create_model

    model = create_model("A", __config__={"extra": "allow"})
    return arguments_digest(tool, model.model_validate(args))


@st.composite
def bindings(draw: st.DrawFn) -> dict:
    tool = draw(tool_names)
    return {
        "run_id": draw(ids),
        "thread_id": draw(maybe_ids),
        "call_id": draw(maybe_ids),
        "tool": tool,
        "digest": digest_of(tool, draw(arguments)),
    }


@SETTINGS
@given(binding=bindings())
def test_a_token_verifies_once_for_exactly_its_binding(binding):
    authority = TokenAuthority()
    token = authority.mint(**binding)
    assert authority.outstanding() == 1
    assert authority.consume(token, **binding) is True
    assert authority.consume(token, **binding) is False, "a replay must be rejected"
    assert authority.outstanding() == 0


@SETTINGS
@given(binding=bindings(), other=bindings(), field=st.sampled_from(FIELDS))
def test_changing_any_field_of_the_binding_is_rejected(binding, other, field):
    assume(other[field] != binding[field])
    authority = TokenAuthority()
    token = authority.mint(**binding)
    changed = {**binding, field: other[field]}
    assert authority.consume(token, **changed) is False
    # A token edited to carry the other binding fails its signature.
    edited = dataclasses.replace(token, **{field: other[field]})
    assert authority.consume(edited, **changed) is False
    assert authority.consume(edited, **binding) is False
    authority.discard(token)


@SETTINGS
@given(binding=bindings(), args=arguments, other_args=arguments)
def test_edited_arguments_are_another_digest(binding, args, other_args):
    assume(json.dumps(args, sort_keys=True) != json.dumps(other_args, sort_keys=True))
    assert digest_of(binding["tool"], args) != digest_of(binding["tool"], other_args)


@SETTINGS
@given(binding=bindings())
def test_another_authority_or_secret_never_accepts_the_token(binding):
    token = TokenAuthority().mint(**binding)
    assert TokenAuthority().consume(token, **binding) is False


@SETTINGS
@given(binding=bindings(), data=st.data())
def test_truncated_encodings_are_rejected(binding, data):
    authority = TokenAuthority()
    token = authority.mint(**binding)
    text = token.encode()
    cut = data.draw(st.integers(min_value=0, max_value=len(text) - 1))
    _assert_rejected(authority, text[:cut], binding)
    assert authority.consume(ApprovalToken.decode(text), **binding) is True


@SETTINGS
@given(binding=bindings(), data=st.data())
def test_bit_flips_of_the_encoding_are_rejected(binding, data):
    authority = TokenAuthority()
    token = authority.mint(**binding)
    raw = bytearray(token.encode().encode())
    index = data.draw(st.integers(min_value=0, max_value=len(raw) - 1))
    bit = data.draw(st.integers(min_value=0, max_value=7))
    raw[index] ^= 1 << bit
    flipped = raw.decode("latin-1")
    # No flip may yield a token that verifies (the exhaustive test below flips every bit).
    try:
        decoded = ApprovalToken.decode(flipped)
    except ApprovalError:
        decoded = None
    if decoded is not None:
        assert authority.consume(decoded, **binding) is False, f"altered token {flipped!r} accepted"
    authority.discard(token)


def _assert_rejected(authority: TokenAuthority, text: str, binding: dict) -> None:
    try:
        decoded = ApprovalToken.decode(text)
    except ApprovalError:
        return
    assert authority.consume(decoded, **binding) is False, f"altered token {text!r} accepted"


def test_every_single_bit_flip_of_one_token_is_rejected():
    """Exhaustive for one token: all 8 x len(encoding) flips."""
    binding = {
        "run_id": "run-1",
        "thread_id": "thread-1",
        "call_id": "call-1",
        "tool": "pay",
        "digest": "ab" * 32,
    }
    authority = TokenAuthority()
    token = authority.mint(**binding)
    text = token.encode().encode()
    accepted, crashed = [], []
    for index in range(len(text)):
        for bit in range(8):
            raw = bytearray(text)
            raw[index] ^= 1 << bit
            try:
                decoded = ApprovalToken.decode(raw.decode("latin-1"))
            except ApprovalError:
                continue
            # Verify without spending the genuine token: a fresh authority with the same
            # secret and the same outstanding nonce.
            probe = TokenAuthority(secret=authority._secret)
            probe._outstanding[token.nonce] = float("inf")
            try:
                if probe.consume(decoded, **binding):
                    accepted.append((index, bit))
            except Exception as exc:
                crashed.append((index, bit, type(exc).__name__))
    authority.discard(token)
    assert accepted == [], f"{len(accepted)} flipped encodings still verify, e.g. {accepted[:3]}"
    assert crashed == [], f"{len(crashed)} flipped encodings crash consume, e.g. {crashed[:3]}"


@pytest.mark.parametrize(
    "body",
    [
        [1, None, None, "t", "d", "n"],
        ["r", None, None, ["t"], "d", "n"],
        ["r", None, None, "t", {"d": 1}, "n"],
        ["r", 2, 3, "t", "d", None],
    ],
)
def test_decoded_tokens_with_non_text_fields_are_rejected_not_crashing(body):
    """A token decoded from untrusted text must be rejected, never raise out of consume."""
    text = base64.urlsafe_b64encode(json.dumps(body).encode()).decode() + "." + "0" * 64
    try:
        token = ApprovalToken.decode(text)
    except ApprovalError:
        return
    assert (
        AUTHORITY.consume(token, run_id="r", thread_id=None, call_id=None, tool="t", digest="d")
        is False
    )


def test_a_non_ascii_signature_is_rejected_not_crashing():
    binding = dict(run_id="r", thread_id=None, call_id="c", tool="t", digest="d")
    token = AUTHORITY.mint(**binding)
    try:
        forged = dataclasses.replace(token, signature="\u00e9" * 64)
        assert AUTHORITY.consume(forged, **binding) is False
    finally:
        AUTHORITY.discard(token)


def test_expired_tokens_are_rejected():
    authority = TokenAuthority(ttl=-1.0)
    binding = dict(run_id="r", thread_id=None, call_id="c", tool="t", digest="d")
    token = authority.mint(**binding)
    assert authority.consume(token, **binding) is False


def test_concurrent_verification_from_tasks_and_threads_succeeds_once():
    binding = dict(run_id="r", thread_id="th", call_id="c", tool="t", digest="d")
    for _ in range(20):
        authority = TokenAuthority()
        token = authority.mint(**binding)
        wins: list[bool] = []
        barrier = threading.Barrier(9)

        def in_thread(token=token, authority=authority, barrier=barrier, wins=wins) -> None:
            barrier.wait()
            wins.append(authority.consume(token, **binding))

        async def main(token=token, authority=authority, barrier=barrier, wins=wins) -> None:
            async def in_task() -> None:
                await asyncio.sleep(0)
                wins.append(authority.consume(token, **binding))

            threads = [threading.Thread(target=in_thread) for _ in range(8)]
            for t in threads:
                t.start()
            await asyncio.to_thread(barrier.wait)
            await asyncio.gather(*(in_task() for _ in range(50)))
            for t in threads:
                t.join()

        asyncio.run(main())
        assert len(wins) == 58 and wins.count(True) == 1, wins.count(True)


def test_one_token_shared_by_many_concurrent_calls_runs_the_tool_once():
    """The executor path: 100 calls with the same genuine token in their context; only one
    may run on it, the rest go to the executor's own port (none here: denied)."""
    calls = Calls()
    spec = calls.schema_spec()
    args = {"amount": 5, "to": "bob"}
    ctx = CallContext(run_id="run-t", thread_id="th", call_id="call-t")
    token = AUTHORITY.mint(
        run_id="run-t",
        thread_id="th",
        call_id="call-t",
        tool="pay",
        digest=arguments_digest("pay", spec.validate(args)),
    )

    async def main() -> list:
        ex = Executor()
        return await asyncio.gather(
            *(ex.run_spec(spec, args, ctx.evolve(token=token)) for _ in range(100))
        )

    outcomes = asyncio.run(main())
    assert sum(o.ok for o in outcomes) == 1 and len(calls.calls) == 1
    denied = [o for o in outcomes if not o.ok]
    assert all(o.error.kind is ErrorKind.APPROVAL_DENIED for o in denied)
    AUTHORITY.discard(token)
