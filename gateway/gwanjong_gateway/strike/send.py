"""strike's only door to the platforms: their rules (capabilities), their verdict on the
final text (`validate`), and the write itself (`send`). A write that may have landed turns
the row `unknown` and is read back (`Settler`); if the record fails after sending, the
answer says the outcome is unknown and the claim keeps the write from going twice.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from gwanjong_gateway.platforms.client import PlatformClient, ensure_profiles
from gwanjong_gateway.platforms.outcome import Outcome
from gwanjong_gateway.platforms.upstreams import Upstreams
from gwanjong_gateway.record.journal import WriteJournal
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.ledger import Strike, StrikeStatus
from gwanjong_gateway.strike.attempt import Attempt, Refuse, wait_s
from gwanjong_gateway.strike.results import Posted
from gwanjong_gateway.strike.settle import Settler
from gwanjong_shared.contract import Validation
from gwanjong_shared.contract.errors import ErrorKind, PlatformError
from gwanjong_shared.contract.models import PostResult

log = logging.getLogger(__name__)


class _Answered(PlatformError):
    """The answer to a sent write, once the record says what happened."""


@dataclass(eq=False)
class Sender:
    upstreams: Upstreams  # only to reach the platforms
    records: Records
    settler: Settler
    clock: Callable[[], float]
    pause_after: int  # failures in a row that pause a platform's writes
    journal: WriteJournal  # a durable trace of every write before it is sent

    # -- before the write -------------------------------------------------------------------

    async def learn_rules(self, platform: str) -> None:
        """Ask a platform not heard from yet for its capabilities (its profile: footer,
        opt-out spellings); a failure leaves it unanswered."""
        await ensure_profiles(self.upstreams, [platform])

    async def validate(self, a: Attempt) -> Validation:
        """The platform's verdict on the final text: the one asked before the lock
        (`validate_early`) if it was about this very write. Raises PlatformError."""
        sent = a.outgoing
        if a.early is not None and a.early[0] == sent:
            answer = a.early[1]
            if isinstance(answer, Exception):
                raise answer
            return answer
        return await PlatformClient(self.upstreams, a.platform).validate(
            sent.tool, sent.text, a.title, sent.target or None, list(sent.tags)
        )

    async def validate_early(self, a: Attempt) -> None:
        """`validate` before the target's lock (`checks.early_rules`): its answer or error."""
        asked = a.outgoing
        try:
            answer: Validation | Exception = await self.validate(a)
        except Exception as exc:  # raised where the answer is read, as if asked there
            answer = exc
        a.early = (asked, answer)

    # -- the write's spend: reserved before the claim (usage/spend.py) ---------------------

    async def reserve(self, a: Attempt) -> Refuse | None:
        """Reserve what the write will cost against the platform's daily budget: why not
        (the true figures), or None (reserved in ``a.prepaid``, or nothing to reserve)."""
        gate = self.upstreams.gate
        if gate is None:
            return None
        admitted = await gate.admit(a.platform, a.action.tool, a.outgoing.arguments())
        if isinstance(admitted, Outcome):
            return Refuse(admitted.message, wait_s(admitted.retry_after))
        a.prepaid = admitted
        return None

    async def release(self, a: Attempt) -> None:
        """The write will not be sent (the claim was refused): its reservation goes."""
        gate, held, a.prepaid = self.upstreams.gate, a.prepaid, None
        if gate is not None and held is not None:
            await gate.settle(held, None)

    # -- the write --------------------------------------------------------------------------

    async def send(self, a: Attempt, row: Strike) -> Posted:
        """Write the claimed row; its result, or PlatformError once the row says what happened.
        The call is `Outgoing.arguments` and nothing else (no tag of the post answered,
        nothing the person was not shown)."""
        args = a.outgoing.arguments()
        await self.journal.sending(row)  # durable first, or nothing is sent
        try:
            posted = await PlatformClient(self.upstreams, a.platform).write(
                a.action.tool, args, a.prepaid
            )
        except PlatformError as exc:
            return await self._unrecorded(a, row, self._failed(a, row, exc))
        return await self._unrecorded(a, row, self._posted(row, posted))

    async def _unrecorded(
        self, a: Attempt, row: Strike, after: Coroutine[Any, Any, Posted]
    ) -> Posted:
        """Recording what happened after the write was sent; should the record fail (busy,
        unreachable, disk full), the answer claims only what is known: the outcome is
        unknown, and the claim (still `pending`) keeps the write from being sent again."""
        try:
            answer = await after
        except _Answered:
            await self.journal.recorded(row.id)  # the record has the outcome
            raise  # _failed's own answer, worded for what is known
        except Exception as exc:
            failure = exc
        else:
            await self.journal.recorded(row.id)  # the record has the outcome
            return answer
        log.warning("record %s: sent, but the result could not be recorded: %s", row.id, failure)
        self.settler.returned(row.id)  # read back as soon as the record answers
        raise PlatformError(
            ErrorKind.UNAVAILABLE,
            f"The {a.action} was sent, but the strike record failed while recording its "
            "outcome (the gateway log has why). "
            f"The outcome is unknown (record {row.id}); gwanjong will not send it again (the "
            "write journal keeps it) and reads the platform back to settle it once the record "
            "answers. Should the record stay unusable, stop gwanjong and run "
            "`gwanjong doctor --repair`: it carries this write over.",
        )

    async def _failed(self, a: Attempt, row: Strike, exc: PlatformError) -> Posted:
        platform = a.platform
        pause = self.pause_after
        failures = await self.records.run(StrikeStore.record_failure, platform, str(exc), pause)
        note = (
            f" Writes to {platform} are now paused after {failures} failures in a row."
            if failures >= pause
            else ""
        )
        if exc.unsure:
            # The write may have landed (or may land late): it holds the target until a
            # read-back proves it either way.
            row = await self.records.run(
                StrikeStore.update,
                row.id,
                status=StrikeStatus.UNKNOWN,
                reason=f"outcome unknown: {exc}",
                now=self.clock(),
            )
            settled = await self.settler.settle(row)
            if settled.status == StrikeStatus.POSTED:
                return Posted(
                    url=settled.result_url or None,
                    record=settled.id,
                    approver=a.approver,
                    reason="The platform answered late; reading back showed the write went through.",
                )
            raise _Answered(
                exc.kind,
                f"{exc.message} The {a.action} may already be written (record {row.id}); "
                f"gwanjong reads the platform back (checking again in {self.settler.next_check_in(settled)} s) "
                f"and will not send it again meanwhile.{note}",
            )
        await self.records.run(
            StrikeStore.update,
            row.id,
            status=StrikeStatus.FAILED,
            reason=str(exc),
            now=self.clock(),
        )
        said = "Nothing" if exc.unsent else "The platform refused it: nothing"
        raise _Answered(
            exc.kind,
            f"{exc.message} {said} was written (record {row.id}).{note}",
            retry_after=exc.retry_after,
        )

    async def _posted(self, row: Strike, posted: PostResult) -> Posted:
        row = await self.records.run(
            StrikeStore.update,
            row.id,
            status=StrikeStatus.POSTED,
            result_id=posted.id or "",
            result_url=posted.url or "",
            policy=[*row.policy, str(StrikeStatus.POSTED)],
            now=self.clock(),
        )
        await self.records.run(StrikeStore.record_success, row.platform)
        return Posted(
            url=row.result_url or None,
            id=row.result_id or None,
            record=row.id,
            approver=row.approver,
        )
