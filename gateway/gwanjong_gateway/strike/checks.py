"""strike's checks, one small function each, in the order they run (`CHAIN`). A check
answers a `Step` (strike/attempt.py) and may fill in the attempt for the ones after it
(footer, verdict, claimed row); it is given only `Deps`, never the desk.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from gwanjong_gateway.config import GatewayConfig
from gwanjong_gateway.rules import approvals, policy
from gwanjong_gateway.rules.approvals import Approval, ApprovalUse
from gwanjong_gateway.rules.ledger import Strike, StrikeAction, StrikeStatus, Verdict, intent_key
from gwanjong_gateway.rules.profiles import Profiles
from gwanjong_gateway.strike.approving import pending
from gwanjong_gateway.strike.attempt import (
    PASS,
    Answer,
    Ask,
    AskPerson,
    Attempt,
    HandOff,
    Refuse,
    Step,
    wait_s,
)
from gwanjong_gateway.strike.claims import Claims
from gwanjong_gateway.strike.results import DryRun, Would
from gwanjong_gateway.strike.send import Sender
from gwanjong_gateway.strike.settle import strike_trace
from gwanjong_gateway.strike.wording import would
from gwanjong_shared.contract import Validation
from gwanjong_shared.contract.errors import PlatformError
from gwanjong_shared.contract.visible import refusal


@dataclass(frozen=True)
class Deps:
    """What the checks work with: no desk, no way back to it."""

    config: GatewayConfig  # opt-outs and disclosure footers (read through `policy`)
    profiles: Profiles  # what each platform said of itself (footer, opt-out spellings)
    claims: Claims  # the record: earlier claims, limits, the claim, rows that send nothing
    sender: Sender  # the platforms: their rules, their verdict, the write


Check = Callable[[Deps, Attempt], Awaitable[Step]]


# -- before the lock: what needs no record of earlier writes ---------------------------------


async def paused(deps: Deps, a: Attempt) -> Step:
    why = a.paused if a.paused is not None else await deps.claims.paused(a.platform)
    if why:
        return Refuse(
            f"Writes to {a.platform} are paused: {why}. Run setup(action='check', platform='{a.platform}') once the cause is fixed.",
            waits=True,
        )
    return PASS


async def opted_out(deps: Deps, a: Attempt) -> Step:
    if not a.action.targeted:  # a new post addresses no one
        return PASS
    why = policy.opted_out(deps.config, a.platform, a.post.author, deps.profiles)
    return Refuse(why) if why else PASS


async def never_allowed(deps: Deps, a: Attempt) -> Step:
    # before any pacing: "try again in N s" would invite a pointless retry
    why = a.ctx.never_reason(str(a.action), a.action.tool)  # draft's verdict, no new call
    return Refuse(why) if why else PASS


async def plain_text(deps: Deps, a: Attempt) -> Step:
    """No control (but newline and tab), bidi override or isolate, or tag character: none
    is needed by a comment, and each can hide or reorder what the person approves; nor
    by a tag."""
    tags = (refusal(t, f"the tag {i}") for i, t in enumerate(a.tags, 1))
    why = refusal(a.title, "the title") or next((w for w in tags if w), "") or refusal(a.text)
    return Refuse(why[0].upper() + why[1:]) if why else PASS


async def disclosure(deps: Deps, a: Attempt) -> Step:
    """Appends the platform's disclosure footer: the text checked and sent from here on."""
    profiles = deps.profiles
    if a.action.has_text and not profiles.answered(a.platform):
        # The footer may be the platform's own (its profile): never write without asking.
        await deps.sender.learn_rules(a.platform)
        if (
            not profiles.answered(a.platform)
            and policy.configured_disclosure(deps.config, a.platform) is None
        ):
            return Refuse(
                f"Could not ask {a.platform} for its rules (capabilities), so its disclosure "
                "footer is unknown; nothing was written. Check status() and try again."
            )
    if a.action is StrikeAction.POST and a.title and not profiles.answered(a.platform):
        # a server whose posts have none sends it as the text's first paragraph: shown
        # apart, it would go out as text the person saw elsewhere, counted apart
        return Refuse(
            f"Could not ask {a.platform} for its rules (capabilities), so whether its posts "
            "have a title is unknown; nothing was written. Check status() and try again.",
            retry_after=60,
            waits=True,
        )
    if a.action is StrikeAction.POST and a.title and profiles.untitled(a.platform):
        # sent as the text's first paragraph by its server: shown there, in the exact text
        a.text, a.title = f"{a.title}\n\n{a.text}", ""
    footer = policy.disclosure_for(deps.config, a.platform, profiles)
    a.footer = bool(footer)
    a.final = policy.with_disclosure(a.text, footer) if a.action.has_text else ""
    if footer and a.action.has_text:
        a.decisions.append("disclosure appended")
    a.key = intent_key(a.platform, a.target, str(a.action), a.final)
    a.account = profiles.account(a.platform)  # part of what a person approves
    a.destination = profiles.destination(a.platform)  # so is where a new post goes
    a.sent_with = profiles.sent_with(a.platform)  # and what else the write sends
    return PASS


