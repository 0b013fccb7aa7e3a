"""The data every platform server returns, in one shape for all platforms.

Models are frozen so an adapter's result cannot be changed by whoever holds it. The
platform's raw payload rides along in ``raw`` for code that needs a field we did not
normalise, but it is excluded from serialisation: it never goes over MCP.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Platform = str  # "devto", "bluesky", "twitter", "reddit", or any fifth platform's name


class Frozen(BaseModel):
    """The one base of our value models: immutable, and unknown fields are an error."""

    model_config = ConfigDict(frozen=True, extra="forbid")


#: half a surrogate pair: what a "\\ud800" escape in a platform's JSON decodes to
_LONE = re.compile("[\ud800-\udfff]")


class PlatformText(Frozen):
    """A value built from a platform's answer. Its JSON may spell half a surrogate pair
    (a "\\ud800" escape, an emoji cut in half), which no UTF-8 can carry: the answer
    holding it could not be sent at all, so one such post would fail every read it is in.
    It becomes U+FFFD, as a decoder writes for what it cannot read."""

    @field_validator("*", mode="before")
    @classmethod
    def _whole(cls, value: Any) -> Any:
        if isinstance(value, str):
            return _LONE.sub("\ufffd", value)
        if isinstance(value, list):
            return [_LONE.sub("\ufffd", v) if isinstance(v, str) else v for v in value]  # pyright: ignore[reportUnknownVariableType]
        return value


class Post(PlatformText):
    id: str
    platform: Platform
    title: str = ""
    url: str = ""
    body: str = ""
    author: str = ""
    tags: list[str] = Field(default_factory=list)
    likes: int = 0
    comments_count: int = 0
    published_at: str | None = None
    raw: dict[str, Any] | None = Field(default=None, exclude=True, repr=False)


class Comment(PlatformText):
    id: str
    platform: Platform
    post_id: str
    parent_id: str | None = None
    author: str = ""
    body: str = ""
    likes: int = 0
    published_at: str | None = None
    depth: int = 0
    url: str = ""  # the comment's permalink ("" when the platform shows none: deleted, hidden)
    raw: dict[str, Any] | None = Field(default=None, exclude=True, repr=False)


class PostResult(Frozen):
    ok: bool
    platform: Platform
    action: Literal["write_post", "write_comment", "upvote"]
    id: str | None = None
    url: str | None = None


class RateLimit(Frozen):
    """What the platform last told us about our budget (from its rate-limit headers)."""

    limit: int | None = None
    remaining: int | None = None
    reset_at: float | None = None  # epoch seconds
