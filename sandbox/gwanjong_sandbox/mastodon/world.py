"""The corpus as one Mastodon instance: statuses, accounts and notifications in the REST
API's shapes, with Mastodon's rudeness kept.

Content is HTML (``<p>`` paragraphs, mention and hashtag links, URLs cut short with
invisible spans); ids are snowflake-like numeric strings that sort by time; a deleted
status is gone (404) while its replies keep ``in_reply_to_id`` on it; the instance's limit
is 1000 characters, not the default 500. Beyond the shared corpus: an author with
``#NoBot`` in the bio who mentions us, and a followers-only thread that mentions us.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from gwanjong_sandbox.corpus import Node, Thread, build_corpus, walk

ME = "gwanjong_bot"
DOMAIN = "sandbox.social"
MAX_CHARS = 1000
TOKEN = "sbx-mastodon-bot-token"
#: a working token of an account without the bot flag (writes must be refused)
HUMAN_TOKEN = "sbx-mastodon-human-token"
HUMAN = "plain_human"
NOBOT = "quiet_quinn"
FOLLOWER = "follower_fay"  # the followers-only thread's author
RULES = [
    "Sexually explicit or violent media must be marked as sensitive when posting.",
    "Automated accounts must be flagged as bots and must not reply to people unsolicited.",
    "No spam or advertising.",
]
#: extra threads only this instance has: (key, author, visibility, text)
EXTRA = (
    ("nobot-post", NOBOT, "public", "Hey {me}, what do you think about MCP gateways?"),
    (
        "private-thread",
        FOLLOWER,
        "private",
        "Followers only: {me}, could you look at our MCP rollout notes before Friday?",
    ),
)
#: content warnings on seeded threads (Mastodon counts a warning in the status's limit)
SPOILERS = {"huge": "long thread, database talk", "private-thread": "work plans"}
_URL = re.compile(r"https?://[^\s<]+")
_TAG = re.compile(r"(?<![\w&])#(\w+)")


def stamp(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"


@dataclass
class World:
    accounts: dict[str, dict[str, Any]] = field(default_factory=lambda: {})
    statuses: dict[str, dict[str, Any]] = field(default_factory=lambda: {})
    #: status id -> every ancestor id, root first (deleted ones too)
    path: dict[str, list[str]] = field(default_factory=lambda: {})
    by_key: dict[str, str] = field(default_factory=lambda: {})
    notifications: list[dict[str, Any]] = field(default_factory=lambda: [])
    favourited: set[str] = field(default_factory=lambda: set())
    #: (account id, Idempotency-Key) -> (the status it made, when: the sandbox's clock, and
    #: how many requests had arrived then: one that came earlier checked before it was kept)
    idempotent: dict[tuple[str, str], tuple[str, float, int]] = field(default_factory=lambda: {})
    seq: int = 0

    def next_id(self, when: datetime) -> str:
        self.seq += 1
        return str((int(when.timestamp() * 1000) << 16) + self.seq)

    def account(self, name: str) -> dict[str, Any]:
        if name not in self.accounts:
            note = (
                "<p>Developer. Automated replies: no thanks. #NoBot</p>"
                if name == NOBOT
                else ("<p>I write code and talk about it.</p>")
            )
            self.accounts[name] = {
                "id": str(100 + len(self.accounts)),
                "username": name,
                "acct": name,
                "display_name": name.replace("_", " ").title(),
                "locked": False,
                "bot": name == ME,
                "discoverable": True,
                "group": False,
                "created_at": "2024-01-05T00:00:00.000Z",
                "note": note,
                "url": f"https://{DOMAIN}/@{name}",
                "uri": f"https://{DOMAIN}/users/{name}",
                "avatar": f"https://{DOMAIN}/avatars/original/missing.png",
                "avatar_static": f"https://{DOMAIN}/avatars/original/missing.png",
                "header": f"https://{DOMAIN}/headers/original/missing.png",
                "header_static": f"https://{DOMAIN}/headers/original/missing.png",
                "followers_count": 12,
                "following_count": 34,
                "statuses_count": 56,
                "last_status_at": "2026-11-27",
                "emojis": [],
                "fields": [],
            }
        return self.accounts[name]


def content_html(world: World, text: str) -> tuple[str, list[dict[str, Any]]]:
    """Mastodon's rendering of plain text, and the accounts it mentions."""
    mentions: list[dict[str, Any]] = []
    paragraphs: list[str] = []
    for para in text.split("\n\n"):
        escaped = html.escape(para, quote=False)

        def link(m: re.Match[str]) -> str:
            url = m.group(0)
            scheme, _, rest = url.partition("://")
            return (
                f'<a href="{url}" target="_blank" rel="nofollow noopener noreferrer" '
                f'translate="no"><span class="invisible">{scheme}://</span><span '
                f'class="ellipsis">{rest[:30]}</span><span class="invisible">{rest[30:]}'
                "</span></a>"
            )

        escaped = _URL.sub(link, escaped)
        escaped = _TAG.sub(
            lambda m: (
                f'<a href="https://{DOMAIN}/tags/{m.group(1).lower()}" class="mention '
                f'hashtag" rel="tag">#<span>{m.group(1)}</span></a>'
            ),
            escaped,
        )
        if "{me}" in escaped:
            me = world.account(ME)
            mentions.append({k: me[k] for k in ("id", "username", "url", "acct")})
            escaped = escaped.replace(
                "{me}",
                f'<span class="h-card" translate="no"><a href="{me["url"]}" class="u-url '
                f'mention">@<span>{ME}</span></a></span>',
            )
        paragraphs.append(f"<p>{escaped.replace(chr(10), '<br />')}</p>")
    return "".join(paragraphs), mentions


