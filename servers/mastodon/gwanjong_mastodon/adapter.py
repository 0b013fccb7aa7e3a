"""One Mastodon instance through Mastodon.py: statuses, hashtags, trends, context trees,
the mention inbox, and writes held to the fediverse's rules (bot flag, #nobot, visibility,
the instance's own character limit)."""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
from typing import Any, ClassVar
from urllib.parse import urlsplit

import anyio
from mastodon import Mastodon

from gwanjong_mastodon import client
from gwanjong_mastodon.client import run
from gwanjong_mastodon.length import status_length
from gwanjong_mastodon.profile import BOT_FLAG_HOWTO, build_profile
from gwanjong_mastodon.rules import FAVOURITE_RULE, POST_RULE, REPLY_RULE, opted_out, unshown
from gwanjong_mastodon.settings import Settings
from gwanjong_mastodon.statuses import comment_tree, post_of, text_of
from gwanjong_shared.contract import (
    ActionRule,
    Capabilities,
    Limit,
    LimitName,
    MentionList,
    PostList,
    Profile,
    Unit,
    Validation,
    errors,
)
from gwanjong_shared.contract.errors import ErrorKind, PlatformError
from gwanjong_shared.contract.models import Comment, Post, PostResult
from gwanjong_shared.kit.adapter import PlatformAdapter
from gwanjong_shared.kit.once import before_sending, unfinished_write
from gwanjong_shared.kit.ratelimit import Clock, Limiter, Sleep, TokenBucket
from gwanjong_shared.kit.target_cache import TargetCache

log = logging.getLogger(__name__)
DEFAULT_MAX_CHARS = 500  # Mastodon's default; each instance says its own
URL_CHARS = 23  # configuration.statuses.characters_reserved_per_url, by default
SEARCH_PAGE = 20  # /api/v2/search's statuses a page (its default limit)
SEARCH_PAGES = 10  # pages one search reads at most
OURS_PAGES = 5  # pages of our own statuses (40 each) a search reads at most
CREDENTIALS = ["MASTODON_ACCESS_TOKEN"]
_UNREACHABLE = (ErrorKind.UNAVAILABLE, ErrorKind.TIMEOUT)
_ID = re.compile(r"[A-Za-z0-9]{1,40}")
# a mention as Mastodon finds one (Account::MENTION_RE): @user or @user@domain
_MENTIONED = re.compile(r"(?<![=/\w])@([a-z0-9_]+(?:[a-z0-9_.-]*[a-z0-9_])?(?:@[\w.-]+\w)?)", re.I)
# Mastodon's hashtag characters (Tag::HASHTAG_NAME_PAT): word characters, · and ZWNJ
_HASHTAG = re.compile(r"#[\w\u00b7\u200c]+")


def compose(title: str, body: str) -> str:
    """Statuses have no title: a given title becomes the first paragraph of the text (the
    text as approved, to its last character)."""
    title = title.strip()
    return f"{title}\n\n{body}" if title else body


