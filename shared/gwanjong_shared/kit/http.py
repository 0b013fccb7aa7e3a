"""Mapping HTTP-level outcomes to the shared error kinds.

Adapters built on httpx call :func:`raise_for_response` and :func:`transport_error`;
adapters on other SDKs reuse :func:`error_for_status` with the status and headers the SDK
exposes, so every platform words its errors the same way.
"""

from __future__ import annotations

import math
from typing import cast

import httpx

from gwanjong_shared.contract import errors
from gwanjong_shared.contract.errors import PlatformError
from gwanjong_shared.kit.ratelimit import retry_after_seconds, wait_from

__all__ = [
    "edge_block",
    "error_for_status",
    "no_endpoint",
    "raise_for_response",
    "retry_after_seconds",
    "transport_error",
    "wait_words",
]


def error_for_status(
    status: int,
    label: str,
    *,
    retry_after: float | None = None,
    detail: str = "",
    what: str | None = None,
) -> PlatformError:
    """One error per HTTP status class, each with a sentence on what to do next."""
    suffix = f" ({detail})" if detail else ""
    if status in (401, 403):
        return errors.auth(
            f"{label} refused our credentials{suffix}. Check the API key or password in the "
            "server's environment (run setup with action='check')."
        )
    if (status == 404 or status == 410) and what is None:
        return no_endpoint(label, f"endpoint for this request{suffix}")
    if status == 404 or status == 410:
        return errors.not_found(
            f"{label} has no {what}{suffix}. Check the id: use one from search or trending."
        )
    if status == 429:
        wait = retry_after if retry_after is not None else 60
        return errors.rate_limited(
            f"{label} is rate limiting us{suffix}. Wait {max(1, round(wait))} seconds before "
            "calling again.",
            wait,
        )
    if status in (400, 422):
        return errors.invalid_input(
            f"{label} rejected the request{suffix}. Fix the input and retry."
        )
    if 500 <= status < 600:
        return errors.unavailable(
            f"{label} answered with a server error ({status}). {wait_words(retry_after)}, then "
            "try again."
        )
    return errors.unavailable(f"{label} answered {status} unexpectedly{suffix}.")


def wait_words(retry_after: float | None) -> str:
    """The wait a server error's Retry-After asked for, rounded up (never less); a minute
    when none."""
    return f"Wait {math.ceil(retry_after)} seconds" if retry_after else "Wait a minute"


def no_endpoint(label: str, missing: str) -> PlatformError:
    """A 404 on a read that names no id: the address or the software there lacks it."""
    return errors.not_found(
        f"{label} has no {missing} at the configured address. Check the base URL in the "
        f"server's environment (it may lead elsewhere than {label}'s API, or to software "
        "without this endpoint) and any setting named here, then run setup with action='check'."
    )


def edge_block(label: str, status: int = 403) -> PlatformError:
    """A refusal by the CDN in front of the platform (no body from the platform itself)."""
    return errors.unavailable(
        f"{label} blocked the request at its network edge (HTTP {status} without the "
        "platform's error body), which is not about our credentials. Try again later; if it "
        "persists, check the network, proxy or VPN this server goes out through."
    )


def raise_for_response(response: httpx.Response, label: str, *, what: str | None = None) -> None:
    """``what``: the item a read by id asked for (None: a read that names no id)."""
    if response.is_success:
        return
    if what is None and response.status_code in (404, 410):
        request = response.request
        raise no_endpoint(label, f"endpoint {request.method} {request.url.path}")
    detail = ""
    platform_body = False
    try:
        body = response.json()
        platform_body = True
        if isinstance(body, dict):
            fields = cast("dict[str, object]", body)
            raw = fields.get("error") or fields.get("message") or ""
            detail = str(raw)[:200]
    except ValueError:
        pass
    if response.status_code == 403 and not platform_body:
        # Our platforms refuse credentials in JSON; an empty or HTML 403 is the CDN's.
        raise edge_block(label)
    status, headers = response.status_code, response.headers
    raise error_for_status(
        status,
        label,
        # a 5xx's Retry-After says how long it is down; below, the rate limit's wait
        retry_after=retry_after_seconds(headers) if status >= 500 else wait_from(status, headers),
        detail=detail,
        what=what,
    )


def transport_error(exc: httpx.HTTPError, label: str) -> PlatformError:
    """Timeouts and connection failures, without the URL (it may carry a token)."""
    if isinstance(exc, httpx.TimeoutException):
        return errors.timeout(
            f"{label} did not answer in time. Try again; if it keeps "
            "happening the platform may be down."
        )
    return errors.unavailable(
        f"Could not reach {label} ({type(exc).__name__}). Check the network or the base URL "
        "setting, then try again."
    )
