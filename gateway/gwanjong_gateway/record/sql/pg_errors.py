"""PostgreSQL errors as `unavailable` answers: what happened, where, and what to do, with
no password (the URL's is never shown, nor where libpq's message quotes it: a bad
%-escape in it). psycopg is imported only when a PostgreSQL record is in use."""

from __future__ import annotations

import math
import re

from gwanjong_gateway.extras import MissingExtra

#: libpq takes the password as `user:password@` or as a `password=` query parameter, and
#: the client key's passphrase as `sslpassword=`
_QUERY_PASSWORD = re.compile(r"([?&](?:ssl)?password=)([^&#]*)", re.IGNORECASE)


def redact(url: str) -> str:
    """The URL without its password (what logs and errors may show)."""
    url = re.sub(r"(://[^:/@]*):[^@]*@", r"\1:***@", url)
    return _QUERY_PASSWORD.sub(r"\1***", url)


def where(url: str) -> str:
    """host:port of the database, for messages."""
    try:
        from psycopg.conninfo import conninfo_to_dict

        info = conninfo_to_dict(url)
    except Exception:  # psycopg missing, or a malformed URL: say nothing that may hold a secret
        return "the configured [store] url"
    host = str(info.get("host") or "localhost")
    return f"{host}:{info.get('port') or 5432}"


def _reason(exc: BaseException, url: str) -> str:
    """libpq's first line, minus anything of the URL's secret."""
    text = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    userinfo = re.search(r"://[^:/@]*:([^@]*)@", url)
    secrets = [userinfo.group(1)] if userinfo else []
    secrets += [m.group(2) for m in _QUERY_PASSWORD.finditer(url)]
    for secret in sorted(filter(None, secrets), key=len, reverse=True):
        text = text.replace(secret, "***")
    return text[:200]


def connection_lost(exc: BaseException) -> bool:
    try:
        import psycopg
    except ImportError:  # without psycopg no connection was ever made
        return False

    return isinstance(exc, psycopg.OperationalError) and not isinstance(
        exc, psycopg.errors.LockNotAvailable | psycopg.errors.QueryCanceled
    )


def describe(exc: BaseException, url: str, busy_timeout_s: float) -> str | None:
    """The model's answer for a psycopg error (or psycopg missing); None if ``exc`` is
    neither."""
    if isinstance(exc, MissingExtra):
        return str(exc)
    try:
        import psycopg
    except ImportError:  # then exc cannot be one of its errors
        return None
    if not isinstance(exc, psycopg.Error):
        return None
    at = where(url)
    if isinstance(exc, psycopg.errors.LockNotAvailable | psycopg.errors.QueryCanceled):
        return (
            f"the strike record at {at} is busy (another gwanjong process holds the claim); "
            f"try again in {max(1, math.ceil(busy_timeout_s))} s."
        )
    if isinstance(exc, psycopg.errors.UniqueViolation):
        return (
            "another gwanjong process claimed this write at the same moment; call strike "
            "again to see whether it was written."
        )
    if isinstance(exc, psycopg.OperationalError):
        return (
            f"the strike record database at {at} is unreachable ({_reason(exc, url)}); nothing "
            "is written until it answers. Check that PostgreSQL is running there, then try again."
        )
    return (
        f"the strike record database at {at} refused the request ({_reason(exc, url)}); "
        "nothing was written. Check the database's logs and permissions, then try again."
    )
