"""strike: the one place where gwanjong writes, and every check that comes first.

Order: known and drafted target → platform not paused → author not opted out → not done
before (a pending/unknown earlier attempt is settled by reading back first) → author
cool-down → daily cap and minimum interval → the platform's own `validate` (length,
never, human) → write mode (dry-run / confirm / live) → intent recorded → the write →
result recorded. Statuses: posted, dry_run, handoff, declined, refused, duplicate.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from gwanjong_gateway import policy
from gwanjong_gateway.config import GatewayConfig
from gwanjong_gateway.state import DraftContext
from gwanjong_gateway.store import Strike, StrikeStore, content_hash, intent_key
from gwanjong_gateway.upstreams import Upstreams
from gwanjong_shared.errors import ErrorKind, PlatformError

log = logging.getLogger(__name__)

TOOL = {"comment": "write_comment", "post": "write_post", "upvote": "upvote"}
Approver = Callable[[str], Awaitable[str]]  # message -> accept | decline | cancel | unsupported
UNSURE = (ErrorKind.TIMEOUT, ErrorKind.UNAVAILABLE)


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


class StrikeDesk:
    def __init__(self, config: GatewayConfig, upstreams: Upstreams, store: StrikeStore) -> None:
        self.config = config
        self.upstreams = upstreams
        self.store = store
        self._locks: dict[tuple[str, str, str], anyio.Lock] = {}

    def _lock(self, key: tuple[str, str, str]) -> anyio.Lock:
        return self._locks.setdefault(key, anyio.Lock())

    # -- the result shapes --------------------------------------------------------------

    @staticmethod
    def _result(status: str, **fields: Any) -> dict[str, Any]:
        return {"status": status, **{k: v for k, v in fields.items() if v not in (None, "")}}

    def _fields(
        self, ctx: DraftContext, action: str, text: str, title: str, key: str, **fields: Any
    ) -> dict[str, Any]:
        """A strike row's columns: the target and text from the draft, plus ``fields``."""
        post = ctx.opportunity.post
        return {
            "intent_key": key,
            "platform": post.platform,
            "target": "" if action == "post" else post.id,
            "target_url": post.url,
            "author": post.author,
            "opportunity": ctx.opportunity.id,
            "action": action,
            "content_hash": content_hash(text),
            "content": text,
            "title": title,
            "mode": self.config.gateway.writes,
            "context": ctx.shown,
            **fields,
        }

    def _refuse(
        self,
        ctx: DraftContext,
        action: str,
        text: str,
        reason: str,
        decisions: list[str],
        **extra: Any,
    ) -> dict[str, Any]:
        post = ctx.opportunity.post
        row = self.store.insert(
            **self._fields(
                ctx,
                action,
                text,
                "",
                intent_key(post.platform, post.id, action, text),
                target=post.id,
                status="refused",
                reason=reason,
                policy=[*decisions, f"refused: {reason}"],
            )
        )
        return self._result("refused", reason=reason, record=row.id, **extra)

    # -- strike ---------------------------------------------------------------------

    async def strike(
        self,
        ctx: DraftContext,
        action: str,
        content: str,
        title: str,
        approve: Approver,
        by: str | None = None,
    ) -> dict[str, Any]:
        post = ctx.opportunity.post
        platform = post.platform
        if action == "confirm_handoff":
            return await self.confirm_handoff(ctx, content, by)
        target = "" if action == "post" else post.id
        text = content.strip()
        decisions: list[str] = [f"mode={self.config.gateway.writes}"]
        if by is not None:  # the signed-in caller (HTTP with [auth]); a column later
            decisions.insert(0, f"by={by}")

        paused = self.store.paused(platform)
        if paused:
            return self._refuse(
                ctx,
                action,
                text,
                f"Writes to {platform} are paused: {paused}. Run setup(action='check', platform='{platform}') once the cause is fixed.",
                decisions,
            )
        if action != "post":
            why = policy.opted_out(self.config, platform, post.author)
            if why:
                return self._refuse(ctx, action, text, why, decisions)

        footer = policy.disclosure_for(self.config, platform)
        final = policy.with_disclosure(text, footer) if action != "upvote" else ""
        if footer and action != "upvote":
            decisions.append("disclosure appended")
        key = intent_key(platform, target or post.id, action, final)

        async with self._lock((platform, target or key, action)):
            earlier = self.store.claimed(platform, target, action, key)
            if earlier is not None and earlier.status in ("pending", "unknown"):
                earlier = await self.reconcile(earlier)
            if earlier is not None and earlier.status in ("posted", "handoff", "unknown"):
                return self._duplicate(action, earlier)

            if action == "comment":
                why = policy.author_cooldown(self.config, self.store, platform, post.author)
                if why:
                    return self._refuse(ctx, action, final, why, decisions)
            live = self.config.gateway.writes != "dry-run"
            if live:
                why = policy.daily_cap(self.config, self.store, platform, action)
                if why:
                    return self._refuse(ctx, action, final, why, decisions)
                wait = policy.min_interval(self.config, self.store, platform)
                if wait:
                    return self._refuse(
                        ctx, action, final, wait[0], decisions, retry_after=round(wait[1])
                    )

            check = await self.upstreams.call(
                platform,
                "validate",
                {
                    "action": TOOL[action],
                    "body": final,
                    "title": title,
                    "post_id": None if action == "post" else post.id,
                },
            )
            if not check.ok:
                raise PlatformError(
                    check.kind or ErrorKind.UNAVAILABLE,
                    f"Could not check the platform's rules: {check.message}",
                    retry_after=check.retry_after,
                )
            verdict = check.data
            length = verdict.get("length") or {}
            decisions.append(
                f"validate: allowed={verdict.get('allowed')} length={length.get('used')}/{length.get('max')} {length.get('unit')}"
            )
            if action != "upvote" and length.get("max") and length.get("used", 0) > length["max"]:
                over = length["used"] - length["max"]
                return self._refuse(
                    ctx,
                    action,
                    final,
                    f"Too long for {platform}: {length['used']} {length['unit']}, the limit is {length['max']} (cut {over}{' including the disclosure footer' if footer else ''}).",
                    decisions,
                )
            if verdict.get("allowed") == "never":
                return self._refuse(
                    ctx,
                    action,
                    final,
                    "; ".join(verdict.get("problems", [])) or f"{platform} does not allow this.",
                    decisions,
                )
            other = [p for p in verdict.get("problems", []) if verdict.get("allowed") == "auto"]
            if other:
                return self._refuse(ctx, action, final, "; ".join(other), decisions)
            if verdict.get("allowed") == "human":
                return self._handoff(
                    ctx,
                    action,
                    final,
                    title,
                    key,
                    decisions,
                    "; ".join(verdict.get("problems", [])),
                )

            where = (
                f"{platform} {TOOL[action]} on {post.url or post.id}"
                if action != "post"
                else f"a new {platform} post"
            )
            if not live:
                row = self.store.insert(
                    **self._fields(
                        ctx,
                        action,
                        final,
                        title,
                        key,
                        status="dry_run",
                        reason="writes = dry-run in gateway.toml",
                        policy=[*decisions, "dry-run: nothing sent"],
                    )
                )
                return self._result(
                    "dry_run",
                    would=self._would(ctx, action, final, title),
                    record=row.id,
                    reason='Nothing was written: writes = "dry-run" in gateway.toml. Set "confirm" or "live" to publish.',
                )

            approver = "auto"
            if self.config.gateway.writes == "confirm":
                answer = await approve(self._question(ctx, action, final, title, where))
                decisions.append(f"human: {answer}")
                if answer == "unsupported":
                    return self._refuse(
                        ctx,
                        action,
                        final,
                        'writes = "confirm" but this MCP client cannot ask you for approval (no elicitation support). Nothing was written. Use a client with elicitation, or set writes = "live" deliberately.',
                        decisions,
                    )
                if answer != "accept":
                    row = self.store.insert(
                        **self._fields(
                            ctx,
                            action,
                            final,
                            title,
                            key,
                            status="declined",
                            reason=f"the human chose {answer}",
                            approver="human",
                            policy=decisions,
                        )
                    )
                    return self._result(
                        "declined",
                        reason=f"You chose {answer}: nothing was written.",
                        record=row.id,
                    )
                approver = "human"
            return await self._write(ctx, action, final, title, key, decisions, approver)

    # -- pieces -------------------------------------------------------------------------

    def _duplicate(self, action: str, earlier: Strike) -> dict[str, Any]:
        if earlier.status == "unknown":
            why = (
                f"An earlier {action} on this target (record {earlier.id}) may have gone through and could "
                "not be read back; gwanjong will not risk a second one. Check the platform by hand."
            )
        else:
            why = f"Already done: this {action} was {earlier.status} earlier (record {earlier.id}); gwanjong never acts on the same target twice."
        return self._result("duplicate", reason=why, earlier=earlier.public())

    def _claim(self, **fields: Any) -> Strike | None:
        """Insert a live row; None if another claim on the same target won the race."""
        try:
            return self.store.insert(**fields)
        except sqlite3.IntegrityError:
            return None

    def _would(self, ctx: DraftContext, action: str, text: str, title: str) -> dict[str, Any]:
        post = ctx.opportunity.post
        args: dict[str, Any] = {"body": text} if action != "upvote" else {}
        if action == "comment":
            args["post_id"] = post.id
        elif action == "post":
            args["title"] = title
        else:
            args["post_id"] = post.id
        return {
            "platform": post.platform,
            "tool": TOOL[action],
            "arguments": args,
            "target": None if action == "post" else post.url,
        }

    def _question(self, ctx: DraftContext, action: str, text: str, title: str, where: str) -> str:
        head = f"Publish this {action} as your account on {ctx.opportunity.post.platform}?\nTarget: {where}"
        if title:
            head += f"\nTitle: {title}"
        return f"{head}\n\n{text}" if text else head

    def _handoff(
        self,
        ctx: DraftContext,
        action: str,
        text: str,
        title: str,
        key: str,
        decisions: list[str],
        why: str,
    ) -> dict[str, Any]:
        post = ctx.opportunity.post
        target = "" if action == "post" else post.id
        row = self._claim(
            **self._fields(
                ctx,
                action,
                text,
                title,
                key,
                status="handoff",
                reason=why,
                approver="human",
                policy=[*decisions, "handoff: a person must do this"],
            )
        )
        if row is None:
            earlier = self.store.claimed(post.platform, target, action, key)
            assert earlier is not None
            return self._duplicate(action, earlier)
        return self._result(
            "handoff",
            reason=why,
            open=post.url,
            text=text or None,
            title=title or None,
            record=row.id,
            next=f"Give the person the text and the link; once they have posted it, call strike(opportunity_id={ctx.opportunity.id!r}, action='confirm_handoff', content=<the URL of their post, optional>).",
        )

    async def _write(
        self,
        ctx: DraftContext,
        action: str,
        text: str,
        title: str,
        key: str,
        decisions: list[str],
        approver: str,
    ) -> dict[str, Any]:
        post = ctx.opportunity.post
        platform = post.platform
        args = self._would(ctx, action, text, title)["arguments"]
        if action == "post":
            args["tags"] = post.tags[:4]
        target = "" if action == "post" else post.id
        row = self._claim(
            **self._fields(
                ctx,
                action,
                text,
                title,
                key,
                status="pending",
                approver=approver,
                policy=[*decisions, "intent recorded"],
            )
        )
        if row is None:  # another gateway (or call) claimed this target first
            earlier = self.store.claimed(platform, target, action, key)
            assert earlier is not None
            return self._duplicate(action, earlier)
        outcome = await self.upstreams.call(platform, TOOL[action], args)
        if outcome.ok:
            return self._posted(row, outcome.data)
        if outcome.kind in UNSURE:
            # The write may have happened: find out before anyone retries.
            row = self.store.update(row.id, status="unknown", reason=outcome.error)
            settled = await self.reconcile(row)
            if settled.status == "posted":
                return self._result(
                    "posted",
                    url=settled.result_url,
                    record=settled.id,
                    approver=approver,
                    reason="The platform answered late; reading back showed the write went through.",
                )
        else:
            self.store.update(row.id, status="failed", reason=outcome.error)
        failures = self.store.record_failure(
            platform, outcome.error, self.config.safety.pause_after_failures
        )
        note = (
            f" Writes to {platform} are now paused after {failures} failures in a row."
            if failures >= self.config.safety.pause_after_failures
            else ""
        )
        raise PlatformError(
            outcome.kind or ErrorKind.UNAVAILABLE,
            f"{outcome.message} Nothing was written (record {row.id}).{note}",
            retry_after=outcome.retry_after,
        )

    def _posted(self, row: Strike, data: dict[str, Any] | None) -> dict[str, Any]:
        data = data or {}
        row = self.store.update(
            row.id,
            status="posted",
            result_id=str(data.get("id") or ""),
            result_url=str(data.get("url") or ""),
            policy=[*row.policy, "posted"],
        )
        self.store.record_success(row.platform)
        return self._result(
            "posted", url=row.result_url, id=row.result_id, record=row.id, approver=row.approver
        )

    async def reconcile(self, row: Strike) -> Strike:
        """Read the platform back to learn whether an unsure write happened."""
        found = await self._read_back(row)
        if found is None:
            return self.store.update(
                row.id,
                status="unknown",
                reason=row.reason or "outcome unknown; could not read back",
            )
        if found:
            log.info("record %s: read-back found the write", row.id)
            return self.store.update(
                row.id,
                status="posted",
                result_id=found.get("id", ""),
                result_url=found.get("url", ""),
                policy=[*row.policy, "read-back: found on the platform"],
            )
        return self.store.update(
            row.id,
            status="failed",
            reason="read-back: not on the platform, nothing was written",
            policy=[*row.policy, "read-back: not found"],
        )

    async def _read_back(self, row: Strike) -> dict[str, str] | None:
        """{} if not found, a dict if found, None if we cannot tell."""
        caps = await self.upstreams.call(row.platform, "capabilities", {})
        account = (caps.data or {}).get("account") if caps.ok else None
        needle = _norm(row.content)[:120]
        if row.action == "comment":
            listed = await self.upstreams.call(
                row.platform, "get_comments", {"post_id": row.target, "limit": 1000}
            )
            if not listed.ok:
                return None
            for c in listed.data.get("comments", []):
                mine = account is None or c.get("author", "").lower().lstrip("@") == str(
                    account
                ).lower().lstrip("@")
                if mine and needle and needle in _norm(c.get("body", "")):
                    return {"id": str(c.get("id", "")), "url": ""}
            return {}
        if row.action == "post":
            query = row.title or row.content[:60]
            listed = await self.upstreams.call(
                row.platform, "search", {"query": query, "limit": 50}
            )
            if not listed.ok:
                return None
            for p in listed.data.get("posts", []):
                mine = account is None or p.get("author", "").lower().lstrip("@") == str(
                    account
                ).lower().lstrip("@")
                if mine and (
                    needle in _norm(p.get("body", ""))
                    or (row.title and _norm(row.title) == _norm(p.get("title", "")))
                ):
                    return {"id": str(p.get("id", "")), "url": str(p.get("url", ""))}
            return {}
        return None  # votes cannot be read back through the contract

    async def reconcile_all(self) -> int:
        settled = 0
        for row in self.store.unsettled():
            new = await self.reconcile(row)
            settled += new.status != "unknown"
        return settled

    async def confirm_handoff(
        self, ctx: DraftContext, url: str, by: str | None = None
    ) -> dict[str, Any]:
        post = ctx.opportunity.post
        rows = [
            r
            for r in self.store.history(platform=post.platform, status="handoff", limit=500)
            if r.opportunity == ctx.opportunity.id
        ]
        if not rows:
            raise PlatformError(
                ErrorKind.INVALID_INPUT,
                f"There is no pending hand-off for {ctx.opportunity.id}. strike with action='comment' (or 'post') first.",
            )
        row = rows[0]
        link = url.strip() if url.strip().startswith("http") else ""
        if not link:
            found = await self._read_back(row)
            if found:
                link = found.get("url", "")
        row = self.store.update(
            row.id,
            status="posted",
            approver="human",
            result_url=link,
            policy=[
                *row.policy,
                f"hand-off confirmed {time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())}Z",
                *([f"by={by}"] if by is not None else []),
            ],
        )
        return self._result(
            "posted",
            url=link,
            record=row.id,
            approver="human",
            reason="Recorded as posted by a person.",
        )
