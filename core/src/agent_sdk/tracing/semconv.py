"""Attribute and span names, in one place. GenAI names follow the OpenTelemetry GenAI
semantic conventions (their own repository, release v0.1.0); they are defined here as
strings because the Python semconv package marks gen_ai.* as moved.

``REQUIRED`` and ``RECOMMENDED`` list, per operation, the attributes every span of that kind
we emit carries (the tests check each kind against them).
"""

GEN_AI_OPERATION_NAME = "gen_ai.operation.name"
GEN_AI_AGENT_NAME = "gen_ai.agent.name"
GEN_AI_AGENT_DESCRIPTION = "gen_ai.agent.description"
GEN_AI_TOOL_NAME = "gen_ai.tool.name"
GEN_AI_TOOL_DESCRIPTION = "gen_ai.tool.description"
GEN_AI_TOOL_TYPE = "gen_ai.tool.type"
GEN_AI_TOOL_CALL_ID = "gen_ai.tool.call.id"
GEN_AI_TOOL_CALL_ARGUMENTS = "gen_ai.tool.call.arguments"
GEN_AI_TOOL_CALL_RESULT = "gen_ai.tool.call.result"
GEN_AI_CONVERSATION_ID = "gen_ai.conversation.id"
GEN_AI_PROVIDER_NAME = "gen_ai.provider.name"
GEN_AI_WORKFLOW_NAME = "gen_ai.workflow.name"
GEN_AI_USAGE_INPUT_TOKENS = "gen_ai.usage.input_tokens"
GEN_AI_USAGE_OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
GEN_AI_REQUEST_MODEL = "gen_ai.request.model"
GEN_AI_RESPONSE_MODEL = "gen_ai.response.model"
GEN_AI_RESPONSE_ID = "gen_ai.response.id"
GEN_AI_RESPONSE_FINISH_REASONS = "gen_ai.response.finish_reasons"
ERROR_TYPE = "error.type"
SERVER_ADDRESS = "server.address"
SERVER_PORT = "server.port"

OP_INVOKE_AGENT = "invoke_agent"
OP_EXECUTE_TOOL = "execute_tool"
OP_INVOKE_WORKFLOW = "invoke_workflow"
OP_CHAT = "chat"

PROVIDER = "agent_sdk"
"""``gen_ai.provider.name`` of spans that belong to no model provider (the workflow root)."""
CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
"""The standard switch for message content on spans (``true`` turns it on)."""

REQUIRED: dict[str, frozenset[str]] = {
    OP_INVOKE_WORKFLOW: frozenset({GEN_AI_OPERATION_NAME, GEN_AI_PROVIDER_NAME}),
    OP_INVOKE_AGENT: frozenset({GEN_AI_OPERATION_NAME, GEN_AI_PROVIDER_NAME}),
    OP_EXECUTE_TOOL: frozenset({GEN_AI_OPERATION_NAME, GEN_AI_TOOL_NAME}),
    OP_CHAT: frozenset({GEN_AI_OPERATION_NAME, GEN_AI_PROVIDER_NAME, GEN_AI_REQUEST_MODEL}),
}
RECOMMENDED: dict[str, frozenset[str]] = {
    OP_INVOKE_WORKFLOW: frozenset(
        {GEN_AI_AGENT_NAME, GEN_AI_USAGE_INPUT_TOKENS, GEN_AI_USAGE_OUTPUT_TOKENS}
    ),
    OP_INVOKE_AGENT: frozenset(
        {GEN_AI_AGENT_NAME, GEN_AI_USAGE_INPUT_TOKENS, GEN_AI_USAGE_OUTPUT_TOKENS}
    ),
    OP_EXECUTE_TOOL: frozenset({GEN_AI_TOOL_CALL_ID, GEN_AI_TOOL_TYPE}),
    OP_CHAT: frozenset(
        {
            GEN_AI_RESPONSE_MODEL,
            GEN_AI_USAGE_INPUT_TOKENS,
            GEN_AI_USAGE_OUTPUT_TOKENS,
            GEN_AI_RESPONSE_FINISH_REASONS,
        }
    ),
}

RUN_ID = "agent_sdk.run_id"
PATH = "agent_sdk.path"
ROOT_PATH = "/"
"""``agent_sdk.path`` of the run's own spans (the workflow root, the top agent, its model
calls); a sub-agent's spans carry its path, e.g. ``legal/tax``."""
CLONE = "agent_sdk.clone"
"""A framework's name for one clone of an agent (e.g. fast-agent's ``legal[1]``): kept as an
attribute, never in a span name."""
DEPTH = "agent_sdk.depth"
OUTCOME = "agent_sdk.outcome"
APPROVAL_ID = "agent_sdk.approval_id"
MODEL_CALLS = "agent_sdk.usage.model_calls"
INPUT_CHARS = "agent_sdk.usage.input_chars"

# Baggage keys that carry a hierarchy across a process boundary.
BAGGAGE_RUN_ID = "agent_sdk.run_id"
BAGGAGE_PATH = "agent_sdk.path"
BAGGAGE_DEPTH = "agent_sdk.depth"
BAGGAGE_BUDGET = "agent_sdk.budget_remaining"
BAGGAGE_MAX_DEPTH = "agent_sdk.max_depth"
