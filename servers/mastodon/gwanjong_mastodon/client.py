"""Mastodon.py under our rules: one instance, calls in a worker thread, never a resent
write, never a sleep for the rate limit, and its failures as contract errors.

Mastodon.py is synchronous (requests). Its own rate-limit handling sleeps up to five
minutes ("wait"/"pace"); we pass ``ratelimit_method="throw"`` and keep the windows in the
kit's Limiter instead, fed by :class:`GatedSession` from every response's headers
(``X-RateLimit-Reset`` is an ISO time on Mastodon, epoch seconds elsewhere), which it then
takes off the response: Mastodon.py would parse them itself and raise on a form it cannot
read, even after a 2xx write. A write is sent once: requests' default
adapter does not retry (``max_retries=0``, mounted explicitly here), Mastodon.py repeats a
request only on a 429 in "wait"/"pace" mode (never in "throw"), and every status carries an
``Idempotency-Key`` so even a person's retry of a timed-out write cannot post twice. A
write whose answer is lost after it left (a 5xx, a dropped connection, a timeout) is the
kit's ``AnswerLost`` (kit/once.py), reported as unsure, never as "nothing was written".
"""

from __future__ import annotations

import functools
import logging
import math
import typing
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, TypeVar
from urllib.parse import urlsplit

import anyio
import mastodon.types_base
import requests
from mastodon import Mastodon
from mastodon.errors import (
    MastodonAPIError,
    MastodonError,
    MastodonNetworkError,
    MastodonNotFoundError,
    MastodonRatelimitError,
    MastodonReadTimeout,
    MastodonUnauthorizedError,
)
from requests.adapters import HTTPAdapter
from urllib3.exceptions import NewConnectionError

from gwanjong_shared.contract import errors
from gwanjong_shared.contract.errors import PlatformError
from gwanjong_shared.kit.http import (
    edge_block,
    error_for_status,
    no_endpoint,
    retry_after_seconds,
)
from gwanjong_shared.kit.once import (
    AnswerLost,
    answer_lost,
    lost_answer,
    lost_in,
    may_resend,
    unreadable_answer,
)
from gwanjong_shared.kit.ratelimit import Limiter
from gwanjong_shared.kit.tracing import http_span, set_status

log = logging.getLogger(__name__)
T = TypeVar("T")

# Mastodon.py casts every answer into its typed classes and asks typing.get_type_hints for
# each field of each object: a 500-reply context took 20 s of CPU. The hints of a class do
# not change, so they are computed once (a 500-reply context then takes under a second).
mastodon.types_base.get_type_hints = functools.cache(typing.get_type_hints)  # pyright: ignore[reportPrivateImportUsage]


