"""The interface each platform implements; the server factory turns it into MCP tools.

An adapter talks to one platform through its real SDK (or plain HTTP), maps the
platform's payloads to the shared models, and raises :class:`PlatformError` for every
failure. It knows nothing about MCP.
"""

from __future__ import annotations

import logging
import re
from abc import ABC, abstractmethod
from typing import ClassVar

from gwanjong_shared.contract import (
    ACTIONS,
    ActionRule,
    Capabilities,
    CommentList,
    CredentialState,
    Length,
    Limit,
    LimitName,
    MentionList,
    PostList,
    TagRules,
    Unit,
    Validation,
    errors,
)
from gwanjong_shared.contract.errors import ErrorKind, PlatformError
from gwanjong_shared.contract.models import Comment, Post, PostResult
from gwanjong_shared.contract.text import measure

log = logging.getLogger(__name__)
# An account lookup failing this way means the platform is out of reach, not a rule change.
_UNREACHABLE = (ErrorKind.UNAVAILABLE, ErrorKind.TIMEOUT)


class PlatformAdapter(ABC):
    #: short lowercase name, also the gateway's namespace ("devto")
    platform: ClassVar[str]
    #: human name for messages ("Dev.to")
    label: ClassVar[str]
    #: the actions whose resend the platform answers with the first (a Mastodon favourite:
    #: one per account and status): the server kit sends a repeat of them instead of holding it
    resends_safely: ClassVar[frozenset[str]] = frozenset()

    async def connect(self) -> None:  # noqa: B027 - optional hook
        """Open clients/sessions. Called once when the server starts."""

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Release clients/sessions. Called once when the server stops."""

    @abstractmethod
    def is_configured(self) -> bool:
        """True when credentials for writing are present."""

    @abstractmethod
    async def get_trending(self, limit: int) -> list[Post]: ...

    @abstractmethod
    async def search(self, query: str, limit: int) -> list[Post]: ...

    @abstractmethod
    async def get_post(self, post_id: str) -> Post: ...

    @abstractmethod
    async def get_comments(self, post_id: str, limit: int) -> list[Comment]: ...

    async def search_list(self, query: str, limit: int) -> PostList:
        """The posts as ``search`` lists them, and whether one of ours may match beyond: a
        full list may; an adapter that knows of pages it left unread says so itself."""
        posts = await self.search(query, limit)
        return PostList(posts=posts[:limit], more=len(posts) >= limit)

    async def comment_list(self, post_id: str, limit: int) -> CommentList:
        """The comments as ``get_comments`` lists them, and whether more may lie beyond: a
        full list may; an adapter that knows of branches it left unread says so itself."""
        comments = await self.get_comments(post_id, limit)
        return CommentList(comments=comments[:limit], more=len(comments) >= limit)

    @abstractmethod
    async def write_post(self, title: str, body: str, tags: list[str]) -> PostResult: ...

    @abstractmethod
    async def write_comment(self, post_id: str, body: str, parent_id: str | None) -> PostResult: ...

    @abstractmethod
    async def upvote(self, post_id: str) -> PostResult: ...

    @abstractmethod
    def static_capabilities(self) -> Capabilities:
        """Which actions a program may take here, and the text limits: the rules alone,
        known without the network (``account`` and ``reachable`` left None)."""

    async def account(self) -> str | None:
        """Our account's name, asking the platform if needed; None without credentials."""
        return None

    async def account_problem(self) -> str | None:
        """Why our account may not write at all, or None: a platform rule about the account
        itself (Mastodon's bot flag, Bluesky's `bot` self-label), with how to fix it.
        ``capabilities`` and ``validate`` turn every write rule into ``never`` with it; the
        writes check it again themselves."""
        return None

    async def _account_problem(self) -> str | None:
        """``account_problem``, or None while the platform is out of reach (the write itself
        checks again)."""
        try:
            return await self.account_problem()
        except PlatformError as exc:
            if exc.kind not in _UNREACHABLE:
                raise
            return None

    async def capabilities(self) -> Capabilities:
        """The static rules plus our account. The rules answer even when the platform is
        unreachable (``reachable: false``, ``account: null``)."""
        caps = self.static_capabilities()
        if not caps.configured:
            caps = caps.model_copy(update={"credentials_state": CredentialState.MISSING})
        try:
            account = await self.account()
        except PlatformError as exc:
            if exc.kind is ErrorKind.INVALID_INPUT or exc.kind is ErrorKind.NOT_SUPPORTED:
                raise
            log.info("%s: account lookup failed (%s); rules only", self.platform, exc.kind.value)
            update: dict[str, object] = {"reachable": exc.kind not in _UNREACHABLE}
            if exc.kind is ErrorKind.AUTH:  # the platform's own 401/403: our keys are refused
                update["credentials_state"] = CredentialState.REFUSED
            return caps.model_copy(update=update)
        reachable = True if account is not None else None
        update = {"account": account, "reachable": reachable}
        if account is not None:
            update["credentials_state"] = CredentialState.ACCEPTED
            if (problem := await self._account_problem()) is not None:
                never = ActionRule(allowed="never", reason=problem)
                update["actions"] = dict.fromkeys(caps.actions, never)
        return caps.model_copy(update=update)

    async def mentions(self, since: str | None, limit: int) -> MentionList:
        """Posts that mention or quote our account and replies to our posts: the oldest
        ``limit`` newer than the cursor ``since``, oldest first, with ``next_since`` the
        newest of them (``gwanjong_shared.kit.inbox`` does the paging and the cut). Each
        Post's id is what get_post and
        write_comment take for replying to it, and its tags name why it is here
        ("mention", "reply", "quote"). Items our account already answered are left out
        where the platform shows that."""
        raise errors.not_supported(
            f"{self.label} has no mentions feed in this server. Use search to find posts instead."
        )

    # -- validate: shared logic with small per-platform hooks ---------------------------

    def measure(self, text: str, unit: Unit) -> int:
        """Count text in the platform's unit; override for units like X's weighted chars."""
        return measure(text, unit)

    async def rule_for_target(self, action: str, post_id: str, rule: ActionRule) -> ActionRule:
        """Resolve the rule for one target. The default resolves nothing but `summoned`,
        which needs a platform check, so it becomes `human` unless overridden."""
        if rule.allowed == "summoned":
            return ActionRule(
                allowed="human",
                reason=f"{rule.reason} This server cannot check whether the post summoned us.",
            )
        return rule

    async def validate(
        self,
        action: str,
        body: str,
        title: str = "",
        post_id: str | None = None,
        tags: list[str] | None = None,
    ) -> Validation:
        if action not in ACTIONS:
            raise errors.invalid_input(
                f"action must be one of {', '.join(ACTIONS)}; got {action!r}."
            )
        caps = self.static_capabilities()  # rules first: no network, no pacing before them
        rule = caps.actions[action]  # type: ignore[index]
        problems: list[str] = []

        configured = rule.allowed in ("auto", "summoned") and self.is_configured()
        if configured and (problem := await self._account_problem()) is not None:
            rule = ActionRule(allowed="never", reason=problem)
        if action != "write_post" and not post_id:
            problems.append(f"{action} needs post_id: the post to act on.")
        elif (
            action != "write_post" and post_id and rule.allowed in ("auto", "summoned", "approved")
        ):
            rule = await self.rule_for_target(action, post_id, rule)

        limit_name: LimitName = "comment" if action == "write_comment" else "body"
        limit = caps.limits.get(limit_name)
        length = Length(used=0, max=0, unit="chars")
        if action != "upvote" and limit is not None:
            length = self._check_length(limit_name, body, limit, problems)
            if not body.strip():
                problems.append(f"The {limit_name} is empty; write the text first.")
        if action == "write_post":
            title_limit = caps.limits.get("title")
            if title_limit is not None:
                if not title.strip():
                    problems.append(f"{self.label} posts need a title.")
                if "".join(title.splitlines()) != title:  # any line break, U+2028 too
                    # sent, it would be one line (or refused): not the title a person saw
                    problems.append(
                        f"{self.label} titles are one line: remove the line breaks from "
                        "the title (more belongs in the text)."
                    )
                self._check_length("title", title, title_limit, problems)
            problems += self.tag_problems(tags or [], caps.tags)
        elif tags:
            problems.append(f"Only a new post carries tags; a {action} takes none.")

        if rule.allowed in ("never", "human"):
            problems.append(rule.reason)
        allowed = "auto" if rule.allowed == "summoned" else rule.allowed
        if allowed == "auto" and caps.actions[action].allowed == "approved":  # type: ignore[index]
            allowed = "approved"  # a target's check never lifts the person's approval
        where = caps.destination if action == "write_post" else ""
        return Validation(
            ok=not problems,
            allowed=allowed,
            problems=problems,
            length=length,
            destination=where,
            sent_with=caps.sent_with if action != "upvote" else {},
        )

    def tag_problems(self, tags: list[str], rules: TagRules | None) -> list[str]:
        """What is wrong with a new post's tags, under this platform's ``rules``. Tags are
        checked as given, never changed, so what is approved is what is sent."""
        if not tags:
            return []
        if rules is None:
            return [f"{self.label} posts take no tags; remove them ({tags!r})."]
        problems: list[str] = []
        if len(tags) > rules.max:
            problems.append(f"{self.label} takes at most {rules.max} tags; got {len(tags)}.")
        if len(set(tags)) < len(tags):
            problems.append(f"A tag is given twice in {tags!r}.")
        for tag in tags:
            if self.measure(tag, rules.unit) > rules.max_length or not tag:
                problems.append(
                    f"The tag {tag!r} is empty or over {rules.max_length} {rules.unit}."
                )
            elif rules.pattern and re.fullmatch(rules.pattern, tag) is None:
                what = rules.hint or f"matching {rules.pattern}"
                problems.append(f"The tag {tag!r} is not allowed: {self.label} tags are {what}.")
        return problems

    def _check_length(self, name: str, text: str, limit: Limit, problems: list[str]) -> Length:
        cap = max(4 * limit.max, 4096)
        if len(text) > cap:  # refuse before counting: X's weighted count of 1 MB takes seconds
            problems.append(
                f"The {name} is {len(text)} characters, far over {self.label}'s {limit.max} "
                f"{limit.unit}. Cut it to fit."
            )
            return Length(used=len(text), max=limit.max, unit=limit.unit)
        used = self.measure(text, limit.unit)
        if used > limit.max:
            problems.append(
                f"The {name} is {used} {limit.unit}; {self.label} allows {limit.max}. "
                f"Cut at least {used - limit.max} {limit.unit}."
            )
        return Length(used=used, max=limit.max, unit=limit.unit)
