"""The sections for while the person is away: who is told when something waits
(`[notify]`, docs/use/notifications.md) and what is watched meanwhile (`[watch]`,
docs/use/watching.md). The sections only: `notify/` and `watch/` act on them."""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated

from pydantic import Field, field_validator

from gwanjong_shared.contract.models import Frozen


class EventKind(StrEnum):
    """What a person may be told about (`[notify] events`; notify/events.py words each)."""

    APPROVAL_WAITING = "approval_waiting"
    APPROVAL_EXPIRING = "approval_expiring"
    APPROVAL_EXPIRED = "approval_expired"
    HANDOFF_WAITING = "handoff_waiting"
    HANDOFF_EXPIRED = "handoff_expired"
    UNSURE_WAITING = "unsure_waiting"
    SUMMONED = "summoned"
    TOPIC_POST = "topic_post"
    WRITES_PAUSED = "writes_paused"
    SPEND_NEAR_CAP = "spend_near_cap"
    PLATFORM_DOWN = "platform_down"


class NotifySection(Frozen):
    """Who is told when something waits for a person (docs/use/notifications.md)."""

    #: Apprise URLs ("ntfys://…", "mailto://…", "json://…"), or `${VAR}` naming one in the
    #: environment so the secrets they carry stay out of this file; [] = no notifications
    urls: list[str] = Field(default_factory=list, max_length=20)
    #: one message per channel per period at most, with the counts and what is oldest
    every_s: Annotated[float, Field(ge=10, le=86400)] = 300.0
    #: "22:00-07:00": nothing sent then; what waits is sent when they end ("" = never quiet)
    quiet_hours: str = ""
    #: the quiet hours' time zone (an IANA name; "" = the machine's)
    timezone: str = ""
    #: which events are sent; [] = every one
    events: list[EventKind] = Field(default_factory=list[EventKind])
    #: "about to expire": an approval this close to its expiry is sent again, once
    expiring_within_s: Annotated[float, Field(ge=60, le=7 * 86400)] = 3600.0
    #: a platform failing for longer than this is "down"
    down_after_s: Annotated[float, Field(ge=60, le=7 * 86400)] = 900.0
    #: spend near a daily cap: this share of the cap reached
    spend_share: Annotated[float, Field(gt=0, le=1)] = 0.8

    @field_validator("quiet_hours")
    @classmethod
    def _span(cls, value: str) -> str:
        if value and not re.fullmatch(r"([01]\d|2[0-3]):[0-5]\d-([01]\d|2[0-3]):[0-5]\d", value):
            raise ValueError(f'{value[:40]!r}: write the quiet hours as "22:00-07:00" (24 h clock)')
        return value

    @field_validator("timezone")
    @classmethod
    def _zone(cls, value: str) -> str:
        if value:
            from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

            try:
                ZoneInfo(value)
            except (ZoneInfoNotFoundError, ValueError):
                raise ValueError(
                    f"{value[:40]!r} is not a time zone; give an IANA name like "
                    '"Europe/Berlin" (or "" for the machine\'s)'
                ) from None
        return value

    @field_validator("urls")
    @classmethod
    def _urls(cls, urls: list[str]) -> list[str]:
        for url in urls:
            if "://" not in url and not url.startswith("${"):
                # never echo the value: it may be a secret pasted in the wrong place
                raise ValueError(
                    'each url is an Apprise URL like "ntfys://ntfy.sh/topic" or "${VAR}" '
                    "naming one in the environment"
                )
        return urls


class WatchSection(Frozen):
    """Watching while the person is away (opt-in): the inbox and saved topics, polled in
    the long-running process (docs/use/watching.md). It only reads."""

    enabled: bool = False
    #: how often each platform is polled (never more often than its `min_interval_s`)
    every_s: Annotated[float, Field(ge=10, le=7 * 86400)] = 900.0
    #: saved topics: a new post scoring at least `min_score` on one is noticed
    topics: list[str] = Field(default_factory=list, max_length=20)
    min_score: Annotated[float, Field(ge=0, le=1)] = 0.5
    #: which platforms to watch; empty = every enabled platform
    platforms: list[str] = Field(default_factory=list)

    @field_validator("topics")
    @classmethod
    def _topics(cls, topics: list[str]) -> list[str]:
        cleaned = [t.strip() for t in topics]
        if any(not t or len(t) > 200 for t in cleaned):
            raise ValueError("each topic is a few words (1 to 200 characters), e.g. 'rust async'")
        return cleaned
