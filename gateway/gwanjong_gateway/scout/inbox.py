"""The inbox: where someone asked for us, on every platform, before any topic search.

From each server's optional `mentions` tool it keeps what we have not answered (no
`posted` strike of ours on it), marks it `summoned`, and keeps the server's cursor per
platform so the next inbox shows only what is new. A server without the tool is skipped.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Protocol

import anyio
from pydantic import TypeAdapter

from gwanjong_gateway.paths import replace_private
from gwanjong_gateway.platforms.client import PlatformClient, ensure_profiles
from gwanjong_gateway.platforms.upstreams import Upstreams
from gwanjong_gateway.rules.policy import is_opted_out, is_ours, named
from gwanjong_gateway.scout.acted import Acted
from gwanjong_gateway.scout.late import Key, Late, Read, still_coming, wait_within
from gwanjong_gateway.scout.ranking import dedupe, opportunity_id
from gwanjong_gateway.scout.state import Opportunity
from gwanjong_shared.contract import MentionList
from gwanjong_shared.contract.errors import PlatformError
from gwanjong_shared.contract.models import Post

log = logging.getLogger(__name__)

TOOL = "mentions"
PER_PLATFORM = 20
SUMMONED_SCORE = 1.0  # above any topic score: someone asked for us
_CURSORS = TypeAdapter(dict[str, str])
_WHY = {"mention": "mentions you", "reply": "replied to you", "quote": "quoted you"}
MORE = "inbox: more summons wait on the platform: call again to see them"


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
            return _CURSORS.validate_json(self.path.read_bytes())
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:  # a broken file costs one full inbox, no more
            log.warning("inbox: ignoring unreadable cursor file %s (%s)", self.path, exc)
            return {}

    def get(self, platform: str) -> str | None:
        return self.load().get(platform) or None

    def set(self, platform: str, cursor: str) -> None:
        data = self.load()
        data[platform] = cursor
        replace_private(self.path, json.dumps(data, indent=1, sort_keys=True))  # 0600

    async def aget(self, platform: str) -> str | None:
        return self.get(platform)

    async def aset(self, platform: str, cursor: str) -> None:
        self.set(platform, cursor)


def summoned(post: Post) -> Opportunity:
    why = _WHY.get(post.tags[0] if post.tags else "", "mentions you")
    # The author is platform text: named as strike's refusals name them (one line, 60 chars)
    author = named(post.author) if post.author else ""
    who = f"@{author} " if author else ""
    return Opportunity(
        opportunity_id(post), post, SUMMONED_SCORE, f"summoned: {who}{why}", summoned=True
    )


async def inbox(
    upstreams: Upstreams,
    acted: Acted,
    cursors: CursorStore,
    platforms: list[str],
    limit: int,
    opt_out: list[str],
    *,
    late: Late | None = None,
    within_s: float | None = None,
    sleep: Callable[[float], Awaitable[None]] = anyio.sleep,
) -> tuple[list[Opportunity], dict[str, str]]:
    """Unanswered mentions (oldest unseen first, in rounds across platforms) and a note per
    platform that could not answer or has more waiting. The cursor moves only past what this
    answer consumed (when `limit` cut a platform short the server is asked again for that
    count), so every summons is listed once. `within_s`: answer with the listings that
    arrived by then (None: wait for all); the slower ones are noted as still coming and kept
    in `late`, keyed by the cursor they were read from."""
    lists: dict[str, MentionList] = {}
    olds: dict[str, str | None] = {}
    notes: dict[str, str] = {}
    reads: dict[str, asyncio.Task[Read]] = {}
    late = late if late is not None else Late()
    skipped = "inbox: this server has no mentions tool; skipped"

    async def listing(platform: str, since: str | None) -> Read:
        got = Read()

        async def fetch() -> None:
            # Starting, waiting and the breaker are the call's business, as for any tool.
            try:
                got.listed = await PlatformClient(upstreams, platform).mentions(since, PER_PLATFORM)
                got.posts = got.listed.posts
            except PlatformError as exc:
                tools = upstreams.get(platform)
                missing = tools is not None and tools.tools and TOOL not in tools.tools
                got.problems.append(skipped if missing else f"inbox: {exc}")

        await fetch()
        # whom we write as (a post of ours is no summons) and the opt-out's spellings: as
        # scout does (opportunities.without_ours), after the listing, whose usage check asked first
        await ensure_profiles(upstreams, [platform])
        return got

    async def one(platform: str) -> None:
        upstream = upstreams.get(platform)
        if upstream is None:
            return
        if upstream.tools and TOOL not in upstream.tools:  # listed already: no need to ask
            notes[platform] = skipped
            return
        since = olds[platform] = await cursors.aget(platform)
        reads[platform] = late.read(_key(platform, since), partial(listing, platform, since))

    async with anyio.create_task_group() as tg:
        for platform in platforms:
            tg.start_soon(one, platform)
    await wait_within(reads, within_s, sleep)
    for platform, task in reads.items():
        if not task.done():
            notes[platform] = still_coming(within_s, "read the inbox")
            continue
        late.take(_key(platform, olds[platform]))
        got = task.result()
        if got.listed is not None:
            lists[platform] = got.listed
        elif got.problems:
            notes[platform] = "; ".join(got.problems)

    done = await acted([(p.platform, p.id) for listed in lists.values() for p in listed.posts])

    def skip(post: Post) -> bool:
        who = (post.platform, post.author, upstreams.profiles)
        return (post.platform, post.id) in done or is_opted_out(opt_out, *who) or is_ours(*who)

    # Oldest first per platform, as the servers list them; two replies in one thread are
    # one place to answer (the newest reply stands for it).
    fresh: dict[str, Opportunity] = {}
    for platform in platforms:
        for post in dedupe(lists[platform].posts) if platform in lists else []:
            if not skip(post):
                fresh.pop(opportunity_id(post), None)
                fresh[opportunity_id(post)] = summoned(post)
    shown = fair(list(fresh.values()))[:limit]
    ids = {o.id for o in shown}

    for platform, listed in lists.items():
        consumed = _consumed(listed.posts, ids, skip)
        cursor: str | None = listed.next_since
        if consumed < len(listed.posts):  # cut short: end the cursor where we did
            notes[platform] = "inbox: more summons than `limit`: call again to see the rest"
            cursor = await _cursor_after(upstreams, platform, olds[platform], listed, consumed)
        elif listed.more:
            notes[platform] = MORE
        if cursor:
            try:
                await cursors.aset(platform, cursor)
            except OSError as exc:  # a read-only state_dir: the inbox still answers
                notes[platform] = (
                    f"inbox: cursor not saved ({exc.strerror or exc}): the same summons may "
                    "show again next time; make state_dir writable to keep it"
                )
    return shown, notes


def _key(platform: str, since: str | None) -> Key:
    """A listing's place in `late`: apart from every topic (no topic holds a NUL)."""
    return (f"\0inbox:{since or ''}", platform)


