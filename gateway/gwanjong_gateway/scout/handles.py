"""Handles: what scout gives the model for each opportunity, and where draft and strike
find it again (issue 25: no protocol session, no custom header).

A handle (`<platform>-` and 96 random bits) is kept in the strike record's `handles` table,
keyed by its SHA-256 and read with its principal, so a new session, a restart or another
replica finds the same workflow, and another user's or an expired handle finds nothing.
`X-Gwanjong-Session` only groups one agent's handles for `status()`. `HandleStates` is the
pipeline's state source. When the record cannot be used, handles live in this process's
memory: scout and draft still work, strike refuses to write.
"""

from __future__ import annotations

import functools
import logging
import secrets
from collections import OrderedDict
from collections.abc import AsyncGenerator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from typing import Any

from fastmcp import Context
from pydantic import TypeAdapter

from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.rows.handle_rows import HandleCounts, HandleRow
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.scout.state import DraftContext, Opportunity, Workflow
from gwanjong_shared.contract.errors import PlatformError
from gwanjong_shared.contract.untrusted import quote
from gwanjong_shared.pipeline import DEFAULT_CLIENT_KEY_HEADER, NeedsPreviousStep, ToolSpec, keys

#: the tool argument that names a handle
ARGUMENT = "opportunity_id"
#: most handles kept in memory while the record is unusable (oldest go first)
MEMORY_CAP = 5000
#: a handle's key in the record: its SHA-256 (as the pipeline digests client keys)
handle_hash = keys.digest
log = logging.getLogger(__name__)


def mint(platform: str) -> str:
    """A new handle: readable platform prefix, 96 unguessable bits."""
    return f"{platform}-{secrets.token_urlsafe(12)}"


def minted(opportunities: list[Opportunity]) -> list[Opportunity]:
    """The opportunities, each with a handle of its own."""
    return [replace(o, handle=mint(o.post.platform)) for o in opportunities]


@functools.cache
def _opportunity() -> TypeAdapter[Opportunity]:
    return TypeAdapter(Opportunity)


@functools.cache
def _context() -> TypeAdapter[DraftContext]:
    return TypeAdapter(DraftContext)


@dataclass(frozen=True)
class Caller:
    """Whose handles a call may use: the signed-in principal ('' without sign-in), and
    an optional client key's digest that groups one agent's work."""

    principal: str
    client: str = ""


def _client_key(header: str) -> str:
    value = keys.supplied_key((header.lower(),))  # checked: 16 to 256 printable characters
    return keys.digest(value) if value else ""


class HandleStates:
    """The gateway's workflow state, one record row per handle (module docstring)."""

    def __init__(
        self,
        records: Records,
        *,
        ttl_s: float,
        wall: Callable[[], float],
        who: Callable[[], str | None],
        header: str = DEFAULT_CLIENT_KEY_HEADER,
    ) -> None:
        self.records = records
        self.ttl_s = ttl_s
        self._wall = wall
        self._who = who
        self._header = header
        self._memory: OrderedDict[str, HandleRow] = OrderedDict()

    def caller(self, ctx: Context) -> Caller:
        return Caller(self._who() or "", _client_key(self._header))

    @asynccontextmanager
    async def hold(
        self, caller: Caller, spec: ToolSpec, arguments: Mapping[str, Any]
    ) -> AsyncGenerator[Workflow, None]:
        named = arguments.get(ARGUMENT)
        if not isinstance(named, str):  # a tool that starts the workflow: scout
            state = Workflow()
            yield state
            await self._keep(caller, list(state.opportunities.values()))
            return
        handle = named.strip()
        now = self._wall()
        row = await self._load(handle_hash(handle), caller.principal, now)
        if row is None:
            hours = f"{self.ttl_s / 3600:g}"
            then = "" if "opportunities" in spec.requires else ", then `draft` it"
            raise NeedsPreviousStep(
                f"`{spec.name}` needs an opportunity from `scout`: {quote(handle, 100)} is not "
                f"one you scouted, or it expired (after {hours} h). Call `scout` first and use "
                f"an id it returns{then}."
            )
        opportunity = replace(_opportunity().validate_json(row.scouted), handle=handle)
        drafted = _context().validate_json(row.drafted) if row.drafted else None
        if drafted is not None:  # draft's own view of the post (it may have read it anew)
            drafted = replace(drafted, opportunity=replace(drafted.opportunity, handle=handle))
        state = Workflow(
            opportunities={handle: opportunity},
            contexts={handle: drafted} if drafted is not None else {},
        )
        yield state
        context = state.contexts.get(handle)
        if context is not None and context is not drafted:
            # The handle itself is never stored (the row is found by its hash): what the
            # model was shown names the post by its stable id in the record.
            bare = replace(context, opportunity=replace(context.opportunity, handle=""))
            data = _context().dump_json(bare).decode().replace(handle, opportunity.id)
            await self._drafted(row, data, self._wall() + self.ttl_s)

    async def counts(self, caller: Caller) -> dict[str, int] | None:
        now = self._wall()
        try:
            found = await self.records.run(
                StrikeStore.handle_counts, caller.principal, caller.client, now
            )
        except PlatformError:  # status says what is wrong with the record
            found = HandleCounts(0, 0)
        kept = [
            r
            for r in self._memory.values()
            if r.principal == caller.principal
            and r.expires_at > now
            and (not caller.client or r.client == caller.client)
        ]
        drafted = found.drafted + sum(1 for r in kept if r.drafted)
        return {"opportunities": found.scouted + len(kept), "contexts": drafted}

    # -- the record, or this process's memory when the record is unusable ----------------

    async def _load(self, digest: str, principal: str, now: float) -> HandleRow | None:
        kept = self._memory.get(digest)
        if kept is not None:
            return kept if kept.principal == principal and kept.expires_at > now else None
        return await self.records.run(StrikeStore.handle, digest, principal, now)

    async def _drafted(self, row: HandleRow, drafted: str, expires_at: float) -> None:
        if row.handle_hash not in self._memory:
            try:
                await self.records.run(
                    StrikeStore.set_drafted, row.handle_hash, row.principal, drafted, expires_at
                )
                return
            except PlatformError as exc:
                log.warning("draft's context kept in memory only: %s", exc.body.kind.value)
        self._remember([replace(row, drafted=drafted, expires_at=expires_at)])

    def _remember(self, rows: list[HandleRow]) -> None:
        for r in rows:
            self._memory[r.handle_hash] = r
            self._memory.move_to_end(r.handle_hash)
        while len(self._memory) > MEMORY_CAP:
            self._memory.popitem(last=False)

    async def _keep(self, caller: Caller, opportunities: list[Opportunity]) -> None:
        if not opportunities:
            return
        now = self._wall()
        rows = [
            HandleRow(
                handle_hash=handle_hash(o.handle),
                principal=caller.principal,
                client=caller.client,
                platform=o.post.platform,
                opportunity=o.id,
                scouted=_opportunity().dump_json(replace(o, handle="")).decode(),
                drafted=None,
                created_at=now,
                expires_at=now + self.ttl_s,
            )
            for o in opportunities
        ]
        try:
            await self.records.run(StrikeStore.add_handles, rows, now)
        except PlatformError as exc:  # scout still works; strike will say what is wrong
            log.warning("scout's handles kept in memory only: %s", exc.body.kind.value)
            self._remember(rows)