async def early_rules(deps: Deps, a: Attempt) -> Step:
    """Asks the platform's `validate` now, so the target's lock is never held across a
    platform call; `platform_rules` reads its answer (or raises its error) in its turn.
    Not asked when an earlier claim or a limit will answer first, nor while a person's
    approval waits on the target (read now, unlocked): `awaiting` answers, and a model
    asking again and again would spend a platform read (billed on X) each time."""
    if await deps.claims.looks_clear(a) and not await _person_waits(deps, a):
        await deps.sender.validate_early(a)
    return PASS


async def _person_waits(deps: Deps, a: Attempt) -> bool:
    """A person's approval waits on the target and this request carries no "approve" of it
    (a stateless client's second round does: its write is validated now, as any other)."""
    if a.approval is not None or a.mode == "dry-run":  # as `awaiting` reads it
        return False
    waiting = await deps.claims.pending_approval(a)
    if waiting is None:
        return False
    ask = a.asker.answer_for(waiting, deps.claims.clock())
    return ask is None or ask.decision != "approve"


# -- under the lock: the record, the platform, the person, the write -------------------------


async def _first_verdict(deps: Deps, a: Attempt) -> Verdict:
    """The claim's checks without claiming, asked once per attempt."""
    if a.verdict is None:
        a.verdict = await deps.claims.decide(a, a.columns(StrikeStatus.PENDING), insert=False)
    return a.verdict


async def earlier_claim(deps: Deps, a: Attempt) -> Step:
    """Not done before: the same target (or the same post text) is held by no earlier row."""
    verdict = await _first_verdict(deps, a)
    return Answer(deps.claims.blocked(a.action, verdict.earlier)) if verdict.earlier else PASS


async def limits(deps: Deps, a: Attempt) -> Step:
    """The author cool-down, the daily cap and the minimum interval."""
    verdict = await _first_verdict(deps, a)
    if not verdict.refusal:
        return PASS
    return Refuse(verdict.refusal, wait_s(verdict.retry_after), waits=True)