class MastodonAdapter(PlatformAdapter):
    platform: ClassVar[str] = "mastodon"
    label: ClassVar[str] = "Mastodon"
    # A favourite is one per account and status. A status is held as elsewhere: Mastodon
    # stores its Idempotency-Key only once the status is written, so a repeat while the
    # first is still at work (it timed out) would post a second one.
    resends_safely: ClassVar[frozenset[str]] = frozenset({"upvote"})

    def __init__(
        self, settings: Settings, *, clock: Clock = time.monotonic, sleep: Sleep = anyio.sleep
    ) -> None:
        self.settings = settings
        self.base_url = settings.api_base_url.rstrip("/")
        self.limiter = Limiter(
            self.label,
            reads=TokenBucket(settings.requests_per_5min, 300.0, clock, sleep),
            clock=clock,
            sleep=sleep,
        )
        self.api: Mastodon | None = None
        self.max_chars = DEFAULT_MAX_CHARS
        self.url_chars = URL_CHARS
        self.rules: list[str] = []
        self.domain = ""  # the instance's own name for itself (/api/v2/instance: domain)
        self._instance_read = False
        self._me: dict[str, Any] | None = None
        # validate, the write tool's own validate and the write read a target once
        self.targets: TargetCache[dict[str, Any]] = TargetCache(clock=clock)

    # -- plumbing --------------------------------------------------------------------

    async def connect(self) -> None:
        token = self.settings.access_token
        self.api = client.connect(
            self.base_url,
            token.get_secret_value() if token else None,
            self.limiter,
            self.settings.timeout_s,
        )
        # No request here: the instance's limit and rules are read on first use
        # (capabilities, validate), inside the call that needs them and its trace.

    async def call(
        self, method: str, *args: Any, what: str, write: bool = False, item: str = "", **kw: Any
    ) -> Any:
        """Mastodon.py's ``method`` (by name: the client may not exist yet) in a thread;
        ``item``: what a read by id asks for."""
        if self.api is None:
            await self.connect()
        assert self.api is not None
        fn = getattr(self.api, method)
        async with self.limiter.paced(write=write):
            return await run(
                self.api,
                self.limiter,
                client.partial(fn, *args, **kw),
                what=what,
                write=write,
                item=item or None,
            )

    async def instance(self) -> None:
        """The instance's character limit, URL weight and rules (once)."""
        if self._instance_read or not self.is_configured():
            return  # without an account nothing is written: the limit is not needed
        if self.api is None:
            await self.connect()  # which reads it
            return
        info = await self.call("instance_v2", what="reading the instance's description")
        statuses = ((info.get("configuration") or {}).get("statuses")) or {}
        self.max_chars = int(statuses.get("max_characters") or DEFAULT_MAX_CHARS)
        self.url_chars = int(statuses.get("characters_reserved_per_url") or URL_CHARS)
        self.domain = str(info.get("domain") or "").lower()
        rules = await self.call("instance_rules", what="reading the instance's rules")
        self.rules = [str(r.get("text") or "").strip() for r in rules or [] if r.get("text")]
        self._instance_read = True

    def is_configured(self) -> bool:
        return self.settings.access_token is not None

    async def me(self, *, fresh: bool = False) -> dict[str, Any]:
        """Our account (verify_credentials), once (``fresh``: read again); ``auth``
        without a token."""
        if self._me is None or fresh:
            if not self.is_configured():
                raise errors.auth(f"No Mastodon account is configured. {client.TOKEN_HINT}")
            self._me = dict(
                await self.call("account_verify_credentials", what="reading our account")
            )
        return self._me

    async def account(self) -> str | None:
        if not self.is_configured():
            return None
        return str((await self.me()).get("acct") or "") or None

    def profile(self) -> Profile:
        host = self.domain or (urlsplit(self.base_url).hostname or "")
        return build_profile(f"Mastodon ({host})", self.settings.disclosure, self.rules, host)

    async def capabilities(self) -> Capabilities:
        try:
            await self.instance()
        except PlatformError as exc:
            log.info("mastodon: instance unread (%s); default limits", exc.kind.value)
        caps = await super().capabilities()
        return caps.model_copy(update={"profile": self.profile()})

    def static_capabilities(self) -> Capabilities:
        limit = Limit(max=self.max_chars, unit="graphemes")
        limits: dict[LimitName, Limit] = {"body": limit, "comment": limit}
        return Capabilities(
            platform=self.platform,
            configured=self.is_configured(),
            actions={
                "write_post": POST_RULE,
                "write_comment": REPLY_RULE,
                "upvote": FAVOURITE_RULE,
            },
            limits=limits,
            credentials=CREDENTIALS,
        )

    def measure(self, text: str, unit: Unit) -> int:
        """Mastodon's count: every URL it links weighs ``characters_reserved_per_url``, a
        remote mention counts without its domain (length.py)."""
        return status_length(text, unit, self.url_chars)

    # -- reads ----------------------------------------------------------------------

    async def status(self, status_id: str) -> dict[str, Any]:
        if not _ID.fullmatch(status_id):  # numbers on Mastodon; other servers use ULIDs
            raise errors.invalid_input(
                f"Mastodon status ids are like 109372843234; got {status_id!r}. Use an id "
                "from search, trending or mentions."
            )
        return dict(
            await self.call(
                "status", status_id, what="reading a status", item=f"status {status_id}"
            )
        )

    async def target(self, status_id: str) -> dict[str, Any]:
        """A write's target, read once for validate and the write (kit/target_cache.py)."""
        return await self.targets.fetch(status_id, lambda: self.status(status_id))

    async def get_trending(self, limit: int) -> list[Post]:
        statuses = await self.call(
            "trending_statuses", limit=min(limit, 40), what="reading trending statuses"
        )
        return [post_of(s, self.platform, local=self.base_url) for s in statuses or []][:limit]

    async def search(self, query: str, limit: int) -> list[Post]:
        return (await self.search_list(query, limit)).posts

    async def search_list(self, query: str, limit: int) -> PostList:
        """Our statuses holding the query first, then the search's or the tag timeline's;
        ``more`` unless every match of ours was read: our statuses to their end, or a
        search that shows them all. An unsure post is read back through it (kit/once.py)."""
        words = query.split()
        if len(words) == 1 and _HASHTAG.fullmatch(words[0]):  # it goes into a path as is
            # no proof ours are all there: a tag's timeline leaves out a limited account's
            # statuses and those in languages the reader filters out (PublicFeed)
            found, shown = await self._tagged(words[0][1:], limit), False
        else:
            found, shown = await self._searched(query, limit)
        ours, all_ours = await self._ours_with(
            words, 1 if shown or len(found) >= limit else OURS_PAGES
        )
        unique = {str(s["id"]): s for s in ours} | {str(s["id"]): s for s in found}
        posts = [post_of(s, self.platform, local=self.base_url) for s in unique.values()]
        return PostList(posts=posts[:limit], more=len(posts) >= limit or not (shown or all_ours))

    async def _searched(self, query: str, limit: int) -> tuple[list[dict[str, Any]], bool]:
        """The search's statuses, and whether it shows all of ours: read to its end, it
        found statuses, so the instance runs Elasticsearch, which finds a searcher's own
        (without it, which many instances run none of, it finds no statuses by words)."""
        # Mastodon.py sends no limit: 20 a page, paged on by offset. A page may come back
        # short and not be the last: the instance drops what we may not see (blocks,
        # mutes) after its index answered, so only an empty page ends the listing. At most
        # SEARCH_PAGES pages: an instance (or a proxy) that ignores offset answers the same
        # page for ever, and one cut there did not end.
        unique: dict[str, dict[str, Any]] = {}
        for page_number in range(SEARCH_PAGES):
            found = await self.call(
                "search_v2",
                query,
                resolve=False,
                result_type="statuses",
                offset=page_number * SEARCH_PAGE or None,
                what="searching",
            )
            page = list((found or {}).get("statuses") or [])
            if not page:
                return list(unique.values()), bool(unique)
            for status in page:
                unique.setdefault(str(status["id"]), status)
            if len(unique) >= limit:
                break
        return list(unique.values()), False

    async def _tagged(self, tag: str, limit: int) -> list[dict[str, Any]]:
        """The tag's timeline, paged on (max_id) past its 40 a page until ``limit``, an
        empty page (its end: a page may come back short and not be the last, as the
        instance drops statuses it may not show after reading it) or SEARCH_PAGES pages."""
        found: list[dict[str, Any]] = []
        for _ in range(SEARCH_PAGES):
            if len(found) >= limit:
                break
            page = list(
                await self.call(
                    "timeline_hashtag",
                    tag,
                    limit=min(limit - len(found), 40),
                    max_id=found[-1]["id"] if found else None,
                    what="reading that hashtag",
                )
                or []
            )
            if not page:
                break
            found += page
        return found

    async def _ours_with(self, words: list[str], pages: int) -> tuple[list[dict[str, Any]], bool]:
        """Our latest statuses holding every word, from at most ``pages`` pages of 40, and
        whether they were read to their end (an empty page). An unsure post is read back
        through search, and may be older than our latest 40 (read back later, or the
        account posted on)."""
        if not self.is_configured():
            return [], True  # no statuses of ours to miss
        me = await self.me()
        mine: list[dict[str, Any]] = []
        ended = False
        for _ in range(pages):
            page = list(
                await self.call(
                    "account_statuses",
                    me["id"],
                    exclude_reblogs=True,
                    limit=40,
                    max_id=mine[-1]["id"] if mine else None,
                    what="reading our statuses",
                )
                or []
            )
            if not page:
                ended = True
                break
            mine += page
        texts = [(s, text_of(s.get("content"), s.get("mentions")).lower()) for s in mine]
        return [s for s, text in texts if all(w.lower() in text for w in words)], ended

    async def get_post(self, post_id: str) -> Post:
        return post_of(await self.status(post_id), self.platform, local=self.base_url)

    async def get_comments(self, post_id: str, limit: int) -> list[Comment]:
        status = await self.status(post_id)
        context = await self.call(
            "status_context",
            post_id,
            what="reading replies",
            item=f"the replies to status {post_id}",
        )
        return comment_tree(post_id, status, context, self.platform, limit, self.base_url)

    async def mentions(self, since: str | None, limit: int) -> MentionList:
        from gwanjong_mastodon.mentions import fetch_mentions

        return await fetch_mentions(self, since, limit)

    # -- rules per target -------------------------------------------------------------

    async def account_problem(self, *, fresh: bool = False) -> str | None:
        """Why our account may not write at all (its bot flag is off), or None; validate and
        capabilities say it too (the kit's adapter)."""
        if not bool((await self.me(fresh=fresh)).get("bot")):
            return (
                "Our Mastodon account is not flagged as automated, and this server writes only "
                f"from accounts that are. {BOT_FLAG_HOWTO}"
            )
        return None

    async def rule_for_target(self, action: str, post_id: str, rule: ActionRule) -> ActionRule:
        target = await self.target(post_id)  # a missing target is not_found
        author = dict(target.get("account") or {})
        tag = opted_out(author)
        if tag is not None:
            return ActionRule(
                allowed="never",
                reason=f"@{author.get('acct')} has {tag} in their profile: they asked for no "
                "automated replies or interactions, so nobody may send one from this account.",
            )
        if not self.is_configured():
            return ActionRule(
                allowed="human",
                reason=f"{rule.reason} No Mastodon account is configured, so this server "
                "cannot tell whether the status summoned us.",
            )
        narrow = unshown(target) if action == "write_comment" else None
        if narrow is not None:
            return ActionRule(allowed="human", reason=narrow)
        me = await self.me()
        my_id = str(me.get("id"))
        mentioned = any(str(m.get("id")) == my_id for m in target.get("mentions") or [])
        answers_us = str(target.get("in_reply_to_account_id") or "") == my_id
        if rule.allowed != "summoned" or mentioned or answers_us:
            return ActionRule(allowed="auto", reason=rule.reason)
        return ActionRule(
            allowed="human",
            reason=f"{rule.reason} This status does not mention @{me.get('acct')} or answer "
            "one of our statuses, so a person must decide whether to answer.",
        )

    async def validate(
        self,
        action: str,
        body: str,
        title: str = "",
        post_id: str | None = None,
        tags: list[str] | None = None,
    ) -> Validation:
        try:
            await self.instance()  # the limit is the instance's
        except PlatformError as exc:
            if exc.kind not in _UNREACHABLE:
                raise
        if action == "write_post":  # no titles: count exactly what write_post sends
            body, title = compose(title, body), ""
        check = await super().validate(action, body, title, post_id, tags)
        if action != "upvote":
            parent = await self.target(post_id) if post_id else None
            stranger = self.strangers(body, parent)
            if stranger is not None:
                check = check.with_problems(stranger)
        return check

    def strangers(self, text: str, parent: dict[str, Any] | None) -> str | None:
        """Why ``text`` may not go out: it mentions someone but the author it answers, whom
        the mention would notify (from a program, unasked: spam, whatever their #nobot)."""
        ours = str((self._me or {}).get("acct") or "").lower()
        author = str(((parent or {}).get("account") or {}).get("acct") or "").lower()
        local = f"@{self.domain}" if self.domain else "@"  # "@" ends no handle
        named = {m.lower().removesuffix(local) for m in _MENTIONED.findall(text)}
        others = sorted(named - {ours, author})
        if not others:
            return None
        return (
            f"The text mentions {', '.join(f'@{h}' for h in others)}, who did not ask us: a "
            "mention notifies them, and on Mastodon a program's unsolicited mention is spam. "
            "Leave it out (a reply may mention the author it answers)."
        )

    async def _refuse_unless_auto(self, action: str, target: str | None) -> None:
        """Writes check again where they land (a reply's parent may not be the validated
        post): nothing is sent that the rules refuse. The bot flag is read again: a person
        or the instance's moderators may have taken it off since the server started."""
        async with before_sending(self.label, action, "our account's bot flag, the target"):
            problem = await self.account_problem(fresh=True)
            rule = None
            if problem is None and target is not None:
                base = REPLY_RULE if action == "write_comment" else FAVOURITE_RULE
                rule = await self.rule_for_target(action, target, base)
        if problem is not None:
            raise errors.not_supported(f"{action} is not allowed: {problem}")
        if rule is not None and rule.allowed != "auto":
            raise errors.not_supported(f"{action} is not allowed for a program: {rule.reason}")

    # -- writes -----------------------------------------------------------------------

    def _result(self, action: Any, status: dict[str, Any], what: str) -> PostResult:
        if not status.get("id"):  # a 2xx that is no status (a proxy's JSON): it may have landed
            raise unfinished_write(self.label, what, "an answer without a status", timed_out=False)
        return PostResult(
            ok=True,
            platform=self.platform,
            action=action,
            id=str(status.get("id")),
            url=str(status.get("url") or status.get("uri") or "") or None,
        )

    def idempotency_key(self, text: str, *, in_reply_to: str | None) -> str:
        """One key per distinct write, the same for a resend of it: Mastodon answers a
        reused key (per account, for an hour) with the first status and posts nothing, so
        everything that makes a status what it is goes in (the account too; every status is
        public, with no content warning)."""
        account = f"{(self._me or {}).get('id')}@{urlsplit(self.base_url).hostname}"
        parts = [account, in_reply_to, text]
        return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:32]

    async def write_post(self, title: str, body: str, tags: list[str]) -> PostResult:
        await self._refuse_unless_auto("write_post", None)
        text = compose(title, body)  # no tags: the kit refused them (hashtags go in the text)
        stranger = self.strangers(text, None)
        if stranger is not None:
            raise errors.invalid_input(stranger)
        status = await self.call(
            "status_post",
            text,
            visibility="public",
            idempotency_key=self.idempotency_key(text, in_reply_to=None),
            what="posting",
            write=True,
        )
        return self._result("write_post", dict(status), "posting")

    async def write_comment(self, post_id: str, body: str, parent_id: str | None) -> PostResult:
        target = (parent_id or post_id).strip()
        # the rules of the status answered (a parent_id may not be the validated post): only
        # a public one with no content warning, so the reply is public with none, as shown
        await self._refuse_unless_auto("write_comment", target)
        stranger = self.strangers(body, await self.target(target))
        if stranger is not None:
            raise errors.invalid_input(stranger)
        status = await self.call(
            "status_post",
            body,
            in_reply_to_id=target,
            visibility="public",
            idempotency_key=self.idempotency_key(body, in_reply_to=target),
            what="replying",
            write=True,
        )
        self.targets.forget(target)  # its replies count changed
        return self._result("write_comment", dict(status), "replying")

    async def upvote(self, post_id: str) -> PostResult:
        await self._refuse_unless_auto("upvote", post_id)
        status = await self.call("status_favourite", post_id, what="favouriting", write=True)
        self.targets.forget(post_id)
        return self._result("upvote", dict(status), "favouriting")
