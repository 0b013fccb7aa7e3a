"""The rules gwanjong imposes on itself before any write, on top of the platform's own.

Each check returns None to let the strike go on, or the reason to refuse it. They run in
the order of `strike`: cheapest and most certain first.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

from gwanjong_gateway.config import GatewayConfig
from gwanjong_gateway.ledger import Strike

#: The customary disclosure per platform, appended to automated writes unless the
#: platform's `disclosure` setting in gateway.toml says otherwise ("" turns it off).
DISCLOSURE: dict[str, str] = {
    # DEV's guidelines ask authors to disclose AI assistance in the article.
    "devto": "\n\n---\n*Drafted with an AI assistant (gwanjong) and reviewed by the author.*",
    # Reddit's bottiquette: say that an account is automated, in a small footer.
    "reddit": "\n\n^(Drafted with an AI assistant.)",
    # X and Bluesky disclose on the account (X's "Automated" label, Bluesky's `bot`
    # self-label), and every character counts there: no footer by default.
    "twitter": "",
    "bluesky": "",
}


def disclosure_for(config: GatewayConfig, platform: str) -> str:
    setting = config.platforms.get(platform)
    if setting is not None and setting.disclosure is not None:
        return setting.disclosure
    return DISCLOSURE.get(platform, "")


def with_disclosure(text: str, footer: str) -> str:
    if not footer or text.rstrip().endswith(footer.strip()):
        return text
    return text.rstrip() + footer


_PLATFORM = re.compile(r"^[a-z][a-z0-9_]{0,30}$")  # a platform name, as in gateway.toml
_ALIASES = {"x": "twitter", "bsky": "bluesky", "dev.to": "devto"}
_HOSTS = {
    "dev.to": "devto",
    "bsky.app": "bluesky",
    "x.com": "twitter",
    "twitter.com": "twitter",
    "reddit.com": "reddit",
}


def handle_key(platform: str, handle: str) -> str:
    """One spelling per account: case and "@" never matter; Reddit's "u/" prefix goes;
    on Bluesky the default ".bsky.social" suffix is optional and "_" (not allowed in
    Bluesky handles) is read as "-", so `mara_codes` also names `mara-codes.bsky.social`."""
    key = handle.strip().lower().lstrip("@")
    if platform == "reddit":
        key = key.removeprefix("/").removeprefix("u/")
    if platform == "bluesky":
        key = key.removesuffix(".bsky.social").replace("_", "-")
    return key


def parse_opt_out(entry: str) -> tuple[str | None, str]:
    """(platform or None for every platform, handle) from "handle", "@handle",
    "platform:handle" (x: and bsky: work too) or a profile URL."""
    text = entry.strip()
    if "://" in text:
        parts = urlsplit(text)
        host = parts.netloc.lower().removeprefix("www.").removeprefix("old.")
        segments = [s for s in parts.path.split("/") if s]
        return _HOSTS.get(host), segments[-1] if segments else ""
    prefix, sep, rest = text.partition(":")
    if sep and (prefix.strip().lower() in _ALIASES or _PLATFORM.match(prefix.strip().lower())):
        name = prefix.strip().lower()
        return _ALIASES.get(name, name), rest
    return None, text


def is_opted_out(entries: list[str], platform: str, author: str) -> bool:
    """Whether `author` on `platform` matches an opt-out entry (forms: README)."""
    who = handle_key(platform, author)
    if not who:
        return False
    for entry in entries:
        where, handle = parse_opt_out(entry)
        if where in (None, platform) and handle_key(platform, handle) == who:
            return True
    return False


def opted_out(config: GatewayConfig, platform: str, author: str) -> str | None:
    if is_opted_out(config.safety.opt_out, platform, author):
        return f"{author} is on the opt-out list in gateway.toml ([safety] opt_out); gwanjong never targets them."
    return None


def author_cooldown(
    days: float, last: Strike | None, platform: str, author: str, now: float
) -> str | None:
    """`last`: the latest write (or claim) to this author; None lets the strike go on."""
    if not days or last is None:
        return None
    until = last.created_at + days * 86400
    if now < until:
        when = datetime.fromtimestamp(until, UTC).strftime("%Y-%m-%d %H:%M UTC")
        return (
            f"We already engaged with {author} on {platform} ({last.result_url or 'record ' + str(last.id)}); "
            f"the author cool-down is {days:g} days, so not again before {when}."
        )
    return None


def day_start(now: float) -> float:
    """Caps count from midnight UTC."""
    return (
        datetime.fromtimestamp(now, UTC)
        .replace(hour=0, minute=0, second=0, microsecond=0)
        .timestamp()
    )


def daily_cap(cap: int | None, used: int, platform: str, action: str, now: float) -> str | None:
    """`used`: today's writes of this action, those in flight included."""
    if cap is None or used < cap:
        return None
    reset = (datetime.fromtimestamp(day_start(now), UTC) + timedelta(days=1)).strftime("%H:%M UTC")
    return (
        f"Daily cap reached: {used} of {cap} {action}s on {platform} today "
        f"([platforms.{platform}.daily] in gateway.toml). It resets at {reset}."
    )


def min_interval(
    interval: float, last: float | None, platform: str, now: float
) -> tuple[str, float] | None:
    """`last`: when the latest write (or claim) on this platform was made."""
    if not interval or last is None:
        return None
    wait = last + interval - now
    if wait > 0:
        return (
            f"Too soon: gwanjong waits {interval:g} s between writes on {platform} "
            f"(min_interval_s). Try again in {max(1, round(wait))} s.",
            wait,
        )
    return None


def limits_for(config: GatewayConfig, platform: str, action: str) -> tuple[int | None, float]:
    """(today's cap for this action, minimum interval) from gateway.toml."""
    setting = config.platforms.get(platform)
    if setting is None:
        return None, 0.0
    return getattr(setting.daily, action, None), setting.min_interval_s