async def platform_rules(deps: Deps, a: Attempt) -> Step:
    """The platform's `validate` on the final text (the only call before the write), as
    `early_rules` asked it, or asked now."""
    try:
        check = await deps.sender.validate(a)
    except PlatformError as exc:
        raise PlatformError(
            exc.kind,
            f"Could not check the platform's rules: {exc.message}",
            retry_after=exc.retry_after,
        ) from None
    a.validation = check
    if a.action is StrikeAction.POST and check.destination != a.destination:
        deps.profiles.forget(a.platform)  # its capabilities are old: asked again next time
        return Refuse(
            f"{a.platform} now posts to {check.destination or 'no place beyond the account'}, "
            f"not {a.destination or 'only the account'} as shown: nothing was sent. Strike again "
            "so a person approves where it goes."
        )
    if check.sent_with != a.outgoing.sent_with:
        deps.profiles.forget(a.platform)
        now = "; ".join(f"{k}: {v}" for k, v in check.sent_with.items()) or "nothing more"
        return Refuse(
            f"{a.platform} now sends {now} with the text, not what was shown: nothing was "
            "sent. Strike again so a person approves it."
        )
    n = check.length
    a.decisions.append(f"validate: allowed={check.allowed} length={n.used}/{n.max} {n.unit}")
    return PASS


def _validation(a: Attempt) -> Validation:
    if a.validation is None:
        raise RuntimeError("platform_rules must run before the checks that read its verdict")
    return a.validation


async def fits(deps: Deps, a: Attempt) -> Step:
    n = _validation(a).length
    if a.action.has_text and n.max and n.used > n.max:
        cut = f"cut {n.used - n.max}{' including the disclosure footer' if a.footer else ''}"
        return Refuse(
            f"Too long for {a.platform}: {n.used} {n.unit}, the limit is {n.max} ({cut})."
        )
    return PASS


async def platform_allows(deps: Deps, a: Attempt) -> Step:
    check = _validation(a)
    if check.allowed == "never":
        return Refuse("; ".join(check.problems) or f"{a.platform} does not allow this.")
    if check.allowed in ("auto", "approved") and check.problems:
        return Refuse("; ".join(check.problems))
    return PASS


async def human_only(deps: Deps, a: Attempt) -> Step:
    check = _validation(a)
    if check.allowed == "human":
        return HandOff("; ".join(check.problems) or "a person must do this")
    return PASS


async def dry_run(deps: Deps, a: Attempt) -> Step:
    if a.mode != "dry-run":
        return PASS
    row = await deps.claims.save_dry_run(
        a, reason="writes = dry-run in gateway.toml", policy=[*a.decisions, "dry-run: nothing sent"]
    )
    return Answer(
        DryRun(
            would=Would.model_validate(would(a.outgoing)),
            record=row.id,
            reason='Nothing was written: writes = "dry-run" in gateway.toml. Set "confirm" or "live" to publish.',
        )
    )


async def approved_text(deps: Deps, a: Attempt) -> Step:
    """An approval being executed sends exactly the approved write (`Outgoing`: the text
    with its footer, the title, the tags, the target, the account): its digest."""
    if a.approval is None or a.outgoing.matches(a.approval.digest):
        return PASS
    if not a.account:  # the platform has not said whom we write as: ask, never guess
        await deps.sender.learn_rules(a.platform)
        a.account = deps.profiles.account(a.platform)
        a.destination = deps.profiles.destination(a.platform)
        a.sent_with = deps.profiles.sent_with(a.platform)
        if a.outgoing.matches(a.approval.digest):
            return PASS
        if not a.account:
            return Refuse(
                f"{a.platform} did not say which account gwanjong writes as, so approval "
                f"{a.approval.id} cannot be checked against it: nothing was sent. It stays "
                "pending; try again once the platform answers (status() shows it).",
                retry_after=60,
            )
    return Refuse(
        f"What would be sent is no longer what was approved in approval {a.approval.id} "
        "(the disclosure footer, the platform's rules, where a new post goes, what else a write "
        "sends or the account changed since): nothing was sent. Strike again so a person approves the new text."
    )


#: another member's approval holds the target: said without a word of theirs
THEIRS_WAITS = (
    "Another team member's write on this target is waiting for a person's approval; "
    "nothing was written."
)