def _remembered(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` of types (a pure function of them) remembered per argument; an argument that
    cannot be hashed is computed each time, and an error is never remembered."""
    cached = functools.lru_cache(maxsize=4096)(fn)

    def call(*args: Any) -> Any:
        try:
            return cached(*args)
        except TypeError:  # unhashable (or fn's own TypeError, raised again by fn)
            return fn(*args)

    return call


# The same casting then asks, for every field of every object, which class a type hint is
# and whether it is a subclass of another, through two caught AttributeErrors each time:
# about half of what a status costs to read. The answers depend on the types alone.
mastodon.types_base.get_type_class = _remembered(mastodon.types_base.get_type_class)
mastodon.types_base.real_issubclass = _remembered(mastodon.types_base.real_issubclass)


_dateutil = mastodon.types_base.dateutil  # pyright: ignore[reportPrivateImportUsage]


class _Dates:
    """What Mastodon.py's casting sees as ``dateutil``: its one call, ``parser.parse``, reads
    ISO 8601 (all Mastodon sends) with the standard library, hundreds of times cheaper, and leaves
    anything else to dateutil. The datetime is the same instant either way."""

    class parser:  # the name Mastodon.py calls
        @staticmethod
        def parse(text: str) -> datetime:
            try:
                return datetime.fromisoformat(text)
            except ValueError:
                return _dateutil.parser.parse(text)


mastodon.types_base.dateutil = _Dates  # pyright: ignore[reportPrivateImportUsage]
LABEL = "Mastodon"
TOKEN_HINT = (
    "Set MASTODON_ACCESS_TOKEN (Preferences > Development > New application, scopes read and "
    "write) and MASTODON_API_BASE_URL (your instance) in the server's environment and restart it."
)


def route_key(method: str) -> str:
    # Mastodon keeps one window per account for everything, and a tighter one for statuses.
    return "write" if method == "POST" else "read"


def epoch_reset(headers: Mapping[str, str]) -> dict[str, str]:
    """The headers with ``X-RateLimit-Reset`` as epoch seconds (Mastodon sends ISO 8601)."""
    out = {k.lower(): v for k, v in headers.items()}
    reset = out.get("x-ratelimit-reset")
    if reset:
        try:
            float(reset)
        except ValueError:
            try:
                when = datetime.fromisoformat(reset.replace("Z", "+00:00"))
                out["x-ratelimit-reset"] = str(when.timestamp())
            except ValueError:
                out.pop("x-ratelimit-reset")
    return out


class GatedSession(requests.Session):
    """The one session Mastodon.py gets: only the instance's host, no retries, every
    response's rate-limit headers told to the Limiter, and the last 429's wait kept per
    thread (Mastodon.py's own error for it carries no headers)."""

    def __init__(self, host: str, limiter: Limiter) -> None:
        super().__init__()
        self.host = host.lower()
        self.limiter = limiter
        no_retry = HTTPAdapter(max_retries=0)
        self.mount("https://", no_retry)
        self.mount("http://", no_retry)

    def request(self, method: str | bytes, url: str | bytes, *args: Any, **kwargs: Any) -> Any:
        verb = method.decode() if isinstance(method, bytes) else method
        target = url.decode() if isinstance(url, bytes) else url
        host = (urlsplit(target).hostname or "").lower()
        if host != self.host:
            raise errors.unavailable(
                f"Refused a request to {host or 'an unnamed host'}: this server talks only to "
                "its instance (MASTODON_API_BASE_URL)."
            )
        kwargs["allow_redirects"] = False  # a redirect would carry the token elsewhere
        parts = urlsplit(target)
        path = parts.path
        headers: dict[str, str] = dict(kwargs.pop("headers", None) or {})
        # A span per request, its trace context in the headers (the caller's trace).
        with http_span(
            verb.upper(), parts.scheme, parts.hostname or "", parts.port, path, headers
        ) as span:
            try:
                response = super().request(verb, target, *args, headers=headers, **kwargs)
            except requests.RequestException as exc:
                if may_resend(verb) or _never_left(exc):
                    raise
                raise AnswerLost(verb, path, timed_out=isinstance(exc, requests.Timeout)) from exc
            set_status(span, response.status_code)
        lost = answer_lost(verb, path, status=response.status_code)
        if lost is not None:
            response.close()
            raise lost
        if response.status_code >= 500:  # Mastodon.py drops the headers: how long it is down
            wait = retry_after_seconds(response.headers)
            response.close()
            raise error_for_status(response.status_code, LABEL, retry_after=wait)
        if 300 <= response.status_code < 400:  # not followed: Mastodon.py would read its page
            response.close()
            raise Redirected(response.status_code, response.headers.get("location") or "")
        self.limiter.observe(
            route_key(verb.upper()), response.status_code, epoch_reset(response.headers)
        )
        # Ours alone: Mastodon.py parses them on every answer, even a 2xx, and raises on a
        # form it cannot read (a fractional epoch reset, Remaining without Limit), so a
        # write that landed would read as refused. In "throw" mode it needs none of them.
        for name in [k for k in response.headers if k.lower().startswith("x-ratelimit-")]:
            del response.headers[name]
        return response


class Redirected(Exception):
    """The instance answered with a redirect: it did nothing, and we do not follow it."""

    def __init__(self, status: int, location: str) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status
        self.location = location

    def error(self, what: str) -> PlatformError:
        parts = urlsplit(self.location)
        where = f"{parts.scheme}://{parts.netloc}" if parts.netloc else "another address"
        return errors.unavailable(
            f"{LABEL} answered with a redirect (HTTP {self.status}) to {where} ({what}), "
            "which this server does not follow (it would carry the access token): nothing was "
            "done. "
            "MASTODON_API_BASE_URL is not the instance's own address (https, its API host); "
            "set it to that and restart the server."
        )


def _redirected(exc: BaseException) -> Redirected | None:
    """The Redirected Mastodon.py wrapped (it wraps whatever the session raised)."""
    current: BaseException | None = exc
    while current is not None and not isinstance(current, Redirected):
        current = current.__context__
    return current


def _never_left(exc: requests.RequestException) -> bool:
    """The connection never opened: nothing can have been written."""
    if isinstance(exc, requests.ConnectTimeout):
        return True
    reason = getattr(exc.args[0], "reason", None) if exc.args else None
    return isinstance(reason, NewConnectionError)


def connect(base_url: str, token: str | None, limiter: Limiter, timeout_s: float) -> Mastodon:
    session = GatedSession(urlsplit(base_url).hostname or "", limiter)
    api = Mastodon(
        access_token=token,
        api_base_url=base_url,
        ratelimit_method="throw",
        request_timeout=timeout_s,
        session=session,
        # No version probe per call: we need 4.0+ (instance v2, trends), and say so.
        version_check_mode="none",
        mastodon_version="4.0.0",
        user_agent="gwanjong-mastodon/0.1",
    )
    # "none" leaves the version it checks features against at 1.0.0, which refuses search's
    # offset (2.8+) without a request: the version we need, as said above.
    api.mastodon_major, api.mastodon_minor, api.mastodon_patch = 4, 0, 0
    return api


async def run(
    api: Mastodon,
    limiter: Limiter,
    fn: Callable[[], T],
    *,
    what: str,
    write: bool = False,
    item: str | None = None,
) -> T:
    """``fn`` (a Mastodon.py call) in a worker thread, its failures as contract errors."""
    limiter.check(route_key("POST" if write else "GET"))
    try:
        return await anyio.to_thread.run_sync(fn, abandon_on_cancel=True)
    except PlatformError:
        raise
    except AnswerLost as lost:
        raise lost_answer(LABEL, lost, what) from None
    except MastodonError as exc:
        lost = lost_in(exc)  # Mastodon.py wraps what the session raised
        if lost is not None:
            raise lost_answer(LABEL, lost, what) from None
        if isinstance(exc.__context__, PlatformError):  # the session's word (a 5xx's wait)
            raise exc.__context__ from None
        moved = _redirected(exc)
        if moved is not None:
            raise moved.error(what) from None
        if write and isinstance(exc, MastodonAPIError) and not _has_status(exc):
            raise unreadable_answer(LABEL, what) from None  # answered, but not JSON
        raise _mapped(exc, api, limiter, what, write=write, item=item) from None


def _has_status(exc: MastodonAPIError) -> bool:
    """Mastodon.py's error for a status carries it; its error for an unparsable body not."""
    return len(exc.args) >= 2 and isinstance(exc.args[1], int)


#: Mastodon::NotPermittedError's answer: a rule of the instance refused the action
NOT_PERMITTED = "This action is not allowed"


def _said(exc: MastodonError) -> str:
    """Mastodon's own {"error": ...} text, if its answer had one."""
    said = exc.args[3] if len(exc.args) > 3 else None
    return str(said)[:200] if said else ""


def _mapped(
    exc: MastodonError,
    api: Mastodon,
    limiter: Limiter,
    what: str,
    *,
    write: bool = False,
    item: str | None = None,
) -> PlatformError:
    if isinstance(exc, MastodonRatelimitError):
        # The session told the limiter what the 429 said (X-RateLimit-Reset).
        wait = max(limiter.wait_s("read"), limiter.wait_s("write")) or 60.0
        return errors.rate_limited(
            f"{LABEL} is rate limiting us: its window resets in {max(1, math.ceil(wait))} "
            "seconds. Wait that long before calling again.",
            wait,
        )
    if isinstance(exc, MastodonReadTimeout):
        return errors.timeout(f"{LABEL} did not answer in time while {what}. Try again later.")
    if isinstance(exc, MastodonNetworkError):
        text = str(exc)
        if "timed out" in text.lower() or "timeout" in text.lower():
            return errors.timeout(f"{LABEL} did not answer in time while {what}. Try again later.")
        return errors.unavailable(
            f"Could not reach {LABEL} while {what}. Check the network and "
            "MASTODON_API_BASE_URL, then try again."
        )
    if isinstance(exc, MastodonUnauthorizedError):
        return errors.auth(f"{LABEL} refused our access token. {TOKEN_HINT}")
    if isinstance(exc, MastodonNotFoundError) and write:
        said = _said(exc) or "not found"
        return errors.not_found(
            f"{LABEL} refused {what}: {said!r}. The status is gone or our account cannot see "
            "it (deleted, or its author blocks us); nothing was written. Pick another status "
            "from search, trending or mentions."
        )
    if isinstance(exc, MastodonNotFoundError) and item is None:  # a read by no id
        return no_endpoint(LABEL, f"endpoint for {what}")
    if isinstance(exc, MastodonNotFoundError):
        return errors.not_found(
            f"{LABEL} has no {item} (deleted, or not visible to our account). Use an id from "
            "search, trending or mentions."
        )
    if isinstance(exc, MastodonAPIError) and _has_status(exc):
        status = exc.args[1]
        said = _said(exc)
        if status == 403 and not said:
            return edge_block(LABEL)  # no {"error": ...} body: the CDN's block, not our token
        if status == 403 and write and said == NOT_PERMITTED:  # the rules, not our token
            return errors.not_supported(
                f"{LABEL} refused {what}: {said!r}. Its rules do not let our account do this "
                "to that status (a block between us and its author, or a status only its "
                "audience may act on); nothing was written. A person may look at it."
            )
        if status == 403:  # a token without the scope, or an account that may not act
            return errors.auth(f"{LABEL} refused this for our account ({said!r}). {TOKEN_HINT}")
        return error_for_status(status, LABEL, detail=said, what=item)
    log.info("mastodon call failed: %s", type(exc).__name__)
    return errors.unavailable(f"{LABEL} failed while {what} ({type(exc).__name__}). Try again.")


def partial(fn: Callable[..., T], *args: Any, **kwargs: Any) -> Callable[[], T]:
    return functools.partial(fn, *args, **kwargs)
