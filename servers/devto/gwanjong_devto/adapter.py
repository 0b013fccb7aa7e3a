"""Dev.to through the Forem v1 REST API, with httpx. No browser, no scraped web routes."""

from __future__ import annotations

import re
import time
from typing import Any, ClassVar

import anyio
import httpx

from gwanjong_devto.client import LABEL, PLATFORM, DevtoClient, html_text
from gwanjong_devto.mentions import fetch_mentions
from gwanjong_devto.settings import Settings
from gwanjong_shared.contract import (
    ActionRule,
    Capabilities,
    Limit,
    LimitName,
    MentionList,
    TagRules,
    Validation,
    errors,
)
from gwanjong_shared.contract.models import Comment, Post, PostResult
from gwanjong_shared.kit.adapter import PlatformAdapter
from gwanjong_shared.kit.once import each_once, holding
from gwanjong_shared.kit.ratelimit import Clock, Limiter, MinInterval, Sleep, TokenBucket
from gwanjong_shared.kit.target_cache import TargetCache

_TAG = re.compile(r"^[a-z0-9]{1,30}$")
# Jekyll-style front matter at the very top of body_markdown (DEV's editor v1 writes it).
_FRONT_MATTER = re.compile(r"\A\ufeff?---[ \t]*\n.*?\n---[ \t]*(?:\n|\Z)", re.S)
# What Forem's parser (front_matter_parser, md) takes as front matter when it writes one: any
# blank start, ---, anything, then --- closing a line. Its keys replace the API's fields.
_SENT_FRONT_MATTER = re.compile(r"\A[\s\ufeff]*---.*?---\s*$", re.S | re.M)
FRONT_MATTER_PROBLEM = (
    "The body opens with a '---' block, which Dev.to reads as front matter: its lines (title, "
    "tags, published, canonical_url) would replace what was approved. Start the body with "
    "other text; give the title and tags as fields."
)

POST_RULE = ActionRule(
    allowed="approved",
    reason="Forem's API publishes articles for any API key, but dev.to's llms.txt asks clients to "
    "publish only when the account holder has explicitly authorized that action: a person "
    "approves each article before it is sent.",
)
COMMENT_RULE = ActionRule(
    allowed="human",
    reason="Forem's API has no endpoint for writing comments, and dev.to asks that comments "
    "not be automated; a person must post it in the browser.",
)
UPVOTE_RULE = ActionRule(
    allowed="human",
    reason="Forem accepts reactions only from admin API keys; a person can like the post in "
    "the browser.",
)
LIMITS: dict[LimitName, Limit] = {
    "title": Limit(max=128, unit="chars"),
    "body": Limit(max=800_000, unit="bytes"),
    "comment": Limit(max=25_000, unit="chars"),
}


#: what DEV records of each article we publish (no_ai | some_ai | fully_autonomous)
AI_DISCLOSURE = "fully_autonomous"
#: DEV's tag rules (its editor refuses others): checked by `validate`, never rewritten
TAGS = TagRules(max=4, max_length=30, pattern=_TAG.pattern, hint="lowercase letters or digits")


def markdown_body(markdown: str) -> str:
    """The article text: CRLF normalised, YAML front matter (title, tags, published) cut."""
    text = markdown.replace("\r\n", "\n").replace("\r", "\n")
    return _FRONT_MATTER.sub("", text, count=1).lstrip("\n")


def _tags(article: dict[str, Any]) -> list[str]:
    # Index and show forms swap the types of tag_list and tags (forem#4206): take the list.
    for key in ("tag_list", "tags"):
        value = article.get(key)
        if isinstance(value, list):
            return [str(t) for t in value]
    for key in ("tag_list", "tags"):
        value = article.get(key)
        if isinstance(value, str) and value:
            return [t.strip() for t in value.split(",") if t.strip()]
    return []


# What `setup` may save for this server (never endpoints: those come from the operator).
CREDENTIALS = ["DEVTO_API_KEY"]


