"""The rules gwanjong imposes on itself before any write, on top of the platform's own.

Each check returns None to let the strike go on, or the reason to refuse it. They run in
the order of `strike`: cheapest and most certain first.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from gwanjong_gateway.config import PLATFORM_NAME, GatewayConfig
from gwanjong_gateway.rules.ledger import ClaimRequest, Strike
from gwanjong_gateway.rules.profiles import Profiles
from gwanjong_shared.contract import HandleRules
from gwanjong_shared.contract.untrusted import one_line

if TYPE_CHECKING:  # the CLI imports this module: keep it free of pydantic
    from gwanjong_gateway.rules.approvals import ApprovalUse


def configured_disclosure(config: GatewayConfig, platform: str) -> str | None:
    """gateway.toml's `disclosure` for this platform, None when it does not set one."""
    setting = config.platforms.get(platform)
    return setting.disclosure if setting is not None else None


def disclosure_for(config: GatewayConfig, platform: str, profiles: Profiles) -> str:
    """The footer appended to automated writes: gateway.toml's `disclosure` if set ("" turns
    it off), else the one the platform's own server names (its capabilities profile)."""
    setting = configured_disclosure(config, platform)
    return setting if setting is not None else profiles.of(platform).disclosure


def with_disclosure(text: str, footer: str) -> str:
    """The text sent, trimmed at both ends as every surface trims a person's edit: else
    approving it unchanged would read as their edit, and send other bytes than shown."""
    text, footer = text.strip(), footer.rstrip()
    if not footer or text.endswith(footer.strip()):
        return text
    return text + footer


def handle_key(rules: HandleRules, handle: str) -> str:
    """One spelling per account: case and "@" never matter; the rest is the platform's
    own (prefixes and a default domain that may be left out, characters read as others)."""
    key = handle.strip().lower().lstrip("@")
    for prefix in rules.strip_prefixes:
        key = key.removeprefix(prefix)
    for suffix in rules.strip_suffixes:
        key = key.removesuffix(suffix)
    for old, new in rules.replace.items():
        key = key.replace(old, new)
    return key


def _on_host(host: str, hosts: list[str]) -> bool:
    return any(host == h or host.endswith("." + h) for h in hosts)


def for_platform(entry: str, platform: str, profiles: Profiles) -> str | None:
    """The handle of an opt-out entry if it applies to `platform`, else None. Forms:
    "handle", "@handle", "platform:handle" (or one of the platform's aliases) and a profile
    URL; a URL of a host no platform claims applies everywhere (when unsure, stay away)."""
    text = entry.strip()
    own = profiles.of(platform).handles
    if "://" in text:
        parts = urlsplit(text)
        host = parts.netloc.lower().removeprefix("www.")
        segments = [s for s in parts.path.split("/") if s]
        handle = segments[-1] if segments else ""
        if _on_host(host, own.hosts):
            return handle
        claimed = any(_on_host(host, p.handles.hosts) for p in profiles.others(platform))
        return None if claimed else handle
    prefix, sep, rest = text.partition(":")
    name = prefix.strip().lower()
    if sep and (name == platform or name in own.aliases):
        return rest
    aliases = {a for p in profiles.others(platform) for a in p.handles.aliases}
    if sep and (name in aliases or PLATFORM_NAME.match(name)):
        return None  # another platform's entry
    return text


def is_opted_out(entries: list[str], platform: str, author: str, profiles: Profiles) -> bool:
    """Whether `author` on `platform` matches an opt-out entry (forms: docs/operate/gateway-toml.md)."""
    rules = profiles.of(platform).handles
    who = handle_key(rules, author)
    handles = (for_platform(entry, platform, profiles) for entry in entries)
    return bool(who) and any(h is not None and handle_key(rules, h) == who for h in handles)


def is_ours(platform: str, author: str, profiles: Profiles) -> bool:
    """Whether `author` is the account we write as on `platform`, as its capabilities last
    said (not known: no), in the platform's own handle spellings."""
    account, rules = profiles.account(platform), profiles.of(platform).handles
    return bool(account) and handle_key(rules, author) == handle_key(rules, account)


