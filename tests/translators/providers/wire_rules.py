"""What each real API refuses, written down independently of the code under test.

These rules come from the installed SDKs' request signatures (openai 3.57, anthropic 2.14,
dashscope 2.0.2) and the providers' API references, not from ``translators.providers.families``:
if the client sends something a real API would answer with a 400, the fake answers with that
provider's 400 too, and the test fails. ``check_request`` returns (status, code, message) or None.
"""

from __future__ import annotations

import re
from collections.abc import Callable

Problem = tuple[int, str, str]

# ---- OpenAI Chat Completions -----------------------------------------------------------------------

OPENAI_FIELDS = {
    "messages",
    "model",
    "audio",
    "frequency_penalty",
    "function_call",
    "functions",
    "logit_bias",
    "logprobs",
    "max_completion_tokens",
    "max_tokens",
    "metadata",
    "modalities",
    "moderation",
    "n",
    "parallel_tool_calls",
    "prediction",
    "presence_penalty",
    "prompt_cache_key",
    "prompt_cache_options",
    "prompt_cache_retention",
    "reasoning_effort",
    "response_format",
    "safety_identifier",
    "seed",
    "service_tier",
    "stop",
    "store",
    "stream",
    "stream_options",
    "temperature",
    "tool_choice",
    "tools",
    "top_logprobs",
    "top_p",
    "user",
    "verbosity",
    "web_search_options",
}
# reasoning models (o-series, gpt-5 and later, not the -chat snapshots): no sampling, no max_tokens
_OPENAI_REASONING = re.compile(r"^(o\d|gpt-5|gpt-6)")
_EFFORTS = {"none", "minimal", "low", "medium", "high", "xhigh", "max"}
_O_SERIES_EFFORTS = {"low", "medium", "high"}
_SCHEMA_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def _strict_schema_problem(schema: dict, where: str = "()") -> str | None:
    """Structured Outputs' strict mode: every object lists all its properties as required and
    forbids additional ones, all the way down."""
    if not isinstance(schema, dict):
        return f"In context={where}, schema must be an object"
    if schema.get("type") == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        if schema.get("additionalProperties") is not False:
            return f"In context={where}, 'additionalProperties' is required to be supplied and to be false"
        missing = sorted(set(properties) - set(schema.get("required", [])))
        if missing:
            return (
                f"In context={where}, 'required' is required to be supplied and to be an array "
                f"including every key in properties. Missing '{missing[0]}'"
            )
        for name, sub in properties.items():
            problem = _strict_schema_problem(sub, f"{where}/{name}")
            if problem:
                return problem
    if "items" in schema:
        return _strict_schema_problem(schema["items"], f"{where}/items")
    for sub in schema.get("anyOf", []):
        problem = _strict_schema_problem(sub, f"{where}/anyOf")
        if problem:
            return problem
    return None


def _mentions_json(body: dict, messages: list) -> bool:
    return any("json" in str(m.get("content", "")).lower() for m in messages if isinstance(m, dict))


