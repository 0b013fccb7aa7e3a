"""A gateway.toml whose record already holds waiting approvals and hand-offs: what
`gwanjong review list` reads in tests/gateway/cli/test_quick_commands.py and in
bench/start/cli.py."""

from __future__ import annotations

import time
from contextlib import closing
from pathlib import Path

from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules import approvals
from gwanjong_gateway.rules.ledger import StrikeStatus
from tests.gateway.helpers import config_file
from tests.gateway.rows import approval_of, strike_row


def seeded_config(tmp: Path, waiting: int = 20, now: float | None = None) -> Path:
    """gateway.toml (confirm mode, dev.to) in ``tmp`` whose SQLite record holds ``waiting``
    pending approvals (open for an hour from ``now``) and as many hand-offs; its path."""
    at = time.time() if now is None else now
    state = tmp / "state"
    state.mkdir(parents=True, exist_ok=True)
    with closing(StrikeStore(state / "gwanjong.db")) as store:
        for n in range(waiting):
            target, text = f"p{n}", f"reply {n}: guard each await."
            approval = approval_of(
                target, text, at + 3600, author=f"ann{n}", token_hash=approvals.token_hash(f"t{n}")
            )
            store.open_approval(at, approval)
            strike_row(
                store,
                intent_key=f"handoff-{n}",
                target="",
                opportunity=f"devto:h{n}",
                action="post",
                content=f"a post to make by hand {n}",
                status=StrikeStatus.HANDOFF,
                now=at,
            )
    return config_file(tmp, ["devto"], "confirm")
