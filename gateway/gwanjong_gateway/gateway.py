"""What the gateway's tools and resources share: config, the platform servers, the strike
record and its desk, the inbox cursors, the credential page. Built once per gateway."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from gwanjong_gateway.config import GatewayConfig
from gwanjong_gateway.notify.notifier import Notifier
from gwanjong_gateway.platforms.breaker import Clock
from gwanjong_gateway.platforms.upstreams import Upstreams
from gwanjong_gateway.record.inbox_cursors import RecordCursors
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.scout import inbox
from gwanjong_gateway.scout.late import Late
from gwanjong_gateway.setup.secret_listener import SecretListener
from gwanjong_gateway.strike.desk import StrikeDesk
from gwanjong_gateway.strike.elicitation import PageLink
from gwanjong_gateway.team.access_tokens import store_for
from gwanjong_gateway.usage import spend


class Gateway:
    """What the tools share: config, the upstream clients, the strike record."""

    def __init__(
        self,
        config: GatewayConfig,
        environ: dict[str, str] | None = None,
        transports: dict[str, Any] | None = None,
        clock: Clock = time.monotonic,
        wall: Clock = time.time,
    ) -> None:
        """``clock``: the monotonic clock (breakers, the credential page, how long a
        dialog took, the settle window); ``wall``: the epoch clock of the strike record
        (tests inject both)."""
        self.config = config
        self.environ = environ
        self.upstreams = Upstreams(config, environ, transports, clock)
        #: every priced platform call's cost, and the daily budgets (the ledger opens on use)
        self.spend = spend.attach(config, self.upstreams, environ, wall)
        # The record is opened lazily in its worker thread; a corrupt file is reported by
        # strike (and status), never fatal to the gateway.
        self.records = Records.for_config(config, environ)
        self.desk = StrikeDesk(config, self.upstreams, self.records, clock=wall, mono=clock)
        self.cursors: inbox.CursorStore = (
            RecordCursors(self.records)
            if config.store.url
            else inbox.Cursors(config.state_dir / "inbox.json")
        )
        #: scout's reads still on the way when it answered, for the next scout (scout/late.py)
        self.late = Late(clock)
        #: how the gateway waits out a deadline of its own (tests: a fake clock's sleep)
        self.sleep: Callable[[float], Awaitable[None]] = anyio.sleep
        self.secret_listener = SecretListener(clock)  # the credential page, started on use
        self.mono = clock
        self.wall = wall
        #: a page link for an approval (URL-mode elicitation); None: no page is served
        self.approval_page: PageLink | None = None
        #: `[notify]`'s notifier while one runs (notify/background.py): producers publish to it
        self.notifier: Notifier | None = None

    def revoked(self, principal: str | None) -> bool:
        """A member whose team token is revoked: a link they were given (an approval's page,
        a credential page) does nothing more, as no request of theirs is let in."""
        if not principal or self.config.auth.mode != "tokens":
            return False
        entries = store_for(self.config.state_dir).entries()  # damaged: raises, nothing done
        return not any(e.name == principal and e.active for e in entries)

    def close_store(self) -> None:
        self.records.close()
        self.spend.close()

    async def aclose(self, within_s: float = 10) -> None:
        """A command's way out: end the platform servers this process started (waiting at
        most ``within_s``, even when the command is being cancelled), then the record."""
        with anyio.CancelScope(shield=True), anyio.move_on_after(within_s):
            await self.upstreams.close_all()
        self.close_store()