async def awaiting(deps: Deps, a: Attempt) -> Step:
    """A write already waiting for a person on this target: this strike answers it (or,
    in the stateless era's second round, carries the person's answer to it)."""
    if a.approval is not None or a.mode == "dry-run":
        return PASS
    waiting = await deps.claims.pending_approval(a)
    if waiting is None:
        return PASS
    if waiting.principal != a.principal:
        return Refuse(THEIRS_WAITS)
    ask = a.asker.answer_for(waiting, deps.claims.clock())
    if ask is None:
        ask = Ask(
            "pending", f"A write on this target already waits for a person (approval {waiting.id})."
        )
    elif ask.decision == "approve" and not a.outgoing.matches(waiting.digest):
        ask = Ask(
            "pending",
            f"This text differs from the one waiting in approval {waiting.id}; that one stands.",
        )
    return await decided(deps, a, waiting, ask)


async def decided(deps: Deps, a: Attempt, approval: Approval, ask: Ask) -> Step:
    """The person's answer: approved (the chain goes on and consumes the approval with the
    claim), declined, or still pending (the answer says where they can decide)."""
    who = approvals.person(a.principal)
    if ask.decision == "approve":
        a.approval = ApprovalUse(approval.id, approval.digest, who, ask.channel)
        a.approver = "human"
        a.decisions.append(f"approved by {who} via {ask.channel} (approval {approval.id})")
        return PASS
    if ask.decision == "decline":
        return Answer(await deps.claims.decline(a, approval, who, ask.channel))
    return Answer(pending(approval, ask))


async def confirm(deps: Deps, a: Attempt) -> Step:
    """writes = "confirm", or a write the platform allows only once a person approved it
    (`approved`, in live mode too): the exact text becomes a pending approval, and the
    person is asked (by the desk, out of the lock: `AskPerson`)."""
    if a.approval is not None or (a.mode != "confirm" and _validation(a).allowed != "approved"):
        return PASS
    approval, token = await deps.claims.open_approval(a)
    if not token and approval.principal != a.principal:  # another member's, opened meanwhile
        return Refuse(THEIRS_WAITS)
    if not token:  # opened meanwhile by another call: that one's asking stands
        return Answer(
            pending(approval, Ask("pending", "A write on this target already waits for a person."))
        )
    return AskPerson(approval, token)


async def budget(deps: Deps, a: Attempt) -> Step:
    """The platform's daily spend budget: the write's price reserved, atomically against it,
    before the claim (so a write over budget is a refusal, never a failed write)."""
    refused = await deps.sender.reserve(a)
    if refused is not None:
        return refused
    if a.prepaid is not None:
        a.decisions.append(f"spend reserved: {a.prepaid.micros} micro-USD")
    return PASS


async def claim(deps: Deps, a: Attempt) -> Step:
    """Every limit again and the `pending` row, atomically: the record says "sending" first."""
    fields = a.columns(
        StrikeStatus.PENDING,
        approver=a.approver,
        policy=[*a.decisions, "intent recorded"],
        **strike_trace(),  # what the settlement's span links to, should the write be unsure
    )
    # A failing claim may have committed (see Settler.unsent): its reservation stands.
    claimed = await deps.claims.claim(a, fields)
    if isinstance(claimed, Strike):
        a.row = claimed
        return PASS
    await deps.sender.release(a)  # nothing will be sent: the reservation goes
    return claimed


async def write(deps: Deps, a: Attempt) -> Step:
    if a.row is None:
        raise RuntimeError("claim must run before write")
    return Answer(await deps.sender.send(a, a.row))


#: Before the lock: about this strike alone (and the platform's verdict, asked early).
OPEN: tuple[Check, ...] = (
    *(paused, opted_out, never_allowed, plain_text, disclosure, approved_text, early_rules),
)
#: Under the lock of the target: the record, the platform, the person, then the write.
HELD: tuple[Check, ...] = (
    *(earlier_claim, awaiting, limits, platform_rules, fits, platform_allows, human_only),
    *(dry_run, confirm, budget, claim, write),
)
CHAIN: tuple[Check, ...] = (*OPEN, *HELD)
