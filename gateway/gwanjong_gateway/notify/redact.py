"""An Apprise URL as it may be shown: its scheme and host, never the user, password,
token path or query that carry its secrets."""

from __future__ import annotations

from urllib.parse import urlsplit


def shown(url: str) -> str:
    """``"ntfys://ntfy.sh"`` for ``"ntfys://user:pass@ntfy.sh/topic?token=x"``."""
    scheme, sep, _rest = url.partition("://")
    if not sep:
        return "(not a URL)"
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        host = ""
    return f"{scheme}://{host}" if host else f"{scheme}://"
