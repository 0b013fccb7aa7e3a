"""X's web GraphQL reads: SearchTimeline, TweetDetail (conversation modules) and the trends guide."""

from __future__ import annotations

import secrets
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from gwanjong_sandbox.twikit.model import PAGE_MODULES
from gwanjong_sandbox.twikit.wire import TwikitWire
from gwanjong_sandbox.twitter.model import XTweet


class TwikitReads(TwikitWire):
    """Read routes."""

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
            hits = [t for t in hits if self.state.visible("twitter", t.id)]  # the index lags
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
        tops = [t for t in self._thread_order(focal.id) if self.state.visible("twitter", t.id)]
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
