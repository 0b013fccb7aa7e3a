"""strike: the one place where gwanjong writes, and every check that comes first.

Order: known and drafted target → platform not paused → author not opted out → not done
before (an unsure earlier attempt is read back first) → author cool-down → daily cap and
minimum interval → the platform's own `validate` (length, never, human) → write mode
(dry-run / confirm / live) → the claim (every limit again, atomically, in one
transaction with the `pending` row) → the write → result recorded. Statuses: posted,
dry_run, handoff, declined, refused, duplicate.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from gwanjong_gateway import policy
from gwanjong_gateway.config import GatewayConfig
from gwanjong_gateway.ledger import (
    UNSETTLED,
    ClaimRequest,
    Strike,
    StrikeStatus,
    Verdict,
    content_hash,
    intent_key,
)
from gwanjong_gateway.records import Records
from gwanjong_gateway.settle import Settler
from gwanjong_gateway.state import DraftContext
from gwanjong_gateway.store import StrikeStore
from gwanjong_gateway.strike_text import TOOL, duplicate, question, result, would
from gwanjong_gateway.upstreams import Upstreams
from gwanjong_shared.errors import ErrorKind, PlatformError

Approver = Callable[[str], Awaitable[str]]  # message -> accept | decline | cancel | unsupported
UNSURE = (ErrorKind.TIMEOUT, ErrorKind.UNAVAILABLE)


class StrikeDesk:
    def __init__(
        self,
        config: GatewayConfig,
        upstreams: Upstreams,
        records: Records,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.config = config
        self.upstreams = upstreams
        self.records = records
        self.clock = clock
        self.settler = Settler(config, upstreams, records, clock)
        self._locks: dict[tuple[str, str, str], anyio.Lock] = {}

    def _lock(self, key: tuple[str, str, str]) -> anyio.Lock:
        return self._locks.setdefault(key, anyio.Lock())

    # -- rows -----------------------------------------------------------------------------

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

    async def _insert(self, **fields: Any) -> Strike:
        return await self.records.run(StrikeStore.insert, now=self.clock(), **fields)

    async def _refuse(
        self,
        ctx: DraftContext,
        action: str,
        text: str,
        reason: str,
        decisions: list[str],
        **extra: Any,
    ) -> dict[str, Any]:
        post = ctx.opportunity.post
        row = await self._insert(
            **self._fields(
                ctx,
                action,
                text,
                "",
                intent_key(post.platform, post.id, action, text),
                target=post.id,
                status=StrikeStatus.REFUSED,
                reason=reason,
                policy=[*decisions, f"refused: {reason}"],
            )
        )
        return result("refused", reason=reason, record=row.id, **extra)

    def _request(self, row: dict[str, Any], action: str) -> ClaimRequest:
        cap, interval = policy.limits_for(self.config, str(row["platform"]), action)
        return ClaimRequest(
            row=row,
            live=self.config.gateway.writes != "dry-run",
            cap=cap,
            interval_s=interval,
            cooldown_days=self.config.safety.author_cooldown_days,
        )

    async def _decide(self, req: ClaimRequest, insert: bool) -> Verdict:
        """The claim's checks; an unsure earlier claim is read back first."""
        verdict = await self.records.run(StrikeStore.decide, req, self.clock(), insert)
        earlier = verdict.earlier
        if earlier is not None and earlier.status in UNSETTLED:
            settled = await self.settler.settle(earlier)
            if settled.status == StrikeStatus.FAILED:  # proven absent: the target is free
                verdict = await self.records.run(StrikeStore.decide, req, self.clock(), insert)
            else:
                verdict = Verdict(earlier=settled)
        return verdict

    def _blocked(self, action: str, earlier: Strike) -> dict[str, Any]:
        if earlier.status in UNSETTLED and "--resolve" not in earlier.reason:
            return duplicate(action, earlier, self.settler.next_check_in(earlier))
        return duplicate(action, earlier)

    # -- strike ---------------------------------------------------------------------------

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

        paused = await self.records.run(StrikeStore.paused, platform)
        if paused:
            return await self._refuse(
                ctx,
                action,
                text,
                f"Writes to {platform} are paused: {paused}. Run setup(action='check', platform='{platform}') once the cause is fixed.",
                decisions,
            )
        if action != "post":
            why = policy.opted_out(self.config, platform, post.author)
            if why:
                return await self._refuse(ctx, action, text, why, decisions)
        never = _never(ctx, action)
        if never:  # before any pacing: "try again in N s" would invite a pointless retry
            return await self._refuse(ctx, action, text, never, decisions)

        footer = policy.disclosure_for(self.config, platform)
        final = policy.with_disclosure(text, footer) if action != "upvote" else ""
        if footer and action != "upvote":
            decisions.append("disclosure appended")
        key = intent_key(platform, target, action, final)

        async with self._lock((platform, target or key, action)):
            pending_row = self._fields(
                ctx, action, final, title, key, status=StrikeStatus.PENDING, policy=decisions
            )
            first = await self._decide(self._request(pending_row, action), insert=False)
            if first.earlier is not None:
                return self._blocked(action, first.earlier)
            if first.refusal:
                return await self._refuse(
                    ctx,
                    action,
                    final,
                    first.refusal,
                    decisions,
                    retry_after=_secs(first.retry_after),
                )

            verdict = await self._validate(ctx, action, final, title, decisions, bool(footer))
            if isinstance(verdict, dict):
                return verdict
            if verdict:
                return await self._handoff(ctx, action, final, title, key, decisions, verdict)

            where = (
                f"{platform} {TOOL[action]} on {post.url or post.id}"
                if action != "post"
                else f"a new {platform} post"
            )
            if self.config.gateway.writes == "dry-run":
                row = await self._insert(
                    **self._fields(
                        ctx,
                        action,
                        final,
                        title,
                        key,
                        status=StrikeStatus.DRY_RUN,
                        reason="writes = dry-run in gateway.toml",
                        policy=[*decisions, "dry-run: nothing sent"],
                    )
                )
                return result(
                    "dry_run",
                    would=would(ctx, action, final, title),
                    record=row.id,
                    reason='Nothing was written: writes = "dry-run" in gateway.toml. Set "confirm" or "live" to publish.',
                )

            approver = "auto"
            if self.config.gateway.writes == "confirm":
                answer = await approve(question(ctx, action, final, title, where))
                decisions.append(f"human: {answer}")
                if answer == "unsupported":
                    return await self._refuse(
                        ctx,
                        action,
                        final,
                        'writes = "confirm" but this MCP client cannot ask you for approval (no elicitation support). Nothing was written. Use a client with elicitation, or set writes = "live" deliberately.',
                        decisions,
                    )
                if answer != "accept":
                    row = await self._insert(
                        **self._fields(
                            ctx,
                            action,
                            final,
                            title,
                            key,
                            status=StrikeStatus.DECLINED,
                            reason=f"the human chose {answer}",
                            approver="human",
                            policy=decisions,
                        )
                    )
                    return result(
                        "declined",
                        reason=f"You chose {answer}: nothing was written.",
                        record=row.id,
                    )
                approver = "human"
            return await self._write(ctx, action, final, title, key, decisions, approver)

    # -- pieces ---------------------------------------------------------------------------

    async def _validate(
        self,
        ctx: DraftContext,
        action: str,
        final: str,
        title: str,
        decisions: list[str],
        footer: bool,
    ) -> dict[str, Any] | str:
        """The platform's verdict: a refusal (a result), a hand-off reason, or "" for auto."""
        post = ctx.opportunity.post
        platform = post.platform
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
            return await self._refuse(
                ctx,
                action,
                final,
                f"Too long for {platform}: {length['used']} {length['unit']}, the limit is {length['max']} (cut {over}{' including the disclosure footer' if footer else ''}).",
                decisions,
            )
        if verdict.get("allowed") == "never":
            return await self._refuse(
                ctx,
                action,
                final,
                "; ".join(verdict.get("problems", [])) or f"{platform} does not allow this.",
                decisions,
            )
        other = [p for p in verdict.get("problems", []) if verdict.get("allowed") == "auto"]
        if other:
            return await self._refuse(ctx, action, final, "; ".join(other), decisions)
        if verdict.get("allowed") == "human":
            return "; ".join(verdict.get("problems", [])) or "a person must do this"
        return ""

    async def _claim(
        self, ctx: DraftContext, action: str, row: dict[str, Any], decisions: list[str]
    ) -> Strike | dict[str, Any]:
        """The atomic claim; a result when it is refused or the target is held."""
        verdict = await self._decide(self._request(row, action), insert=True)
        if verdict.earlier is not None:
            return self._blocked(action, verdict.earlier)
        if verdict.refusal or verdict.row is None:
            return await self._refuse(
                ctx,
                action,
                str(row["content"]),
                verdict.refusal,
                decisions,
                retry_after=_secs(verdict.retry_after),
            )
        return verdict.row

    async def _handoff(
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
        fields = self._fields(
            ctx,
            action,
            text,
            title,
            key,
            status=StrikeStatus.HANDOFF,
            reason=why,
            approver="human",
            policy=[*decisions, "handoff: a person must do this"],
        )
        row = await self._claim(ctx, action, fields, decisions)
        if isinstance(row, dict):
            return row
        return result(
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
        args = would(ctx, action, text, title)["arguments"]
        if action == "post":
            args["tags"] = post.tags[:4]
        fields = self._fields(
            ctx,
            action,
            text,
            title,
            key,
            status=StrikeStatus.PENDING,
            approver=approver,
            policy=[*decisions, "intent recorded"],
        )
        row = await self._claim(ctx, action, fields, decisions)
        if isinstance(row, dict):
            return row
        outcome = await self.upstreams.call(platform, TOOL[action], args)
        if outcome.ok:
            return await self._posted(row, outcome.data)
        pause = self.config.safety.pause_after_failures
        failures = await self.records.run(
            StrikeStore.record_failure, platform, outcome.error, pause
        )
        note = (
            f" Writes to {platform} are now paused after {failures} failures in a row."
            if failures >= pause
            else ""
        )
        if outcome.kind in UNSURE:
            # The write may have landed (or may land late): it holds the target until a
            # read-back proves it either way.
            row = await self.records.run(
                StrikeStore.update,
                row.id,
                status=StrikeStatus.UNKNOWN,
                reason=f"outcome unknown: {outcome.error}",
                now=self.clock(),
            )
            settled = await self.settler.settle(row)
            if settled.status == StrikeStatus.POSTED:
                return result(
                    "posted",
                    url=settled.result_url,
                    record=settled.id,
                    approver=approver,
                    reason="The platform answered late; reading back showed the write went through.",
                )
            raise PlatformError(
                outcome.kind or ErrorKind.UNAVAILABLE,
                f"{outcome.message} The {action} may already be written (record {row.id}); "
                f"gwanjong reads the platform back (checking again in {self.settler.next_check_in(settled)} s) "
                f"and will not send it again meanwhile.{note}",
            )
        await self.records.run(
            StrikeStore.update,
            row.id,
            status=StrikeStatus.FAILED,
            reason=outcome.error,
            now=self.clock(),
        )
        raise PlatformError(
            outcome.kind or ErrorKind.UNAVAILABLE,
            f"{outcome.message} The platform refused it: nothing was written (record {row.id}).{note}",
            retry_after=outcome.retry_after,
        )

    async def _posted(self, row: Strike, data: dict[str, Any] | None) -> dict[str, Any]:
        data = data or {}
        row = await self.records.run(
            StrikeStore.update,
            row.id,
            status=StrikeStatus.POSTED,
            result_id=str(data.get("id") or ""),
            result_url=str(data.get("url") or ""),
            policy=[*row.policy, "posted"],
            now=self.clock(),
        )
        await self.records.run(StrikeStore.record_success, row.platform)
        return result(
            "posted", url=row.result_url, id=row.result_id, record=row.id, approver=row.approver
        )

    async def confirm_handoff(
        self, ctx: DraftContext, url: str, by: str | None = None
    ) -> dict[str, Any]:
        post = ctx.opportunity.post
        rows = [
            r
            for r in await self.records.run(
                StrikeStore.history, platform=post.platform, status="handoff", limit=500
            )
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
            found = await self.settler.read_back(row)
            if found:
                link = found.get("url", "")
        row = await self.records.run(
            StrikeStore.update,
            row.id,
            status=StrikeStatus.POSTED,
            approver="human",
            result_url=link,
            policy=[
                *row.policy,
                f"hand-off confirmed {time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime(self.clock()))}Z",
                *([f"by={by}"] if by is not None else []),
            ],
            now=self.clock(),
        )
        return result(
            "posted",
            url=link,
            record=row.id,
            approver="human",
            reason="Recorded as posted by a person.",
        )


def _never(ctx: DraftContext, action: str) -> str:
    """The reason, when draft already learned that the platform never allows this action."""
    return ctx.never_reason(action, TOOL[action])


def _secs(wait: float | None) -> int | None:
    return None if wait is None else max(1, round(wait))