def make_status(
    world: World,
    sid: str,
    author: str,
    text: str,
    when: datetime,
    *,
    reply_to: dict[str, Any] | None = None,
    visibility: str = "public",
    tags: list[str] | None = None,
    likes: int = 0,
    spoiler: str = "",
) -> dict[str, Any]:
    account = world.account(author)
    content, mentions = content_html(world, text)
    # the text's own hashtags tag it too (ProcessHashtagsService), as the tag's timeline shows
    named = [t.lower() for t in _TAG.findall(text)]
    if tags:
        content += (
            "<p>"
            + " ".join(
                f'<a href="https://{DOMAIN}/tags/{t}" class="mention hashtag" rel="tag">#<span>{t}'
                "</span></a>"
                for t in tags
            )
            + "</p>"
        )
    return {
        "id": sid,
        "created_at": stamp(when),
        "in_reply_to_id": reply_to["id"] if reply_to else None,
        "in_reply_to_account_id": reply_to["account"]["id"] if reply_to else None,
        "sensitive": bool(spoiler),
        "spoiler_text": spoiler,
        "visibility": visibility,
        "language": "en",
        "uri": f"https://{DOMAIN}/users/{author}/statuses/{sid}",
        "url": f"https://{DOMAIN}/@{author}/{sid}",
        "replies_count": 0,
        "reblogs_count": 0,
        "favourites_count": likes,
        "edited_at": None,
        "favourited": False,
        "reblogged": False,
        "muted": False,
        "bookmarked": False,
        "content": content,
        "filtered": [],
        "reblog": None,
        "application": None,
        "account": account,
        "media_attachments": [],
        "mentions": mentions,
        "tags": [
            {"name": t, "url": f"https://{DOMAIN}/tags/{t}"}
            for t in dict.fromkeys([*(tags or []), *named])
        ],
        "emojis": [],
        "card": None,
        "poll": None,
    }


def build_world() -> World:
    world = World()
    world.account(ME)
    world.account(HUMAN)["note"] = "<p>A person, posting by hand.</p>"
    threads = build_corpus(ME)
    for key, author, _visibility, text in EXTRA:
        # older than the seed: the first an inbox hands out
        threads.append(Thread(key, "", text, author, [], 3, 300, [], mentions_me=True))
    visibility = {key: v for key, _a, v, _t in EXTRA}
    for thread in threads:
        _add_thread(world, thread, visibility.get(thread.key, "public"))
    _add_remote(world, threads[0].created)
    for status in world.statuses.values():  # replies_count and the inbox
        parent = world.statuses.get(status["in_reply_to_id"] or "")
        if parent is not None:
            parent["replies_count"] += 1
        _notify(world, status)
    world.notifications.sort(key=lambda n: int(n["id"]))
    return world


#: a remote author whose status's url claims another site (their server's word only)
REMOTE = ("mallory", "remote.example", "https://dev.to/someone/not-this-status")
#: a remote author whose url is on their own server
REMOTE_REPLY = ("ann", "other.example")


def _remote(world: World, name: str, domain: str) -> dict[str, Any]:
    account = world.account(f"{name}@{domain}")
    account |= {
        "username": name,
        "url": f"https://{domain}/@{name}",
        "uri": f"https://{domain}/users/{name}",
    }
    return account


