"""strike's checks, one small function each, in the order they run (`CHAIN`).

A check looks at one `Attempt` and answers `PASS` (go on), `Refuse(reason)`, `HandOff(reason)`
(a person must do it) or `Answer(result)` (the strike ends here with that result: a
duplicate, a dry run, a decline, the write itself). A check may also fill in the attempt
for the ones after it (the disclosure footer, the platform's verdict, the claimed row).
`StrikeDesk` runs `OPEN` first, then `HELD` under the lock of the target, and turns the
first answer that is not `PASS` into the strike's result and its record row.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gwanjong_gateway.platforms.client import ensure_profiles
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules import policy
from gwanjong_gateway.rules.ledger import (
    Strike,
    StrikeAction,
    StrikeStatus,
    Verdict,
    content_hash,
    intent_key,
)
from gwanjong_gateway.scout.state import DraftContext
from gwanjong_gateway.strike.results import Declined, DryRun, StrikeResult, Would
from gwanjong_gateway.strike.text import question, would
from gwanjong_shared.contract import Validation
from gwanjong_shared.contract.errors import PlatformError
from gwanjong_shared.contract.models import Post

if TYPE_CHECKING:
    from gwanjong_gateway.strike.desk import StrikeDesk

Approver = Callable[[str], Awaitable[str]]  # message -> accept | decline | cancel | unsupported


@dataclass(frozen=True)
class Refuse:
    """Nothing is written; the reason is recorded as a `refused` row."""

    reason: str
    retry_after: int | None = None


@dataclass(frozen=True)
class HandOff:
    """A person must do it: the text is claimed as a `handoff` row and handed over."""

    reason: str


@dataclass(frozen=True)
class Answer:
    """The strike ends with this result (its row, if any, is already recorded)."""

    result: StrikeResult


PASS = None
Step = Refuse | HandOff | Answer | None


@dataclass
class Attempt:
    """One strike on its way through the checks."""

    ctx: DraftContext
    action: StrikeAction
    text: str  # the model's text, stripped
    title: str
    approve: Approver
    decisions: list[str]  # the policy decisions, in order: the record's `policy`
    final: str = ""  # what will be sent: the text with the disclosure footer (upvote: "")
    key: str = ""  # the intent key of `final`
    footer: bool = False  # a disclosure footer is configured
    verdict: Verdict | None = None  # the claim's checks, run once without claiming
    validation: Validation | None = None  # the platform's verdict on `final`
    approver: str = "auto"
    row: Strike | None = None  # the claimed `pending` row

    def __post_init__(self) -> None:
        self.final = self.final or self.text

    def columns(self, mode: str, status: StrikeStatus, **fields: Any) -> dict[str, Any]:
        """A record row: the target and the final text of this attempt, plus ``fields``."""
        return {
            "intent_key": self.key,
            "platform": self.platform,
            "target": self.target,
            "target_url": self.post.url,
            "author": self.post.author,
            "opportunity": self.ctx.opportunity.id,
            "action": str(self.action),
            "content_hash": content_hash(self.final),
            "content": self.final,
            "title": self.title,
            "mode": mode,
            "context": self.ctx.shown,
            "status": status,
            "policy": self.decisions,
            **fields,
        }

    @property
    def post(self) -> Post:
        return self.ctx.opportunity.post

    @property
    def platform(self) -> str:
        return self.post.platform

    @property
    def target(self) -> str:
        """The post acted on; "" for a new post."""
        return self.post.id if self.action.targeted else ""

    @property
    def lock_key(self) -> tuple[str, str, str]:
        return (self.platform, self.target or self.key, str(self.action))


Check = Callable[["StrikeDesk", Attempt], Awaitable[Step]]


def wait_s(wait: float | None) -> int | None:
    """A retry-after in whole seconds, at least one."""
    return None if wait is None else max(1, round(wait))


# -- before the lock: what needs no record of earlier writes ---------------------------------


async def paused(desk: StrikeDesk, a: Attempt) -> Step:
    why = await desk.records.run(StrikeStore.paused, a.platform)
    if why:
        return Refuse(
            f"Writes to {a.platform} are paused: {why}. Run setup(action='check', platform='{a.platform}') once the cause is fixed."
        )
    return PASS


async def opted_out(desk: StrikeDesk, a: Attempt) -> Step:
    if not a.action.targeted:  # a new post addresses no one
        return PASS
    why = policy.opted_out(desk.config, a.platform, a.post.author, desk.upstreams.profiles)
    return Refuse(why) if why else PASS


async def never_allowed(desk: StrikeDesk, a: Attempt) -> Step:
    # before any pacing: "try again in N s" would invite a pointless retry
    why = a.ctx.never_reason(str(a.action), a.action.tool)  # draft's verdict, no new call
    return Refuse(why) if why else PASS


async def disclosure(desk: StrikeDesk, a: Attempt) -> Step:
    """Appends the platform's disclosure footer: the text checked and sent from here on."""
    profiles = desk.upstreams.profiles
    if a.action.has_text and not profiles.answered(a.platform):
        # The footer may be the platform's own (its profile): never write without asking.
        await ensure_profiles(desk.upstreams, [a.platform])
        if (
            not profiles.answered(a.platform)
            and policy.configured_disclosure(desk.config, a.platform) is None
        ):
            return Refuse(
                f"Could not ask {a.platform} for its rules (capabilities), so its disclosure "
                "footer is unknown; nothing was written. Check status() and try again."
            )
    footer = policy.disclosure_for(desk.config, a.platform, profiles)
    a.footer = bool(footer)
    a.final = policy.with_disclosure(a.text, footer) if a.action.has_text else ""
    if footer and a.action.has_text:
        a.decisions.append("disclosure appended")
    a.key = intent_key(a.platform, a.target, str(a.action), a.final)
    return PASS


