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
    """Platform name -> its latest profile (None: it answered without one)."""

    def __init__(self) -> None:
        self._by_name: dict[str, Profile | None] = {}  # only platforms that answered
        self._accounts: dict[str, str] = {}  # the account each last named ("" = none)
        self._destinations: dict[str, str] = {}  # where each said a new post goes

    def remember(self, platform: str, caps: Capabilities) -> None:
        """Keep the profile of this capabilities answer (a server that stops describing
        itself gets the generic text again)."""
        self._by_name[platform] = caps.profile
        self._accounts[platform] = caps.account or ""
        self._destinations[platform] = caps.destination

    def forget(self, platform: str) -> None:
        """Its server restarts with other credentials: whom we write as (part of what a
        person approves) is asked again before the next write, never assumed."""
        self._by_name.pop(platform, None)
        self._accounts.pop(platform, None)
        self._destinations.pop(platform, None)

    def get(self, platform: str) -> Profile | None:
        return self._by_name.get(platform)

    def of(self, platform: str) -> Profile:
        """Its profile, else the generic one (every field's default: generic text)."""
        return self._by_name.get(platform) or _GENERIC

    def others(self, platform: str) -> list[Profile]:
        return [p for name, p in self._by_name.items() if name != platform and p is not None]

    def account(self, platform: str) -> str:
        """Whom we write as there, as the platform last said ("" = not known)."""
        return self._accounts.get(platform, "")

    def destination(self, platform: str) -> str:
        """Where a new post goes there beyond the account, as it last said ("" = nowhere)."""
        return self._destinations.get(platform, "")

    def answered(self, platform: str) -> bool:
        """Whether this platform has answered capabilities (with or without a profile)."""
        return platform in self._by_name
