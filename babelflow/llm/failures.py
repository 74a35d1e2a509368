"""What a provider's error reply means, per provider and per cause, and what we do about it.

Every provider says the same few things in its own words (status, error type, error code), so
each gets its own reader, and all of them end in one closed set of causes:

=============  ======================================================================  ===========
cause          examples                                                                 action
=============  ======================================================================  ===========
auth           401 (OpenAI, Anthropic), DashScope ``InvalidApiKey`` (often the wrong region)  stop
permission     403 ``permission_error``, DashScope ``AccessDenied``                    stop
region         OpenAI 403 ``unsupported_country_region_territory``                      stop
quota          OpenAI 429 ``insufficient_quota``, Anthropic 402 / 429 spend limits,     stop
               DashScope ``Arrearage`` / free quota exhausted
not_found      404: model or endpoint                                                   stop
bad_request    other 4xx: we sent something the model does not take                     stop
refusal        DashScope ``DataInspectionFailed``, OpenAI ``content_filter``,           the segment
               Anthropic ``stop_reason: refusal``                                       fails alone
too_large      413, context length exceeded                                             smaller
rate_limited   429                                                                      backoff, floor
overloaded     Anthropic 529, 503                                                       backoff, floor
server         other 5xx, 408/409/425                                                   backoff
=============  ======================================================================  ===========

"stop" raises ``ProviderError`` (exit 2, naming the variable or setting to fix): retrying cannot
help and would only spend the rest of the quota. "smaller" and "the segment fails alone" raise
``BatchRejected``; the translator splits the batch and records what stays rejected.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel

from babelflow.llm.config import ProviderConfig
from babelflow.llm.resilience import BatchRejected, ProviderError, TransientError, retry_after_seconds

Cause = Literal[
    "auth",
    "permission",
    "region",
    "quota",
    "not_found",
    "bad_request",
    "refusal",
    "too_large",
    "rate_limited",
    "overloaded",
    "server",
]

DASHSCOPE_REGIONS = {
    "mainland China (Beijing)": "https://dashscope.aliyuncs.com/api/v1",
    "international (Singapore)": "https://dashscope-intl.aliyuncs.com/api/v1",
}
_BILLING = {
    "openai": "add credit or raise the project's usage limit (platform.openai.com, Billing / Limits)",
    "anthropic": "raise the spend limit or add credit (Claude Console, Billing)",
    "dashscope": "top up the Alibaba Cloud account or enable paid use of the model (Model Studio)",
    "openai-compatible": "check the server's quota",
}
_RERUN = "; finished batches are kept in the translation memory, so a rerun pays only for the rest"


class Failure(BaseModel):
    """One error reply, as the provider worded it."""

    provider: str
    status: int
    code: str | None = None  # OpenAI error.code, Anthropic error.details.error_code or error.type, DashScope code
    message: str = ""
    cause: Cause
    retry_after: float | None = None


def _openai_cause(status: int, code: str | None) -> Cause:
    code = (code or "").lower()
    if code in ("content_filter", "content_policy_violation", "invalid_prompt", "data_inspection_failed"):
        return "refusal"  # data_inspection_failed: DashScope's compatible mode behind openai-compatible
    if code in ("context_length_exceeded", "string_above_max_length") or status == 413:
        return "too_large"
    if status == 429:
        return "quota" if code == "insufficient_quota" else "rate_limited"
    if status == 403 and code == "unsupported_country_region_territory":
        return "region"
    return _by_status(status)


def _anthropic_cause(status: int, code: str | None, error_type: str | None, message: str) -> Cause:
    if error_type == "billing_error" or status == 402 or (status == 400 and "credit balance" in message.lower()):
        return "quota"
    if status == 429 and code and code.endswith("spend_limit_reached"):
        return "quota"  # a monthly spend limit: waiting minutes does not lift it
    if status == 413 or (status == 400 and "prompt is too long" in message.lower()):
        return "too_large"
    return _by_status(status)


def _dashscope_cause(status: int, code: str | None, message: str) -> Cause:
    code = code or ""
    lowered = message.lower()
    if code.lower() in ("datainspectionfailed", "data_inspection_failed") or "inappropriate content" in lowered:
        return "refusal"
    if code == "Arrearage" or (code.startswith("Throttling.AllocationQuota") and "free" in lowered):
        return "quota"
    if code == "InvalidApiKey":
        return "auth"
    if code == "InvalidParameter" and "input length" in lowered:
        return "too_large"
    return _by_status(status)


def _by_status(status: int) -> Cause:
    if status == 401:
        return "auth"
    if status == 403:
        return "permission"
    if status == 404:
        return "not_found"
    if status == 413:
        return "too_large"
    if status == 429:
        return "rate_limited"
    if status in (503, 529):
        return "overloaded"
    if status >= 500 or status in (408, 409, 425):
        return "server"
    return "bad_request"


def read_failure(
    provider: str,
    status: int,
    *,
    code: str | None,
    message: str,
    error_type: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> Failure:
    if provider == "anthropic":
        cause = _anthropic_cause(status, code, error_type, message)
    elif provider == "dashscope":
        cause = _dashscope_cause(status, code, message)
    else:
        cause = _openai_cause(status, code)
    return Failure(
        provider=provider,
        status=status,
        code=code or error_type,
        message=message[:300],
        cause=cause,
        retry_after=retry_after_seconds(headers),
    )


def _endpoint(config: ProviderConfig) -> str:
    return config.base_url or "the SDK's default endpoint"


def to_exception(config: ProviderConfig, failure: Failure) -> Exception:
    """The exception that makes the caller do what the failure's cause calls for."""
    said = f"HTTP {failure.status}{' ' + failure.code if failure.code else ''}: {failure.message}"
    cause, env = failure.cause, config.key_env
    if cause in ("rate_limited", "overloaded", "server"):
        return TransientError(
            said, failure.retry_after, throttled=cause == "overloaded", rate_limited=cause == "rate_limited"
        )
    if cause == "refusal":
        return BatchRejected(f"refused by {config.provider}'s content inspection ({said})")
    if cause == "too_large":
        return BatchRejected(f"request too large for {config.model} ({said})")
    if cause == "auth":
        if config.provider == "dashscope":
            regions = "; ".join(f"{name}: {url}" for name, url in DASHSCOPE_REGIONS.items())
            return ProviderError(
                f"dashscope rejected the API key (HTTP {failure.status} {failure.code or ''}) at {_endpoint(config)}. "
                f"DashScope keys work only in the region that issued them ({regions})",
                field=env,
                fix=f"set DASHSCOPE_HTTP_BASE_URL to your key's region, or check {env}",
            )
        return ProviderError(
            f"{config.provider} rejected the API key (HTTP {failure.status}) at {_endpoint(config)}",
            field=env,
            fix=f"check {env}",
        )
    if cause == "permission":
        return ProviderError(
            f"{config.label}: access denied ({said})",
            field=env,
            fix=f"check that the key in {env} may use {config.model} (project, workspace, region)",
        )
    if cause == "region":
        return ProviderError(
            f"{config.provider} does not serve requests from this country or region ({said})",
            fix=f"run from a region {config.provider} supports",
        )
    if cause == "quota":
        return ProviderError(
            f"{config.label}: quota or spend limit exhausted ({said})",
            field=env,
            fix=_BILLING[config.provider] + _RERUN,
        )
    if cause == "not_found":
        return ProviderError(
            f"{config.label}: model or endpoint not found at {_endpoint(config)} ({said})",
            fix="check the model name and base URL in the spec",
        )
    return ProviderError(
        f"{config.label} refused the request ({said})",
        fix=(
            "the request carries something this model does not take: check the spec's options (README, Model providers)"
        ),
    )