def _consumed(posts: list[Post], shown: set[str], skip: Callable[[Post], bool]) -> int:
    """How many of a platform's oldest-first summons this answer used up: the prefix up to
    the first one that is neither listed (its thread shown) nor skipped for good."""
    for index, post in enumerate(posts):
        if not skip(post) and opportunity_id(post) not in shown:
            return index
    return len(posts)


async def _cursor_after(
    upstreams: Upstreams,
    platform: str,
    since: str | None,
    listed: MentionList,
    consumed: int,
) -> str | None:
    """The server's own cursor after exactly the first `consumed` summons (None: keep the
    old one, so what was not consumed comes back rather than being lost)."""
    if consumed == 0:
        return None
    try:
        again = await PlatformClient(upstreams, platform).mentions(since, consumed)
    except PlatformError:
        return None
    wanted = [p.id for p in listed.posts[:consumed]]
    # The same oldest items, or the platform changed meanwhile: then repeat, never lose.
    return again.next_since if [p.id for p in again.posts] == wanted else None


def fair(items: list[Opportunity]) -> list[Opportunity]:
    """In the order given (oldest first), but in rounds across platforms, so a busy
    platform cannot push the others' summons past `limit`."""
    seen: Counter[str] = Counter()
    turns: list[tuple[int, Opportunity]] = []
    for item in items:
        turns.append((seen[item.post.platform], item))
        seen[item.post.platform] += 1
    return [item for _turn, item in sorted(turns, key=lambda t: t[0])]  # stable: order kept
