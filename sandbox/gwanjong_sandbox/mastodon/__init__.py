"""Mastodon emulator: one instance's REST API (v1/v2) over the seeded corpus, as rude as
a real one: HTML content, Link-header paging (``max_id``/``min_id``), rate-limit headers
on every answer and a 429 that says when the window resets (``X-RateLimit-Reset``, ISO
8601, no Retry-After), read-back lag on every read (``lag``: by id, context, search,
timelines, the inbox), a 1000-character limit, an account with ``#NoBot`` in its bio, a
followers-only thread, and the bot flag on our account (not on the second token's).
"""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import regex
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp

from gwanjong_sandbox.mastodon.world import (
    DOMAIN,
    HUMAN,
    HUMAN_TOKEN,
    MAX_CHARS,
    ME,
    RULES,
    TOKEN,
    World,
    build_world,
    content_html,
    context,
    make_status,
)
from gwanjong_sandbox.routing import Endpoint, starlette_resolve, starlette_routes
from gwanjong_sandbox.state import SandboxState

__all__ = ["MastodonEmulator"]
WINDOW = 300  # requests per 5 minutes per account
IDEMPOTENCY_S = 3600  # how long Mastodon remembers an Idempotency-Key
# a URL as Mastodon's twitter-text patterns find one: after no letter, digit, @, $ or #, a
# scheme, a host, and a path ending on no sentence punctuation (so "/x." leaves its full
# stop) or on a balanced parenthesis, then a query
_G = r"[^\s<>()?]"
_PARENS = rf"\((?:{_G}+|{_G}*\({_G}+\){_G}*)\)"
_END = rf"(?:[^\s()?!*\"'<>;:=,.$%\[\]~&|@]|{_PARENS})"
_URL = re.compile(
    r"(?<![a-z0-9@$#])(?:https?|dat|dweb|ipfs|ipns|ssb|gopher|gemini)://\w(?:[\w.-]*\w)?(?::\d+)?"
    rf"(?:/(?:{_G}*(?:{_PARENS}{_G}*)*{_END}|{_G}+/)*)?(?:\?[^\s<>]*[\w&=#/-])?",
    re.I,
)
# a remote mention (Account::MENTION_RE): the username may hold dots and dashes
_REMOTE = re.compile(r"(?<![=/\w])(@[a-z0-9_]+(?:[.-]+[a-z0-9_]+)*)@\w+(?:[.-]+\w+)*", re.I)
_GRAPHEME = regex.compile(r"\X")


def _linked(url: re.Match[str]) -> str:
    """23 characters for a URL Mastodon links: only on a domain with a top-level one
    (compactly: letters after its last dot), so localhost or an IP address is text."""
    host = urlsplit(url.group(0)).hostname or ""
    tld = host.rpartition(".")[2]
    return "x" * 23 if "." in host and tld.isalpha() and len(tld) > 1 else url.group(0)


def counted(spoiler: str, text: str) -> int:
    """Mastodon's StatusLengthValidator: the content warning and the text together, in
    graphemes, a URL it links (as twitter-text ends it) as 23 characters and a remote
    mention without its domain."""
    text = _REMOTE.sub(r"\1", _URL.sub(_linked, text))
    return len(_GRAPHEME.findall(spoiler + text))