# -- under the lock: the record, the platform, the person, the write -------------------------


async def _first_verdict(desk: StrikeDesk, a: Attempt) -> Verdict:
    """The claim's checks without claiming, asked once per attempt."""
    if a.verdict is None:
        a.verdict = await desk.decide(
            a, a.columns(desk.config.gateway.writes, StrikeStatus.PENDING), insert=False
        )
    return a.verdict


async def earlier_claim(desk: StrikeDesk, a: Attempt) -> Step:
    """Not done before: the same target (or the same post text) is held by no earlier row."""
    verdict = await _first_verdict(desk, a)
    return Answer(desk.blocked(a.action, verdict.earlier)) if verdict.earlier else PASS


async def limits(desk: StrikeDesk, a: Attempt) -> Step:
    """The author cool-down, the daily cap and the minimum interval."""
    verdict = await _first_verdict(desk, a)
    return Refuse(verdict.refusal, wait_s(verdict.retry_after)) if verdict.refusal else PASS


async def platform_rules(desk: StrikeDesk, a: Attempt) -> Step:
    """Asks the platform's `validate` about the final text (the only call before the write)."""
    try:
        check = await desk._platform_validate(a.platform, a.action, a.final, a.title, a.target)
    except PlatformError as exc:
        raise PlatformError(
            exc.kind,
            f"Could not check the platform's rules: {exc.message}",
            retry_after=exc.retry_after,
        ) from None
    a.validation = check
    n = check.length
    a.decisions.append(f"validate: allowed={check.allowed} length={n.used}/{n.max} {n.unit}")
    return PASS


def _validation(a: Attempt) -> Validation:
    if a.validation is None:
        raise RuntimeError("platform_rules must run before the checks that read its verdict")
    return a.validation


async def fits(desk: StrikeDesk, a: Attempt) -> Step:
    n = _validation(a).length
    if a.action.has_text and n.max and n.used > n.max:
        cut = f"cut {n.used - n.max}{' including the disclosure footer' if a.footer else ''}"
        return Refuse(
            f"Too long for {a.platform}: {n.used} {n.unit}, the limit is {n.max} ({cut})."
        )
    return PASS


async def platform_allows(desk: StrikeDesk, a: Attempt) -> Step:
    check = _validation(a)
    if check.allowed == "never":
        return Refuse("; ".join(check.problems) or f"{a.platform} does not allow this.")
    if check.allowed == "auto" and check.problems:
        return Refuse("; ".join(check.problems))
    return PASS


async def human_only(desk: StrikeDesk, a: Attempt) -> Step:
    check = _validation(a)
    if check.allowed == "human":
        return HandOff("; ".join(check.problems) or "a person must do this")
    return PASS


async def dry_run(desk: StrikeDesk, a: Attempt) -> Step:
    if desk.config.gateway.writes != "dry-run":
        return PASS
    fields = a.columns(
        desk.config.gateway.writes,
        StrikeStatus.DRY_RUN,
        reason="writes = dry-run in gateway.toml",
        policy=[*a.decisions, "dry-run: nothing sent"],
    )
    # the same dry run again updates its record rather than piling up another
    row = await desk.records.run(StrikeStore.save_dry_run, now=desk.clock(), **fields)
    return Answer(
        DryRun(
            would=Would.model_validate(would(a.ctx, a.action, a.final, a.title)),
            record=row.id,
            reason='Nothing was written: writes = "dry-run" in gateway.toml. Set "confirm" or "live" to publish.',
        )
    )


async def confirm(desk: StrikeDesk, a: Attempt) -> Step:
    """writes = "confirm": the person approves this very text first."""
    if desk.config.gateway.writes != "confirm":
        return PASS
    where = (
        f"{a.platform} {a.action.tool} on {a.post.url or a.post.id}"
        if a.action.targeted
        else f"a new {a.platform} post"
    )
    answer = await a.approve(question(a.ctx, a.action, a.final, a.title, where))
    a.decisions.append(f"human: {answer}")
    if answer == "unsupported":
        return Refuse(
            'writes = "confirm" but this MCP client cannot ask you for approval (no elicitation support). Nothing was written. Use a client with elicitation, or set writes = "live" deliberately.'
        )
    if answer != "accept":
        row = await desk.insert(
            a,
            StrikeStatus.DECLINED,
            reason=f"the human chose {answer}",
            approver="human",
            policy=a.decisions,
        )
        return Answer(Declined(reason=f"You chose {answer}: nothing was written.", record=row.id))
    a.approver = "human"
    return PASS


async def claim(desk: StrikeDesk, a: Attempt) -> Step:
    """Every limit again and the `pending` row, atomically: the record says "sending" first."""
    fields = a.columns(
        desk.config.gateway.writes,
        StrikeStatus.PENDING,
        approver=a.approver,
        policy=[*a.decisions, "intent recorded"],
    )
    claimed = await desk.claim(a, fields)
    if isinstance(claimed, Strike):
        a.row = claimed
        return PASS
    return claimed


async def write(desk: StrikeDesk, a: Attempt) -> Step:
    if a.row is None:
        raise RuntimeError("claim must run before write")
    return Answer(await desk.send(a, a.row))


#: Before the lock: cheap, certain, and about this strike alone.
OPEN: tuple[Check, ...] = (paused, opted_out, never_allowed, disclosure)
#: Under the lock of the target: the record, the platform, the person, then the write.
HELD: tuple[Check, ...] = (
    earlier_claim,
    limits,
    platform_rules,
    fits,
    platform_allows,
    human_only,
    dry_run,
    confirm,
    claim,
    write,
)
CHAIN: tuple[Check, ...] = (*OPEN, *HELD)
