"""Bluesky emulator state: accounts, posts and threadgates seeded from the corpus; sessions."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from gwanjong_sandbox.bluesky.model import (
    ACCESS_TTL_S,
    APP_PASSWORD,
    GATES,
    ME_HANDLE,
    ME_NAME,
    ODD,
    PERSON_HANDLE,
    PERSON_PASSWORD,
    PROFILE,
    SELF_LABELS,
    WANDERER_HANDLE,
    WANDERER_PASSWORD,
    WANDERER_PDS,
    Account,
    Session,
    StoredPost,
    cid_for,
    did_for,
    extra_threads,
    handle_for,
    iso,
    split_text,
    tid,
)
from gwanjong_sandbox.corpus import BASE_TIME, Thread, build_corpus, walk
from gwanjong_sandbox.flood import FLOOD_KEY, flood_noise
from gwanjong_sandbox.state import SandboxState


class BlueskyState:
    """What the emulator holds between requests; reset() re-seeds it."""

    platform = "bluesky"
    prefixes = ("/xrpc/",)
    hosts: tuple[str, ...] = ()

    def __init__(self, state: SandboxState) -> None:
        self.state = state
        self.reset()

    # -- seed -----------------------------------------------------------------------

    def reset(self) -> None:
        self.accounts: dict[str, Account] = {}
        self.posts: dict[str, StoredPost] = {}
        self.gates: dict[str, dict[str, Any]] = {}  # root URI -> threadgate record
        self.roots: dict[str, str] = {}  # corpus key -> root URI
        self.likes: dict[tuple[str, str], str] = {}  # (liker DID, subject URI) -> like URI
        self.sessions: dict[str, Session] = {}  # access JWT -> session
        self.refresh_tokens: dict[str, Session] = {}
        self.counts: dict[str, int] = {}
        self.session_calls: dict[str, list[float]] = {}
        self.global_calls: list[float] = []
        self.access_ttl_s = ACCESS_TTL_S
        self._clock = itertools.count(1)
        base = datetime(2026, 11, 1, tzinfo=UTC)
        self.me = self._account(ME_HANDLE, "Gwanjong Bot", base, APP_PASSWORD)
        # our account discloses itself as Bluesky asks: the `bot` self-label on its profile
        assert self.me.profile is not None
        self.me.profile["labels"] = {"$type": SELF_LABELS, "values": [{"val": "bot"}]}
        self._account(PERSON_HANDLE, "A Person", base, PERSON_PASSWORD)
        self._account(WANDERER_HANDLE, "Wanderer", base, WANDERER_PASSWORD, pds=WANDERER_PDS)
        for thread in [*build_corpus(ME_NAME), *extra_threads()]:
            self._seed(thread)
        self._seed_quote()
        self.notes = [self._noise(n, when) for n, when in flood_noise()]
        gil = self._by_name("gatekeeper_gil")
        gil.follows.add(self._by_name("friend_fay").did)
        self._by_name("blocker_bo").blocks_me = True

    def _noise(self, n: int, when: datetime) -> dict[str, Any]:
        """A flood's noise as Bluesky notifies it: a like, repost or follow of ours, whose
        ``record`` is the like/repost record (``subject`` our flood post) or the follow
        record (``subject`` our DID), as payloads/bluesky/list-notifications.json shows."""
        reason = ("like", "repost", "follow")[n % 3]
        fan = self._author(f"fan_{n % 11}")
        collection = {"follow": "app.bsky.graph.follow"}.get(reason, f"app.bsky.feed.{reason}")
        uri = self._new_uri(fan.did, collection, when)
        root = self.posts[self.roots[FLOOD_KEY]]
        subject: Any = self.me.did
        if reason != "follow":
            subject = {"cid": root.cid, "uri": root.uri}
        note: dict[str, Any] = {
            "uri": uri,
            "cid": cid_for(uri),
            "author": fan.did,  # rendered as a profile when served
            "reason": reason,
            "record": {"$type": collection, "createdAt": iso(when), "subject": subject},
            "isRead": False,
            "indexedAt": iso(when + timedelta(milliseconds=250)),
            "labels": [],
        }
        if reason != "follow":
            note["reasonSubject"] = root.uri
        return note

    def _account(
        self,
        handle: str,
        display: str,
        created: datetime,
        password: str | None = None,
        pds: str | None = None,
    ) -> Account:
        did = did_for(handle)
        account = self.accounts.get(did)
        if account is None:
            account = Account(did, handle, display, iso(created), password, pds)
            account.profile = {"$type": PROFILE, "displayName": display, "createdAt": iso(created)}
            self.accounts[did] = account
        return account

    def _by_name(self, name: str) -> Account:
        return self.accounts[did_for(handle_for(name))]

    def _author(self, name: str) -> Account:
        return self._account(
            handle_for(name), name.replace("_", " ").title(), datetime(2024, 3, 1, tzinfo=UTC)
        )

    def _new_uri(self, did: str, collection: str, when: datetime) -> str:
        micros = int(when.timestamp() * 1_000_000)
        return f"at://{did}/{collection}/{tid(micros, next(self._clock))}"

    def _store(
        self,
        author: Account,
        text: str,
        when: datetime,
        *,
        root: str | None,
        parent: str | None,
        likes: int = 0,
        tags: list[str] | None = None,
        langs: list[str] | None = None,
    ) -> StoredPost:
        uri = self._new_uri(author.did, "app.bsky.feed.post", when)
        record: dict[str, Any] = {
            "$type": "app.bsky.feed.post",
            "createdAt": iso(when),
            "langs": langs or ["en"],
            "text": text,
        }
        facets = self._mention_facets(text)
        if facets:
            record["facets"] = facets
        if tags:
            record["tags"] = tags
        if root is not None and parent is not None:
            record["reply"] = {
                "parent": {"cid": self.posts[parent].cid, "uri": parent},
                "root": {"cid": self.posts[root].cid, "uri": root},
            }
        post = StoredPost(
            uri,
            cid_for(uri + text),
            author.did,
            record,
            iso(when + timedelta(milliseconds=250)),
            likes,
            0,
            root,
            parent,
        )
        self.posts[uri] = post
        if parent is not None:
            self.posts[parent].children.append(uri)
        return post

    def _mention_facets(self, text: str) -> list[dict[str, Any]]:
        facets: list[dict[str, Any]] = []
        if "@" not in text:
            return facets
        data = text.encode()
        for account in self.accounts.values():
            needle = f"@{account.handle}".encode()
            start = data.find(needle)
            while start != -1:
                facets.append(
                    {
                        "$type": "app.bsky.richtext.facet",
                        "features": [
                            {"$type": "app.bsky.richtext.facet#mention", "did": account.did}
                        ],
                        "index": {"byteEnd": start + len(needle), "byteStart": start},
                    }
                )
                start = data.find(needle, start + 1)
        return sorted(facets, key=lambda f: f["index"]["byteStart"])

    def _seed(self, thread: Thread) -> None:
        author = self._author(thread.author)
        text = f"{thread.title}\n\n{thread.body}".replace("{me}", f"@{ME_HANDLE}")
        created = thread.created
        lang = ["ko"] if thread.key == "korean-dev" else ["en"]
        if thread.deleted:  # gone: its URI exists in ids() only
            self.roots[thread.key] = self._new_uri(author.did, "app.bsky.feed.post", created)
            return
        parts = split_text(text)
        root = self._store(
            author,
            parts[0],
            created,
            root=None,
            parent=None,
            likes=thread.likes,
            tags=list(thread.tags),
            langs=lang,
        )
        self.roots[thread.key] = root.uri
        last = root
        for i, part in enumerate(parts[1:], start=1):  # the author's own continuation
            last = self._store(
                author,
                part,
                created + timedelta(seconds=i),
                root=root.uri,
                parent=last.uri,
                langs=lang,
            )
        if thread.key in GATES:
            self._gate(root.uri, created, allow=GATES[thread.key])
        uris: dict[str, str] = {}
        for node, _depth, parent in walk(thread.comments):
            who = self._author(node.author)
            when = created + timedelta(minutes=node.minutes, seconds=len(uris) % 60)
            parent_uri = uris[parent.key] if parent is not None else root.uri
            post = self._store(
                who,
                node.body.replace("{me}", f"@{ME_HANDLE}"),
                when,
                root=root.uri,
                parent=parent_uri,
                likes=node.likes,
                langs=lang,
            )
            uris[node.key] = post.uri
            post.gone = ODD.get(node.key)
            if node.deleted:  # hidden by the thread's author: listed, still in place
                gate = self._gate(root.uri, created)
                gate["hiddenReplies"].append(post.uri)

    def _gate(
        self, root: str, when: datetime, allow: list[dict[str, Any]] | None = None
    ) -> dict[str, Any]:
        gate = self.gates.get(root)
        if gate is None:
            gate = {
                "$type": "app.bsky.feed.threadgate",
                "createdAt": iso(when),
                "post": root,
                "hiddenReplies": [],
            }
            if allow is not None:
                gate["allow"] = allow
            self.gates[root] = gate
        return gate

    def demo_env(self, base_url: str) -> dict[str, str]:
        return {
            "BLUESKY_BASE_URL": base_url,
            "BLUESKY_HANDLE": ME_HANDLE,
            "BLUESKY_APP_PASSWORD": APP_PASSWORD,
            "BLUESKY_ALLOWED_HOSTS": urlsplit(base_url).hostname or "127.0.0.1",
        }

    def ids(self) -> dict[str, str]:
        ids = dict(self.roots)
        ids["missing"] = f"at://{self.me.did}/app.bsky.feed.post/3lzzzzzzzzz2a"
        return ids

    def _seed_quote(self) -> None:
        """Emulator-only: someone quoting our own post (a summons by quote, reason ``quote``)."""
        mine = self.posts[self.roots["my-post"]]
        quote = self._store(
            self._author("quote_quinn"),
            "This is the part people skip: rules before writes.",
            BASE_TIME - timedelta(hours=2),
            root=None,
            parent=None,
            likes=4,
        )
        quote.record["embed"] = {
            "$type": "app.bsky.embed.record",
            "record": {"cid": mine.cid, "uri": mine.uri},
        }
        self.roots["bsky-quotes-me"] = quote.uri
