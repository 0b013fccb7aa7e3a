"""Reddit emulator: the OAuth API (oauth.reddit.com) and the token endpoint (www.reddit.com).

Both live under ``/reddit``, which is how asyncpraw is pointed here (platform-wire.md §3.2):
``oauth_url=SANDBOX + "/reddit/"`` (trailing slash, the API paths are joined onto it) and
``reddit_url=SANDBOX + "/reddit"`` (the token URL is that string + ``/api/v1/access_token``).

What it reproduces from the recorded payloads (payloads/reddit) and platform-wire.md §3:

* script-app OAuth (``grant_type=password``) and application-only OAuth
  (``client_credentials``); a wrong password is **HTTP 200** ``{"error": "invalid_grant"}``,
  a wrong client is 401; API calls need ``Authorization: bearer <token>``, else 401 with an
  HTML body and ``WWW-Authenticate: Bearer realm="reddit", error="invalid_token"``;
* every OAuth answer carries all three ``x-ratelimit-*`` headers (``remaining`` as a float
  string); over budget is 429 with the same headers;
* listings (``/r/a+b/hot|new|top|rising``, ``/r/x/search``, ``/search``, ``/api/info``) with
  ``after`` paging; unknown subreddits redirect to the subreddit search, as Reddit does;
* ``/comments/{id}`` as the two-element array, with "load more comments" stubs once the page
  budget is spent and "continue this thread" stubs at depth 10; ``/api/morechildren`` answers
  a flat ``things`` list (at most 100 comments, then new stubs); deleted comments keep their
  place and replies, with author ``[deleted]`` and body ``[removed]``;
* writes answer HTTP 200 ``{"json": {"errors": [...], "data": ...}}``: ``TOO_LONG``,
  ``NO_TEXT``, ``SUBREDDIT_NOEXIST``, ``DELETED_COMMENT`` and the per-account ``RATELIMIT``
  ("Take a break for N minutes") all arrive that way;
* both trailing-slash forms of every path, and ``.json`` suffixes; never a slash redirect;
* without ``raw_json=1`` strings come HTML-escaped (``&amp;``), Reddit's legacy form.

Sandbox choices (not Reddit's numbers): the rate-limit window is 10 s instead of 600 s, so
asyncprawcore's pacing never slows the tests, and one ``/comments`` page carries at most 200
comments, so the corpus's 500-comment thread always needs ``/api/morechildren``.
"""

from __future__ import annotations

import base64
import html
import json
import math
import re
import secrets
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp

from gwanjong_sandbox.corpus import BASE_TIME, Node, Thread, build_corpus
from gwanjong_sandbox.state import SandboxState

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

_B36 = "0123456789abcdefghijklmnopqrstuvwxyz"
_SLUG = re.compile(r"\W+", re.UNICODE)
_ID = re.compile(r"^[0-9a-z]{1,13}$")


def _b36(n: int) -> str:
    out = ""
    while n:
        n, r = divmod(n, 36)
        out = _B36[r] + out
    return out or "0"


def _slug(title: str) -> str:
    return _SLUG.sub("_", title.lower()).strip("_")[:50].rstrip("_") or "_"


def _sr_id(name: str) -> str:
    return "t5_" + _b36(zlib.crc32(name.lower().encode()) % 36**6)


def _user_id(name: str) -> str:
    return "t2_" + _b36(zlib.crc32(f"user:{name}".encode()) % 36**8)


def _md_html(text: str) -> str:
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

    @property
    def permalink(self) -> str:
        return f"/r/{self.sub}/comments/{self.id}/{_slug(self.title)}/"


def _walk(nodes: list[RComment]) -> Iterator[RComment]:
    for node in nodes:
        yield node
        yield from _walk(node.children)


def _subtree_size(nodes: list[RComment]) -> int:
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


def _legacy_escaped(response: Response) -> Response:
    if not isinstance(response, JSONResponse) or response.status_code != 200:
        return response
    keep = {k: v for k, v in response.headers.items() if k.startswith("x-ratelimit-")}
    data = json.loads(bytes(response.body))
    return JSONResponse(_escape(data), status_code=200, headers=keep)


class _Reject(Exception):
    """A request answered early (auth, rate limit): carries the response."""

    def __init__(self, response: Response) -> None:
        super().__init__("rejected")
        self.response = response


