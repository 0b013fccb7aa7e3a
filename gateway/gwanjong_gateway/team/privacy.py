"""Records private by default in team mode (HTTP with `[auth]`): which Reader a request gets,
and what a strike answer may show of someone else's row. A principal reads their own
rows, `[auth] auditors` everyone's, a request without a principal nothing; without
sign-in the one local user reads everything.
"""

from __future__ import annotations

from gwanjong_gateway.config import GatewayConfig
from gwanjong_gateway.record.readers import EVERYONE, Reader
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.strike.results import Duplicate, StrikeResult
from gwanjong_gateway.strike.wording import taken_by_another
from gwanjong_gateway.team.auth import principal_name


def reader_for(config: GatewayConfig, signed_in: bool) -> Reader:
    """The Reader of the current request. ``signed_in``: the server requires sign-in."""
    if not signed_in:
        return EVERYONE
    return Reader.signed_in(principal_name(), config.auth.auditors)


async def shown_to(reader: Reader, answer: StrikeResult, records: Records) -> StrikeResult:
    """A strike answer as ``reader`` may see it. A duplicate held by another principal's
    row says only that the target is taken: no record id, text, reason or link of theirs
    (that row is theirs to read, and its id must not be an oracle)."""
    if reader.everyone or not isinstance(answer, Duplicate) or answer.earlier is None:
        return answer
    earlier = answer.earlier
    holder = answer.holder  # whose row it is, when the answer came from the row itself
    if holder is None:
        row = await records.run(StrikeStore.get, earlier.record)
        holder = None if row is None else row.principal
    if holder is not None and reader.may_read(holder):
        return answer
    return taken_by_another(answer)
