"""Which of the posts one scout found the record already holds a claim on (never offered
again). Asked about those posts only, not the whole record, so scout costs the same on a
record of millions."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_shared.contract.errors import PlatformError

Targets = Sequence[tuple[str, str]]
#: (platform, post id) pairs in, the ones acted on out
Acted = Callable[[Targets], Awaitable[set[tuple[str, str]]]]


def acted_in(records: Records, *, tolerant: bool = False) -> Acted:
    """``tolerant``: a busy or broken record answers "none" (scout still works; strike
    will say what is wrong) instead of raising."""

    async def acted(targets: Targets) -> set[tuple[str, str]]:
        if not targets:
            return set()
        try:
            return await records.run(StrikeStore.acted_among, list(targets))
        except PlatformError:
            if tolerant:
                return set()
            raise

    return acted
