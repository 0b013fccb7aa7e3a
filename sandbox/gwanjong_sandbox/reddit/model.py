"""Reddit emulator: names, limits, the stored things (links, comments) and id helpers."""

from __future__ import annotations

import html
import json
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from starlette.responses import JSONResponse, Response

PREFIX = "/reddit"
CLIENT_ID = "sandbox-reddit-client"
CLIENT_SECRET = "sandbox-reddit-secret"
ME = "gwanjong_bot"
PASSWORD = "sandbox-reddit-password"
WWW = "https://www.reddit.com"

WINDOW_S = 10  # Reddit: 600 s
BUDGET = 1000  # requests per window and OAuth client, as Reddit reports it
PAGE_COMMENTS = 200  # comments on one /comments page before "more" stubs
MAX_DEPTH = 10  # deeper replies become "continue this thread"
MORE_BATCH = 100  # comments one /api/morechildren call returns
WRITE_WINDOW_S = 600  # the per-account action throttle (RATELIMIT)
WRITE_LIMIT = 25
TITLE_MAX = 300
SELFTEXT_MAX = 40_000
COMMENT_MAX = 10_000
#: how long a new post stays out of search: Reddit's search index lists a post minutes
#: after it is made (never one its spam filter holds); its author's profile lists it at once
SEARCH_INDEX_S = 900

# Which subreddit each corpus thread lives in (r/test is where our own posts go).
THREAD_SUBS = {
    "mcp-servers": "Python",
    "rust-async": "rust",
    "python-packaging": "Python",
    "llm-agents": "programming",
    "korean-dev": "Python",
    "emoji-post": "devops",
    "summons-me": "programming",
    "empty-thread": "programming",
    "deleted-post": "programming",
    "deleted-comments": "ExperiencedDevs",
    "huge": "PostgreSQL",
    "typescript-types": "typescript",
}
SUBREDDITS = (
    "Python",
    "rust",
    "programming",
    "devops",
    "ExperiencedDevs",
    "PostgreSQL",
    "typescript",
    "webdev",
    "test",
)
VIRTUAL = ("all", "popular")
#: r/Bottiquette's machine-readable lists (its wiki page robots_txt_json), as bots read them:
#: r/typescript's thread shows a reply refused, r/devops's a posts-only subreddit; the demo's
#: and the suite's subreddits (Python, rust, programming, PostgreSQL, test) are on none.
BOTTIQUETTE = {
    "disallowed": ["TypeScript"],
    "permission": ["webdev"],
    "posts-only": ["devops"],
    "comments-only": ["ExperiencedDevs"],
}

_B36 = "0123456789abcdefghijklmnopqrstuvwxyz"
_SLUG = re.compile(r"\W+", re.UNICODE)
_ID = re.compile(r"^[0-9a-z]{1,13}$")


def b36(n: int) -> str:
    out = ""
    while n:
        n, r = divmod(n, 36)
        out = _B36[r] + out
    return out or "0"


def _slug(title: str) -> str:
    return _SLUG.sub("_", title.lower()).strip("_")[:50].rstrip("_") or "_"


def sr_id(name: str) -> str:
    return "t5_" + b36(zlib.crc32(name.lower().encode()) % 36**6)


def user_fullname(name: str) -> str:
    return "t2_" + b36(zlib.crc32(f"user:{name}".encode()) % 36**8)


def md_html(text: str) -> str:
    paragraphs = [p for p in text.split("\n\n") if p.strip()] or [""]
    inner = "\n\n".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    return f'<div class="md">{inner}\n</div>'


@dataclass
class RComment:
    id: str
    link_id: str  # the submission's id36
    parent: str  # fullname of the parent (t3_ or t1_)
    depth: int
    author: str
    body: str
    score: int
    created: float
    deleted: bool = False
    mine: bool = False
    children: list[RComment] = field(default_factory=list)
    locked: bool = False


@dataclass
class RLink:
    id: str
    sub: str
    title: str
    selftext: str
    author: str
    score: int
    created: float
    comments: list[RComment] = field(default_factory=list)
    deleted: bool = False
    mine: bool = False
    closed: str = ""  # "locked", "archived" or "removed" (by its moderators): Reddit's flags

    @property
    def permalink(self) -> str:
        return f"/r/{self.sub}/comments/{self.id}/{_slug(self.title)}/"


def _walk(nodes: list[RComment]) -> Iterator[RComment]:
    for node in nodes:
        yield node
        yield from _walk(node.children)


def subtree_size(nodes: list[RComment]) -> int:
    return sum(1 for _ in _walk(nodes))


def _escape(value: Any) -> Any:
    """Reddit's legacy JSON: without ``raw_json=1`` every string has &, < and > escaped."""
    if isinstance(value, str):
        return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if isinstance(value, list):
        return [_escape(v) for v in value]
    if isinstance(value, dict):
        return {k: _escape(v) for k, v in value.items()}
    return value


def legacy_escaped(response: Response) -> Response:
    if not isinstance(response, JSONResponse) or response.status_code != 200:
        return response
    keep = {k: v for k, v in response.headers.items() if k.startswith("x-ratelimit-")}
    data = json.loads(bytes(response.body))
    return JSONResponse(_escape(data), status_code=200, headers=keep)


class Reject(Exception):
    """A request answered early (auth, rate limit): carries the response."""

    def __init__(self, response: Response) -> None:
        super().__init__("rejected")
        self.response = response
