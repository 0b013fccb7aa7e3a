"""r/Bottiquette's machine-readable lists (its wiki page robots_txt_json): subreddits that
do not want bots ("disallowed"), want their moderators asked first ("permission"), or take
only posts ("posts-only") or only comments ("comments-only") from them.

The page is read once and kept a day, on the adapter's clock. A page that cannot be read
(missing, refused, not JSON) hands each write to a person, and that answer is kept an hour:
sending would go into subreddits that may ban bots unchecked, and refusing would stop every
write over one wiki page. Reddit out of reach (5xx, timeout, its rate limit) or refusing
our credentials is no answer about the page: that error goes to the caller, as for any other
read (validate of a new post lets it pass, as the kit does offline: the write checks again).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field

import asyncpraw

from gwanjong_reddit.client import RedditClient
from gwanjong_reddit.rules import COMMENT_RULE, POST_RULE
from gwanjong_shared.contract import ActionRule, errors
from gwanjong_shared.contract.errors import ErrorKind, PlatformError
from gwanjong_shared.kit.target_cache import TargetCache

PAGE = "r/Bottiquette/wiki/robots_txt_json"
FRESH_S = 24 * 3600.0
UNREADABLE_S = 3600.0
LISTS = ("disallowed", "permission", "posts-only", "comments-only")
#: the list that keeps each write out, besides "disallowed"
_ONLY_OTHER = {"write_comment": "posts-only", "write_post": "comments-only"}
_BASE = {"write_comment": COMMENT_RULE, "write_post": POST_RULE}
_WHAT = {"write_comment": "comments", "write_post": "posts"}
#: failures that say nothing about the page itself
NO_VERDICT = (ErrorKind.UNAVAILABLE, ErrorKind.TIMEOUT, ErrorKind.RATE_LIMITED, ErrorKind.AUTH)


@dataclass(frozen=True)
class Lists:
    #: list name -> lowercase subreddit names; empty when the page could not be read
    names: dict[str, frozenset[str]] = field(default_factory=lambda: {})
    unreadable: str = ""  # why the page could not be read
    read_at: float = 0.0

    def has(self, name: str, subreddit: str) -> bool:
        return subreddit.lower() in self.names.get(name, frozenset())


def parse(text: str) -> dict[str, frozenset[str]] | None:
    """The lists in the page's text (a missing or odd list is empty), or None if not JSON."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None

    def names(value: object) -> frozenset[str]:
        items = value if isinstance(value, list) else []
        return frozenset(
            n.strip().lower().removeprefix("/").removeprefix("r/")
            for n in items
            if isinstance(n, str)
        )

    return {name: names(data.get(name)) for name in LISTS}


class Bottiquette:
    def __init__(self, client: RedditClient, clock: Callable[[], float]) -> None:
        self.client = client
        self.clock = clock
        # one key: concurrent checks share one read of the page
        self._page: TargetCache[Lists] = TargetCache(ttl_s=FRESH_S, max_size=1, clock=clock)

    async def lists(self) -> Lists:
        found = await self._page.fetch(PAGE, self._read)
        if found.unreadable and self.clock() - found.read_at >= UNREADABLE_S:
            self._page.forget(PAGE)
            found = await self._page.fetch(PAGE, self._read)
        return found

    async def _read(self) -> Lists:
        async def page(reddit: asyncpraw.Reddit) -> str:
            subreddit = await reddit.subreddit("Bottiquette")
            wiki = await subreddit.wiki.get_page("robots_txt_json")
            return str(vars(wiki).get("content_md") or "")

        try:
            text = await self.client.run("reading r/Bottiquette's bot lists", page, missing=PAGE)
        except PlatformError as exc:
            if exc.kind in NO_VERDICT:
                raise
            return Lists(unreadable=f"Reddit answered {exc.kind.value}", read_at=self.clock())
        names = parse(text)
        if names is None:
            return Lists(unreadable="the page is not JSON", read_at=self.clock())
        return Lists(names, read_at=self.clock())

    async def rule(self, action: str, subreddit: str, rule: ActionRule) -> ActionRule:
        """``rule`` for a write in ``subreddit``, as r/Bottiquette's lists have it."""
        if rule.allowed in ("never", "human") or action not in _BASE or not subreddit:
            return rule
        lists = await self.lists()
        sub, what = f"r/{subreddit}", _WHAT[action]
        if lists.unreadable:
            return ActionRule(
                allowed="human",
                reason=f"r/Bottiquette's list of subreddits that do not want bots ({PAGE}) "
                f"could not be read ({lists.unreadable}), so whether {sub} takes a program's "
                f"{what} was not checked: a person reads its rules and writes it by hand.",
            )
        if lists.has("disallowed", subreddit):
            return ActionRule(
                allowed="never",
                reason=f"{sub} is on r/Bottiquette's list of subreddits that do not want bots "
                f'("disallowed", {PAGE}): no program posts or comments there.',
            )
        only = _ONLY_OTHER[action]
        if lists.has(only, subreddit):
            return ActionRule(
                allowed="never",
                reason=f'{sub} is on r/Bottiquette\'s "{only}" list ({PAGE}): a bot takes no '
                f"{what} there.",
            )
        if lists.has("permission", subreddit):
            return ActionRule(
                allowed="human",
                reason=f'{sub} is on r/Bottiquette\'s "permission" list ({PAGE}): a bot asks '
                "its moderators first. A person asks them, or writes this by hand.",
            )
        return rule

    async def require(self, action: str, subreddit: str) -> None:
        """Refuse the write before any request unless the lists let a program make it."""
        rule = await self.rule(action, subreddit, _BASE[action])
        if rule.allowed in ("never", "human"):
            who = " A person can do it by hand." if rule.allowed == "human" else ""
            raise errors.not_supported(
                f"{action} is not allowed for a program on Reddit: {rule.reason} "
                f"Nothing was sent.{who}"
            )