def _iso(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"


class MastodonEmulator:
    platform: str = "mastodon"
    # Specific paths: HN's Algolia also lives under /api/v1/.
    prefixes: tuple[str, ...] = (
        "/api/v1/statuses",
        "/api/v1/notifications",
        "/api/v1/timelines/",
        "/api/v1/trends/",
        "/api/v1/instance",
        "/api/v1/accounts/",
        "/api/v2/",
    )
    hosts: tuple[str, ...] = ()

    def __init__(self, state: SandboxState) -> None:
        self.state = state
        self.reset()

    def reset(self) -> None:
        self.world: World = build_world()
        self.used = 0

    def demo_env(self, base_url: str) -> dict[str, str]:
        return {"MASTODON_API_BASE_URL": base_url, "MASTODON_ACCESS_TOKEN": TOKEN}

    def ids(self) -> dict[str, str]:
        return {**self.world.by_key, "missing": "109999999999999999"}

    def _reset_at(self) -> datetime:
        return datetime.now(UTC).replace(second=0, microsecond=0) + timedelta(minutes=5)

    def error_response(self, status: int, retry_after: int | None) -> Response:
        messages = {
            401: "The access token is invalid",
            403: "This action is not allowed",
            404: "Record not found",
            422: "Validation failed",
            429: "Too many requests",
        }
        headers = {"X-RateLimit-Limit": str(WINDOW)}
        if status == 429:  # rack-attack's answer: the window, no Retry-After
            reset = datetime.now(UTC) + timedelta(seconds=retry_after or 60)
            headers |= {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": _iso(reset)}
        body = {"error": messages.get(status, "Internal server error")}
        return JSONResponse(body, status_code=status, headers=headers)

    # -- plumbing -----------------------------------------------------------------------

    def _json(self, body: Any, status: int = 200, link: str = "") -> Response:
        self.used += 1
        headers = {
            "X-RateLimit-Limit": str(WINDOW),
            "X-RateLimit-Remaining": str(max(1, WINDOW - self.used)),
            "X-RateLimit-Reset": _iso(self._reset_at()),
        }
        if link:
            headers["Link"] = link
        return JSONResponse(body, status_code=status, headers=headers)

    def _who(self, request: Request) -> dict[str, Any] | None:
        auth = request.headers.get("authorization", "")
        token = auth.removeprefix("Bearer ").strip()
        if token == TOKEN:
            return self.world.account(ME)
        if token == HUMAN_TOKEN:
            return self.world.account(HUMAN)
        return None

    def _unauthorized(self) -> Response:
        return self._json({"error": "The access token is invalid"}, 401)

    def _page(
        self, request: Request, items: list[dict[str, Any]], path: str, default: int = 20
    ) -> Response:
        """Newest first, cut by max_id/min_id/since_id and limit, with Mastodon's Link."""
        q = request.query_params
        try:
            limit = min(int(q.get("limit", default)), 2 * default)
        except ValueError:
            return self._json({"error": "limit must be a number"}, 422)
        newest = sorted(items, key=lambda i: int(i["id"]), reverse=True)
        if q.get("max_id"):
            newest = [i for i in newest if int(i["id"]) < int(q["max_id"])]
        if q.get("since_id"):
            newest = [i for i in newest if int(i["id"]) > int(q["since_id"])]
        if q.get("min_id"):  # the oldest ones just above min_id
            newest = [i for i in newest if int(i["id"]) > int(q["min_id"])][-limit:]
        page = newest[:limit]
        extra = "".join(f"&{k}={v}" for k, v in q.multi_items() if k.startswith("types"))
        base = f"{str(request.base_url).rstrip('/')}{path}"
        link = ""
        if page:
            link = (
                f'<{base}?max_id={page[-1]["id"]}{extra}>; rel="next", '
                f'<{base}?min_id={page[0]["id"]}{extra}>; rel="prev"'
            )
        return self._json(page, link=link)

    def _shown(self) -> list[dict[str, Any]]:
        """Every status the timelines and search may show: none still inside its read-back
        lag (the sandbox's ``lag`` fault), as an instance's replicas and index lag."""
        return [
            s for s in self.world.statuses.values() if self.state.visible(self.platform, s["id"])
        ]

    def _status(self, sid: str, who: dict[str, Any] | None) -> dict[str, Any] | None:
        status = self.world.statuses.get(sid)
        if status is None or not self.state.visible(self.platform, sid):
            return None
        if status["visibility"] in ("private", "direct") and who is None:
            return None  # followers-only: not shown to anonymous readers
        return {**status, "favourited": sid in self.world.favourited}

    # -- routes -------------------------------------------------------------------------

    def route_table(self) -> tuple[Endpoint, ...]:
        return (
            Endpoint("GET", "/api/v2/instance", self.instance, "/api/v2/instance"),
            # Rails takes the trailing slash Mastodon.py sends; Starlette would redirect.
            Endpoint("GET", "/api/v2/instance/", self.instance, "/api/v2/instance/"),
            Endpoint("GET", "/api/v1/instance/rules", self.rules, "/api/v1/instance/rules"),
            Endpoint(
                "GET",
                "/api/v1/accounts/verify_credentials",
                self.verify,
                "/api/v1/accounts/verify_credentials",
            ),
            Endpoint(
                "PATCH",
                "/api/v1/accounts/update_credentials",
                self.update_credentials,
                "/api/v1/accounts/update_credentials",
            ),
            Endpoint(
                "GET",
                "/api/v1/accounts/{id}/statuses",
                self.account_statuses,
                "/api/v1/accounts/100/statuses",
            ),
            Endpoint("GET", "/api/v2/search", self.search, "/api/v2/search"),
            Endpoint("GET", "/api/v1/trends/statuses", self.trends, "/api/v1/trends/statuses"),
            Endpoint("GET", "/api/v1/timelines/tag/{tag}", self.tag, "/api/v1/timelines/tag/mcp"),
            Endpoint("GET", "/api/v1/notifications", self.notifications, "/api/v1/notifications"),
            Endpoint("GET", "/api/v1/statuses/{id}", self.status, "/api/v1/statuses/1"),
            Endpoint(
                "GET", "/api/v1/statuses/{id}/context", self.context, "/api/v1/statuses/1/context"
            ),
            Endpoint("POST", "/api/v1/statuses", self.post, "/api/v1/statuses"),
            Endpoint("PUT", "/api/v1/statuses/{id}", self.edit, "/api/v1/statuses/1"),
            Endpoint(
                "POST",
                "/api/v1/statuses/{id}/favourite",
                self.favourite,
                "/api/v1/statuses/1/favourite",
            ),
        )

    def resolve(self, method: str, path: str) -> Endpoint | None:
        return starlette_resolve(self.route_table(), method, path)

    def app(self) -> ASGIApp:
        return Starlette(routes=starlette_routes(self.route_table()))

    async def instance(self, request: Request) -> Response:
        return self._json(
            {
                "domain": DOMAIN,
                "title": "Sandbox Social",
                "version": "4.3.2",
                "source_url": "https://github.com/mastodon/mastodon",
                "description": "A sandbox instance for gwanjong's tests.",
                "usage": {"users": {"active_month": 1234}},
                "languages": ["en", "ko"],
                "configuration": {
                    "urls": {"streaming": f"wss://{DOMAIN}"},
                    "accounts": {"max_featured_tags": 10},
                    "statuses": {
                        "max_characters": MAX_CHARS,
                        "max_media_attachments": 4,
                        "characters_reserved_per_url": 23,
                    },
                    "polls": {"max_options": 4, "max_characters_per_option": 50},
                },
                "registrations": {"enabled": False, "approval_required": False, "message": None},
                "contact": {"email": f"admin@{DOMAIN}", "account": None},
                "rules": [{"id": str(i), "text": t, "hint": ""} for i, t in enumerate(RULES, 1)],
            }
        )

    async def rules(self, _: Request) -> Response:
        return self._json([{"id": str(i), "text": t, "hint": ""} for i, t in enumerate(RULES, 1)])

    async def verify(self, request: Request) -> Response:
        who = self._who(request)
        if who is None:
            return self._unauthorized()
        source = {
            "privacy": "public",
            "sensitive": False,
            "language": "en",
            "note": "",
            "fields": [],
        }
        return self._json({**who, "source": source})

    async def update_credentials(self, request: Request) -> Response:
        """The profile's settings as Preferences > Profile saves them: the bot flag (the
        "This is an automated account" box), the bio and the display name."""
        who = self._who(request)
        if who is None:
            return self._unauthorized()
        form = await request.form()
        if "bot" in form:
            who["bot"] = str(form["bot"]).lower() in ("true", "1")
        for name, key in (("note", "note"), ("display_name", "display_name")):
            if name in form:
                who[key] = str(form[name])
        return self._json(who)

    async def search(self, request: Request) -> Response:
        who = self._who(request)
        if who is None:  # statuses search needs a signed-in account
            return self._unauthorized()
        q = request.query_params.get("q", "").lower()
        words = [w for w in q.split() if w]

        # Full-text search, most words matched first, then newest (Elasticsearch's bool
        # query over the statuses the account may see).
        def hits(s: dict[str, Any]) -> int:
            text = html.unescape(s["content"]).lower()
            return sum(w in text for w in words)

        public = [s for s in self._shown() if s["visibility"] == "public"]
        found = sorted(
            (s for s in public if words and hits(s)),
            key=lambda s: (hits(s), int(s["id"])),
            reverse=True,
        )
        limit = min(int(request.query_params.get("limit", 20)), 40)
        offset = int(request.query_params.get("offset", 0))  # signed in only, as here
        page = found[offset : offset + limit]
        return self._json({"accounts": [], "statuses": page, "hashtags": []})

    async def account_statuses(self, request: Request) -> Response:
        """An account's statuses, newest first: what the viewer may see of them (its own
        all; another's public and unlisted), no reblogs here (none are seeded)."""
        who, aid = self._who(request), request.path_params["id"]
        wide = who is not None and who["id"] == aid
        found = [
            s
            for s in self._shown()
            if s["account"]["id"] == aid and (wide or s["visibility"] in ("public", "unlisted"))
        ]
        return self._page(request, found, request.url.path)

    async def trends(self, request: Request) -> Response:
        public = [s for s in self._shown() if s["visibility"] == "public"]
        public = [s for s in public if s["in_reply_to_id"] is None]
        public.sort(key=lambda s: s["favourites_count"], reverse=True)
        limit = min(int(request.query_params.get("limit", 20)), 40)
        offset = int(request.query_params.get("offset", 0))
        return self._json(public[offset : offset + limit])

    async def tag(self, request: Request) -> Response:
        tag = request.path_params["tag"].lower()
        tagged = [
            s
            for s in self._shown()
            if s["visibility"] == "public" and any(t["name"] == tag for t in s["tags"])
        ]
        return self._page(request, tagged, request.url.path)

    async def notifications(self, request: Request) -> Response:
        who = self._who(request)
        if who is None:
            return self._unauthorized()
        types = request.query_params.getlist("types[]")
        mine = self.world.notifications if who["username"] == ME else []
        items = [n for n in mine if not types or n["type"] in types]
        items = [
            n
            for n in items
            if self.state.visible(self.platform, (n.get("status") or {}).get("id", ""))
        ]
        return self._page(request, items, "/api/v1/notifications", default=40)

    async def status(self, request: Request) -> Response:
        status = self._status(request.path_params["id"], self._who(request))
        if status is None:
            return self._json({"error": "Record not found"}, 404)
        return self._json(status)

    async def context(self, request: Request) -> Response:
        sid = request.path_params["id"]
        who = self._who(request)
        if self._status(sid, who) is None:
            return self._json({"error": "Record not found"}, 404)
        ctx = {
            part: [s for s in found if self.state.visible(self.platform, s["id"])]
            for part, found in context(self.world, sid).items()
        }
        limit = 4096 if who is not None else 60  # Mastodon's cap for anonymous readers
        ctx["descendants"] = ctx["descendants"][:limit]
        return self._json(ctx)

    async def post(self, request: Request) -> Response:
        who = self._who(request)
        if who is None:
            return self._unauthorized()
        form = await request.form()
        text = str(form.get("status") or "")
        # Mastodon keeps a key per account for an hour (Redis, idempotency:status:...),
        # read when the request comes and stored once its status is written: a resend that
        # came while the first was still at work (held by a slow_write) is not known to it.
        key = request.headers.get("idempotency-key")
        held = (who["id"], key) if key else None
        known = self.world.idempotent.get(held) if held else None
        came = int(request.scope.get("sandbox.arrival", self.state.arrived))
        if known and known[2] < came and self.state.now() - known[1] < IDEMPOTENCY_S:
            return self._json(self.world.statuses[known[0]])  # the first one again
        if not text.strip():
            return self._json({"error": "Validation failed: Text can't be blank"}, 422)
        if counted(str(form.get("spoiler_text") or ""), text) > MAX_CHARS:
            return self._json(
                {"error": f"Validation failed: Text character limit of {MAX_CHARS} exceeded"}, 422
            )
        reply_id = str(form.get("in_reply_to_id") or "") or None
        parent = self._status(reply_id, who) if reply_id else None
        if reply_id and parent is None:  # set_thread: gone, or not ours to see
            message = "The post you are trying to reply to does not appear to exist."
            return self._json({"error": message}, 404)
        visibility = str(form.get("visibility") or "public")
        now = datetime.now(UTC)
        sid = self.world.next_id(now)
        status = make_status(
            self.world,
            sid,
            who["username"],
            text,
            now,
            reply_to=parent,
            visibility=visibility,
            spoiler=str(form.get("spoiler_text") or ""),
        )
        self.world.statuses[sid] = status
        self.world.path[sid] = [*self.world.path[reply_id], reply_id] if reply_id else []
        if held:
            self.world.idempotent[held] = (sid, self.state.now(), self.state.arrived)
        action = "write_comment" if reply_id else "write_post"
        self.state.record_write(
            self.platform,
            action,
            reply_id,
            status=text,
            visibility=visibility,
            spoiler_text=status["spoiler_text"],
            id=sid,
        )
        return self._json(status)

    async def edit(self, request: Request) -> Response:
        """Its author edits a status (text, content warning), as Mastodon 3.5+ allows; its
        visibility and the thread it answers stay."""
        who = self._who(request)
        if who is None:
            return self._unauthorized()
        status = self._status(request.path_params["id"], who)
        if status is None:
            return self._json({"error": "Record not found"}, 404)
        if status["account"]["id"] != who["id"]:
            return self._json({"error": "This action is not allowed"}, 403)
        form = await request.form()
        stored = self.world.statuses[status["id"]]
        if "status" in form:
            stored["content"], stored["mentions"] = content_html(self.world, str(form["status"]))
        if "spoiler_text" in form:
            stored["spoiler_text"] = str(form["spoiler_text"])
            stored["sensitive"] = bool(stored["spoiler_text"])
        stored["edited_at"] = _iso(datetime.now(UTC))
        return self._json(self._status(stored["id"], who))

    async def favourite(self, request: Request) -> Response:
        who = self._who(request)
        if who is None:
            return self._unauthorized()
        sid = request.path_params["id"]
        status = self._status(sid, who)
        if status is None:
            return self._json({"error": "Record not found"}, 404)
        if sid not in self.world.favourited:
            self.world.favourited.add(sid)
            self.world.statuses[sid]["favourites_count"] += 1
            self.state.record_write(self.platform, "upvote", sid)
        return self._json(self._status(sid, who))
