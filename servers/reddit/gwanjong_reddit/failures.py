"""asyncpraw/asyncprawcore exceptions as contract errors, including the errors Reddit sends
with HTTP 200 (``{"json": {"errors": [...]}}``)."""

from __future__ import annotations

import math
import re
from typing import Any

import asyncprawcore
from asyncpraw.exceptions import InvalidURL, ReadOnlyException, RedditAPIException

from gwanjong_reddit.gate import Gate
from gwanjong_shared.contract import errors
from gwanjong_shared.contract.errors import PlatformError
from gwanjong_shared.kit.host_gate import HostNotAllowed
from gwanjong_shared.kit.http import edge_block, error_for_status, no_endpoint
from gwanjong_shared.kit.once import lost_answer, lost_in, lost_sign_in
from gwanjong_shared.kit.ratelimit import header_number

# From the start of a number only, without giving back digits or spaces: a pattern that
# retried every shorter run took 1.3 s on an answer of 4,000 digits. Same first match.
_WAIT = re.compile(r"(?<!\d)(\d++)\s*+(milliseconds?|seconds?|minutes?|hours?)", re.IGNORECASE)

READ_ONLY = (
    "This Reddit server is read-only: no account is configured. Set REDDIT_USERNAME and "
    "REDDIT_PASSWORD (the account must be a developer of the script app) and restart it."
)
NO_APP = (
    "No Reddit app is configured. Set REDDIT_CLIENT_ID and REDDIT_CLIENT_SECRET from a "
    "'script' app at reddit.com/prefs/apps (new apps need Reddit's approval), then restart."
)


def closed_subreddit(reason: str, missing: str) -> PlatformError:
    """A 403 whose body names why the subreddit is closed to us: not a credentials problem."""
    if reason == "quarantined":
        return errors.not_supported(
            f"Reddit refused access to {missing}: the subreddit is quarantined, and its content "
            "is only served to accounts that opted in on the website. Pick another subreddit "
            "or post."
        )
    if reason == "private":
        return errors.not_supported(
            f"Reddit refused access to {missing}: the subreddit is private (members only). "
            "Pick another subreddit or post; our credentials are fine."
        )
    return errors.not_supported(
        f"Reddit refused access to {missing}: the subreddit is closed to us ({reason[:40]}). "
        "Pick another subreddit or post."
    )


def retry_after(headers: Any) -> float | None:
    """Seconds to wait: ``Retry-After``, else ``x-ratelimit-reset``."""
    for name in ("retry-after", "x-ratelimit-reset"):
        value = headers.get(name)
        if value:
            try:
                return max(0.0, header_number(value))
            except ValueError:  # not a number (a proxy's inf or nan neither): names no wait
                continue
    return None


def _wait_in(message: str) -> float | None:
    """'Take a break for 9 minutes' / 'try again in 6 seconds' -> seconds."""
    match = _WAIT.search(message)
    if not match:
        return None
    amount, unit = int(match.group(1)), match.group(2).lower()
    if unit.startswith("millisecond"):
        return 1.0
    if unit.startswith("minute"):
        return amount * 60.0
    if unit.startswith("hour"):
        return amount * 3600.0
    return float(amount)