class RedditEmulator:
    platform: str = "reddit"
    prefixes: tuple[str, ...] = (PREFIX + "/",)
    hosts: tuple[str, ...] = ()

    def __init__(self, state: SandboxState) -> None:
        self.state = state
        self.reset()

    def demo_env(self, base_url: str) -> dict[str, str]:
        return {
            "REDDIT_BASE_URL": base_url + PREFIX,
            "REDDIT_CLIENT_ID": CLIENT_ID,
            "REDDIT_CLIENT_SECRET": CLIENT_SECRET,
            "REDDIT_USERNAME": ME,
            "REDDIT_PASSWORD": PASSWORD,
            "REDDIT_POST_SUBREDDIT": "test",
        }

    # -- seed -----------------------------------------------------------------------

    def reset(self) -> None:
        self._started = time.time()
        self.tokens: dict[str, tuple[str, str | None]] = {}  # token -> (client id, user)
        self.windows: dict[str, tuple[float, int]] = {}  # client id -> (window start, used)
        self.write_times: list[float] = []
        self.links: dict[str, RLink] = {}
        self.comments: dict[str, RComment] = {}
        self.by_thread: dict[str, str] = {}
        taken: set[str] = set()
        for thread in build_corpus(ME):
            link_id = self._unique(f"link:{thread.key}", int("1q00000", 36), taken)
            self.by_thread[thread.key] = link_id
            link = self._link(link_id, thread)
            link.comments = [
                self._comment(n, link, "t3_" + link_id, 0, taken) for n in thread.comments
            ]
            if not thread.deleted:  # every read of a deleted post is Reddit's 404
                self.links[link_id] = link
        self._next_link = int("1r00000", 36)
        self._next_comment = int("o700000", 36)
        self.missing = "1zzzzzz"

    @staticmethod
    def _unique(key: str, base: int, taken: set[str]) -> str:
        n = base + zlib.crc32(key.encode()) % 36**5
        while _b36(n) in taken:
            n += 1
        taken.add(_b36(n))
        return _b36(n)

    def _link(self, link_id: str, thread: Thread) -> RLink:
        return RLink(
            id=link_id,
            sub=THREAD_SUBS.get(thread.key, "programming"),
            title=thread.title,
            selftext=thread.body.replace("{me}", f"u/{ME}"),
            author=thread.author,
            score=thread.likes,
            created=thread.created.timestamp(),
            deleted=thread.deleted,
        )

    def _comment(
        self, node: Node, link: RLink, parent: str, depth: int, taken: set[str]
    ) -> RComment:
        comment_id = self._unique(f"comment:{node.key}", int("o500000", 36), taken)
        comment = RComment(
            id=comment_id,
            link_id=link.id,
            parent=parent,
            depth=depth,
            author=node.author,
            body=node.body.replace("{me}", f"u/{ME}"),
            score=node.likes,
            created=link.created + 60 * node.minutes,
            deleted=node.deleted,
        )
        comment.children = [
            self._comment(c, link, "t1_" + comment_id, depth + 1, taken) for c in node.children
        ]
        self.comments[comment_id] = comment
        return comment

    def ids(self) -> dict[str, str]:
        ids = dict(self.by_thread)
        ids["missing"] = self.missing
        return ids

    def now(self) -> float:
        """The sandbox's clock: the corpus's present moment, moving forward in real time."""
        return BASE_TIME.timestamp() + (time.time() - self._started)

    # -- rendering ------------------------------------------------------------------

    def _t3(self, link: RLink) -> dict[str, Any]:
        sub = link.sub
        num_comments = _subtree_size(link.comments)
        return {
            "approved_at_utc": None,
            "subreddit": sub,
            "selftext": link.selftext,
            "author_fullname": _user_id(link.author),
            "saved": False,
            "mod_reason_title": None,
            "gilded": 0,
            "clicked": False,
            "title": link.title,
            "link_flair_richtext": [],
            "subreddit_name_prefixed": f"r/{sub}",
            "hidden": False,
            "pwls": 6,
            "link_flair_css_class": None,
            "downs": 0,
            "thumbnail_height": None,
            "top_awarded_type": None,
            "hide_score": False,
            "name": f"t3_{link.id}",
            "quarantine": False,
            "link_flair_text_color": "dark",
            "upvote_ratio": 0.97 if link.score else 1.0,
            "author_flair_background_color": None,
            "subreddit_type": "public",
            "ups": link.score,
            "total_awards_received": 0,
            "media_embed": {},
            "thumbnail_width": None,
            "author_flair_template_id": None,
            "is_original_content": False,
            "user_reports": [],
            "secure_media": None,
            "is_reddit_media_domain": False,
            "is_meta": False,
            "category": None,
            "secure_media_embed": {},
            "link_flair_text": None,
            "can_mod_post": False,
            "score": link.score,
            "approved_by": None,
            "is_created_from_ads_ui": False,
            "author_premium": False,
            "thumbnail": "self",
            "edited": False,
            "author_flair_css_class": None,
            "author_flair_richtext": [],
            "gildings": {},
            "content_categories": None,
            "is_self": True,
            "mod_note": None,
            "created": link.created,
            "link_flair_type": "text",
            "wls": 6,
            "removed_by_category": None,
            "banned_by": None,
            "author_flair_type": "text",
            "domain": f"self.{sub}",
            "allow_live_comments": False,
            "selftext_html": f"<!-- SC_OFF -->{_md_html(link.selftext)}<!-- SC_ON -->"
            if link.selftext
            else None,
            "likes": True if link.mine else None,
            "suggested_sort": None,
            "banned_at_utc": None,
            "view_count": None,
            "archived": False,
            "no_follow": False,
            "is_crosspostable": True,
            "pinned": False,
            "over_18": False,
            "all_awardings": [],
            "awarders": [],
            "media_only": False,
            "can_gild": False,
            "spoiler": False,
            "locked": False,
            "author_flair_text": None,
            "treatment_tags": [],
            "visited": False,
            "removed_by": None,
            "num_reports": None,
            "distinguished": None,
            "subreddit_id": _sr_id(sub),
            "author_is_blocked": False,
            "mod_reason_by": None,
            "removal_reason": None,
            "link_flair_background_color": "",
            "id": link.id,
            "is_robot_indexable": True,
            "report_reasons": None,
            "author": link.author,
            "discussion_type": None,
            "num_comments": num_comments,
            "send_replies": True,
            "contest_mode": False,
            "mod_reports": [],
            "author_patreon_flair": False,
            "author_flair_text_color": None,
            "permalink": link.permalink,
            "stickied": False,
            "url": WWW + link.permalink,
            "subreddit_subscribers": 120_000,
            "created_utc": link.created,
            "num_crossposts": 0,
            "media": None,
            "is_video": False,
        }

    def _t1(self, c: RComment, link: RLink, depth: int | None, replies: Any) -> dict[str, Any]:
        sub = link.sub
        data: dict[str, Any] = {
            "subreddit_id": _sr_id(sub),
            "approved_at_utc": None,
            "author_is_blocked": False,
            "comment_type": None,
            "awarders": [],
            "total_awards_received": 0,
            "mod_reason_by": None,
            "banned_by": None,
            "ups": c.score,
            "removal_reason": None,
            "link_id": f"t3_{c.link_id}",
            "likes": True if c.mine else None,
            "replies": replies,
            "user_reports": [],
            "saved": False,
            "id": c.id,
            "banned_at_utc": None,
            "mod_reason_title": None,
            "gilded": 0,
            "archived": False,
            "collapsed_reason_code": None,
            "no_follow": True,
            "author": c.author,
            "can_mod_post": False,
            "created_utc": c.created,
            "send_replies": True,
            "parent_id": c.parent,
            "score": c.score,
            "approved_by": None,
            "mod_note": None,
            "all_awardings": [],
            "collapsed": False,
            "body": c.body,
            "edited": False,
            "top_awarded_type": None,
            "downs": 0,
            "author_flair_css_class": None,
            "name": f"t1_{c.id}",
            "is_submitter": c.author == link.author,
            "body_html": _md_html(c.body),
            "gildings": {},
            "collapsed_reason": None,
            "distinguished": None,
            "associated_award": None,
            "stickied": False,
            "can_gild": False,
            "subreddit": sub,
            "author_flair_text_color": None,
            "score_hidden": False,
            "permalink": f"{link.permalink}{c.id}/",
            "subreddit_type": "public",
            "locked": False,
            "report_reasons": None,
            "created": c.created,
            "author_flair_text": None,
            "treatment_tags": [],
            "subreddit_name_prefixed": f"r/{sub}",
            "controversiality": 0,
            "author_flair_background_color": None,
            "collapsed_because_crowd_control": None,
            "mod_reports": [],
            "num_reports": None,
            "ups_hidden": False,
            "author_fullname": _user_id(c.author),
            "author_premium": False,
            "author_patreon_flair": False,
            "author_flair_richtext": [],
            "author_flair_type": "text",
            "author_flair_template_id": None,
        }
        if depth is not None:  # a freshly created comment has no depth key
            data["depth"] = depth
        if c.deleted:
            # Deleted: the author is gone, its fullname and flair/premium keys too.
            data.update(
                author="[deleted]",
                body="[removed]",
                body_html=_md_html("[removed]"),
                is_submitter=False,
                collapsed=True,
                collapsed_reason="comment score below threshold",
            )
            for key in (
                "author_fullname",
                "author_premium",
                "author_patreon_flair",
                "author_flair_richtext",
                "author_flair_type",
                "author_flair_template_id",
            ):
                del data[key]
        return data

    @staticmethod
    def _more(rest: list[RComment], parent: str, depth: int) -> dict[str, Any]:
        first = rest[0].id
        return {
            "kind": "more",
            "data": {
                "count": _subtree_size(rest),
                "name": f"t1_{first}",
                "id": first,
                "parent_id": parent,
                "depth": depth,
                "children": [c.id for c in rest],
            },
        }

    @staticmethod
    def _continue(parent: str, depth: int) -> dict[str, Any]:
        return {
            "kind": "more",
            "data": {
                "count": 0,
                "name": "t1__",
                "id": "_",
                "parent_id": parent,
                "depth": depth,
                "children": [],
            },
        }

    def _sorted(self, nodes: list[RComment], sort: str) -> list[RComment]:
        # A new comment waits out the sandbox's read-back lag before reads show it.
        nodes = [c for c in nodes if self.state.visible("reddit", c.id)]
        if sort == "new":
            return sorted(nodes, key=lambda c: -c.created)
        if sort == "old":
            return sorted(nodes, key=lambda c: c.created)
        # confidence/top/controversial/q&a: best first; ties keep thread order
        return sorted(nodes, key=lambda c: -c.score)

    def _tree(
        self,
        link: RLink,
        nodes: list[RComment],
        parent: str,
        depth: int,
        budget: list[int],
        sort: str,
        base_depth: int = 0,
    ) -> list[dict[str, Any]]:
        """A nested comment listing; spent budget turns the rest into a "more" stub."""
        out: list[dict[str, Any]] = []
        ordered = self._sorted(nodes, sort)
        if ordered and depth - base_depth >= MAX_DEPTH:
            return [self._continue(parent, depth - base_depth)]
        for i, node in enumerate(ordered):
            if budget[0] <= 0:
                out.append(self._more(ordered[i:], parent, depth - base_depth))
                break
            budget[0] -= 1
            children = self._tree(
                link, node.children, f"t1_{node.id}", depth + 1, budget, sort, base_depth
            )
            replies: Any = ""
            if children:
                replies = {
                    "kind": "Listing",
                    "data": {
                        "after": None,
                        "dist": None,
                        "modhash": None,
                        "children": children,
                        "before": None,
                    },
                }
            out.append({"kind": "t1", "data": self._t1(node, link, depth - base_depth, replies)})
        return out

    def _flat(
        self,
        link: RLink,
        nodes: list[RComment],
        parent: str,
        depth: int,
        budget: list[int],
        sort: str,
        out: list[dict[str, Any]],
        ordered: bool = False,
    ) -> None:
        """The /api/morechildren form: every thing in one flat list, parents first."""
        items = nodes if ordered else self._sorted(nodes, sort)
        if items and depth >= MAX_DEPTH:
            out.append(self._continue(parent, depth))
            return
        for i, node in enumerate(items):
            if budget[0] <= 0:
                out.append(self._more(items[i:], parent, depth))
                return
            budget[0] -= 1
            out.append({"kind": "t1", "data": self._t1(node, link, depth, "")})
            self._flat(link, node.children, f"t1_{node.id}", depth + 1, budget, sort, out)

    # -- http plumbing ----------------------------------------------------------------

    def _rate_headers(self, client: str, count: bool = True) -> dict[str, str]:
        now = time.time()
        start, used = self.windows.get(client, (0.0, 0))
        if now >= start + WINDOW_S:
            start, used = math.floor(now / WINDOW_S) * WINDOW_S, 0
        if count:
            used += 1
        self.windows[client] = (start, used)
        reset = max(1, math.ceil(start + WINDOW_S - now))
        return {
            "x-ratelimit-used": str(used),
            "x-ratelimit-remaining": f"{float(max(0, BUDGET - used))}",
            "x-ratelimit-reset": str(reset),
        }

    def error_response(self, status: int, retry_after: int | None) -> Response:
        if status == 401:
            return HTMLResponse(
                '<!doctype html><html xmlns="http://www.w3.org/1999/xhtml" lang="en" xml:lang="en">'
                "<head><title>reddit.com: page not found</title></head><body>"
                "<h1>page not found</h1></body></html>",
                status_code=401,
                headers={"WWW-Authenticate": 'Bearer realm="reddit", error="invalid_token"'},
            )
        if status == 429:
            start, _ = self.windows.get(CLIENT_ID, (time.time(), 0))
            reset = (
                retry_after
                if retry_after is not None
                else max(1, math.ceil(start + WINDOW_S - time.time()))
            )
            headers = {
                "x-ratelimit-used": str(BUDGET),
                "x-ratelimit-remaining": "0.0",
                "x-ratelimit-reset": str(reset),
            }
            if retry_after is not None:
                headers["Retry-After"] = str(retry_after)
            return JSONResponse(
                {"message": "Too Many Requests", "error": 429}, status_code=429, headers=headers
            )
        if status in (502, 503, 504):  # the CDN answers these, in HTML and without budget headers
            return HTMLResponse(
                "<!doctype html><html><head><title>Reddit - Dive into anything</title></head>"
                "<body><h1>all of our servers are busy right now</h1>"
                "<p>please try again in a minute</p></body></html>",
                status_code=status,
            )
        messages = {
            400: "Bad Request",
            403: "Forbidden",
            404: "Not Found",
            409: "Conflict",
            413: "Request Entity Too Large",
            500: "Internal Server Error",
        }
        headers = {} if status >= 500 else self._rate_headers(CLIENT_ID)
        return JSONResponse(
            {"message": messages.get(status, "Error"), "error": status},
            status_code=status,
            headers=headers,
        )

    def _not_found(self, client: str) -> Response:
        return JSONResponse(
            {"message": "Not Found", "error": 404},
            status_code=404,
            headers=self._rate_headers(client, count=False),
        )

    def _forbidden(self, client: str) -> Response:
        return JSONResponse(
            {"message": "Forbidden", "error": 403},
            status_code=403,
            headers=self._rate_headers(client, count=False),
        )

    def _authorize(self, request: Request) -> tuple[str, str | None, dict[str, str]]:
        """(client id, user or None, rate-limit headers) for a bearer token, else a 401/429."""
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        grant = self.tokens.get(token.strip()) if scheme.lower() == "bearer" else None
        if grant is None:
            raise _Reject(self.error_response(401, None))
        client, user = grant
        headers = self._rate_headers(client)
        if (
            float(headers["x-ratelimit-remaining"]) <= 0
            and int(headers["x-ratelimit-used"]) > BUDGET
        ):
            raise _Reject(
                JSONResponse(
                    {"message": "Too Many Requests", "error": 429}, status_code=429, headers=headers
                )
            )
        return client, user, headers

    @staticmethod
    async def _form(request: Request) -> dict[str, str]:
        body = (await request.body()).decode("utf-8", errors="replace")
        return dict(parse_qsl(body, keep_blank_values=True))

    @staticmethod
    def _json(data: Any, headers: dict[str, str], status: int = 200) -> Response:
        return JSONResponse(data, status_code=status, headers=headers)

    @staticmethod
    def _api_errors(errors: list[list[str]], headers: dict[str, str]) -> Response:
        # Reddit reports write errors with HTTP 200.
        return JSONResponse({"json": {"errors": errors}}, headers=headers)

    # -- routes ---------------------------------------------------------------------

    def app(self) -> ASGIApp:
        return Starlette(
            routes=[
                Route(
                    PREFIX + "/{path:path}",
                    self.dispatch,
                    methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
                )
            ]
        )

    _ROUTES: tuple[tuple[str, str, re.Pattern[str]], ...] = (
        ("POST", "token", re.compile(r"^api/v1/access_token$")),
        ("GET", "me", re.compile(r"^api/v1/me$")),
        ("GET", "info", re.compile(r"^api/info$")),
        ("*", "morechildren", re.compile(r"^api/morechildren$")),
        ("POST", "submit", re.compile(r"^api/submit$")),
        ("POST", "comment", re.compile(r"^api/comment$")),
        ("POST", "vote", re.compile(r"^api/vote$")),
        (
            "GET",
            "inbox",
            re.compile(r"^message/(?P<box>inbox|unread|mentions|comments|selfreply)$"),
        ),
        ("GET", "search", re.compile(r"^(?:r/(?P<sr>[^/]+)/)?search$")),
        (
            "GET",
            "listing",
            re.compile(r"^(?:r/(?P<sr>[^/]+)/?)?(?P<sort>hot|new|top|rising|controversial)?$"),
        ),
        (
            "GET",
            "comments",
            re.compile(
                r"^(?:r/[^/]+/)?comments/(?P<id>[0-9a-z]+)(?:/(?P<slug>[^/]*)(?:/(?P<cid>[0-9a-z]+))?)?$"
            ),
        ),
    )

    async def dispatch(self, request: Request) -> Response:
        path = request.path_params["path"].strip("/")
        path = path.removesuffix(".json")
        for method, name, pattern in self._ROUTES:
            match = pattern.match(path)
            if match is None or method not in ("*", request.method):
                continue
            try:
                if name == "token":
                    return await self.token(request)
                client, user, headers = self._authorize(request)
                handler = getattr(self, f"route_{name}")
                response = await handler(request, client, user, headers, **match.groupdict())
                if request.query_params.get("raw_json") != "1":
                    response = _legacy_escaped(response)
                return response
            except _Reject as reject:
                return reject.response
        if request.method == "GET" or request.method == "POST":
            try:
                client, _, _ = self._authorize(request)
            except _Reject as reject:
                return reject.response
            return self._not_found(client)
        return JSONResponse({"message": "Method Not Allowed", "error": 405}, status_code=405)

    async def token(self, request: Request) -> Response:
        scheme, _, encoded = request.headers.get("authorization", "").partition(" ")
        try:
            client, _, secret = base64.b64decode(encoded).decode().partition(":")
        except (ValueError, UnicodeDecodeError):
            client, secret = "", ""
        if scheme.lower() != "basic" or (client, secret) != (CLIENT_ID, CLIENT_SECRET):
            return JSONResponse({"message": "Unauthorized", "error": 401}, status_code=401)
        form = await self._form(request)
        grant = form.get("grant_type")
        user: str | None = None
        if grant == "password":
            if (form.get("username"), form.get("password")) != (ME, PASSWORD):
                return JSONResponse({"error": "invalid_grant"})  # HTTP 200, as Reddit does
            user = ME
        elif grant != "client_credentials":
            return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)
        token = f"{len(self.tokens) + 1}-{secrets.token_urlsafe(20)}"
        self.tokens[token] = (client, user)
        return JSONResponse(
            {"access_token": token, "token_type": "bearer", "expires_in": 86400, "scope": "*"}
        )

    async def route_me(
        self, request: Request, client: str, user: str | None, headers: dict[str, str]
    ) -> Response:
        if user is None:  # application-only token: there is no "me"
            return self._forbidden(client)
        created = BASE_TIME.timestamp() - 86400 * 400
        return self._json(
            {
                "is_employee": False,
                "seen_layout_switch": True,
                "has_visited_new_profile": False,
                "pref_no_profanity": True,
                "has_external_account": False,
                "pref_geopopular": "",
                "pref_show_trending": True,
                "subreddit": {
                    "default_set": True,
                    "user_is_contributor": False,
                    "banner_img": "",
                    "restrict_posting": True,
                    "user_is_banned": False,
                    "free_form_reports": True,
                    "community_icon": None,
                    "show_media": True,
                    "icon_color": "#A5A4A4",
                    "user_is_muted": None,
                    "display_name": f"u_{user}",
                    "header_img": None,
                    "title": "",
                    "coins": 0,
                    "previous_names": [],
                    "over_18": False,
                    "icon_size": [256, 256],
                    "primary_color": "",
                    "icon_img": "",
                    "description": "",
                    "submit_link_label": "",
                    "header_size": None,
                    "restrict_commenting": False,
                    "subscribers": 0,
                    "submit_text_label": "",
                    "is_default_icon": True,
                    "link_flair_position": "",
                    "display_name_prefixed": f"u/{user}",
                    "key_color": "",
                    "name": "t5_" + _b36(zlib.crc32(user.encode()) % 36**6),
                    "is_default_banner": True,
                    "url": f"/user/{user}/",
                    "quarantine": False,
                    "banner_size": None,
                    "user_is_moderator": True,
                    "accept_followers": True,
                    "public_description": "A bot account. Posts are drafted with an AI assistant.",
                    "link_flair_enabled": False,
                    "disable_contributor_requests": False,
                    "subreddit_type": "user",
                    "user_is_subscriber": False,
                },
                "pref_show_presence": False,
                "snoovatar_img": "",
                "snoovatar_size": None,
                "gold_expiration": None,
                "has_gold_subscription": False,
                "is_sponsor": False,
                "num_friends": 0,
                "can_edit_name": False,
                "verified": True,
                "new_modmail_exists": None,
                "pref_autoplay": True,
                "coins": 0,
                "has_paypal_subscription": False,
                "has_subscribed_to_premium": False,
                "id": _user_id(user)[3:],
                "can_create_subreddit": True,
                "over_18": False,
                "is_gold": False,
                "is_mod": False,
                "awarder_karma": 0,
                "suspension_expiration_utc": None,
                "has_stripe_subscription": False,
                "is_suspended": False,
                "pref_video_autoplay": True,
                "in_chat": True,
                "has_android_subscription": False,
                "in_redesign_beta": True,
                "icon_img": "",
                "has_mod_mail": False,
                "pref_nightmode": False,
                "awardee_karma": 0,
                "hide_from_robots": False,
                "password_set": True,
                "link_karma": 1,
                "force_password_reset": False,
                "total_karma": 2,
                "inbox_count": 0,
                "pref_top_karma_subreddits": True,
                "has_mail": False,
                "pref_show_snoovatar": False,
                "name": user,
                "pref_clickgadget": 5,
                "created": created,
                "has_verified_email": True,
                "gold_creddits": 0,
                "created_utc": created,
                "has_ios_subscription": False,
                "pref_show_twitter": False,
                "in_beta": False,
                "comment_karma": 1,
                "accept_followers": True,
                "has_subscribed": True,
            },
            headers,
        )

    # -- listings ---------------------------------------------------------------------

    def _subreddit_links(self, sr: str | None) -> list[RLink] | None:
        """Links in ``a+b`` (None when no named subreddit exists: Reddit redirects)."""
        links = [link for link in self.links.values() if self.state.visible("reddit", link.id)]
        if sr is None or sr.lower() in VIRTUAL:
            return links
        known = {s.lower(): s for s in SUBREDDITS}
        wanted = {known[n.lower()] for n in sr.split("+") if n.lower() in known}
        if not wanted:
            return None
        return [link for link in links if link.sub in wanted]

    @staticmethod
    def _redirect(sr: str) -> Response:
        # What Reddit answers for a subreddit that does not exist (asyncpraw: Redirect).
        return Response(status_code=302, headers={"location": f"/subreddits/search.json?q={sr}"})

    def _hot(self, link: RLink) -> float:
        order = math.log10(max(abs(link.score), 1))
        sign = 1 if link.score > 0 else -1 if link.score < 0 else 0
        return round(sign * order + (link.created - 1134028003) / 45000, 7)

    def _window(self, t: str) -> float | None:
        seconds = {
            "hour": 3600,
            "day": 86400,
            "week": 7 * 86400,
            "month": 30 * 86400,
            "year": 365 * 86400,
        }.get(t)
        return None if seconds is None else self.now() - seconds

    def _page(
        self, request: Request, links: list[RLink], headers: dict[str, str], search: bool = False
    ) -> Response:
        q = request.query_params
        try:
            limit = max(1, min(100, int(q.get("limit", "25"))))
        except ValueError:
            limit = 25
        after = q.get("after")
        names = [f"t3_{link.id}" for link in links]
        start = names.index(after) + 1 if after in names else 0
        chunk = links[start : start + limit]
        more = start + limit < len(links)
        data: dict[str, Any] = {
            "after": f"t3_{chunk[-1].id}" if chunk and more else None,
            "dist": len(chunk),
            "modhash": None,
            "geo_filter": None,
            "children": [{"kind": "t3", "data": self._t3(link)} for link in chunk],
            "before": None,
        }
        if search:
            del data["geo_filter"]
            data["facets"] = {}
        return self._json({"kind": "Listing", "data": data}, headers)

    async def route_listing(
        self,
        request: Request,
        client: str,
        user: str | None,
        headers: dict[str, str],
        sr: str | None = None,
        sort: str | None = None,
    ) -> Response:
        links = self._subreddit_links(sr)
        if links is None:
            assert sr is not None
            return self._redirect(sr)
        since = (
            self._window(request.query_params.get("t", "day"))
            if sort in ("top", "controversial")
            else None
        )
        if since is not None:
            links = [link for link in links if link.created >= since]
        if sort == "new":
            links.sort(key=lambda link: -link.created)
        elif sort in ("top", "controversial"):
            links.sort(key=lambda link: -link.score)
        elif sort == "rising":
            links.sort(
                key=lambda link: -(link.score / max(1.0, (self.now() - link.created) / 3600))
            )
        else:
            links.sort(key=lambda link: -self._hot(link))
        return self._page(request, links, headers)

    async def route_search(
        self,
        request: Request,
        client: str,
        user: str | None,
        headers: dict[str, str],
        sr: str | None = None,
    ) -> Response:
        q = request.query_params
        restrict = q.get("restrict_sr", "false").lower() in ("true", "1", "on")
        links = self._subreddit_links(sr if restrict else None)
        if links is None:
            assert sr is not None
            return self._redirect(sr)
        terms = [
            t.lower()
            for t in q.get("q", "").replace('"', " ").split()
            if t.upper() not in ("AND", "OR")
        ]
        since = self._window(q.get("t", "all"))

        def score(link: RLink) -> int:
            title, body = link.title.lower(), link.selftext.lower()
            hits = [3 * title.count(t) + body.count(t) + (t == link.sub.lower()) for t in terms]
            return sum(hits) if hits and all(hits) else 0

        scored = [(score(link), link) for link in links if since is None or link.created >= since]
        found = [(s, link) for s, link in scored if s > 0]
        sort = q.get("sort", "relevance")
        if sort == "new":
            found.sort(key=lambda p: -p[1].created)
        elif sort == "top":
            found.sort(key=lambda p: -p[1].score)
        elif sort == "comments":
            found.sort(key=lambda p: -_subtree_size(p[1].comments))
        elif sort == "hot":
            found.sort(key=lambda p: -self._hot(p[1]))
        else:
            found.sort(key=lambda p: (-p[0], -self._hot(p[1])))
        return self._page(request, [link for _, link in found], headers, search=True)

    async def route_info(
        self, request: Request, client: str, user: str | None, headers: dict[str, str]
    ) -> Response:
        wanted = [n.strip() for n in request.query_params.get("id", "").split(",") if n.strip()]
        children: list[dict[str, Any]] = []
        for fullname in wanted[:100]:
            kind, _, thing = fullname.partition("_")
            if kind == "t3" and thing in self.links:
                children.append({"kind": "t3", "data": self._t3(self.links[thing])})
            elif kind == "t1" and thing in self.comments:
                c = self.comments[thing]
                if c.link_id in self.links:
                    children.append(
                        {"kind": "t1", "data": self._t1(c, self.links[c.link_id], None, "")}
                    )
        return self._json(
            {
                "kind": "Listing",
                "data": {
                    "after": None,
                    "dist": len(children),
                    "modhash": None,
                    "geo_filter": None,
                    "children": children,
                    "before": None,
                },
            },
            headers,
        )

    async def route_comments(
        self,
        request: Request,
        client: str,
        user: str | None,
        headers: dict[str, str],
        id: str,
        slug: str | None = None,
        cid: str | None = None,
    ) -> Response:
        link = self.links.get(id)
        if link is None:
            return self._not_found(client)
        q = request.query_params
        sort = q.get("sort", "confidence")
        try:
            limit = int(q.get("limit", str(PAGE_COMMENTS)))
        except ValueError:
            limit = PAGE_COMMENTS
        budget = [max(1, min(limit, PAGE_COMMENTS))]
        if cid:
            # A comment's permalink ("continue this thread"): that comment as the only root.
            focus = self.comments.get(cid)
            if focus is None or focus.link_id != link.id:
                return self._not_found(client)
            budget[0] -= 1
            replies = self._tree(
                link,
                focus.children,
                f"t1_{focus.id}",
                focus.depth + 1,
                budget,
                sort,
                base_depth=focus.depth,
            )
            listing_children = [
                {
                    "kind": "t1",
                    "data": self._t1(
                        focus,
                        link,
                        0,
                        {
                            "kind": "Listing",
                            "data": {
                                "after": None,
                                "dist": None,
                                "modhash": None,
                                "children": replies,
                                "before": None,
                            },
                        }
                        if replies
                        else "",
                    ),
                }
            ]
        else:
            listing_children = self._tree(link, link.comments, f"t3_{link.id}", 0, budget, sort)
        return self._json(
            [
                {
                    "kind": "Listing",
                    "data": {
                        "after": None,
                        "dist": 1,
                        "modhash": None,
                        "children": [{"kind": "t3", "data": self._t3(link)}],
                        "before": None,
                    },
                },
                {
                    "kind": "Listing",
                    "data": {
                        "after": None,
                        "dist": None,
                        "modhash": None,
                        "children": listing_children,
                        "before": None,
                    },
                },
            ],
            headers,
        )

    async def route_morechildren(
        self, request: Request, client: str, user: str | None, headers: dict[str, str]
    ) -> Response:
        args = {**dict(request.query_params), **(await self._form(request))}
        link = self.links.get(args.get("link_id", "").removeprefix("t3_"))
        if link is None:
            return self._json({"json": {"errors": [], "data": {"things": []}}}, headers)
        sort = args.get("sort", "confidence")
        wanted = [
            self.comments[i]
            for i in args.get("children", "").split(",")
            if i in self.comments and self.comments[i].link_id == link.id
        ]
        things: list[dict[str, Any]] = []
        budget = [MORE_BATCH]
        # Requested ids keep their order; consecutive siblings are rendered together.
        groups: list[list[RComment]] = []
        for node in wanted:
            if groups and groups[-1][0].parent == node.parent:
                groups[-1].append(node)
            else:
                groups.append([node])
        for group in groups:
            self._flat(
                link, group, group[0].parent, group[0].depth, budget, sort, things, ordered=True
            )
        return self._json({"json": {"errors": [], "data": {"things": things}}}, headers)

    # -- writes -----------------------------------------------------------------------

    def _throttled(self) -> list[str] | None:
        """Reddit's per-account action throttle: the RATELIMIT error, answered with HTTP 200."""
        now = time.time()
        self.write_times = [t for t in self.write_times if t > now - WRITE_WINDOW_S]
        if len(self.write_times) < WRITE_LIMIT:
            self.write_times.append(now)
            return None
        wait = self.write_times[0] + WRITE_WINDOW_S - now
        amount = (
            f"{math.ceil(wait / 60)} minutes"
            if wait >= 60
            else f"{max(1, math.ceil(wait))} seconds"
        )
        return [
            "RATELIMIT",
            "Looks like you've been doing that a lot. "
            f"Take a break for {amount} before trying again.",
            "ratelimit",
        ]

    async def route_submit(
        self, request: Request, client: str, user: str | None, headers: dict[str, str]
    ) -> Response:
        if user is None:
            return self._forbidden(client)
        form = await self._form(request)
        title, text, sr = form.get("title", ""), form.get("text", ""), form.get("sr", "")
        known = {s.lower(): s for s in SUBREDDITS}
        errors: list[list[str]] = []
        if sr.lower() not in known:
            errors.append(["SUBREDDIT_NOEXIST", "that subreddit doesn't exist", "sr"])
        if not title.strip():
            errors.append(["NO_TEXT", "we need something here", "title"])
        elif len(title) > TITLE_MAX:
            errors.append(["TOO_LONG", f"this is too long (max: {TITLE_MAX})", "title"])
        if form.get("kind", "self") == "self" and len(text) > SELFTEXT_MAX:
            errors.append(["TOO_LONG", f"this is too long (max: {SELFTEXT_MAX})", "text"])
        if not errors:
            limited = self._throttled()
            if limited:
                errors.append(limited)
        if errors:
            return self._api_errors(errors, headers)
        link_id = _b36(self._next_link)
        self._next_link += 1
        link = RLink(
            id=link_id,
            sub=known[sr.lower()],
            title=title,
            selftext=text,
            author=user,
            score=1,
            created=self.now(),
            mine=True,
        )
        self.links[link_id] = link
        url = WWW + link.permalink
        self.state.record_write(
            "reddit",
            "write_post",
            None,
            title=title,
            body=text,
            subreddit=link.sub,
            kind=form.get("kind"),
            id=link_id,
            url=url,
            user_agent=request.headers.get("user-agent", ""),
        )
        return self._json(
            {
                "json": {
                    "errors": [],
                    "data": {"url": url, "drafts_count": 0, "id": link_id, "name": f"t3_{link_id}"},
                }
            },
            headers,
        )

    async def route_comment(
        self, request: Request, client: str, user: str | None, headers: dict[str, str]
    ) -> Response:
        if user is None:
            return self._forbidden(client)
        form = await self._form(request)
        thing, text = form.get("thing_id", ""), form.get("text", "")
        kind, _, thing_id = thing.partition("_")
        parent_comment: RComment | None = None
        if kind == "t1":
            parent_comment = self.comments.get(thing_id)
            if (
                parent_comment is None
                or parent_comment.deleted
                or parent_comment.link_id not in self.links
            ):
                return self._api_errors(
                    [["DELETED_COMMENT", "that comment has been deleted", "parent"]], headers
                )
            link = self.links[parent_comment.link_id]
        elif kind == "t3" and thing_id in self.links:
            link = self.links[thing_id]
        else:
            return self._api_errors(
                [["DELETED_LINK", "the link you are commenting on has been deleted", "parent"]],
                headers,
            )
        if not text.strip():
            return self._api_errors([["NO_TEXT", "we need something here", "text"]], headers)
        if len(text) > COMMENT_MAX:
            return self._api_errors(
                [["TOO_LONG", f"this is too long (max: {COMMENT_MAX})", "text"]], headers
            )
        limited = self._throttled()
        if limited:
            return self._api_errors([limited], headers)
        comment_id = _b36(self._next_comment)
        self._next_comment += 1
        depth = parent_comment.depth + 1 if parent_comment else 0
        comment = RComment(
            id=comment_id,
            link_id=link.id,
            parent=thing,
            depth=depth,
            author=user,
            body=text,
            score=1,
            created=self.now(),
            mine=True,
        )
        (parent_comment.children if parent_comment else link.comments).append(comment)
        self.comments[comment_id] = comment
        self.state.record_write(
            "reddit",
            "write_comment",
            thing,
            body=text,
            id=comment_id,
            post_id=link.id,
            user_agent=request.headers.get("user-agent", ""),
        )
        return self._json(
            {
                "json": {
                    "errors": [],
                    "data": {"things": [{"kind": "t1", "data": self._t1(comment, link, None, "")}]},
                }
            },
            headers,
        )

    async def route_inbox(
        self, request: Request, client: str, user: str | None, headers: dict[str, str], box: str
    ) -> Response:
        from gwanjong_sandbox.reddit_inbox import route_inbox

        return await route_inbox(self, request, client, user, headers, box)

    async def route_vote(
        self, request: Request, client: str, user: str | None, headers: dict[str, str]
    ) -> Response:
        # Reddit answers a vote with {}; the gwanjong server must never call this.
        if user is None:
            return self._forbidden(client)
        form = await self._form(request)
        self.state.record_write("reddit", "upvote", form.get("id"), dir=form.get("dir"))
        return self._json({}, headers)
