"""Forem (Dev.to) API v1 emulator: articles, comments, article creation, reactions.

Shapes follow Forem's jbuilder views (platform-wire.md §1.2), including the trap that
``tag_list``/``tags`` swap types between the index and the show form.
"""

from __future__ import annotations

import html
import re
import time
import zlib
from datetime import UTC, datetime, timedelta
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp

from gwanjong_sandbox.corpus import BASE_TIME, Node, Thread, build_corpus
from gwanjong_sandbox.routing import Endpoint, starlette_resolve, starlette_routes
from gwanjong_sandbox.state import SandboxState

API_KEY = "sandbox-devto-key"
ADMIN_KEY = "sandbox-devto-admin"
ME = "gwanjong_bot"
HOST = "https://dev.to"
DISCLOSURE_LEVELS = ("no_ai", "some_ai", "fully_autonomous")


def _iso(dt: datetime) -> str:
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _user(name: str, uid: int) -> dict[str, Any]:
    return {
        "name": name.replace("_", " ").title(),
        "username": name,
        "twitter_username": None,
        "github_username": name,
        "user_id": uid,
        "website_url": None,
        "profile_image": f"{HOST}/uploads/{name}/640.png",
        "profile_image_90": f"{HOST}/uploads/{name}/90.png",
    }


def _uid(name: str) -> int:
    return zlib.crc32(name.encode()) % 100_000


def _id_code(key: str) -> str:
    n = zlib.crc32(key.encode())
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while n:
        n, r = divmod(n, 36)
        out = digits[r] + out
    return out or "0"


