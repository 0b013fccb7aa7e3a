"""X's logged-in web API as twikit 2.3.3 calls it: GraphQL on x.com, login on api.x.com.

twikit keeps the real hosts (x.com, api.x.com, twitter.com, abs.twimg.com) in the Host header,
so this emulator is routed by Host. It renders the same world as the v2 emulator
(``gwanjong_sandbox.twitter``), so ids and writes are shared; its fault name is ``twikit`` and
it also obeys faults aimed at ``twitter`` (``fault_scope``), because for a client that reads
through twikit first, "X misbehaves" hits this API first.

Shapes follow twikit's expectations (platform-wire.md §4b): the legacy tweet/user layout
(every user legacy key present), ``TweetWithVisibilityResults``/``TweetTombstone`` wrappers,
search and thread cursors always present, the trends module always present, errors inside
HTTP 200 bodies (``{"errors": [{"code": 144, ...}]}``), ``user_state.json`` answering after a
429, and a bootstrap page (``x.com`` + ``ondemand.s`` JS) that twikit's ClientTransaction can
parse. The login flow is emulated end to end; it never answers with a step that would make
twikit prompt on the console (``LoginAcid``, ``LoginTwoFactorAuthChallenge``).
"""

from __future__ import annotations

import base64
import json
import secrets
import time
from datetime import UTC, datetime
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from gwanjong_sandbox.state import SandboxState
from gwanjong_sandbox.twitter.http import RateLimitedResponse
from gwanjong_sandbox.twitter.model import (
    MISSING_ID,
    READER,
    WEB_AUTH_TOKEN,
    XTweet,
    XUser,
    truncate_weighted,
    weighted_length,
)
from gwanjong_sandbox.twitter.world import world_for

# The public bearer token of X's web client (twikit.constants.TOKEN): the same for everyone.
WEB_BEARER = "AAAAAAAAAAAAAAAAAAAAANRILgAAAAAAnNwIzUejRCOuH5E6I8xnZz4puTs%3D1Zv7ttfk8LF81IUq16cHjhLTvJu4FA33AGWWjCpTnA"
AUTH_TOKEN = WEB_AUTH_TOKEN  # what a saved cookies file holds
READER_EMAIL = "reader@example.com"
PASSWORD = "sandbox-twikit-password"
HOSTS = ("x.com", "www.x.com", "api.x.com", "twitter.com", "abs.twimg.com", "upload.x.com")
ONDEMAND = "5f2a9c1d"
PAGE_MODULES = 10  # conversation modules per TweetDetail page
LIMITS = {
    "SearchTimeline": 50,
    "TweetDetail": 150,
    "guide.json": 75,
    "CreateTweet": 50,
    "FavoriteTweet": 500,
}


