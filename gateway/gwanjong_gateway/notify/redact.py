"""An Apprise URL as it may be shown: its scheme and host, never the user, password,
token path or query that carry its secrets. Many schemes put a secret where a host would
be (``prowl://APIKEY``, ``pover://user@TOKEN``, ``slack://TokenA/…``): a host is shown only
when it names a server (a dotted DNS name, an IP address, localhost)."""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

_DNS = re.compile(r"localhost|(?:[a-z0-9-]{1,63}\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]+)")


def shown(url: str) -> str:
    """``"ntfys://ntfy.sh"`` for ``"ntfys://user:pass@ntfy.sh/topic?token=x"``."""
    scheme, sep, _rest = url.partition("://")
    if not sep:
        return "(not a URL)"
    try:
        host = urlsplit(url).hostname or ""
        ip = ipaddress.ip_address(host) if not _DNS.fullmatch(host) else None
    except ValueError:  # a malformed URL, or a host that is neither: maybe a token
        return f"{scheme}://"
    return f"{scheme}://[{host}]" if ip and ip.version == 6 else f"{scheme}://{host}"
