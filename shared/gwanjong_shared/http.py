"""Mapping HTTP-level outcomes to the shared error kinds.

Adapters built on httpx call :func:`raise_for_response` and :func:`transport_error`;
adapters on other SDKs reuse :func:`error_for_status` with the status and headers the SDK
exposes, so every platform words its errors the same way.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Mapping

import httpx

from gwanjong_shared import errors
from gwanjong_shared.errors import PlatformError


def retry_after_seconds(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or an HTTP date)."""
    value = headers.get("retry-after") or headers.get("Retry-After")
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


def error_for_status(
    status: int,
    label: str,
    *,
    retry_after: float | None = None,
    detail: str = "",
    what: str = "that item",
) -> PlatformError:
    """One error per HTTP status class, each with a sentence on what to do next."""
    suffix = f" ({detail})" if detail else ""
    if status in (401, 403):
        return errors.auth(
            f"{label} refused our credentials{suffix}. Check the API key or password in the "
            "server's environment (run setup with action='check')."
        )
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
            f"{label} answered with a server error ({status}). Try again in a minute."
        )
    return errors.unavailable(f"{label} answered {status} unexpectedly{suffix}.")


def raise_for_response(response: httpx.Response, label: str, *, what: str = "that item") -> None:
    if response.is_success:
        return
    detail = ""
    try:
        body = response.json()
        if isinstance(body, dict):
            raw = body.get("error") or body.get("message") or ""
            detail = str(raw)[:200]
    except ValueError:
        pass
    raise error_for_status(
        response.status_code,
        label,
        retry_after=retry_after_seconds(response.headers),
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
