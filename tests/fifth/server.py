"""A fifth platform nobody bundled: a tiny in-memory forum behind the shared server kit,
with its own writing guide, disclosure footer, setup guide and handle spellings.

Run as a script (`python tests/fifth/server.py`): the gateway spawns it over stdio from a
`[platforms.mastodon] command = [...]` entry, and knows nothing else about it.
"""

from __future__ import annotations

import os
from itertools import count

from gwanjong_shared.contract import (
    ActionRule,
    Capabilities,
    HandleRules,
    Limit,
    Profile,
    SetupGuide,
    errors,
)
from gwanjong_shared.contract.models import Comment, Post, PostResult
from gwanjong_shared.kit.adapter import PlatformAdapter
from gwanjong_shared.kit.server import build_platform_server, run_server

NAME = "mastodon"
HOST = "fifth.example"
GUIDE = "Toots are short and warm; one hashtag in CamelCase so screen readers say it well."
FOOTER = "\n\n#DraftedWithAI"
SETUP_STEP = (
    "Open Preferences > Development > New application on your instance; copy its access token."
)

PROFILE = Profile(
    label="Mastodon (test)",
    writing_guide=[GUIDE],
    disclosure=FOOTER,
    setup=SetupGuide(
        where=f"https://{HOST}/settings/applications",
        price="free",
        access="Each instance sets its own bot rules.",
        steps=[SETUP_STEP],
        credentials=["MASTODON_TOKEN"],
    ),
    handles=HandleRules(aliases=["toot"], hosts=[HOST], strip_suffixes=[f"@{HOST}"]),
)

POSTS = [
    Post(
        id="1",
        platform=NAME,
        title="Rust async cancellation in practice",
        url=f"https://{HOST}/@ferris/1",
        body="How do you make rust async handlers cancellation-safe? Our select! loop drops state.",
        author="ferris",
        comments_count=0,
    ),
    Post(
        id="2",
        platform=NAME,
        title="Rust async cancellation, again",
        url=f"https://{HOST}/@quiet_one/2",
        body="Rust async cancellation bites us too; do not reply to me, please.",
        author="quiet_one",
    ),
]


class FifthAdapter(PlatformAdapter):
    platform = NAME
    label = "Mastodon (test)"

    def __init__(self, token: str) -> None:
        self.token = token
        self.comments: dict[str, list[Comment]] = {}
        self.ids = count(100)

    def is_configured(self) -> bool:
        return bool(self.token)

    async def account(self) -> str | None:
        return "fifth_bot" if self.token else None

    def posts(self) -> list[Post]:
        return [p.model_copy(update={"platform": self.platform}) for p in POSTS]

    async def get_trending(self, limit: int) -> list[Post]:
        return self.posts()[:limit]

    async def search(self, query: str, limit: int) -> list[Post]:
        words = query.lower().split()
        found = [p for p in self.posts() if any(w in (p.title + p.body).lower() for w in words)]
        return found[:limit]

    async def get_post(self, post_id: str) -> Post:
        for post in self.posts():
            if post.id == post_id:
                return post
        raise errors.not_found(f"No post {post_id}. Search again.")

    async def get_comments(self, post_id: str, limit: int) -> list[Comment]:
        await self.get_post(post_id)
        return self.comments.get(post_id, [])[:limit]

    async def write_post(self, title: str, body: str, tags: list[str]) -> PostResult:
        raise errors.not_supported("Posts are not part of this test platform.")

    async def write_comment(self, post_id: str, body: str, parent_id: str | None) -> PostResult:
        await self.get_post(post_id)
        comment_id = str(next(self.ids))
        comment = Comment(
            id=comment_id, platform=self.platform, post_id=post_id, author="fifth_bot", body=body
        )
        self.comments.setdefault(post_id, []).append(comment)
        url = f"https://{HOST}/@fifth_bot/{comment_id}"
        return PostResult(
            ok=True, platform=self.platform, action="write_comment", id=comment_id, url=url
        )

    async def upvote(self, post_id: str) -> PostResult:
        raise errors.not_supported("Votes are not part of this test platform.")

    def static_capabilities(self) -> Capabilities:
        return Capabilities(
            platform=self.platform,
            configured=self.is_configured(),
            actions={
                "write_post": ActionRule(allowed="never", reason="No posts here."),
                "write_comment": ActionRule(allowed="auto", reason="Replies are welcome."),
                "upvote": ActionRule(allowed="never", reason="No votes here."),
            },
            limits={"comment": Limit(max=500, unit="chars"), "body": Limit(max=500, unit="chars")},
            credentials=[f"{self.platform.upper()}_TOKEN"],
        )


class BareAdapter(FifthAdapter):
    """The same forum under another name, from a server that says nothing about itself."""

    platform = "bare"
    label = "Bare (test)"


def boost(post_id: str) -> dict[str, str]:
    """Boost a post (a write this server does not mark read-only: it has no annotations)."""
    BOOSTED.append(post_id)
    return {"boosted": post_id}


BOOSTED: list[str] = []


def main() -> None:
    adapter = FifthAdapter(os.environ.get("MASTODON_TOKEN", ""))
    server = build_platform_server(adapter, profile=PROFILE)
    if os.environ.get("MASTODON_BOOST") == "1":  # a tool beyond the contract, unannotated
        server.tool(boost)
    run_server(server)


if __name__ == "__main__":
    main()