def check_openai(headers: dict, body: dict, official: bool = True) -> Problem | None:
    """``official=False``: a self-hosted server (vLLM, Ollama): OpenAI's request shape, but none of
    OpenAI's per-model rules (it serves other models, and reads max_tokens and reasoning_effort)."""
    unknown = sorted(set(body) - OPENAI_FIELDS)
    if unknown:
        return 400, "unknown_parameter", f"Unrecognized request argument supplied: {unknown[0]}"
    for required in ("model", "messages"):
        if required not in body:
            return 400, "missing_required_parameter", f"Missing required parameter: '{required}'."
    model = str(body["model"]).lower()
    reasoning = bool(_OPENAI_REASONING.match(model)) and "-chat" not in model
    if "max_tokens" in body and "max_completion_tokens" in body:
        return 400, "invalid_request_error", "max_tokens and max_completion_tokens cannot both be set"
    if not official:
        pass
    elif reasoning:
        if "max_tokens" in body:
            return (
                400,
                "unsupported_parameter",
                (
                    "Unsupported parameter: 'max_tokens' is not supported with this model. "
                    "Use 'max_completion_tokens' instead."
                ),
            )
        for sampling in ("temperature", "top_p"):
            if sampling in body and body[sampling] != 1:
                return (
                    400,
                    "unsupported_value",
                    (
                        f"Unsupported value: '{sampling}' does not support {body[sampling]} with this model. "
                        "Only the default (1) value is supported."
                    ),
                )
        effort = body.get("reasoning_effort")
        allowed = _O_SERIES_EFFORTS if model.startswith("o") else _EFFORTS
        if effort is not None and effort not in allowed:
            return (
                400,
                "unsupported_value",
                f"Unsupported value: 'reasoning_effort' does not support '{effort}' with this model.",
            )
    elif "reasoning_effort" in body:
        return (
            400,
            "unsupported_parameter",
            "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
        )
    format_ = body.get("response_format")
    if format_ is not None:
        kind = format_.get("type") if isinstance(format_, dict) else None
        if kind == "json_schema":
            spec = format_.get("json_schema")
            if (
                not isinstance(spec, dict)
                or not _SCHEMA_NAME.match(str(spec.get("name", "")))
                or not isinstance(spec.get("schema"), dict)
            ):
                return (
                    400,
                    "invalid_value",
                    (
                        "Invalid 'response_format.json_schema': "
                        "needs a name matching ^[a-zA-Z0-9_-]{1,64}$ and a schema object."
                    ),
                )
            if spec.get("strict"):
                problem = _strict_schema_problem(spec["schema"])
                if problem:
                    return (
                        400,
                        "invalid_json_schema",
                        f"Invalid schema for response_format '{spec['name']}': {problem}.",
                    )
        elif kind == "json_object":
            if not _mentions_json(body, body["messages"]):
                return (
                    400,
                    "invalid_request_error",
                    (
                        "'messages' must contain the word 'json' in some form, "
                        "to use 'response_format' of type 'json_object'."
                    ),
                )
        elif kind != "text":
            return (
                400,
                "invalid_value",
                f"Invalid value: '{kind}'. Supported values are: 'json_object', 'json_schema', and 'text'.",
            )
    return None


# ---- Anthropic Messages ------------------------------------------------------------------------------

ANTHROPIC_FIELDS = {
    "max_tokens",
    "messages",
    "model",
    "cache_control",
    "container",
    "diagnostics",
    "inference_geo",
    "metadata",
    "output_config",
    "service_tier",
    "speed",
    "stop_sequences",
    "stream",
    "system",
    "thinking",
    "tool_choice",
    "tools",
    "user_profile_id",
    "workspace_id",
}
_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_VERSION = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def check_anthropic(headers: dict, body: dict) -> Problem | None:
    if not _VERSION.match(headers.get("anthropic-version", "")):
        return 400, "invalid_request_error", "anthropic-version: header is required"
    unknown = sorted(set(body) - ANTHROPIC_FIELDS)
    if unknown:  # temperature, top_p, top_k: not part of this API version
        return 400, "invalid_request_error", f"{unknown[0]}: Extra inputs are not permitted"
    for required in ("model", "max_tokens", "messages"):
        if required not in body:
            return 400, "invalid_request_error", f"{required}: Field required"
    if not isinstance(body["max_tokens"], int) or body["max_tokens"] < 1:
        return 400, "invalid_request_error", "max_tokens: Input should be a positive integer"
    messages = body["messages"]
    if not messages or messages[0].get("role") != "user":
        return 400, "invalid_request_error", "messages: first message must use the 'user' role"
    names = set()
    for tool in body.get("tools", []):
        if not _TOOL_NAME.match(str(tool.get("name", ""))):
            return 400, "invalid_request_error", "tools.0.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'"
        if not isinstance(tool.get("input_schema"), dict) or tool["input_schema"].get("type") != "object":
            return 400, "invalid_request_error", "tools.0.input_schema.type: Input should be 'object'"
        names.add(tool["name"])
    choice = body.get("tool_choice")
    if choice is not None:
        if choice.get("type") not in ("auto", "any", "tool", "none"):
            return 400, "invalid_request_error", "tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'"
        if choice["type"] == "tool" and choice.get("name") not in names:
            return 400, "invalid_request_error", f"tool_choice.name: tool '{choice.get('name')}' not found in tools"
        thinking = (body.get("thinking") or {}).get("type")
        if choice["type"] in ("any", "tool") and thinking in ("enabled", "adaptive"):
            return 400, "invalid_request_error", "Thinking may not be enabled when tool_choice forces tool use."
    return None


