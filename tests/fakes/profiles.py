"""What a fake platform is: its name, rules, limits and where its posts live.

The gateway knows a platform only through the contract, so a profile is all it takes to
stand in for one. ``FORUM`` has the shape of a long-form site (posts auto, comments and
votes for a person); ``SOCIAL`` that of a short-post network (replies only when summoned).
Each also describes itself the way a platform server does (``about``: writing guide,
disclosure footer, setup guide), so the gateway's guide, footer and setup text in these
tests come from the fake, never from gateway code.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from gwanjong_shared.contract import (
    Action,
    ActionRule,
    Limit,
    LimitName,
    Prices,
    SetupGuide,
    TagRules,
)
from gwanjong_shared.contract import Profile as About


@dataclass(frozen=True)
class Profile:
    name: str
    label: str
    #: where post URLs point: {url}/{author}/{key}
    url: str
    rules: dict[Action, ActionRule]
    limits: dict[LimitName, Limit]
    credentials: tuple[str, ...] = ()
    #: our account on the platform
    me: str = "gwanjong_bot"
    #: where a new post goes beyond the account, as `capabilities` says ("" = nowhere)
    destination: str = ""
    #: what else a write with text sends, as `capabilities` says
    sent_with: dict[str, str] = field(default_factory=dict)
    #: whether the optional `mentions` tool is served
    has_mentions: bool = True
    tags: tuple[str, ...] = field(default=())
    #: the tags a new post may carry (None: none), as `capabilities` declares them
    tag_rules: TagRules | None = None
    #: the self-description `capabilities` carries (None: the gateway's generic text)
    about: About | None = None

    def reason(self, action: Action) -> str:
        return self.rules[action].reason


def _about(label: str, guide: str, *, footer: str, where: str, credentials: list[str]) -> About:
    """A fake's self-description, in the shape every platform server gives it."""
    return About(
        label=label,
        writing_guide=[guide],
        disclosure=footer,
        setup=SetupGuide(
            where=where,
            price="free in the fake",
            access="anyone with a test account",
            steps=[f"Open {where}.", "Create a key and copy it."],
            credentials=credentials,
        ),
    )


FORUM = Profile(
    name="devto",
    label="Fake Forum",
    url="https://dev.to",
    rules={
        "write_post": ActionRule(allowed="auto", reason="The fake forum publishes any post."),
        "write_comment": ActionRule(
            allowed="human", reason="The fake forum has no comment endpoint; a person posts it."
        ),
        "upvote": ActionRule(
            allowed="human", reason="The fake forum takes likes only from a person's browser."
        ),
    },
    limits={
        "title": Limit(max=128, unit="chars"),
        "body": Limit(max=800_000, unit="bytes"),
        "comment": Limit(max=25_000, unit="chars"),
    },
    credentials=("DEVTO_API_KEY",),
    tag_rules=TagRules(
        max=4, max_length=30, pattern="[a-z0-9]+", hint="lowercase letters or digits"
    ),
    about=_about(
        "Fake Forum",
        "Lead with the point; long posts are read here.",
        footer="\n\n*Drafted with an AI assistant (fake forum).*",
        where="https://forum.example/settings/keys",
        credentials=["DEVTO_API_KEY"],
    ),
)

SOCIAL = Profile(
    name="bluesky",
    label="Fake Social",
    url="https://bsky.app/profile",
    rules={
        "write_post": ActionRule(allowed="auto", reason="The fake network posts for programs."),
        "write_comment": ActionRule(
            allowed="summoned", reason="Programs reply only where our account was mentioned."
        ),
        "upvote": ActionRule(allowed="auto", reason="Likes are open to programs."),
    },
    limits={"body": Limit(max=300, unit="graphemes"), "comment": Limit(max=300, unit="graphemes")},
    credentials=("BLUESKY_HANDLE", "BLUESKY_APP_PASSWORD"),
    me="gwanjong.bsky.social",
    about=_about(
        "Fake Social",
        "Short and plain: one thought per reply.",
        footer="",
        where="https://social.example/app-passwords",
        credentials=["BLUESKY_HANDLE", "BLUESKY_APP_PASSWORD"],
    ),
)
#: a second short-post network, for tests that need two (an inbox on each)
TWEETS = dataclasses.replace(SOCIAL, name="twitter", label="Fake Tweets", url="https://x.com")

LINKS = Profile(
    name="reddit",
    label="Fake Links",
    url="https://www.reddit.com/r/fake/comments",
    rules={
        "write_post": ActionRule(allowed="auto", reason="Posts are open to programs here."),
        "write_comment": ActionRule(allowed="auto", reason="Comments are open to programs here."),
        "upvote": ActionRule(allowed="never", reason="Votes by programs are vote manipulation."),
    },
    limits={
        "title": Limit(max=300, unit="chars"),
        "body": Limit(max=40_000, unit="chars"),
        "comment": Limit(max=10_000, unit="chars"),
    },
    credentials=("REDDIT_CLIENT_ID", "REDDIT_CLIENT_SECRET"),
    about=_about(
        "Fake Links",
        "Answer the question asked; no self-promotion.",
        footer="\n\n^(an automated reply, fake links)",
        where="https://links.example/prefs/apps",
        credentials=["REDDIT_CLIENT_ID", "REDDIT_CLIENT_SECRET"],
    ),
)

#: A platform that charges per call, as X's pay-per-use API does: reads per post returned,
#: writes per request (more for one holding a link). Programs may post and comment.
PAID = Profile(
    name="devto",  # a bundled name, so a config needs no command; the server is the fake
    label="Fake Paid",
    url="https://paid.example",
    rules={
        "write_post": ActionRule(allowed="auto", reason="Posts are open to programs."),
        "write_comment": ActionRule(allowed="auto", reason="Comments are open to programs."),
        "upvote": ActionRule(allowed="auto", reason="Likes are open to programs."),
    },
    limits={
        "title": Limit(max=128, unit="chars"),
        "body": Limit(max=2_000, unit="chars"),
        "comment": Limit(max=2_000, unit="chars"),
    },
    credentials=("DEVTO_API_KEY",),
    about=_about(
        "Fake Paid",
        "Every call costs money here.",
        footer="",
        where="https://paid.example/keys",
        credentials=["DEVTO_API_KEY"],
    ).model_copy(
        update={
            "prices": Prices(
                read=5_000,  # $0.005 per post or comment returned
                write=15_000,  # $0.015 per request
                write_with_url=200_000,  # $0.20 per request holding a link
                source="tests/fakes/profiles.py",
                as_of="2026-12-02",
            )
        }
    ),
)
