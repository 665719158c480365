"""An approval binds every value that reaches the handler (issue 15, item 3).

A token or a deferred approval is bound to a digest of the validated arguments as JSON; a
secret dumps as a mask and an excluded field not at all, so an approval for
``otp=111111, account=savings-1`` also covered ``otp=999999, account=ATTACKER-ACCT``.
Confirm tools with such fields are refused when the tool is defined, with a clear error."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field, Secret, SecretBytes, SecretStr

from agent_sdk import ConfigurationError, ToolSpec


async def pay(**kwargs: object) -> str:
    return "paid"


class WithSecret(BaseModel):
    otp: SecretStr
    amount: int


class WithExcluded(BaseModel):
    account: str = Field(exclude=True)
    amount: int


class Inner(BaseModel):
    pin: SecretBytes


class Nested(BaseModel):
    card: Inner
    amount: int


class Generic(BaseModel):
    token: Secret[int]


@pytest.mark.parametrize(
    ("model", "field"),
    [
        (WithSecret, "otp (a secret)"),
        (WithExcluded, "account (excluded from dumps)"),
        (Nested, "card.pin (a secret)"),
        (Generic, "token (a secret)"),
    ],
)
@pytest.mark.parametrize("confirm", [True, lambda args: True], ids=["always", "predicate"])
def test_confirm_tools_with_unbindable_fields_are_refused(model, field, confirm):
    with pytest.raises(ConfigurationError) as err:
        ToolSpec(name="pay", description="d", handler=pay, input_model=model, confirm=confirm)
    assert field in str(err.value) and "approval cannot bind" in str(err.value)


@pytest.mark.parametrize("model", [WithSecret, WithExcluded, Nested, Generic])
def test_tools_without_approval_may_have_them(model):
    ToolSpec(name="pay", description="d", handler=pay, input_model=model)