class DevtoAdapter(PlatformAdapter):
    platform: ClassVar[str] = PLATFORM
    label: ClassVar[str] = LABEL

    def __init__(
        self,
        settings: Settings,
        transport: httpx.AsyncBaseTransport | None = None,
        *,
        clock: Clock = time.monotonic,
        sleep: Sleep = anyio.sleep,
    ) -> None:
        self.settings = settings
        self.targets: TargetCache[Post] = TargetCache(clock=clock)  # validate's target reads
        # Pacing on an injectable clock and sleep: tests advance time instead of waiting.
        self.limiter = Limiter(
            self.label,
            reads=TokenBucket(settings.reads_per_minute, 60.0, clock, sleep),
            writes=MinInterval(settings.write_interval_s, clock, sleep),
            clock=clock,
            sleep=sleep,
        )
        self.client = DevtoClient(settings, self.limiter, transport)

    async def connect(self) -> None:
        await self.client.connect()

    async def close(self) -> None:
        await self.client.close()

    def is_configured(self) -> bool:
        return self.client.is_configured()

    # -- mapping --------------------------------------------------------------------

    def _post(self, a: dict[str, Any]) -> Post:
        markdown = a.get("body_markdown")
        body = (
            markdown_body(markdown)
            if isinstance(markdown, str) and markdown
            else (html_text(a["body_html"]) if a.get("body_html") else "")
        )
        return Post(
            id=str(a["id"]),
            platform=self.platform,
            title=a.get("title") or "",
            url=a.get("url") or "",
            body=body or a.get("description") or "",
            author=(a.get("user") or {}).get("username", ""),
            tags=_tags(a),
            likes=int(a.get("public_reactions_count") or a.get("positive_reactions_count") or 0),
            comments_count=int(a.get("comments_count") or 0),
            published_at=a.get("published_at") or a.get("published_timestamp"),
            raw=a,
        )

    def _flatten(self, post_id: str, nodes: list[dict[str, Any]], limit: int) -> list[Comment]:
        out: list[Comment] = []
        stack: list[tuple[dict[str, Any], str | None, int]] = [
            (n, None, 0) for n in reversed(nodes)
        ]
        while stack and len(out) < limit:
            node, parent, depth = stack.pop()
            user = node.get("user") or {}
            name, code = user.get("username", ""), node.get("id_code")
            out.append(
                Comment(
                    id=str(node.get("id_code", "")),
                    platform=self.platform,
                    post_id=post_id,
                    parent_id=parent,
                    author=user.get("username", ""),  # deleted comments keep their place, no user
                    body=html_text(node.get("body_html") or ""),
                    published_at=node.get("created_at"),
                    depth=depth,
                    # Forem's web pages share the API's origin: /<user>/comment/<id_code>
                    url=f"{self.settings.base_url.rstrip('/')}/{name}/comment/{code}"
                    if name and code
                    else "",
                    raw={k: v for k, v in node.items() if k != "children"},
                )
            )
            children = node.get("children") or []
            stack.extend((c, str(node.get("id_code")), depth + 1) for c in reversed(children))
        return out

    @staticmethod
    def _article_id(post_id: str) -> str:
        if not (post_id.isascii() and post_id.isdigit()):  # isdigit alone takes ١٠٠١
            raise errors.invalid_input(
                f"Dev.to post ids are numbers (like 1001); got {post_id!r}. Use an id from search or trending."
            )
        return post_id

    # -- reads ----------------------------------------------------------------------

    async def get_trending(self, limit: int) -> list[Post]:
        data = await self.client.request(
            "GET", "/api/articles", params={"top": 7, "per_page": limit}
        )
        return [self._post(a) for a in data][:limit]

    async def search(self, query: str, limit: int) -> list[Post]:
        # Forem has no documented full-text search: a single tag-like word goes to the tag
        # filter; anything else (and a tag with no hits) to the search route DEV serves.
        found = await self._ours_with(query)
        tag = query.lower().lstrip("#")
        if _TAG.match(tag):
            data = await self.client.request(
                "GET", "/api/articles", params={"tag": tag, "per_page": limit}
            )
            found += [self._post(a) for a in data]
        if len(found) < limit:
            try:
                data = await self.client.request(
                    "GET", "/api/articles/search", params={"q": query, "per_page": limit}
                )
            except errors.PlatformError as exc:
                if exc.kind is not errors.ErrorKind.NOT_FOUND:  # instance without the route
                    raise
                data = []
            found += [self._post(a) for a in data]
        return each_once(found, limit)

    async def _ours_with(self, query: str) -> list[Post]:
        """Our latest articles holding every word of ``query``: an unsure post is read back
        by its title, which another Forem's search (404: only DEV serves the route) or a
        one-word title's tag filter never finds. Published ones: /me/all lists drafts first
        (published_at DESC puts their NULL first), so 30 drafts hide a new article."""
        if not self.is_configured():
            return []
        mine = await self.client.request("GET", "/api/articles/me/published")
        return holding(query, map(self._post, mine))

    async def get_post(self, post_id: str) -> Post:
        data = await self.client.request(
            "GET", f"/api/articles/{self._article_id(post_id)}", what=f"article {post_id}"
        )
        return self._post(data)

    async def get_comments(self, post_id: str, limit: int) -> list[Comment]:
        data = await self.client.request(
            "GET",
            "/api/comments",
            params={"a_id": self._article_id(post_id)},
            what=f"article {post_id}",
        )
        return self._flatten(post_id, data, limit)

    async def mentions(self, since: str | None, limit: int) -> MentionList:
        return await fetch_mentions(self.client, since, limit)

    # -- writes ---------------------------------------------------------------------

    async def write_post(self, title: str, body: str, tags: list[str]) -> PostResult:
        if not self.is_configured():
            raise errors.auth(
                "No Dev.to API key is set. Put DEVTO_API_KEY in the environment "
                "(dev.to Settings > Extensions) and restart the server."
            )
        clean = [t.lower() for t in tags]
        bad = [t for t in clean if not _TAG.match(t)]
        if bad or len(clean) > 4:
            raise errors.invalid_input(
                "Dev.to takes at most 4 tags, each 1-30 lowercase letters or digits; "
                f"got {tags!r}. Fix the tags and retry."
            )
        article = {"title": title, "body_markdown": body, "published": True, "tags": clean}
        # dev.to's llms.txt: the level must be accurate, and a person approving a drafted
        # article does not make it human-authored; left out, DEV records not_disclosed
        payload = {"article": {**article, "ai_disclosure_level": AI_DISCLOSURE}}
        data = await self.client.request("POST", "/api/articles", json=payload)
        return PostResult(
            ok=True,
            platform=self.platform,
            action="write_post",
            id=str(data["id"]),
            url=data.get("url"),
        )

    async def write_comment(self, post_id: str, body: str, parent_id: str | None) -> PostResult:
        raise errors.not_supported(COMMENT_RULE.reason)

    async def upvote(self, post_id: str) -> PostResult:
        raise errors.not_supported(UPVOTE_RULE.reason)

    def static_capabilities(self) -> Capabilities:
        return Capabilities(
            platform=self.platform,
            configured=self.is_configured(),
            actions={
                "write_post": POST_RULE,
                "write_comment": COMMENT_RULE,
                "upvote": UPVOTE_RULE,
            },
            limits=LIMITS,
            tags=TAGS,
            credentials=CREDENTIALS,
            sent_with={"ai_disclosure_level": AI_DISCLOSURE},  # shown to the person who approves
        )

    async def account(self) -> str | None:
        return await self.client.account()

    async def validate(
        self,
        action: str,
        body: str,
        title: str = "",
        post_id: str | None = None,
        tags: list[str] | None = None,
    ) -> Validation:
        check = await super().validate(action, body, title, post_id, tags)
        if action != "write_post" or not _SENT_FRONT_MATTER.match(body):
            return check
        return check.with_problems(FRONT_MATTER_PROBLEM)

    async def rule_for_target(self, action: str, post_id: str, rule: ActionRule) -> ActionRule:
        # a missing target is `not_found`, not a policy answer
        article = self._article_id(post_id)
        await self.targets.fetch(article, lambda: self.get_post(article))
        return rule
