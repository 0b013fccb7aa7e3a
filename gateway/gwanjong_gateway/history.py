"""`gwanjong history`: the strike record as a table (or JSON), and `--resolve` for a
person to settle a write that reading back cannot prove."""

from __future__ import annotations

import json
import sys
import time

from rich.console import Console
from rich.table import Table

from gwanjong_gateway.config import GatewayConfig
from gwanjong_gateway.ledger import UNSETTLED, StrikeStatus
from gwanjong_gateway.store import StrikeStore


def print_history(
    config: GatewayConfig, platform: str | None, status: str | None, limit: int, as_json: bool
) -> int:
    path = config.state_dir / "gwanjong.db"
    console = Console()
    if not path.exists():
        console.print(f"No strikes recorded yet ({path} does not exist).")
        return 0
    store = StrikeStore(path)
    try:
        rows = store.history(platform=platform, status=status, limit=limit)
        if as_json:
            print(
                json.dumps(
                    [{**r.public(), "content": r.content, "policy": r.policy} for r in rows],
                    ensure_ascii=False,
                    indent=2,
                )
            )
            return 0
        table = Table(title=f"gwanjong history ({path})")
        for col in (
            "#",
            "when (UTC)",
            "platform",
            "action",
            "status",
            "approver",
            "target / result",
            "reason",
        ):
            table.add_column(col, overflow="fold")
        for r in rows:
            p = r.public()
            table.add_row(
                str(r.id),
                p["at"],
                r.platform,
                r.action,
                r.status,
                r.approver or "-",
                r.result_url or r.target_url or r.target,
                r.reason[:80],
            )
        console.print(table)
        if not rows:
            console.print("No strikes match.")
    finally:
        store.close()
    return 0


def resolve(config: GatewayConfig, record: int, outcome: str) -> int:
    """Settle an unsure record by hand: `posted` keeps the target held for good, `failed`
    frees it (say so only after checking the platform)."""
    path = config.state_dir / "gwanjong.db"
    if not path.exists():
        print(f"gwanjong: no strike record at {path}.", file=sys.stderr)
        return 2
    status = StrikeStatus(outcome)
    store = StrikeStore(path)
    try:
        row = store.get(record)
        if row is None:
            print(f"gwanjong: there is no record {record} in {path}.", file=sys.stderr)
            return 2
        if row.status not in UNSETTLED:
            print(
                f"gwanjong: record {record} is {row.status}, not unknown or pending; nothing to resolve.",
                file=sys.stderr,
            )
            return 2
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())
        store.settle(
            record,
            status,
            reason=f"resolved by a person as {status}",
            policy=[*row.policy, f"resolved by a person as {status} at {when}Z"],
        )
    finally:
        store.close()
    print(f"record {record}: {status}")
    return 0
