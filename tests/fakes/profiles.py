"""What a fake platform is: its name, rules, limits and where its posts live.

The gateway knows a platform only through the contract, so a profile is all it takes to
stand in for one. ``FORUM`` has the shape of a long-form site (posts auto, comments and
votes for a person); ``SOCIAL`` that of a short-post network (replies only when summoned).
They carry the bundled names ("devto", "bluesky") so that the gateway's per-name config
defaults (disclosure, guides) are the ones its tests expect.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gwanjong_shared.contract import Action, ActionRule, Limit, LimitName


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
    #: whether the optional `mentions` tool is served
    has_mentions: bool = True
    tags: tuple[str, ...] = field(default=())

    def reason(self, action: Action) -> str:
        return self.rules[action].reason


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
)

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
)
