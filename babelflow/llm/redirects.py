"""Provider calls never follow an HTTP redirect (issue 28, item 14).

The SDKs follow redirects by default (openai and anthropic through httpx, DashScope through
requests). httpx and requests drop `Authorization` when the host changes, but keep every other
header (`OpenAI-Organization`, `OpenAI-Project`, an `x-api-key`) and, on 307/308, the body: the
whole prompt went to whatever host the endpoint named. A provider API has no reason to redirect
a POST; an endpoint that does is a misconfiguration or a hijack, and the right address is one the
user writes down. So a 3xx is a provider failure that names the endpoint, where it pointed, and
where to configure the final URL; nothing is sent to the new host.
"""

from __future__ import annotations

from typing import Any

import requests

from babelflow.llm.config import BASE_URL_ENV, ProviderConfig
from babelflow.llm.resilience import ProviderError


def is_redirect(status: int) -> bool:
    return 300 <= status < 400


def redirect_refused(config: ProviderConfig, status: int, url: str | None, location: str | None) -> ProviderError:
    endpoint = url or config.base_url or "the SDK's default endpoint"
    env = BASE_URL_ENV[config.provider]
    return ProviderError(
        f"{config.label}: {endpoint} answered HTTP {status}, a redirect to {location or '(no Location)'}; "
        "provider calls do not follow redirects: they would carry the prompt and the account's headers elsewhere",
        field=env,
        fix=f"if {location or 'the new address'} is the provider's real API address, write its base URL in the spec "
        f"({config.provider}:MODEL@URL) or in {env}; otherwise correct the base URL you configured",
    )


class NoRedirectSession(requests.Session):
    """A requests session that returns a 3xx as it is (DashScope's SDK takes one as `session`)."""

    def request(self, method: str | bytes, url: str | bytes, *args: Any, **kwargs: Any) -> requests.Response:
        kwargs["allow_redirects"] = False
        return super().request(method, url, *args, **kwargs)