def web_time(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%a %b %d %H:%M:%S +0000 %Y")


def _home_page() -> str:
    """A page with what ClientTransaction scrapes: the verification key, four loading-x-anim
    frames (no whitespace between tags: twikit walks ``.children`` by position) and the
    ``ondemand.s`` hash."""
    key = base64.b64encode(bytes((i * 37 + 11) % 256 for i in range(48))).decode()
    frames = []
    for f in range(4):
        rows = []
        for r in range(16):
            nums = [(f * 53 + r * 29 + k * 17) % 256 for k in range(11)]
            rows.append(" ".join(str(n) for n in nums))
        d = "M 10,30 C" + " C ".join(rows)
        frames.append(
            f'<svg id="loading-x-anim-{f}" width="0" height="0"><g><path d="M0 0"></path>'
            f'<path d="{d}"></path></g></svg>'
        )
    return (
        "<!DOCTYPE html><html><head>"
        f'<meta name="twitter-site-verification" content="{key}"/>'
        "<title>X</title></head><body>"
        + "".join(frames)
        + f'<script>window.__SCRIPTS__={{"ondemand.s":"{ONDEMAND}"}};</script>'
        "</body></html>"
    )


HOME_HTML = _home_page()
ONDEMAND_JS = "(()=>{var n=(a[2], 16),o=(b[12], 16),r=(c[7], 16),s=(d[31], 16);return n+o+r+s})();"
UI_METRICS_JS = 'function f() {return {"rf":{"a1":1},"s":"sandbox"};}'


def web_error(
    status: int, code: int, message: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    return JSONResponse(
        {"errors": [{"code": code, "message": message}]}, status_code=status, headers=headers
    )


class TwikitEmulator:
    platform = "twikit"
    fault_scope = ("twikit", "twitter")
    prefixes: tuple[str, ...] = ()
    hosts: tuple[str, ...] = HOSTS

    def __init__(self, state: SandboxState) -> None:
        self.state = state
        self.world, self._owner = world_for(state, self)
        self.reset()

    def reset(self) -> None:
        if self._owner:
            self.world.reset()
        self.flows: dict[str, dict[str, Any]] = {}
        self.guests: set[str] = set()
        self.buckets: dict[str, tuple[int, int]] = {}  # endpoint -> (used, reset)

    def ids(self) -> dict[str, str]:
        return {**self.world.thread_ids, "missing": MISSING_ID}

    def error_response(self, status: int, retry_after: int | None) -> Response:
        if status == 429:
            return RateLimitedResponse(
                {"errors": [{"code": 88, "message": "Rate limit exceeded."}]},
                retry_after if retry_after is not None else 900,
                50,
                media_type="application/json",
            )
        codes = {
            400: (214, "Bad request."),
            401: (32, "Could not authenticate you."),
            403: (200, "Forbidden."),
            404: (34, "Sorry, that page does not exist."),
        }
        code, message = codes.get(status, (131, "Internal error."))
        return web_error(status, code, message)

    # -- routes ---------------------------------------------------------------------------

    def app(self) -> ASGIApp:
        inner = Starlette(
            routes=[
                Route("/", self.home, methods=["GET"]),
                Route("/responsive-web/client-web/{name}", self.ondemand, methods=["GET"]),
                Route("/i/js_inst", self.js_inst, methods=["GET"]),
                Route("/1.1/guest/activate.json", self.guest_activate, methods=["POST"]),
                Route("/1.1/onboarding/task.json", self.task, methods=["POST"]),
                Route("/1.1/onboarding/sso_init.json", self.sso_init, methods=["POST"]),
                Route(
                    "/help-center/forms/api/prod/user_state.json", self.user_state, methods=["GET"]
                ),
                Route("/i/api/graphql/{qid}/SearchTimeline", self.search_timeline, methods=["GET"]),
                Route("/i/api/graphql/{qid}/TweetDetail", self.tweet_detail, methods=["GET"]),
                Route("/i/api/graphql/{qid}/CreateTweet", self.create_tweet, methods=["POST"]),
                Route("/i/api/graphql/{qid}/FavoriteTweet", self.favorite, methods=["POST"]),
                Route("/i/api/2/guide.json", self.guide, methods=["GET"]),
            ]
        )

        async def by_host(scope: Scope, receive: Receive, send: Send) -> None:
            # Paths mean different things per host (x.com/ is the home page, api.x.com/1.1/...
            # the login flow); the routes above are all distinct, so one router serves them.
            await inner(scope, receive, send)

        return by_host

    async def home(self, _request: Request) -> Response:
        return HTMLResponse(HOME_HTML)

    async def ondemand(self, request: Request) -> Response:
        if request.path_params["name"] != f"ondemand.s.{ONDEMAND}a.js":
            return PlainTextResponse("Not Found", status_code=404)
        return Response(ONDEMAND_JS, media_type="application/javascript")

    async def js_inst(self, _request: Request) -> Response:
        return Response(UI_METRICS_JS, media_type="application/javascript")

    async def user_state(self, request: Request) -> Response:
        return JSONResponse({"userState": "normal"})

    # -- login ----------------------------------------------------------------------------

    async def guest_activate(self, request: Request) -> Response:
        if request.headers.get("authorization") != f"Bearer {WEB_BEARER}":
            return web_error(401, 32, "Could not authenticate you.")
        token = str(1880000000000000000 + len(self.guests))
        self.guests.add(token)
        return JSONResponse({"guest_token": token})

    async def sso_init(self, request: Request) -> Response:
        if request.headers.get("x-guest-token") not in self.guests:
            return web_error(400, 239, "Bad guest token.")
        return JSONResponse({})

    def _subtask(self, flow_token: str, subtask: dict[str, Any]) -> JSONResponse:
        return JSONResponse({"flow_token": flow_token, "status": "success", "subtasks": [subtask]})

    async def task(self, request: Request) -> Response:
        if request.headers.get("x-guest-token") not in self.guests:
            return web_error(400, 239, "Bad guest token.")
        try:
            body = await request.json()
        except ValueError:
            return web_error(400, 214, "Bad request.")
        if request.query_params.get("flow_name") == "login" and "flow_token" not in body:
            token = f"g;{int(time.time() * 1000)}:-{secrets.token_hex(6)}:{secrets.token_hex(8)}:0"
            self.flows[token] = {"user": None}
            return self._subtask(
                token,
                {
                    "subtask_id": "LoginJsInstrumentationSubtask",
                    "js_instrumentation": {
                        "url": "https://twitter.com/i/js_inst?c_name=ui_metrics",
                        "timeout_ms": 2000,
                        "next_link": {"link_type": "task", "link_id": "next_link"},
                    },
                },
            )
        token = str(body.get("flow_token") or "")
        flow = self.flows.get(token)
        inputs = body.get("subtask_inputs") or [{}]
        step = inputs[0].get("subtask_id")
        if flow is None:
            return web_error(400, 399, "Incorrect. Please try again.")
        if step == "LoginJsInstrumentationSubtask":
            return self._subtask(
                token,
                {
                    "subtask_id": "LoginEnterUserIdentifierSSO",
                    "settings_list": {"settings": [{"value_identifier": "user_identifier"}]},
                },
            )
        if step == "LoginEnterUserIdentifierSSO":
            responses = inputs[0].get("settings_list", {}).get("setting_responses", [{}])
            ident = str(
                responses[0].get("response_data", {}).get("text_data", {}).get("result", "")
            )
            if ident.lower() not in (READER, READER_EMAIL):
                return self._subtask(
                    token,
                    {
                        "subtask_id": "DenyLoginSubtask",
                        "cta": {
                            "secondary_text": {
                                "text": "Sorry, we could not find your account.",
                                "entities": [],
                            }
                        },
                    },
                )
            flow["user"] = READER
            return self._subtask(
                token, {"subtask_id": "LoginEnterPassword", "enter_password": {"hint": ident}}
            )
        if step == "LoginEnterAlternateIdentifierSubtask":
            return self._subtask(token, {"subtask_id": "LoginEnterPassword", "enter_password": {}})
        if step == "LoginEnterPassword":
            if (
                inputs[0].get("enter_password", {}).get("password") != PASSWORD
                or flow["user"] is None
            ):
                return web_error(400, 399, "Wrong password!")
            return self._subtask(
                token,
                {
                    "subtask_id": "AccountDuplicationCheck",
                    "check_logged_in_account": {
                        "true_link": {"link_id": "AccountDuplicationCheck_true"},
                        "false_link": {"link_id": "AccountDuplicationCheck_false"},
                    },
                },
            )
        if step == "AccountDuplicationCheck" and flow["user"]:
            reader = self.world.by_username(READER)
            assert reader is not None
            auth_token = secrets.token_hex(20)
            self.world.sessions[auth_token] = reader.id
            del self.flows[token]
            response = JSONResponse(
                {
                    "flow_token": token,
                    "status": "success",
                    "subtasks": [
                        {
                            "subtask_id": "LoginSuccessSubtask",
                            "open_account": {
                                "user": {
                                    "id": int(reader.id),
                                    "id_str": reader.id,
                                    "name": reader.name,
                                    "screen_name": reader.username,
                                },
                                "next_link": {"link_type": "subtask", "link_id": "next_link"},
                            },
                        }
                    ],
                }
            )
            response.set_cookie(
                "auth_token", auth_token, domain=".x.com", secure=True, httponly=True, path="/"
            )
            response.set_cookie(
                "ct0", secrets.token_hex(16), domain=".x.com", secure=True, path="/"
            )
            return response
        return web_error(400, 399, "Incorrect. Please try again.")

    # -- session checks and limits ------------------------------------------------------

    def _session(self, request: Request) -> tuple[str | None, Response | None]:
        if request.headers.get("authorization") != f"Bearer {WEB_BEARER}":
            return None, web_error(401, 32, "Could not authenticate you.")
        user_id = self.world.sessions.get(request.cookies.get("auth_token", ""))
        if user_id is None:
            return None, web_error(401, 32, "Could not authenticate you.")
        ct0 = request.cookies.get("ct0")
        if not ct0 or request.headers.get("x-csrf-token") != ct0:
            return None, web_error(
                403, 353, "This request requires a matching csrf cookie and header."
            )
        if not request.headers.get("x-client-transaction-id"):
            return None, web_error(404, 34, "Sorry, that page does not exist.")
        return user_id, None

    def _limit(self, endpoint: str) -> tuple[dict[str, str], Response | None]:
        now = int(time.time())
        used, reset = self.buckets.get(endpoint, (0, 0))
        if now >= reset:
            used, reset = 0, now + 900
        limit = LIMITS.get(endpoint, 150)
        if used >= limit:
            return {}, RateLimitedResponse(
                {"errors": [{"code": 88, "message": "Rate limit exceeded."}]},
                max(1, reset - now),
                limit,
                media_type="application/json",
            )
        self.buckets[endpoint] = (used + 1, reset)
        return {
            "x-rate-limit-limit": str(limit),
            "x-rate-limit-remaining": str(limit - used - 1),
            "x-rate-limit-reset": str(reset),
        }, None

    def _guard(
        self, request: Request, endpoint: str
    ) -> tuple[str | None, dict[str, str], Response | None]:
        user_id, error = self._session(request)
        if error is not None:
            return None, {}, error
        headers, limited = self._limit(endpoint)
        if limited is not None:
            return None, {}, limited
        return user_id, headers, None

    @staticmethod
    def _variables(request: Request) -> dict[str, Any]:
        try:
            value = json.loads(request.query_params.get("variables", "{}"))
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}

    # -- rendering ----------------------------------------------------------------------

    def web_user(self, user: XUser) -> dict[str, Any]:
        return {
            "__typename": "User",
            "id": base64.b64encode(f"User:{user.id}".encode()).decode(),
            "rest_id": user.id,
            "affiliates_highlighted_label": {},
            "has_graduated_access": True,
            "is_blue_verified": False,
            "profile_image_shape": "Circle",
            "legacy": {
                "can_dm": False,
                "can_media_tag": True,
                "created_at": web_time(user.created),
                "default_profile": True,
                "default_profile_image": False,
                "description": "",
                "entities": {"description": {"urls": []}},
                "fast_followers_count": 0,
                "favourites_count": 120,
                "followers_count": 300,
                "friends_count": 150,
                "has_custom_timelines": False,
                "is_translator": False,
                "listed_count": 3,
                "location": "",
                "media_count": 2,
                "name": user.name,
                "normal_followers_count": 300,
                "pinned_tweet_ids_str": [],
                "possibly_sensitive": False,
                "profile_image_url_https": f"https://pbs.twimg.com/profile_images/{user.id}/normal.jpg",
                "screen_name": user.username,
                "statuses_count": 800,
                "translator_type": "none",
                "verified": False,
                "want_retweets": False,
                "withheld_in_countries": [],
            },
        }

    def web_tweet(self, t: XTweet, *, with_quote: bool = True) -> dict[str, Any]:
        w = self.world
        if t.deleted:
            return {
                "__typename": "TweetTombstone",
                "tombstone": {
                    "__typename": "TextTombstone",
                    "text": {
                        "rtl": False,
                        "text": "This Post was deleted by the Post author. Learn more",
                        "entities": [
                            {
                                "fromIndex": 41,
                                "toIndex": 51,
                                "ref": {
                                    "type": "TimelineUrl",
                                    "url": "https://help.x.com/rules-and-policies/notices-on-x",
                                    "urlType": "ExternalUrl",
                                },
                            }
                        ],
                    },
                },
            }
        author = w.users[t.author_id]
        long_post = weighted_length(t.text) > 280
        shown = truncate_weighted(t.text, 275) if long_post else t.text
        reply_parent = w.tweets.get(t.reply_to) if t.reply_to else None
        entities = {
            "hashtags": [
                {"indices": [s, e], "text": h} for s, e, h in t.hashtags() if e <= len(shown)
            ],
            "symbols": [],
            "timestamps": [],
            "urls": [
                {
                    "display_url": u.split("//", 1)[-1][:26],
                    "expanded_url": u,
                    "url": u,
                    "indices": [s, e],
                }
                for s, e, u in t.urls()
                if e <= len(shown)
            ],
            "user_mentions": [
                {
                    "id_str": (m.id if (m := w.by_username(n)) else "0"),
                    "name": m.name if m else n,
                    "screen_name": n,
                    "indices": [s, e],
                }
                for s, e, n in t.mentions()
                if e <= len(shown)
            ],
        }
        legacy: dict[str, Any] = {
            "bookmark_count": 0,
            "bookmarked": False,
            "created_at": web_time(t.created),
            "conversation_id_str": t.conversation_id,
            "display_text_range": [0, len(shown)],
            "entities": entities,
            "favorite_count": t.likes,
            "favorited": False,
            "full_text": shown,
            "is_quote_status": t.quoted is not None,
            "lang": t.lang,
            "quote_count": w.quote_count(t.id),
            "reply_count": w.reply_count(t.id),
            "retweet_count": t.retweets,
            "retweeted": False,
            "user_id_str": t.author_id,
            "id_str": t.id,
        }
        if reply_parent is not None:
            legacy["in_reply_to_status_id_str"] = reply_parent.id
            legacy["in_reply_to_user_id_str"] = reply_parent.author_id
            legacy["in_reply_to_screen_name"] = w.users[reply_parent.author_id].username
        if t.quoted:
            legacy["quoted_status_id_str"] = t.quoted
        if t.reply_settings != "everyone":
            policy = {"mentionedUsers": "ByInvitation", "following": "Community"}.get(
                t.reply_settings, "ByInvitation"
            )
            legacy["conversation_control"] = {
                "policy": policy,
                "conversation_owner_results": {
                    "result": {"__typename": "User", "legacy": {"screen_name": author.username}}
                },
            }
        result: dict[str, Any] = {
            "__typename": "Tweet",
            "rest_id": t.id,
            "core": {"user_results": {"result": self.web_user(author)}},
            "unmention_data": {},
            "edit_control": {
                "edit_tweet_ids": [t.id],
                "editable_until_msecs": str(int(t.created.timestamp() * 1000) + 3_600_000),
                "is_edit_eligible": True,
                "edits_remaining": "5",
            },
            "is_translatable": t.lang != "en",
            "views": {"count": str(40 * t.likes + 17), "state": "EnabledWithCount"},
            "source": '<a href="https://x.com" rel="nofollow">X Web App</a>',
            "legacy": legacy,
        }
        if long_post:
            result["note_tweet"] = {
                "is_expandable": True,
                "note_tweet_results": {
                    "result": {
                        "id": base64.b64encode(f"NoteTweetResults:{t.id}".encode()).decode(),
                        "text": t.text,
                        "entity_set": {
                            "hashtags": [
                                {"indices": [s, e], "text": h} for s, e, h in t.hashtags()
                            ],
                            "symbols": [],
                            "urls": [],
                            "user_mentions": [
                                {
                                    "id_str": (m.id if (m := w.by_username(n)) else "0"),
                                    "name": n,
                                    "screen_name": n,
                                    "indices": [s, e],
                                }
                                for s, e, n in t.mentions()
                            ],
                        },
                        "richtext": {"richtext_tags": []},
                        "media": {"inline_media": []},
                    }
                },
            }
        if with_quote and t.quoted and (quoted := w.tweets.get(t.quoted)) is not None:
            result["quoted_status_result"] = {"result": self.web_tweet(quoted, with_quote=False)}
        return result

    def _item(self, t: XTweet) -> dict[str, Any]:
        return {
            "itemType": "TimelineTweet",
            "__typename": "TimelineTweet",
            "tweet_results": {"result": self.web_tweet(t)},
            "tweetDisplayType": "Tweet",
        }

    def _entry(self, t: XTweet, prefix: str = "tweet") -> dict[str, Any]:
        return {
            "entryId": f"{prefix}-{t.id}",
            "sortIndex": t.id,
            "content": {
                "entryType": "TimelineTimelineItem",
                "__typename": "TimelineTimelineItem",
                "itemContent": self._item(t),
            },
        }

    @staticmethod
    def _cursor(kind: str, value: str, *, item_style: bool) -> dict[str, Any]:
        if item_style:  # TweetDetail puts cursors inside itemContent
            return {
                "entryId": f"cursor-{kind.lower()}-{value[-12:]}",
                "sortIndex": "0",
                "content": {
                    "entryType": "TimelineTimelineItem",
                    "__typename": "TimelineTimelineItem",
                    "itemContent": {
                        "itemType": "TimelineTimelineCursor",
                        "__typename": "TimelineTimelineCursor",
                        "value": value,
                        "cursorType": kind,
                    },
                },
            }
        return {
            "entryId": f"cursor-{kind.lower()}-{value[-12:]}",
            "sortIndex": "0",
            "content": {
                "entryType": "TimelineTimelineCursor",
                "__typename": "TimelineTimelineCursor",
                "value": value,
                "cursorType": kind,
            },
        }

    # -- GraphQL reads ------------------------------------------------------------------

    async def search_timeline(self, request: Request) -> Response:
        _user, headers, error = self._guard(request, "SearchTimeline")
        if error is not None:
            return error
        v = self._variables(request)
        query = str(v.get("rawQuery") or "")
        count = max(1, min(int(v.get("count") or 20), 40))
        cursor = str(v.get("cursor") or "")
        offset = int(cursor[len("DAACCgACGd") :], 16) if cursor.startswith("DAACCgACGd") else 0
        try:
            hits = self.world.search(query) if query else []
        except ValueError:
            hits = []
        if v.get("product") == "Top":
            hits.sort(key=lambda t: (-t.likes, -int(t.id)))
        page = hits[offset : offset + count]
        entries = [self._entry(t) for t in page]
        entries.append(
            self._cursor("Top", f"DAACCgACGd{max(0, offset - count):x}", item_style=False)
        )
        entries.append(
            self._cursor("Bottom", f"DAACCgACGd{offset + len(page):x}", item_style=False)
        )
        body = {
            "data": {
                "search_by_raw_query": {
                    "search_timeline": {
                        "timeline": {
                            "instructions": [{"type": "TimelineAddEntries", "entries": entries}]
                        }
                    }
                }
            }
        }
        return JSONResponse(body, headers=headers)

    def _thread_order(self, root_id: str) -> list[XTweet]:
        """Direct replies to the focal post, oldest first."""
        return sorted(
            (t for t in self.world.tweets.values() if t.reply_to == root_id),
            key=lambda t: int(t.id),
        )

    def _module(self, top: XTweet) -> dict[str, Any]:
        items = []
        stack = [top]
        while stack:
            node = stack.pop()
            items.append(
                {
                    "entryId": f"conversationthread-{top.id}-tweet-{node.id}",
                    "item": {
                        "itemContent": self._item(node),
                        "clientEventInfo": {
                            "details": {
                                "conversationDetails": {"conversationSection": "HighQuality"}
                            }
                        },
                    },
                }
            )
            stack.extend(
                sorted(
                    (t for t in self.world.tweets.values() if t.reply_to == node.id),
                    key=lambda t: int(t.id),
                    reverse=True,
                )
            )
        return {
            "entryId": f"conversationthread-{top.id}",
            "sortIndex": top.id,
            "content": {
                "entryType": "TimelineTimelineModule",
                "__typename": "TimelineTimelineModule",
                "items": items,
                "displayType": "VerticalConversation",
            },
        }

    async def tweet_detail(self, request: Request) -> Response:
        _user, headers, error = self._guard(request, "TweetDetail")
        if error is not None:
            return error
        v = self._variables(request)
        focal_id = str(v.get("focalTweetId") or "")
        focal = self.world.live(focal_id)
        if focal is None:
            trace = secrets.token_hex(8)
            return JSONResponse(
                {
                    "errors": [
                        {
                            "message": "_Missing: No status found with that ID.",
                            "locations": [{"line": 2, "column": 3}],
                            "path": ["threaded_conversation_with_injections_v2"],
                            "extensions": {
                                "name": "GenericError",
                                "source": "Server",
                                "code": 144,
                                "kind": "NotFound",
                                "tracing": {"trace_id": trace},
                            },
                            "code": 144,
                            "kind": "NotFound",
                            "name": "GenericError",
                            "source": "Server",
                            "tracing": {"trace_id": trace},
                        }
                    ],
                    "data": {},
                },
                headers=headers,
            )
        cursor = str(v.get("cursor") or "")
        offset = int(cursor[len("PAAAAPAD") :], 16) if cursor.startswith("PAAAAPAD") else 0
        entries: list[dict[str, Any]] = []
        if not cursor:
            chain: list[XTweet] = []
            parent = self.world.tweets.get(focal.reply_to) if focal.reply_to else None
            while parent is not None:
                chain.append(parent)
                parent = self.world.tweets.get(parent.reply_to) if parent.reply_to else None
            entries += [self._entry(t) for t in reversed(chain)]
            entries.append(self._entry(focal))
        tops = self._thread_order(focal.id)
        page = tops[offset : offset + PAGE_MODULES]
        entries += [self._module(t) for t in page]
        if offset + PAGE_MODULES < len(tops):
            entries.append(
                self._cursor("Bottom", f"PAAAAPAD{offset + PAGE_MODULES:x}", item_style=True)
            )
        body = {
            "data": {
                "threaded_conversation_with_injections_v2": {
                    "instructions": [
                        {"type": "TimelineAddEntries", "entries": entries},
                        {"type": "TimelineTerminateTimeline", "direction": "Top"},
                    ]
                }
            }
        }
        return JSONResponse(body, headers=headers)

    async def guide(self, request: Request) -> Response:
        _user, headers, error = self._guard(request, "guide.json")
        if error is not None:
            return error
        count = int(request.query_params.get("count", "20") or 20)
        score: dict[str, tuple[int, str]] = {}
        for t in self.world.tweets.values():
            if t.deleted:
                continue
            for _s, _e, tag in t.hashtags():
                total, spelled = score.get(tag.lower(), (0, tag))
                score[tag.lower()] = (total + 1000 + 37 * t.likes, spelled)
        ranked = sorted(score.values(), key=lambda v: (-v[0], v[1].lower()))[:count]
        items = [
            {
                "entryId": f"trends-{i}",
                "item": {
                    "content": {
                        "trend": {
                            "name": f"#{name}",
                            "url": {
                                "urlType": "DeepLink",
                                "url": f"twitter://search/?query=%23{name}",
                            },
                            "trendMetadata": {
                                "domainContext": "Trending in Technology",
                                "metaDescription": f"{total:,} posts",
                            },
                            "groupedTrends": [],
                        }
                    }
                },
            }
            for i, (total, name) in enumerate(ranked)
        ]
        body = {
            "globalObjects": {"tweets": {}, "users": {}},
            "timeline": {
                "id": "trending",
                "instructions": [
                    {"clearCache": {}},
                    {
                        "addEntries": {
                            "entries": [
                                {
                                    "entryId": "trends",
                                    "sortIndex": "1",
                                    "content": {
                                        "timelineModule": {
                                            "items": items,
                                            "displayType": "VerticalWithContextLine",
                                        }
                                    },
                                }
                            ]
                        }
                    },
                ],
            },
        }
        return JSONResponse(body, headers=headers)

    # -- GraphQL writes (twikit can write; the gwanjong server never does) --------------

    async def create_tweet(self, request: Request) -> Response:
        user_id, headers, error = self._guard(request, "CreateTweet")
        if error is not None:
            return error
        assert user_id is not None
        try:
            v = (await request.json()).get("variables", {})
        except (ValueError, AttributeError):
            return web_error(400, 214, "Bad request.")
        text = str(v.get("tweet_text") or "")
        reply_to = (v.get("reply") or {}).get("in_reply_to_tweet_id")
        if any(t.author_id == user_id and t.text == text for t in self.world.tweets.values()):
            return JSONResponse(
                {
                    "errors": [
                        {
                            "message": "Status is a duplicate. (187)",
                            "code": 187,
                            "extensions": {"code": 187},
                        }
                    ],
                    "data": {},
                },
                headers=headers,
            )
        tweet = self.world.post(user_id, text, reply_to=str(reply_to) if reply_to else None)
        self.state.record_write(
            "twikit",
            "write_comment" if reply_to else "write_post",
            reply_to,
            text=text,
            id=tweet.id,
        )
        return JSONResponse(
            {"data": {"create_tweet": {"tweet_results": {"result": self.web_tweet(tweet)}}}},
            headers=headers,
        )

    async def favorite(self, request: Request) -> Response:
        _user_id, headers, error = self._guard(request, "FavoriteTweet")
        if error is not None:
            return error
        try:
            tweet_id = str((await request.json()).get("variables", {}).get("tweet_id") or "")
        except (ValueError, AttributeError):
            return web_error(400, 214, "Bad request.")
        tweet = self.world.live(tweet_id)
        if tweet is None:
            return JSONResponse(
                {
                    "errors": [{"message": "_Missing: No status found with that ID.", "code": 144}],
                    "data": {},
                },
                headers=headers,
            )
        tweet.likes += 1
        self.state.record_write("twikit", "upvote", tweet_id)
        return JSONResponse({"data": {"favorite_tweet": "Done"}}, headers=headers)
