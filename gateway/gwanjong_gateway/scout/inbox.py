"""The inbox: where someone asked for us, on every platform, before any topic search.

Each platform server's optional `mentions` tool lists posts that mention or quote our
account and replies to our posts. The inbox keeps those we have not answered (no
`posted` strike of ours on the item; the servers already leave out what the platform
shows we answered), marks them `summoned`, and remembers per platform the cursor the
server handed back, so the next inbox shows only what is new. A server without the tool
(a fifth platform) is skipped with a note, never marked down.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Protocol

import anyio

from gwanjong_gateway.platforms.client import PlatformClient
from gwanjong_gateway.platforms.upstreams import Upstreams
from gwanjong_gateway.rules.policy import is_opted_out
from gwanjong_gateway.scout.ranking import dedupe, opportunity_id
from gwanjong_gateway.scout.state import Opportunity
from gwanjong_shared.contract.errors import PlatformError
from gwanjong_shared.contract.models import Post

log = logging.getLogger(__name__)

TOOL = "mentions"
PER_PLATFORM = 20
SUMMONED_SCORE = 1.0  # above any topic score: someone asked for us
_WHY = {"mention": "mentions you", "reply": "replied to you", "quote": "quoted you"}


class CursorStore(Protocol):
    async def aget(self, platform: str) -> str | None: ...
    async def aset(self, platform: str, cursor: str) -> None: ...


class Cursors:
    """`next_since` per platform, in `<state_dir>/inbox.json` (written atomically).
    (`inbox_record.RecordCursors` keeps them in a shared PostgreSQL record instead.)"""

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> dict[str, str]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:  # a broken file costs one full inbox, no more
            log.warning("inbox: ignoring unreadable cursor file %s (%s)", self.path, exc)
            return {}
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}

    def get(self, platform: str) -> str | None:
        return self.load().get(platform) or None

    def set(self, platform: str, cursor: str) -> None:
        data = self.load()
        data[platform] = cursor
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
        os.replace(tmp, self.path)

    async def aget(self, platform: str) -> str | None:
        return self.get(platform)

    async def aset(self, platform: str, cursor: str) -> None:
        self.set(platform, cursor)


def summoned(post: Post) -> Opportunity:
    why = _WHY.get(post.tags[0] if post.tags else "", "mentions you")
    who = f"@{post.author} " if post.author else ""
    return Opportunity(
        opportunity_id(post), post, SUMMONED_SCORE, f"summoned: {who}{why}", summoned=True
    )


async def inbox(
    upstreams: Upstreams,
    acted: set[tuple[str, str]],
    cursors: CursorStore,
    platforms: list[str],
    limit: int,
    opt_out: list[str],
) -> tuple[list[Opportunity], dict[str, str]]:
    """Unanswered mentions (newest first, in rounds across platforms) and a note per
    platform that could not answer."""
    found: list[Post] = []
    notes: dict[str, str] = {}
    new_cursors: dict[str, str] = {}
    timeout = upstreams.config.gateway.call_timeout_s

    async def one(platform: str) -> None:
        upstream = upstreams.get(platform)
        if upstream is None:
            return
        skipped = "inbox: this server has no mentions tool; skipped"
        if upstream.tools and TOOL not in upstream.tools:  # listed already: no need to ask
            notes[platform] = skipped
            return
        # Starting, waiting and the breaker are the call's business, as for any tool.
        since = await cursors.aget(platform)
        try:
            listed = await PlatformClient(upstreams, platform, timeout).mentions(
                since, PER_PLATFORM
            )
        except PlatformError as exc:
            missing = upstream.tools and TOOL not in upstream.tools
            notes[platform] = skipped if missing else f"inbox: {exc}"
            return
        found.extend(listed.posts)
        if listed.next_since:
            new_cursors[platform] = listed.next_since

    async with anyio.create_task_group() as tg:
        for platform in platforms:
            tg.start_soon(one, platform)

    found.sort(key=lambda p: p.published_at or "", reverse=True)
    fresh: dict[str, Opportunity] = {}
    for post in dedupe(found):
        if (post.platform, post.id) in acted or is_opted_out(
            opt_out, post.platform, post.author, upstreams.profiles
        ):
            continue
        # Two replies in one Dev.to/Reddit thread are one place to answer: keep the newest.
        fresh.setdefault(opportunity_id(post), summoned(post))
    shown = fair(list(fresh.values()))[:limit]

    # The cursor moves only past what the model was shown: a platform whose summons did
    # not all fit in `limit` keeps its old cursor, so the rest come back next time.
    def count(items: list[Opportunity], platform: str) -> int:
        return sum(o.post.platform == platform for o in items)

    left_out = {p for p in new_cursors if count([*fresh.values()], p) > count(shown, p)}
    for platform, cursor in new_cursors.items():
        if platform in left_out:
            notes[platform] = "inbox: more summons than `limit`: call again to see the rest"
        else:
            try:
                await cursors.aset(platform, cursor)
            except OSError as exc:  # a read-only state_dir: the inbox still answers
                notes[platform] = (
                    f"inbox: cursor not saved ({exc.strerror or exc}): the same summons may "
                    "show again next time; make state_dir writable to keep it"
                )
    return shown, notes


def fair(items: list[Opportunity]) -> list[Opportunity]:
    """Newest first, but in rounds across platforms, so a busy platform cannot push the
    others' summons past `limit`."""
    seen: dict[str, int] = {}
    ranked: list[tuple[int, int, Opportunity]] = []
    for order, item in enumerate(items):  # items are newest first
        turn = seen.get(item.post.platform, 0)
        seen[item.post.platform] = turn + 1
        ranked.append((turn, order, item))
    return [item for _turn, _order, item in sorted(ranked, key=lambda r: (r[0], r[1]))]