def _add_remote(world: World, when: datetime) -> None:
    """An unlisted remote status (shown by id and in its context only, so no search,
    trend or inbox changes) whose ``url`` points elsewhere than its server, and a remote
    reply whose ``url`` is its own server's."""
    name, domain, elsewhere = REMOTE
    _remote(world, name, domain)
    sid = world.next_id(when)
    text = "Federated notes on MCP gateways."
    root = make_status(world, sid, f"{name}@{domain}", text, when, visibility="unlisted")
    root |= {"uri": f"https://{domain}/users/{name}/statuses/{sid}", "url": elsewhere}
    world.statuses[sid], world.path[sid], world.by_key["remote-elsewhere"] = root, [], sid
    name, domain = REMOTE_REPLY
    _remote(world, name, domain)
    rid = world.next_id(when + timedelta(minutes=5))
    reply = make_status(
        world, rid, f"{name}@{domain}", "Agreed.", when, reply_to=root, visibility="unlisted"
    )
    reply |= {
        "uri": f"https://{domain}/users/{name}/statuses/{rid}",
        "url": f"https://{domain}/@{name}/{rid}",
    }
    world.statuses[rid], world.path[rid], world.by_key["remote-reply"] = reply, [sid], rid


def _add_thread(world: World, thread: Thread, visibility: str) -> None:
    when = thread.created
    sid = world.next_id(when)
    if thread.deleted:
        world.by_key[thread.key] = sid  # the id it had: every read answers 404
        return
    text = f"{thread.title}\n\n{thread.body}" if thread.title else thread.body
    spoiler = SPOILERS.get(thread.key, "")
    root = make_status(
        world,
        sid,
        thread.author,
        text,
        when,
        visibility=visibility,
        tags=thread.tags,
        likes=thread.likes,
        spoiler=spoiler,
    )
    world.statuses[sid] = root
    world.path[sid] = []
    world.by_key[thread.key] = sid
    ids: dict[int, dict[str, Any]] = {}
    gone: dict[int, str] = {}
    for node, _depth, parent in walk(thread.comments):
        _add_reply(world, thread, node, parent, root, ids, gone, visibility)


def _add_reply(
    world: World,
    thread: Thread,
    node: Node,
    parent: Node | None,
    root: dict[str, Any],
    ids: dict[int, dict[str, Any]],
    gone: dict[int, str],
    visibility: str,
) -> None:
    when = thread.created + timedelta(minutes=node.minutes, seconds=world.seq % 60)
    sid = world.next_id(when)
    world.by_key[node.key] = sid
    up_id = root["id"] if parent is None else (gone.get(id(parent)) or ids[id(parent)]["id"])
    up = root if parent is None else ids.get(id(parent))
    if node.deleted:  # gone from the instance; replies keep pointing at it
        gone[id(node)] = sid
        world.path[sid] = [*world.path[up_id], up_id]
        return
    reply_to = up or {"id": up_id, "account": {"id": world.account(thread.author)["id"]}}
    status = make_status(
        world,
        sid,
        node.author,
        node.body,
        when,
        reply_to=reply_to,
        visibility=visibility,
        likes=node.likes,
    )
    world.statuses[sid] = status
    world.path[sid] = [*world.path[up_id], up_id]
    ids[id(node)] = status


def _notify(world: World, status: dict[str, Any]) -> None:
    """A mention notification for a status by someone else that mentions or answers us."""
    me = world.account(ME)
    if status["account"]["id"] == me["id"]:
        return
    mentioned = any(m["id"] == me["id"] for m in status["mentions"])
    if not mentioned and status["in_reply_to_account_id"] != me["id"]:
        return
    world.notifications.append(
        {
            "id": str(int(status["id"]) + 7),  # sorts with its status's time
            "type": "mention",
            "group_key": f"ungrouped-{status['id']}",
            "created_at": status["created_at"],
            "account": status["account"],
            "status": status,
        }
    )


def context(world: World, sid: str) -> dict[str, Any]:
    ancestors = [world.statuses[a] for a in world.path[sid] if a in world.statuses]
    below = [s for i, s in world.statuses.items() if sid in world.path.get(i, []) and i != sid]
    below.sort(key=lambda s: [int(x) for x in [*world.path[s["id"]], s["id"]]])
    return {"ancestors": ancestors, "descendants": below}
