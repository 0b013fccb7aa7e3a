"""What each platform says about itself: the `profile` of its `capabilities` answer.

The gateway holds no facts about any platform: writing guides, disclosure footers, setup
guides and handle spellings all come from here, filled from the platform's own server.
A profile is refreshed on every capabilities answer and kept across a server's restarts,
so a disclosure footer never goes missing while a server comes back. A server without a
profile gets the gateway's generic text.

One registry per process, keyed by platform name: a name is one platform for the whole
process (gateway.toml names each server once).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING

import anyio
from pydantic import ValidationError

from gwanjong_gateway.platform_client import PlatformClient
from gwanjong_shared.contract import Capabilities, Profile
from gwanjong_shared.contract.errors import PlatformError

if TYPE_CHECKING:
    from gwanjong_gateway.upstreams import Upstreams

log = logging.getLogger(__name__)


def profile_of(caps: object) -> Profile | None:
    """The profile in a capabilities answer (a model or its JSON), if it carries one."""
    if isinstance(caps, Capabilities):
        return caps.profile
    raw = caps.get("profile") if isinstance(caps, dict) else None
    if raw is None:
        return None
    try:
        return Profile.model_validate(raw)
    except ValidationError as exc:  # a third-party server's own shape: generic text instead
        log.warning("a platform profile was not understood (%d problems)", exc.error_count())
        return None


class Profiles:
    """Platform name -> its latest profile."""

    def __init__(self) -> None:
        self._by_name: dict[str, Profile] = {}
        self._answered: set[str] = set()  # asked and answered, with or without a profile

    def remember(self, platform: str, caps: object) -> Profile | None:
        """Keep the profile of this capabilities answer; return what is known now."""
        if not (isinstance(caps, Capabilities) or (isinstance(caps, dict) and caps)):
            return self._by_name.get(platform)  # no answer: keep what the server said last
        self._answered.add(platform)
        profile = profile_of(caps)
        if profile is None:  # the server says nothing about itself (now): generic text
            self._by_name.pop(platform, None)
        else:
            self._by_name[platform] = profile
        return profile

    def get(self, platform: str) -> Profile | None:
        return self._by_name.get(platform)

    def others(self, platform: str) -> list[Profile]:
        return [p for name, p in self._by_name.items() if name != platform]

    async def ensure(self, upstreams: Upstreams, names: Iterable[str]) -> None:
        """Ask the platforms not heard from yet for their capabilities (once per name
        per process; draft refreshes them). Failures leave the generic text in place."""

        async def one(name: str) -> None:
            with contextlib.suppress(PlatformError):  # generic text until it answers
                self.remember(name, await PlatformClient(upstreams, name).capabilities())

        missing = [n for n in dict.fromkeys(names) if n not in self._answered]
        if not missing:
            return
        async with anyio.create_task_group() as tg:
            for name in missing:
                tg.start_soon(one, name)


#: the process's registry: policy (disclosure, opt-out spellings) reads it without a handle
#: on the gateway, so strike's checks keep their signatures.
REGISTRY = Profiles()