def named(author: str) -> str:
    """An author as a refusal names them: their name is platform text, so it reaches the
    model as draft shows it (cleaned, one line, bounded)."""
    return one_line(author, 60)


def opted_out(config: GatewayConfig, platform: str, author: str, profiles: Profiles) -> str | None:
    if is_opted_out(config.safety.opt_out, platform, author, profiles):
        return f"{named(author)} is on the opt-out list in gateway.toml ([safety] opt_out); gwanjong never targets them."
    return None


class Future:
    """Record times the wall clock says are still to come: it was stepped back. Each counts
    as made when gwanjong first saw it in the future, measured on the monotonic clock since,
    so a backwards step never holds a refusal longer than its own length from then."""

    def __init__(self, mono: Callable[[], float] = time.monotonic) -> None:
        self.mono = mono
        self._noticed: dict[tuple[str, float], float] = {}

    def at(self, key: str, when: float, now: float) -> float:
        """When the write counts as made (never later than ``when``)."""
        first = self._noticed.get((key, when))
        if first is None:
            if when <= now:
                return when
            if len(self._noticed) > 1000:  # only the latest writes are ever asked about
                self._noticed.clear()
            first = self._noticed[(key, when)] = self.mono()
        # still once the wall clock has caught up: the earlier of the two
        return min(when, now - (self.mono() - first))


FUTURE = Future()


def author_cooldown(
    days: float, last: Strike | None, platform: str, author: str, now: float, caller: str = ""
) -> tuple[str, float] | None:
    """`last`: the latest write (or claim) to this author; None lets the strike go on.
    ``caller``: who strikes now; another principal's row is not named (team privacy).
    (why, seconds until the cool-down ends)."""
    if not days or last is None:
        return None
    until = FUTURE.at(f"author:{platform}:{author}", last.created_at, now) + days * 86400
    if now < until:
        when = datetime.fromtimestamp(until, UTC).strftime("%Y-%m-%d %H:%M UTC")
        which = (
            (last.result_url or f"record {last.id}")
            if last.principal == caller
            else "another member of this team"
        )
        return (
            f"We already engaged with {named(author)} on {platform} ({which}); "
            f"the author cool-down is {days:g} days, so not again before {when}.",
            until - now,
        )
    return None


def day_start(now: float) -> float:
    """Caps count from midnight UTC."""
    return now - now % 86400  # POSIX time has no leap seconds: days are 86400 s


def daily_cap(
    cap: int | None, used: int, platform: str, action: str, now: float
) -> tuple[str, float] | None:
    """`used`: today's writes of this action, those in flight included. (why, seconds
    until the cap resets)."""
    if cap is None or used < cap:
        return None
    reset = day_start(now) + 86400
    return (
        f"Daily cap reached: {used} of {cap} {action}s on {platform} today "
        f"([platforms.{platform}.daily] in gateway.toml). It resets at "
        f"{datetime.fromtimestamp(reset, UTC).strftime('%H:%M UTC')}.",
        reset - now,
    )


def min_interval(
    interval: float, last: float | None, platform: str, now: float
) -> tuple[str, float] | None:
    """`last`: when the latest write (or claim) on this platform was made."""
    if not interval or last is None:
        return None
    wait = FUTURE.at(f"interval:{platform}", last, now) + interval - now
    if wait > 0:
        return (
            f"Too soon: gwanjong waits {interval:g} s between writes on {platform} "
            f"(min_interval_s). Try again in {max(1, round(wait))} s.",
            wait,
        )
    return None


def claim_request(
    config: GatewayConfig,
    row: dict[str, Any],
    live: bool,
    approval: ApprovalUse | None = None,
    sent: str = "",
    length: dict[str, Any] | None = None,
) -> ClaimRequest:
    """The claim's checks for ``row`` under gateway.toml's limits: today's cap for its
    action on its platform, the minimum interval, the author cool-down."""
    setting = config.platforms.get(str(row["platform"]))
    cap = getattr(setting.daily, str(row["action"]), None) if setting is not None else None
    interval = setting.min_interval_s if setting is not None else 0.0
    cooldown = config.safety.author_cooldown_days
    return ClaimRequest(row, live, cap, interval, cooldown, approval, sent, length)
