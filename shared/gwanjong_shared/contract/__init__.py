"""The platform tool contract: the names and result shapes every platform server speaks.

This package is what another gateway or agent needs: tool names and result models (here),
`models` (Post, Comment, PostResult), `errors` (the error kinds, as text and as data),
`rate` (the rate window in `_meta`), `text` (how platforms count length), `untrusted`
(cleaning platform text for a model) and `visible` (showing text to a person: every
hidden character marked, nothing removed). It imports neither the server kit nor the pipeline.

The gateway (and any other agent) relies on these exactly, so a fifth platform is just
another server that returns these models from these tools.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import Field

from gwanjong_shared.contract.models import Comment, Frozen, Post

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
# approved: a program may send it, but only after a person approved this very write (the
# platform's rule asks for a person's authorisation of each action), whatever the gateway's
# write mode. human: only a person may do it (the program hands the text over). never: not
# possible/permitted.
Allowed = Literal["auto", "summoned", "approved", "human", "never"]
#: validate's verdict on one write: `summoned` is resolved there, to auto or human
Resolved = Literal["auto", "approved", "human", "never"]
Unit = Literal["chars", "graphemes", "weighted_chars", "bytes"]
LimitName = Literal["title", "body", "comment"]


_Model = Frozen


class CredentialState(StrEnum):
    """What the platform itself said about our credentials, in `capabilities`."""

    MISSING = "missing"  # none set: nothing was asked
    ACCEPTED = "accepted"  # the platform answered the account lookup with our account
    REFUSED = "refused"  # the platform refused them (401/403 auth): get new ones
    UNKNOWN = "unknown"  # set, but not checked (platform unreachable, or not asked yet)


class ActionRule(_Model):
    allowed: Allowed
    reason: str


class Limit(_Model):
    max: int
    unit: Unit


class TagRules(_Model):
    """The tags a new post may carry here (a platform that takes none declares no rules)."""

    #: at most this many tags
    max: int
    #: each tag at most this long, in ``unit``
    max_length: int
    unit: Unit = "chars"
    #: each tag must match this regular expression in full ("" = any text)
    pattern: str = ""
    #: the pattern in plain words ("lowercase letters or digits")
    hint: str = ""


class SetupGuide(_Model):
    """How a person gets this platform's credentials today: shown by the gateway's `setup`."""

    #: where the keys are made (a URL or a settings path)
    where: str = ""
    #: what access costs, as of the date the text says
    price: str = ""
    #: who may get access and on what terms (approval, policies, rate limits)
    access: str = ""
    #: the steps, in order, for a person to follow
    steps: list[str] = Field(default_factory=list)
    #: the environment variable names the steps produce
    credentials: list[str] = Field(default_factory=list)


class HandleRules(_Model):
    """How people write an account of this platform, so one opt-out entry finds it."""

    #: other names for the platform in a "platform:handle" entry ("x" for X)
    aliases: list[str] = Field(default_factory=list)
    #: hosts of profile URLs ("https://host/.../handle")
    hosts: list[str] = Field(default_factory=list)
    #: removed from the front of a handle, in order ("u/")
    strip_prefixes: list[str] = Field(default_factory=list)
    #: removed from the end of a handle (a default domain that is optional to write)
    strip_suffixes: list[str] = Field(default_factory=list)
    #: characters read as another ("_" as "-" where "_" cannot occur in a handle)
    replace: dict[str, str] = Field(default_factory=dict)


#: one US dollar in the unit prices are counted in (integers: no float rounding in a budget)
MICRO_USD = 1_000_000
#: the contract's read tools a platform bills per resource returned (posts, comments)
BILLED_READS = ("trending", "search", "get_post", "get_comments", "mentions")


class Prices(_Model):
    """What the platform charges for our calls, in micro-dollars (``MICRO_USD`` = $1), so a
    gateway can count its spend and hold a daily budget. A platform that charges nothing
    per call gives no prices (None).

    Reads (``BILLED_READS``) are billed per post or comment they return; writes (the three
    write tools) per request, whatever their outcome. `capabilities` and `validate` are
    free. An operator may override each figure in gateway.toml (``[prices.<platform>]``).
    """

    #: per post or comment a read tool returns
    read: int = Field(default=0, ge=0)
    #: per write request (write_post, write_comment, upvote)
    write: int = Field(default=0, ge=0)
    #: per write whose text holds a link, when the platform charges more for it (None: `write`)
    write_with_url: int | None = Field(default=None, ge=0)
    #: where the figures were read (a URL), and on which date: they change
    source: str = ""
    as_of: str = ""


class Profile(_Model):
    """What a platform says about itself, so a gateway needs no facts of its own about it.

    Every field has a default: a server without a profile (or with a partial one) still
    works, and the gateway shows generic text in its place."""

    #: the platform's name for people ("Dev.to")
    label: str = ""
    #: how to write well here: tone, length, what the platform asks of automated accounts
    writing_guide: list[str] = Field(default_factory=list)
    #: the customary footer appended to automated writes ("" = the account discloses)
    disclosure: str = ""
    setup: SetupGuide = Field(default_factory=SetupGuide)
    handles: HandleRules = Field(default_factory=HandleRules)
    #: per-call prices where the platform charges per call (None: it does not)
    prices: Prices | None = None


class Capabilities(_Model):
    platform: str
    configured: bool
    account: str | None = None
    #: where a new post goes beyond the account (Reddit: "r/<subreddit>", a server
    #: setting): part of what a person approves. "" = the account's own feed
    destination: str = ""
    #: what else a write with text sends beyond its title, text and tags, each field as the
    #: platform receives it or how it is made (Dev.to: ai_disclosure_level): shown to and
    #: approved by a person
    sent_with: dict[str, str] = Field(default_factory=dict)
    actions: dict[Action, ActionRule]
    limits: dict[LimitName, Limit]
    #: the tags a new post may carry (None: this platform's posts take no tags)
    tags: TagRules | None = None
    # Whether the platform answered the account lookup: None when nothing was asked
    # (no credentials); false when it could not be reached. Rules and limits hold either way.
    reachable: bool | None = None
    #: the platform's own answer about our credentials (refused = a 401/403 auth answer)
    credentials_state: CredentialState = CredentialState.UNKNOWN
    #: the environment variable names of this server's credentials, the only names the
    #: gateway's `setup` may save for it (endpoints and other settings are not credentials)
    credentials: list[str] = Field(default_factory=list)
    #: the platform's self-description (guide, disclosure, setup); None = generic text
    profile: Profile | None = None


class Length(_Model):
    used: int
    max: int
    unit: Unit


class Validation(_Model):
    ok: bool
    allowed: Resolved
    problems: list[str] = Field(default_factory=list)
    length: Length
    #: where this new post would go beyond the account, as `capabilities` names it
    destination: str = ""
    #: what else this write would send, as `capabilities` names it (an upvote: nothing)
    sent_with: dict[str, str] = Field(default_factory=dict)

    def with_problems(self, *problems: str, never: bool = False) -> Validation:
        """This answer with more problems, so not ok (``never``: and nobody may send it)."""
        update: dict[str, object] = {"ok": False, "problems": [*self.problems, *problems]}
        return self.model_copy(update={**update, "allowed": "never"} if never else update)


class PostList(_Model):
    posts: list[Post]
    #: a search only: a matching post of ours may lie beyond these (the limit reached, or
    #: pages left unread), so one missing here may still be there (a read-back's concern)
    more: bool = False


class CommentList(_Model):
    comments: list[Comment]
    #: the platform holds comments beyond these (the limit, or branches left unread), so a
    #: comment missing here may still be there
    more: bool = False


class MentionList(_Model):
    """Posts that mention, quote or reply to our account: the oldest unseen first.

    ``next_since`` is an opaque cursor (the newest item listed): pass it back as ``since``
    to get what comes after. A server lists the oldest ``limit`` items newer than ``since``,
    so nothing it leaves out falls behind the cursor.
    """

    posts: list[Post]
    next_since: str
    #: more items wait behind ``next_since`` right now: call again with it to get them
    more: bool = False
