"""The platform's rate-limit budget as it travels in a tool result's ``_meta`` (part of the
contract: any client may read it).

A platform server knows from its response headers how many calls it has left; the gateway
only sees tool results. A server puts the tightest window a call observed under
:data:`META_KEY`; a client reads it back with :func:`window_from_meta`. No window known
(a platform without a limiter, a cached answer, a call refused locally): no meta.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Annotated, Any

import pydantic
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from gwanjong_shared.contract.models import RateLimit

META_KEY = "gwanjong/rate_limit"
ISO_Z = "%Y-%m-%dT%H:%M:%SZ"


def _iso_or_none(value: object) -> str | None:
    # A reset we cannot read is dropped, not trusted: stored figures compare these strings.
    if not isinstance(value, str) or len(value) > 40:
        return None
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        return None
    return when.astimezone(UTC).strftime(ISO_Z)


class RateWindow(BaseModel):
    """What the platform said about our budget, as it travels between processes."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    remaining: int = Field(ge=0)
    limit: int | None = Field(default=None, ge=0)
    reset_at: Annotated[str | None, BeforeValidator(_iso_or_none)] = None  # ISO-8601 "...Z"

    @classmethod
    def from_rate_limit(cls, window: RateLimit) -> RateWindow | None:
        if window.remaining is None:
            return None
        reset = window.reset_at
        return cls(
            remaining=max(0, window.remaining),
            limit=window.limit,
            reset_at=None if reset is None else time.strftime(ISO_Z, time.gmtime(reset)),
        )


def window_from_meta(meta: Mapping[str, Any] | None) -> RateWindow | None:
    """The window in a result's ``_meta``; None when absent or malformed (never raises)."""
    if not isinstance(meta, Mapping):
        return None
    raw = meta.get(META_KEY)
    if not isinstance(raw, Mapping):
        return None
    try:
        return RateWindow.model_validate(raw)
    except pydantic.ValidationError:
        return None