def sdk_error(exc: Exception, what: str, missing: str, gate: Gate) -> PlatformError:
    lost = lost_in(exc)
    if lost is not None:  # a POST's answer was lost: it is never sent again
        if lost.path.endswith("/access_token"):  # a sign-in writes nothing
            return lost_sign_in("Reddit", lost)
        return lost_answer("Reddit", lost, what)
    if isinstance(exc, RedditAPIException):
        return api_error(exc, missing)
    if isinstance(exc, HostNotAllowed):
        return errors.unavailable(
            f"Refused to contact {exc.host!r}: only the configured Reddit hosts are allowed. "
            "Check REDDIT_BASE_URL, REDDIT_OAUTH_URL and REDDIT_WWW_URL."
        )
    if isinstance(exc, ReadOnlyException):
        return errors.auth(READ_ONLY)
    if isinstance(exc, asyncprawcore.OAuthException):
        return errors.auth(
            f"Reddit refused the login ({exc.error}). Check REDDIT_USERNAME and "
            "REDDIT_PASSWORD: the account must be a developer of the app, and accounts "
            "with two-factor login cannot use a script app's password grant."
        )
    if isinstance(exc, asyncprawcore.Redirect):
        return errors.not_found(
            f"Reddit has no {missing}: it answered with its subreddit search. Check the "
            "subreddit names."
        )
    if isinstance(exc, asyncprawcore.TooManyRequests):
        wait = retry_after(exc.response.headers)
        seconds = 60 if wait is None else max(1, math.ceil(wait))
        return errors.rate_limited(
            f"Reddit is rate limiting us (HTTP 429). Wait {seconds} seconds before calling again.",
            wait,
        )
    if isinstance(exc, (asyncprawcore.InvalidToken, asyncprawcore.InsufficientScope)):
        return errors.auth(
            "Reddit rejected our access token. Check REDDIT_CLIENT_ID and "
            "REDDIT_CLIENT_SECRET (and that the app still has API access), then retry."
        )
    if isinstance(exc, asyncprawcore.Forbidden):
        reason = gate.forbidden.pop(id(exc.response), "")
        if id(exc.response) in gate.edge:
            gate.edge.discard(id(exc.response))
            return edge_block("Reddit")
        if reason:
            return closed_subreddit(reason, missing)
        return errors.auth(
            f"Reddit refused access to {missing} (403): the subreddit may be private, the "
            "account banned there, or the app's access revoked. Check the credentials."
        )
    gone = isinstance(exc, asyncprawcore.ResponseException) and exc.response.status in (404, 410)
    if gone and not missing.startswith("post "):  # no id the model gave: a setting is wrong
        return no_endpoint("Reddit", missing)
    if isinstance(exc, asyncprawcore.NotFound):
        return errors.not_found(
            f"Reddit has no {missing}. Check the id: use one from search or trending."
        )
    if isinstance(exc, asyncprawcore.ResponseException):
        return error_for_status(
            exc.response.status,
            "Reddit",
            retry_after=retry_after(exc.response.headers),
            what=missing,
        )
    if isinstance(exc, asyncprawcore.RequestException):
        original = exc.original_exception
        if isinstance(original, HostNotAllowed):
            return sdk_error(original, what, missing, gate)
        if isinstance(original, TimeoutError):
            return errors.timeout(
                f"Reddit did not answer within {gate.timeout_s:g} s while {what}. "
                "Try again; if it keeps happening Reddit may be down."
            )
        return errors.unavailable(
            f"Could not reach Reddit while {what} ({type(original).__name__}). Check the "
            "network or REDDIT_BASE_URL, then try again."
        )
    if isinstance(exc, TimeoutError):
        return errors.timeout(f"Reddit did not answer in time while {what}. Try again later.")
    if isinstance(exc, InvalidURL):
        return errors.invalid_input(
            "That is not a Reddit post URL. Use an id from search or trending."
        )
    return errors.unavailable(
        f"Reddit failed while {what} ({type(exc).__name__}). Try again; if it keeps "
        "failing, check the server's log."
    )


def api_error(exc: RedditAPIException, missing: str) -> PlatformError:
    """Errors Reddit sends with HTTP 200: ``{"json": {"errors": [[type, message, field]]}}``."""
    item = exc.items[0]
    kind, message, field = item.error_type, item.message or "", item.field or ""
    where = f" (field {field})" if field else ""
    if kind == "RATELIMIT":
        wait = _wait_in(message)
        seconds = 60 if wait is None else max(1, math.ceil(wait))
        return errors.rate_limited(
            f"Reddit says this account is writing too often: {message!r}. Wait {seconds} "
            "seconds before writing again.",
            wait,
        )
    if kind in ("DELETED_COMMENT", "DELETED_LINK"):
        return errors.not_found(
            f"Reddit says the target is gone ({kind}: {message}). Pick another post or comment."
        )
    if kind in ("SUBREDDIT_NOEXIST", "SUBREDDIT_REQUIRED", "BAD_SR_NAME"):
        return errors.not_found(
            f"Reddit has no {missing} ({kind}). Set REDDIT_POST_SUBREDDIT to an existing subreddit."
        )
    if kind in (
        "THREAD_LOCKED",
        "TOO_OLD",
        "SUBREDDIT_NOTALLOWED",
        "NOT_WHITELISTED_BY_USER",
        "USER_BLOCKED",
        "BANNED_FROM_SUBREDDIT",
    ):
        return errors.not_supported(
            f"Reddit does not let this account do that here ({kind}: {message}). A person "
            "can check the subreddit's rules."
        )
    if kind in ("USER_REQUIRED", "INVALID_USER"):
        return errors.auth(READ_ONLY)
    return errors.invalid_input(
        f"Reddit refused the request: {kind}: {message}{where}. Fix it and try again."
    )
