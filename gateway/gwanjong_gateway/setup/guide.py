"""How to get each platform's keys, in its own server's words, and which names may be saved."""

from __future__ import annotations

import re
from typing import cast

from gwanjong_gateway.setup.setup_results import Guide
from gwanjong_shared.contract import Profile
from gwanjong_shared.contract.untrusted import one_line, quote

MAX_STEPS = 12
MAX_CREDENTIALS = 20
# Even a server that declares it is never allowed to let `setup` move its endpoints (an
# instance, domain or server is where its token goes), nor turn off the TLS check that
# keeps the token for that host, nor say which file or folder it reads or writes; short
# ones only as words (BASE not in DATABASE, URI not in SECURITY, FILE not in PROFILE).
_CREDENTIAL = re.compile(r"^[A-Z][A-Z0-9_]{1,63}$")
_NOT_CREDENTIAL = re.compile(
    r"URL|HOST|PROXY|ENDPOINT|CA_BUNDLE|CERT|INSTANCE|DOMAIN|SERVER|ORIGIN|VERIFY|INSECURE"
    r"|SOCKET|HOOK|(?:^|_)(?:BASE|SSL|TLS|URI|DSN|PORT|FILE|PATH|DIR)(?:_|$)"
)


def guide_for(platform: str, profile: Profile | None, enabled: bool = True) -> Guide:
    """How to get this platform's keys today, as its own server tells it (its profile)."""
    setup = profile.setup if profile is not None else None
    if setup is None or not setup.steps:
        why = (
            "Its server does not describe its setup: see the server's own documentation for credentials."
            if enabled
            else f"It is not enabled here: add [platforms.{platform}] to gateway.toml, then ask "
            "again (its server describes its own keys)."
        )
        names = setup.credentials if setup is not None else []
        return Guide(vars=list(names) or [f"{platform.upper()}_..."], steps=[why])
    # The server's own words, cleaned and bounded like any text from outside the gateway
    # (what it left empty is left out).
    return Guide(
        vars=[one_line(name, 64) for name in setup.credentials[:MAX_CREDENTIALS]],
        steps=[one_line(step, 400) for step in setup.steps[:MAX_STEPS]],
        where=_said(setup.where),
        price=_said(setup.price),
        access=_said(setup.access),
    )


def _said(text: str) -> str | None:
    return one_line(text, 300) if text else None


def refused(platform: str, profile: Profile | None) -> str:
    """What to tell the person when the platform refused the credentials (401/403)."""
    guide = guide_for(platform, profile)
    where = f" Get new ones: {guide.where}." if guide.where is not None else ""
    return (
        f"{platform} refused the credentials ({', '.join(guide.vars)}): they are wrong, "
        f"revoked or expired.{where} Then run `gwanjong setup {platform}` again and type the "
        "new values (see setup(action='guide') for the platform's own steps)."
    )


def allowed_names(platform: str, declared: object) -> list[str] | None:
    """The credential names `setup` may save for `platform`: what its server declares in
    `capabilities`, minus anything that is not a credential. None if it declared nothing."""
    if not isinstance(declared, list) or not declared:
        return None
    prefix = f"{platform.upper()}_"
    return [
        name
        for name in cast("list[object]", declared)
        if isinstance(name, str)
        and _CREDENTIAL.match(name)
        and name.startswith(prefix)
        and not _NOT_CREDENTIAL.search(name)
    ] or None


def check_names(platform: str, allowed: list[str], credentials: dict[str, str]) -> None:
    """Raise ValueError naming (bounded) any name that is not one of `allowed`."""
    bad = [quote(k, 60) for k in credentials if k not in allowed]
    if bad:
        more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
        raise ValueError(
            f"{', '.join(bad[:5])}{more} cannot be saved for {platform}: setup saves only "
            f"{', '.join(allowed)}. Endpoints, proxies and other settings belong in gateway.toml "
            "or the operator's environment."
        )
