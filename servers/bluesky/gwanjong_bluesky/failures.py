"""atproto SDK and transport exceptions as contract errors, without the SDK's own text."""

from __future__ import annotations

import math
import time

import httpx
from atproto_client.exceptions import (
    InvokeTimeoutError,
    LoginRequiredError,
    ModelError,
    NetworkError,
    RateLimitExceededError,
    RequestErrorBase,
)
from atproto_client.models.common import XrpcError
from atproto_core.exceptions import AtProtocolError

from gwanjong_shared.contract import errors
from gwanjong_shared.contract.errors import PlatformError
from gwanjong_shared.kit.host_gate import HostNotAllowed
from gwanjong_shared.kit.http import (
    edge_block,
    error_for_status,
    no_endpoint,
    retry_after_seconds,
    wait_words,
)
from gwanjong_shared.kit.logs import redact
from gwanjong_shared.kit.once import HTTPX_NEVER_LEFT, answer_lost, lost_answer

SESSION_GONE = {"ExpiredToken", "InvalidToken"}
AUTH_NAMES = SESSION_GONE | {
    "AuthMissing",
    "AuthenticationRequired",
    "AccountTakedown",
    "AccountDeactivated",
    "Forbidden",
}
ACCOUNT_HINT = (
    "Set BLUESKY_HANDLE and BLUESKY_APP_PASSWORD (an app password from Settings > Privacy "
    "and security > App passwords) in the server's environment and restart it."
)


def xrpc_error(exc: RequestErrorBase) -> tuple[int | None, str, str]:
    """(HTTP status, XRPC error name, message) of a failed request."""
    response = exc.response
    if response is None:
        return None, "", ""
    content = response.content
    if isinstance(content, XrpcError):
        return response.status_code, content.error or "", content.message or ""
    return response.status_code, "", ""


def timeout_error(what: str, timeout_s: float) -> PlatformError:
    return errors.timeout(
        f"Bluesky did not answer within {timeout_s:g} s while {what}. Try again; "
        "if it keeps happening the service may be down."
    )


def transport_error(exc: httpx.HTTPError, what: str, timeout_s: float) -> PlatformError:
    if isinstance(exc, HostNotAllowed):
        return errors.unavailable(
            f"Refused to contact {exc.host} while {what}: it is neither the host of "
            "BLUESKY_BASE_URL nor in BLUESKY_ALLOWED_HOSTS. Add it there if it is your "
            "account's PDS."
        )
    if isinstance(exc, httpx.TimeoutException):
        return timeout_error(what, timeout_s)
    return errors.unavailable(
        f"Could not reach Bluesky while {what} ({type(exc).__name__}). Check the network and "
        "BLUESKY_BASE_URL, then try again."
    )


def cut_write(exc: BaseException, what: str) -> PlatformError | None:
    """A write whose answer broke off after the request left (httpx's error, or the SDK's
    wrapping of one, while the body was read): it may have landed."""
    cause = exc if isinstance(exc, httpx.HTTPError) else exc.__cause__
    if not isinstance(cause, httpx.TransportError):
        return None
    left = not isinstance(cause, (*HTTPX_NEVER_LEFT, HostNotAllowed))
    lost = answer_lost("POST", what, error=cause, left=left)
    return lost_answer("Bluesky", lost, what) if lost else None


def sdk_error(exc: AtProtocolError, what: str, item: str | None, timeout_s: float) -> PlatformError:
    """An SDK exception as a contract error, without the SDK's own text."""
    if isinstance(exc, InvokeTimeoutError):
        return timeout_error(what, timeout_s)
    if isinstance(exc, RateLimitExceededError):
        wait = retry_after(exc)
        seconds = max(1, math.ceil(wait - 1e-6)) if wait is not None else 60
        return errors.rate_limited(
            f"Bluesky is rate limiting us (policy {exc.policy or 'unknown'}). Wait {seconds} "
            "seconds before calling again.",
            wait,
        )
    if isinstance(exc, LoginRequiredError):
        return errors.auth(f"Bluesky needs a signed-in account for this. {ACCOUNT_HINT}")
    if isinstance(exc, ModelError):
        return errors.unavailable(
            f"Bluesky sent a reply this server could not read while {what}. Try again later."
        )
    if isinstance(exc, RequestErrorBase):
        return _request_error(exc, what, item)
    return errors.unavailable(f"Bluesky failed while {what} ({type(exc).__name__}). Try again.")


def _request_error(exc: RequestErrorBase, what: str, item: str | None) -> PlatformError:
    status, name, message = xrpc_error(exc)
    if status is None:  # a transport failure the SDK wrapped
        return errors.unavailable(
            f"Could not reach Bluesky while {what}. Check the network and BLUESKY_BASE_URL."
        )
    if (name == "NotFound" or status == 404) and item is None:  # a read by no id
        return no_endpoint("Bluesky", f"endpoint for {what}")
    if name == "NotFound" or status == 404:
        return errors.not_found(
            f"Bluesky has no {item} (it may have been deleted). Check the id: use one from "
            "search or trending."
        )
    if status == 403 and not name:
        return edge_block("Bluesky")  # no XRPC error body: the CDN's block, not our session
    if name in AUTH_NAMES or status in (401, 403):
        return errors.auth(f"Bluesky refused our session ({name or status}). {ACCOUNT_HINT}")
    if status == 413:
        return errors.invalid_input("Bluesky says the request is too large. Shorten it.")
    if status == 400:
        detail = redact(f"{name}: {message}" if message else name)[:200]
        return errors.invalid_input(
            f"Bluesky rejected the request ({detail}). Fix the input and retry."
        )
    if isinstance(exc, NetworkError) or status >= 500:
        wait = wait_words(retry_after_seconds(exc.response.headers if exc.response else {}))
        return errors.unavailable(
            f"Bluesky answered with a server error ({status}) while {what}. {wait}, then try again."
        )
    return error_for_status(status, "Bluesky", detail=name, what=item)


def retry_after(exc: RateLimitExceededError) -> float | None:
    if exc.retry_after is not None:
        return exc.retry_after
    if exc.reset_at is not None:
        return max(0.0, exc.reset_at.timestamp() - time.time())
    return None