# ---- DashScope Generation ----------------------------------------------------------------------------

_QWEN3_HYBRID_OPEN = re.compile(r"^qwen3-\d+(\.\d+)?b(-a\d+(\.\d+)?b)?$")  # qwen3-32b, qwen3-235b-a22b
_THINKING_ONLY = re.compile(r"^(qwq|qvq)|-thinking")


def check_dashscope(headers: dict, body: dict) -> Problem | None:
    if "model" not in body or not isinstance(body.get("input"), dict) or not body["input"].get("messages"):
        return 400, "InvalidParameter", "Missing model or input.messages"
    parameters = body.get("parameters", {})
    model = str(body["model"]).lower()
    streaming = bool(parameters.get("stream"))
    if _THINKING_ONLY.search(model) and not streaming:
        return (
            400,
            "InvalidParameter",
            "This model only support stream mode, please enable the stream parameter to access the model.",
        )
    if _QWEN3_HYBRID_OPEN.match(model) and not streaming and parameters.get("enable_thinking") is not False:
        return 400, "InvalidParameter", "parameter.enable_thinking must be set to false for non-streaming calls"
    if "temperature" in parameters and not 0 <= parameters["temperature"] < 2:
        return 400, "InvalidParameter", "Range of temperature should be [0.0, 2.0)"
    if "max_tokens" in parameters and (not isinstance(parameters["max_tokens"], int) or parameters["max_tokens"] < 1):
        return 400, "InvalidParameter", "Range of max_tokens should be [1, model limit]"
    for openai_only in ("max_completion_tokens", "reasoning_effort"):
        if openai_only in parameters:
            return 400, "InvalidParameter", f"parameter.{openai_only} is not supported"
    format_ = parameters.get("response_format")
    if format_ is not None:
        if not isinstance(format_, dict) or format_.get("type") not in ("text", "json_object", "json_schema"):
            return 400, "InvalidParameter", "parameter.response_format.type must be text, json_object or json_schema"
        if format_["type"] == "json_object":
            if parameters.get("enable_thinking") is True:
                return 400, "InvalidParameter", "The json mode is not supported when enable_thinking is true"
            if not _mentions_json(body, body["input"]["messages"]):
                return (
                    400,
                    "InvalidParameter",
                    (
                        "'messages' must contain the word 'json' in some form, "
                        "to use 'response_format' of type 'json_object'."
                    ),
                )
    return None


CHECKS: dict[str, Callable[[dict, dict], Problem | None]] = {
    "openai": check_openai,
    "anthropic": check_anthropic,
    "dashscope": check_dashscope,
}


def check_request(provider: str, headers: dict, body: dict, official: bool = True) -> Problem | None:
    if provider == "openai":
        return check_openai(headers, body, official)
    return CHECKS[provider](headers, body)


# ---- each provider's error body ----------------------------------------------------------------------


def _openai_error(status: int, code: str, message: str) -> dict:
    kind = {
        401: "invalid_request_error",
        429: "insufficient_quota" if code == "insufficient_quota" else "requests",
    }.get(status, "invalid_request_error" if status < 500 else "server_error")
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def _anthropic_error(status: int, code: str, message: str) -> dict:
    types = {
        400: "invalid_request_error",
        401: "authentication_error",
        402: "billing_error",
        403: "permission_error",
        404: "not_found_error",
        413: "request_too_large",
        429: "rate_limit_error",
        500: "api_error",
        529: "overloaded_error",
        503: "overloaded_error",
    }
    error: dict = {"type": types.get(status, "api_error"), "message": message}
    if code not in types.values():  # a stable cause code beyond the type, e.g. enforced_spend_limit_reached
        error["details"] = {"error_code": code}
    return {"type": "error", "error": error, "request_id": "req_fake"}


def _dashscope_error(status: int, code: str, message: str) -> dict:
    code = {401: "InvalidApiKey"}.get(status, code)
    return {"request_id": "req-fake", "code": code, "message": message}


ERROR_BODIES: dict[str, Callable[[int, str, str], dict]] = {
    "openai": _openai_error,
    "anthropic": _anthropic_error,
    "dashscope": _dashscope_error,
}
