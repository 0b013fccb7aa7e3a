"""An Apprise URL as it may be shown: its scheme and host, never the user, password,
token path or query that carry its secrets."""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

#: a dotted DNS name whose last label is a top-level domain (letters, or an IDN's xn--)
_SERVER = re.compile(r"(?:[a-z0-9-]{1,63}\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})")


def _server(host: str) -> str:
    """The host when it names a server; "" when it may be a token.

    Many Apprise schemes put a secret where a host would be (``prowl://APIKEY``,
    ``pover://user@TOKEN``, ``pbul://o.TOKEN``, ``slack://TokenA/…``, ``ntfy://TOPIC``)."""
    if host == "localhost" or _SERVER.fullmatch(host):
        return host
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return ""
    return f"[{ip}]" if ip.version == 6 else str(ip)


def shown(url: str) -> str:
    """``"ntfys://ntfy.sh"`` for ``"ntfys://user:pass@ntfy.sh/topic?token=x"``;
    ``"prowl://"`` for ``"prowl://APIKEY"``."""
    scheme, sep, _rest = url.partition("://")
    if not sep:
        return "(not a URL)"
    try:
        host = _server(urlsplit(url).hostname or "")
    except ValueError:
        host = ""
    return f"{scheme}://{host}" if host else f"{scheme}://"
