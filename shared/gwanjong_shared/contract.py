"""The platform tool contract: the names and result shapes every platform server speaks.

The gateway (and any other agent) relies on these exactly, so a fifth platform is just
another server that returns these models from these tools.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from gwanjong_shared.models import Comment, Frozen, Post

# The tools of the contract, in the order a server lists them.
READ_TOOLS = ("trending", "search", "get_post", "get_comments", "capabilities", "validate")
WRITE_TOOLS = ("write_post", "write_comment", "upvote")
CONTRACT_TOOLS = READ_TOOLS + WRITE_TOOLS
# Served by our servers but not required of a fifth platform: the gateway uses them when
# present and notes their absence otherwise.
OPTIONAL_TOOLS = ("mentions",)

Action = Literal["write_post", "write_comment", "upvote"]
ACTIONS: tuple[Action, ...] = ("write_post", "write_comment", "upvote")

# auto: a program may do it. summoned: only when the target mentions or quotes our account.
# human: only a person may do it (the program hands the text over). never: not possible/permitted.
Allowed = Literal["auto", "summoned", "human", "never"]
Unit = Literal["chars", "graphemes", "weighted_chars", "bytes"]
LimitName = Literal["title", "body", "comment"]


_Model = Frozen


class ActionRule(_Model):
    allowed: Allowed
    reason: str


class Limit(_Model):
    max: int
    unit: Unit


class Capabilities(_Model):
    platform: str
    configured: bool
    account: str | None = None
    actions: dict[Action, ActionRule]
    limits: dict[LimitName, Limit]
    # Whether the platform answered the account lookup: None when nothing was asked
    # (no credentials); false when it could not be reached. Rules and limits hold either way.
    reachable: bool | None = None
    #: the environment variable names of this server's credentials, the only names the
    #: gateway's `setup` may save for it (endpoints and other settings are not credentials)
    credentials: list[str] = Field(default_factory=list)


class Length(_Model):
    used: int
    max: int
    unit: Unit


class Validation(_Model):
    ok: bool
    allowed: Literal["auto", "human", "never"]
    problems: list[str] = Field(default_factory=list)
    length: Length


class PostList(_Model):
    posts: list[Post]


class CommentList(_Model):
    comments: list[Comment]


class MentionList(_Model):
    """Posts that mention, quote or reply to our account, newest first.

    ``next_since`` is an opaque cursor: pass it back as ``since`` to get only what is newer.
    """

    posts: list[Post]
    next_since: str