class DevtoEmulator:
    platform: str = "devto"
    prefixes: tuple[str, ...] = ("/api/",)
    hosts: tuple[str, ...] = ()

    def __init__(self, state: SandboxState) -> None:
        self.state = state
        self.reset()

    def reset(self) -> None:
        self.threads: list[Thread] = build_corpus(ME)
        self.articles: dict[int, dict[str, Any]] = {}
        self.by_thread: dict[str, int] = {}
        for i, thread in enumerate(self.threads):
            article_id = 1001 + i
            self.by_thread[thread.key] = article_id
            if not thread.deleted:
                self.articles[article_id] = self._article(article_id, thread)
        self.comments: dict[int, list[dict[str, Any]]] = {
            self.by_thread[t.key]: [self._comment(n, t.created) for n in t.comments]
            for t in self.threads
        }
        self._add_front_matter_article(1001 + len(self.threads))
        self._next_id = 5001
        self._last_write = 0.0

    def _add_front_matter_article(self, article_id: int) -> None:
        """Dev.to only: an article from DEV's v1 editor, whose ``body_markdown`` starts with
        YAML front matter and has CRLF line endings, as DEV serves such articles."""
        thread = Thread(
            key="front-matter",
            title="Why my diffs were all red: line endings",
            body="Every line of the file showed as changed.\n\nThe culprit was CRLF from a "
            "Windows editor; a .gitattributes rule fixed it.",
            author="win_wendy",
            tags=["git", "windows"],
            likes=2,
            hours_ago=30,
        )
        article = self._article(article_id, thread)
        front = (
            f"---\ntitle: {thread.title}\npublished: true\ntags: git, windows\n"
            "cover_image: \n---\n\n"
        )
        article["body_markdown"] = (front + thread.body).replace("\n", "\r\n")
        self.threads.append(thread)
        self.by_thread[thread.key] = article_id
        self.articles[article_id] = article
        self.comments[article_id] = []

    def demo_env(self, base_url: str) -> dict[str, str]:
        return {
            "DEVTO_BASE_URL": base_url,
            "DEVTO_API_KEY": API_KEY,
            "DEVTO_READS_PER_MINUTE": "600",
        }

    def ids(self) -> dict[str, str]:
        ids = {key: str(value) for key, value in self.by_thread.items()}
        ids["missing"] = "999999"
        return ids

    # -- rendering ------------------------------------------------------------------

    def _article(self, article_id: int, thread: Thread) -> dict[str, Any]:
        body = thread.body.replace("{me}", f"@{ME}")
        slug = f"{thread.key}-{_id_code(thread.key)[:4]}"
        published = _iso(thread.created)
        return {
            "type_of": "article",
            "id": article_id,
            "title": thread.title,
            "description": body[:140],
            "readable_publish_date": thread.created.strftime("%b %e"),
            "slug": slug,
            "path": f"/{thread.author}/{slug}",
            "url": f"{HOST}/{thread.author}/{slug}",
            "comments_count": thread.comment_count(),
            "public_reactions_count": thread.likes,
            "collection_id": None,
            "published_timestamp": published,
            "language": "ko" if thread.key == "korean-dev" else "en",
            "subforem_id": 1,
            "positive_reactions_count": thread.likes,
            "cover_image": None,
            "social_image": f"{HOST}/social/{slug}.png",
            "canonical_url": f"{HOST}/{thread.author}/{slug}",
            "created_at": published,
            "edited_at": None,
            "crossposted_at": None,
            "published": not thread.draft,
            "published_at": None if thread.draft else published,
            "last_comment_at": published,
            "reading_time_minutes": max(1, len(body.split()) // 200),
            "tag_list": list(thread.tags),
            "tags": ", ".join(thread.tags),
            "user": _user(thread.author, _uid(thread.author)),
            "body_markdown": body,
            "body_html": f"<p>{html.escape(body)}</p>",
        }

    def _comment(self, node: Node, start: datetime) -> dict[str, Any]:
        # Minutes after the article, as on the other platforms: the inbox orders by it.
        created = _iso(start + timedelta(minutes=node.minutes))
        if node.deleted:
            return {
                "type_of": "comment",
                "id_code": _id_code(node.key),
                "body_html": "<p>[deleted]</p>",
                "user": {},
                "children": [self._comment(c, start) for c in node.children],
            }
        return {
            "type_of": "comment",
            "id_code": _id_code(node.key),
            "created_at": created,
            "body_html": f"<p>{html.escape(node.body.replace('{me}', f'@{ME}'))}</p>",
            "user": _user(node.author, _uid(node.author)),
            "children": [self._comment(c, start) for c in node.children],
        }

    @staticmethod
    def _index_form(article: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in article.items() if k not in ("body_markdown", "body_html")}

    @staticmethod
    def _show_form(article: dict[str, Any]) -> dict[str, Any]:
        shown = dict(article)
        shown["tag_list"], shown["tags"] = article["tags"], article["tag_list"]
        return shown

    # -- errors ---------------------------------------------------------------------

    def error_response(self, status: int, retry_after: int | None) -> Response:
        messages = {
            401: "unauthorized",
            404: "not found",
            422: "unprocessable entity",
            429: "Rate limit reached, try again in 30 seconds",
        }
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
        return JSONResponse(
            {"error": messages.get(status, "Internal Server Error"), "status": status},
            status_code=status,
            headers=headers,
        )

    def _auth(self, request: Request) -> str | None:
        key = request.headers.get("api-key")
        return key if key in (API_KEY, ADMIN_KEY) else None

    # -- routes ---------------------------------------------------------------------

    def route_table(self) -> tuple[Endpoint, ...]:
        """(method, path) -> handler, first match wins (``me``/``latest`` before ``{id}``)."""
        a = "/api/articles"
        return (
            Endpoint("GET", a, self.list_articles, a),
            Endpoint("POST", a, self.create_article, a),
            Endpoint("GET", a + "/latest", self.latest, a + "/latest"),
            Endpoint("GET", a + "/me", self.my_articles, a + "/me"),
            Endpoint("GET", a + "/me/{which:str}", self.my_articles, a + "/me/published"),
            Endpoint("GET", a + "/search", self.search, a + "/search"),
            Endpoint("GET", a + "/{id:int}", self.show, a + "/1001"),
            Endpoint("GET", a + "/{username}/{slug}", self.show_by_path, a + "/ana/a-post-1x2y"),
            Endpoint("GET", "/api/comments", self.list_comments, "/api/comments"),
            Endpoint("GET", "/api/users/me", self.me, "/api/users/me"),
            Endpoint("POST", "/api/reactions", self.react, "/api/reactions"),
            Endpoint("POST", "/api/reactions/toggle", self.react, "/api/reactions/toggle"),
        )

    def resolve(self, method: str, path: str) -> Endpoint | None:
        return starlette_resolve(self.route_table(), method, path)

    def app(self) -> ASGIApp:
        return Starlette(routes=starlette_routes(self.route_table()))

    def _page(self, request: Request, items: list[dict[str, Any]]) -> Response:
        try:
            per_page = min(1000, int(request.query_params.get("per_page", 30)))
            page = max(1, int(request.query_params.get("page", 1)))
        except ValueError:
            return self.error_response(400, None)
        chunk = items[(page - 1) * per_page : page * per_page]
        return JSONResponse([self._index_form(a) for a in chunk])

    def _listed(self) -> list[dict[str, Any]]:
        """Articles that reads show (a new one waits out the sandbox's read-back lag)."""
        return [
            a
            for a in self.articles.values()
            if a["published"] and self.state.visible("devto", str(a["id"]))
        ]

    async def list_articles(self, request: Request) -> Response:
        q = request.query_params
        items = self._listed()
        if "tag" in q:
            items = [a for a in items if q["tag"].lower() in a["tag_list"]]
        elif "tags" in q:
            wanted = {t.strip().lower() for t in q["tags"].split(",")}
            items = [a for a in items if wanted & set(a["tag_list"])]
        elif "username" in q:
            items = [a for a in items if a["user"]["username"] == q["username"]]
        if q.get("state") == "rising":
            items.sort(key=lambda a: (a["comments_count"], a["published_at"]), reverse=True)
        elif q.get("state") in ("fresh", "recent"):
            items.sort(key=lambda a: a["published_at"], reverse=True)
        else:  # top=N and the featured default both order by reactions here
            items.sort(key=lambda a: a["public_reactions_count"], reverse=True)
        return self._page(request, items)

    async def my_articles(self, request: Request) -> Response:
        # /api/articles/me (= /me/published), /me/all, /me/unpublished: the key owner's own
        # articles, newest first, in the "me" form (tag_list is a list, body_markdown kept).
        if self._auth(request) is None:
            return self.error_response(401, None)
        which = request.path_params.get("which", "published")
        mine = [a for a in self.articles.values() if a["user"]["username"] == ME]
        if which != "all":
            mine = [a for a in mine if a["published"] == (which != "unpublished")]
        # Forem orders by published_at DESC, which in PostgreSQL puts NULL (drafts) first
        mine.sort(key=lambda a: (a["published_at"] is None, a["published_at"] or ""), reverse=True)
        try:
            per_page = min(1000, int(request.query_params.get("per_page", 30)))
            page = max(1, int(request.query_params.get("page", 1)))
        except ValueError:
            return self.error_response(400, None)
        chunk = mine[(page - 1) * per_page : page * per_page]
        return JSONResponse([self._me_form(a) for a in chunk])

    @staticmethod
    def _me_form(article: dict[str, Any]) -> dict[str, Any]:
        keep = [
            "type_of",
            "id",
            "title",
            "description",
            "slug",
            "path",
            "url",
            "comments_count",
            "public_reactions_count",
            "published_timestamp",
            "positive_reactions_count",
            "cover_image",
            "canonical_url",
            "reading_time_minutes",
            "published",
            "user",
            "body_markdown",
            "published_at",
        ]
        form = {k: article[k] for k in keep}
        form.update(page_views_count=0, tag_list=list(article["tag_list"]))
        return form

    async def latest(self, request: Request) -> Response:
        items = sorted(self._listed(), key=lambda a: a["published_at"], reverse=True)
        return self._page(request, items)

    async def search(self, request: Request) -> Response:
        words = [w.lower() for w in request.query_params.get("q", "").split() if w]

        def hits(a: dict[str, Any]) -> int:
            text = f"{a['title']} {a['body_markdown']} {' '.join(a['tag_list'])}".lower()
            return sum(text.count(w) for w in words)

        scored = [(hits(a), a) for a in self._listed()]
        items = [a for score, a in sorted(scored, key=lambda p: -p[0]) if score > 0]
        return self._page(request, items)

    async def show(self, request: Request) -> Response:
        article = self.articles.get(request.path_params["id"])
        if article is None:
            return self.error_response(404, None)
        return JSONResponse(self._show_form(article))

    async def show_by_path(self, request: Request) -> Response:
        path = f"/{request.path_params['username']}/{request.path_params['slug']}"
        for article in self.articles.values():
            if article["path"] == path:
                return JSONResponse(self._show_form(article))
        return self.error_response(404, None)

    async def list_comments(self, request: Request) -> Response:
        try:
            article_id = int(request.query_params.get("a_id", ""))
        except ValueError:
            return self.error_response(404, None)
        if article_id not in self.articles:
            return self.error_response(404, None)
        return JSONResponse(self.comments.get(article_id, []))

    async def me(self, request: Request) -> Response:
        if self._auth(request) is None:
            return self.error_response(401, None)
        return JSONResponse(
            {
                "type_of": "user",
                "id": _uid(ME),
                "username": ME,
                "name": "Gwanjong Bot",
                "summary": None,
                "twitter_username": None,
                "github_username": None,
                "website_url": None,
                "location": None,
                "joined_at": "Nov 1, 2026",
                "profile_image": f"{HOST}/uploads/{ME}/640.png",
            }
        )

    async def create_article(self, request: Request) -> Response:
        if self._auth(request) is None:
            return self.error_response(401, None)
        # Forem's Rack::Attack allows one write per second per key.
        now = time.monotonic()
        if now - self._last_write < 1.0:
            return self.error_response(429, 1)
        self._last_write = now
        try:
            payload = await request.json()
            article_in = payload["article"]
        except (ValueError, KeyError, TypeError):
            return JSONResponse(
                {"error": "param is missing or the value is empty: article", "status": 422},
                status_code=422,
            )
        title = str(article_in.get("title") or "")
        body = str(article_in.get("body_markdown") or "")
        tags = article_in.get("tags") or []
        if isinstance(tags, str):
            tags = [t.strip() for t in tags.split(",") if t.strip()]
        published = bool(article_in.get("published", False))
        front = re.match(r"\A\s*---(.*?)---\s*$", body, re.S | re.M)
        for line in front[1].splitlines() if front else []:  # Forem: it replaces the fields
            key, _, value = (part.strip() for part in line.partition(":"))
            if key == "title":
                title = value
            elif key == "tags":
                tags = [t.strip() for t in value.split(",") if t.strip()]
            elif key == "published":
                published = value == "true"
        problems = []
        if not title:
            problems.append("Title can't be blank")
        if len(title) > 128:
            problems.append("Title is too long (maximum is 128 characters)")
        if len(tags) > 4:
            problems.append("Tag list exceed the maximum of 4 tags")
        disclosure = article_in.get("ai_disclosure_level")
        if disclosure not in DISCLOSURE_LEVELS:  # a community that requires it (forem#23790)
            return JSONResponse(
                {
                    "error": "ai_disclosure_level is required",
                    "status": 422,
                    "allowed_values": list(DISCLOSURE_LEVELS),
                    "policy_url": f"{HOST}/llms.txt",
                },
                status_code=422,
            )
        if problems:
            return JSONResponse({"error": ", ".join(problems), "status": 422}, status_code=422)
        article_id = self._next_id
        self._next_id += 1
        # Published now by the sandbox's clock (real time), as a platform stamps it: a
        # read-back counts only what was published since the write was sent.
        ago = (BASE_TIME.timestamp() - self.state.now()) / 3600
        thread = Thread(
            f"new-{article_id}", title, body, ME, [str(t).lower() for t in tags], 0, ago
        )
        article = self._article(article_id, thread)
        article["published"] = published
        article["published_at"] = article["published_at"] if published else None
        self.articles[article_id] = article
        self.comments[article_id] = []
        self.state.record_write(
            "devto",
            "write_post",
            None,
            title=title,
            body=body,
            tags=tags,
            ai_disclosure_level=disclosure,
            id=str(article_id),
            url=article["url"],
        )
        return JSONResponse(
            self._show_form(article), status_code=201, headers={"Location": article["url"]}
        )

    async def react(self, request: Request) -> Response:
        # Current Forem: reactions through the API are for admin keys only.
        if request.headers.get("api-key") != ADMIN_KEY:
            return self.error_response(401, None)
        q = request.query_params
        reactable_id = int(q.get("reactable_id", "0") or 0)
        if reactable_id not in self.articles:
            return self.error_response(404, None)
        self.state.record_write("devto", "upvote", str(reactable_id), category=q.get("category"))
        return JSONResponse(
            {
                "result": "create",
                "category": q.get("category", "like"),
                "id": 72,
                "reactable_id": reactable_id,
                "reactable_type": q.get("reactable_type", "Article"),
            },
            status_code=201,
        )
