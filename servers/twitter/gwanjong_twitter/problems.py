"""X answers that hold only an ``errors`` array (HTTP 200, no ``data``), as error kinds.

X API v2 reports a problem with the resource itself inside a 200: a suspended or protected
account, a user id that does not exist. Read as data, that is an empty result, so an
inbox would quietly go empty while the account is suspended; each problem ``type`` maps to
the contract's kind instead, the way the HTTP statuses do in ``api.ApiReader.call``.
"""

from __future__ import annotations

from typing import Any

from gwanjong_shared.contract import errors
from gwanjong_shared.contract.errors import PlatformError

_PROBLEMS = "https://api.twitter.com/2/problems/"


def error_for(problems: list[dict[str, Any]], what: str) -> PlatformError:
    """The contract's error for an answer whose only content is ``problems``."""
    first = next((p for p in problems if isinstance(p, dict)), {})
    kind = str(first.get("type") or "").removeprefix(_PROBLEMS)
    title = str(first.get("title") or "")
    # X's own sentence names the account ("User has been suspended: [123]."), no secret.
    said = str(first.get("detail") or first.get("message") or title or "no detail")[:200]
    if title in ("Forbidden", "Authorization Error") or kind in (
        "not-authorized-for-resource",
        "client-forbidden",
        "unsupported-authentication",
    ):
        # A suspended account comes as resource-not-found titled Forbidden: it is ours to fix.
        return errors.auth(
            f"X refused {what}: {said} Check that our account is in good standing and that "
            "the OAuth 1.0a tokens belong to it."
        )
    if kind == "resource-not-found":
        return errors.not_found(f"X found nothing for {what}: {said} Check the account id.")
    if kind == "usage-capped":
        return errors.rate_limited(
            f"X says the app's usage cap is reached while {what}: {said} Wait for the cap to reset.",
            None,
        )
    if kind == "invalid-request":
        return errors.invalid_input(f"X rejected {what}: {said}")
    return errors.unavailable(f"X answered {what} with only an error: {said} Try again later.")
