"""What the gateway's tools and resources share: config, the platform servers, the strike
record and its desk, the inbox cursors, the credential page. Built once per gateway."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from gwanjong_gateway.config import GatewayConfig
from gwanjong_gateway.platforms.breaker import Clock
from gwanjong_gateway.platforms.upstreams import Upstreams
from gwanjong_gateway.record.inbox_cursors import RecordCursors
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.scout import inbox
from gwanjong_gateway.setup.secret_listener import SecretListener
from gwanjong_gateway.strike.approval import PageLink
from gwanjong_gateway.strike.desk import StrikeDesk


class Gateway:
    """What the tools share: config, the upstream clients, the strike record."""

    def __init__(
        self,
        config: GatewayConfig,
        environ: dict[str, str] | None = None,
        transports: dict[str, Any] | None = None,
        clock: Clock = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        """``clock``: monotonic (breakers, timings); ``wall``: the time the record keeps
        (an approval's expiry is read on it)."""
        self.config = config
        self.environ = environ
        self.upstreams = Upstreams(config, environ, transports, clock)
        # The record is opened lazily in its worker thread; a corrupt file is reported by
        # strike (and status), never fatal to the gateway.
        self.records = Records.for_config(config, environ)
        self.desk = StrikeDesk(config, self.upstreams, self.records, clock=wall)
        self.cursors: inbox.CursorStore = (
            RecordCursors(self.records)
            if config.store.url
            else inbox.Cursors(config.state_dir / "inbox.json")
        )
        self.secret_listener = SecretListener(clock)  # the credential page, started on use
        self.mono = clock
        #: a page link for an approval (URL-mode elicitation); None: no page is served
        self.approval_page: PageLink | None = None

    def close_store(self) -> None:
        self.records.close()
