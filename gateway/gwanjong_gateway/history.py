"""`gwanjong history`: the strike record as a table (or JSON)."""

from __future__ import annotations

import json

from rich.console import Console
from rich.table import Table

from gwanjong_gateway.config import GatewayConfig
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
