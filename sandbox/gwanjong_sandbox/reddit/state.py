"""Reddit emulator state: the seeded links and comments, tokens, rate windows, the clock."""

from __future__ import annotations

import time
import zlib
from typing import Any

from gwanjong_sandbox.corpus import BASE_TIME, Node, Thread, build_corpus
from gwanjong_sandbox.flood import flood_noise, noise_text
from gwanjong_sandbox.reddit.model import (
    CLIENT_ID,
    CLIENT_SECRET,
    ME,
    PASSWORD,
    PREFIX,
    THREAD_SUBS,
    RComment,
    RLink,
    b36,
    md_html,
    user_fullname,
)
from gwanjong_sandbox.state import SandboxState


class RedditState:
    """What the emulator holds between requests; reset() re-seeds it from the corpus."""

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
            if thread.key == "empty-thread":  # Reddit only: its copies closed to comments
                for closed in ("locked", "archived", "removed"):
                    key = f"{closed}-thread"
                    self.by_thread[key] = self._unique(f"link:{key}", int("1q00000", 36), taken)
                    copy = self._link(self.by_thread[key], thread)
                    copy.closed, copy.score = closed, 0
                    self.links[copy.id] = copy
        # A flood's noise: private messages (t4), which only /message/inbox and unread list.
        self.messages: list[dict[str, Any]] = [
            self._message(b36(int("2r00000", 36) + n), n, when.timestamp())
            for n, when in flood_noise()
        ]
        self._next_link = int("1r00000", 36)
        self._next_comment = int("o700000", 36)
        self.missing = "1zzzzzz"

    @staticmethod
    def _message(message_id: str, n: int, created: float) -> dict[str, Any]:
        """A user's private message to us, keyed as payloads/reddit/inbox.json records t4."""
        sender = f"pen_pal_{n % 13}"
        return {
            "first_message": None,
            "first_message_name": None,
            "subreddit": None,
            "likes": None,
            "replies": "",
            "author_fullname": user_fullname(sender),
            "id": message_id,
            "subject": f"Quick question {n}",
            "associated_awarding_id": None,
            "score": 0,
            "author": sender,
            "num_comments": None,
            "parent_id": None,
            "subreddit_name_prefixed": None,
            "new": True,
            "type": "unknown",
            "body": noise_text(n),
            "dest": ME,
            "was_comment": False,
            "body_html": f"<!-- SC_OFF -->{md_html(noise_text(n))}<!-- SC_ON -->",
            "name": f"t4_{message_id}",
            "created": created,
            "created_utc": created,
            "context": "",
            "distinguished": None,
        }

    @staticmethod
    def _unique(key: str, base: int, taken: set[str]) -> str:
        n = base + zlib.crc32(key.encode()) % 36**5
        while b36(n) in taken:
            n += 1
        taken.add(b36(n))
        return b36(n)

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
            locked=node.locked,
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
