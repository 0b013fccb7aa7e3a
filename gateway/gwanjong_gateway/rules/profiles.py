"""What each platform says about itself: the `profile` of its `capabilities` answer.

The gateway holds no platform facts: guides, disclosure footers and handle spellings come
from here. A profile is refreshed on every capabilities answer and kept across a server's
restarts, so a footer never goes missing; new credentials saved by setup may sign in as
another account, so after them it is asked again. A server without one gets generic text.
"""

from __future__ import annotations

from gwanjong_shared.contract import Capabilities, Profile

_GENERIC = Profile()


class Profiles:
    """Platform name -> its latest capabilities answer: its profile (None: it answered
    without one), whom we write as, and where a new post goes."""

    def __init__(self) -> None:
        self._caps: dict[str, Capabilities] = {}  # only platforms that answered

    def remember(self, platform: str, caps: Capabilities) -> None:
        """Keep this capabilities answer (a server that stops describing itself gets the
        generic text again)."""
        self._caps[platform] = caps

    def forget(self, platform: str) -> None:
        """Its server restarts with other credentials: whom we write as (part of what a
        person approves) is asked again before the next write, never assumed."""
        self._caps.pop(platform, None)

    def get(self, platform: str) -> Profile | None:
        caps = self._caps.get(platform)
        return caps.profile if caps is not None else None

    def of(self, platform: str) -> Profile:
        """Its profile, else the generic one (every field's default: generic text)."""
        return self.get(platform) or _GENERIC

    def others(self, platform: str) -> list[Profile]:
        return [c.profile for n, c in self._caps.items() if n != platform and c.profile is not None]

    def account(self, platform: str) -> str:
        """Whom we write as there, as the platform last said ("" = not known)."""
        caps = self._caps.get(platform)
        return (caps.account or "") if caps is not None else ""

    def destination(self, platform: str) -> str:
        """Where a new post goes there beyond the account, as it last said ("" = nowhere)."""
        caps = self._caps.get(platform)
        return caps.destination if caps is not None else ""

    def sent_with(self, platform: str) -> dict[str, str]:
        """What else a write with text sends there, as it last said."""
        caps = self._caps.get(platform)
        return caps.sent_with if caps is not None else {}

    def untitled(self, platform: str) -> bool:
        """Its posts have no title, as it said (no title limit): its server sends a title
        as the text's first paragraph."""
        caps = self._caps.get(platform)
        return caps is not None and "title" not in caps.limits

    def cannot_write(self, platform: str) -> str:
        """Why nothing may be written there, when its last answer made every action `never`
        (an account without the bot flag or label the platform requires), "" otherwise."""
        caps = self._caps.get(platform)
        rules = list(caps.actions.values()) if caps is not None else []
        if not rules or any(rule.allowed != "never" for rule in rules):
            return ""
        return "; ".join(dict.fromkeys(rule.reason for rule in rules))

    def answered(self, platform: str) -> bool:
        """Whether this platform has answered capabilities (with or without a profile)."""
        return platform in self._caps
