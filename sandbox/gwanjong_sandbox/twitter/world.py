"""The X world both X emulators (v2 API, web GraphQL) render: users and posts seeded from the corpus."""

from __future__ import annotations

import re
import zlib
from datetime import UTC, datetime, timedelta

from gwanjong_sandbox.corpus import BASE_TIME, Node, build_corpus, walk
from gwanjong_sandbox.state import SandboxState
from gwanjong_sandbox.twitter.model import (
    ME,
    ME_ID,
    MISSING_ID,
    PROTECTED,
    READER,
    READER_ID,
    WEB_AUTH_TOKEN,
    XTweet,
    XUser,
    snowflake,
)
from gwanjong_sandbox.twitter.query import parse_query


class XWorld:
    """Users and posts, seeded from the corpus; ``reset`` puts the seed back."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.users: dict[str, XUser] = {}
        self._by_name: dict[str, XUser] = {}
        self.tweets: dict[str, XTweet] = {}
        self.thread_ids: dict[str, str] = {}
        self.sessions: dict[str, str] = {}  # web auth_token -> user id (twikit logins)
        self._seq = 0
        self.user(ME, name="Gwanjong Bot", uid=ME_ID)
        self.user(READER, name="Gwanjong Reader", uid=READER_ID)
        self.sessions[WEB_AUTH_TOKEN] = READER_ID
        for thread in build_corpus(ME):
            author = self.user(thread.author)
            text = f"{thread.title}\n\n{thread.body.replace('{me}', '@' + ME)}"
            text += "\n\n" + " ".join(f"#{t}" for t in thread.tags)
            root = self._add(
                author.id,
                text,
                thread.created,
                likes=thread.likes,
                lang="ko" if thread.key == "korean-dev" else "en",
            )
            root.deleted = thread.deleted
            self.thread_ids[thread.key] = root.id
            ids: dict[str, str] = {}
            for node, _depth, parent in walk(thread.comments):
                parent_id = ids[parent.key] if parent is not None else root.id
                ids[node.key] = self._reply(node, parent_id, thread.created).id
        # X-only seed: one post of ours, and someone quoting it (a summons by quote).
        mine = self._add(
            ME_ID,
            "Shipping notes: one gateway, five tools, and every write checked "
            "against the platform's rules first.",
            BASE_TIME - timedelta(hours=70),
            likes=9,
        )
        self.thread_ids["x-my-post"] = mine.id
        quoter = self.user("quote_quinn")
        quote_ = self._add(
            quoter.id,
            "This is the part people skip: rules before writes.",
            BASE_TIME - timedelta(hours=6),
            likes=4,
        )
        quote_.quoted = mine.id
        self.thread_ids["x-quotes-me"] = quote_.id
        # ... and a quote whose author lets only the accounts it mentions reply (not us).
        closed = self._add(
            self.user("quiet_quincy").id,
            "Quoting this, but replies are for the people I mention.",
            BASE_TIME - timedelta(hours=5, minutes=30),
        )
        closed.quoted, closed.reply_settings = mine.id, "mentionedUsers"
        self.thread_ids["x-quotes-me-closed"] = closed.id
        # A thread where one reply quotes a post from another conversation: the quoted post
        # rides along in includes.tweets of the conversation search, but is no reply.
        asker = self.user("lint_lena")
        asked = self._add(
            asker.id,
            "Migrated our linter config to the new format today. Took an hour, mostly renames.",
            BASE_TIME - timedelta(hours=5),
            likes=3,
        )
        self.thread_ids["x-quoting-thread"] = asked.id
        self._add(
            self.user("ops_omar").id,
            "Same here, the rename table in the changelog saved me.",
            BASE_TIME - timedelta(hours=4, minutes=50),
            reply_to=asked.id,
        )
        quoting = self._add(
            self.user("quote_quinn").id,
            "Related, on checking rules before acting:",
            BASE_TIME - timedelta(hours=4, minutes=40),
            reply_to=asked.id,
        )
        quoting.quoted = mine.id

    def user(self, username: str, name: str = "", uid: str | None = None) -> XUser:
        known = self._by_name.get(username.lower())
        if known is not None:
            return known
        created = datetime(2015, 1, 1, tzinfo=UTC) + timedelta(
            days=zlib.crc32(username.encode()) % 3000
        )
        uid = uid or str(4_300_000_000 + zlib.crc32(username.encode()) % 100_000_000)
        shown = name or username.replace("_", " ").title()
        user = XUser(uid, username, shown, created, protected=username.lower() == PROTECTED)
        self.users[uid] = user
        self._by_name[username.lower()] = user
        return user

    def by_username(self, username: str) -> XUser | None:
        return self._by_name.get(username.lower())

    def _add(
        self,
        author_id: str,
        text: str,
        created: datetime,
        *,
        reply_to: str | None = None,
        likes: int = 0,
        lang: str = "en",
    ) -> XTweet:
        self._seq += 1
        tid = snowflake(created, self._seq)
        parent = self.tweets.get(reply_to) if reply_to else None
        tweet = XTweet(
            id=tid,
            author_id=author_id,
            text=text,
            created=created,
            conversation_id=parent.conversation_id if parent else tid,
            reply_to=reply_to,
            reply_to_user=parent.author_id if parent else None,
            likes=likes,
            lang=lang,
        )
        self.tweets[tid] = tweet
        return tweet

    def _reply(self, node: Node, parent_id: str, start: datetime) -> XTweet:
        author = self.user(node.author)
        body = node.body.replace("{me}", "@" + ME)
        lang = "ko" if re.search(r"[\uac00-\ud7a3]", body) else "en"
        tweet = self._add(
            author.id,
            body,
            start + timedelta(minutes=node.minutes, seconds=self._seq % 60),
            reply_to=parent_id,
            likes=node.likes,
            lang=lang,
        )
        tweet.deleted = node.deleted
        return tweet

    def post(
        self, author_id: str, text: str, reply_to: str | None = None, quoted: str | None = None
    ) -> XTweet:
        tweet = self._add(author_id, text, datetime.now(UTC), reply_to=reply_to)
        tweet.quoted = quoted
        return tweet

    def live(self, tweet_id: str) -> XTweet | None:
        tweet = self.tweets.get(tweet_id)
        return None if tweet is None or tweet.deleted else tweet

    def reply_count(self, tweet_id: str) -> int:
        return sum(1 for t in self.tweets.values() if t.reply_to == tweet_id and not t.deleted)

    def quote_count(self, tweet_id: str) -> int:
        return sum(1 for t in self.tweets.values() if t.quoted == tweet_id and not t.deleted)

    def may_reply(self, tweet: XTweet, user_id: str) -> bool:
        """Does the post's reply setting let the user reply? (Only mentionedUsers is kept.)"""
        mentioned = self.users.get(user_id) is not None and any(
            name.lower() == self.users[user_id].username.lower()
            for _s, _e, name in tweet.mentions()
        )
        return tweet.reply_settings == "everyone" or tweet.author_id == user_id or mentioned

    def summons(self, tweet: XTweet, user_id: str) -> bool:
        """Does this post mention the user or quote one of their posts (X's 2026 reply rule)?"""
        user = self.users.get(user_id)
        if user is None:
            return False
        if any(name.lower() == user.username.lower() for _s, _e, name in tweet.mentions()):
            return True
        quoted = self.tweets.get(tweet.quoted) if tweet.quoted else None
        return quoted is not None and quoted.author_id == user_id

    def index(self, query: str) -> list[XTweet]:
        """Recent search's index hits, newest first, posts X no longer shows among them
        (deleted, or by an author protected since). Raises ValueError for a query X would
        reject."""
        matcher = parse_query(query)
        hits = [t for t in self.tweets.values() if matcher(t, self)]
        return sorted(hits, key=lambda t: int(t.id), reverse=True)

    def search(self, query: str) -> list[XTweet]:
        """The index hits X shows."""
        return [t for t in self.index(query) if self.shown(t)]

    def shown(self, tweet: XTweet) -> bool:
        author = self.users.get(tweet.author_id)
        return not tweet.deleted and not (author is not None and author.protected)


_WORLDS: dict[int, tuple[SandboxState, XWorld, object]] = {}


def world_for(state: SandboxState, emulator: object) -> tuple[XWorld, bool]:
    """The one X world per sandbox, shared by the v2 and the web emulator, and whether
    ``emulator`` owns it (the owner resets it: once per sandbox reset, not once per emulator)."""
    held = _WORLDS.get(id(state))
    if held is None or held[0] is not state:
        held = (state, XWorld(), emulator)
        _WORLDS[id(state)] = held
    return held[1], held[2] is emulator


class XWorldEmulator:
    """An emulator rendering the one X world (the v2 API, the web API): the owner resets it."""

    def __init__(self, state: SandboxState) -> None:
        self.state = state
        self.world, self._owner = world_for(state, self)
        self.reset()

    def reset(self) -> None:
        if self._owner:
            self.world.reset()

    def ids(self) -> dict[str, str]:
        return {**self.world.thread_ids, "missing": MISSING_ID}
