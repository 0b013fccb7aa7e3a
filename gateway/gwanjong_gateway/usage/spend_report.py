"""Spend in the usage report: per UTC day and platform (the spend ledger's rows), the
daily budgets, and the lines `status` and `gwanjong usage` print of them."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from gwanjong_gateway.usage.prices import usd

if TYPE_CHECKING:  # ledger imports the usage log, which imports this
    from gwanjong_gateway.usage.ledger import DaySpend


def section(days: list[DaySpend], budgets: dict[str, int]) -> dict[str, Any]:
    """The report's `spend`: one entry per day and platform, and each platform's budget."""
    return {
        "days": [
            {
                "day": d.day,
                "platform": d.platform,
                "usd": usd(d.micros),
                "micros": d.micros,
                "calls": d.calls,
                "in_flight": d.in_flight,
            }
            for d in days
        ],
        "daily_budget": {p: {"usd": usd(m), "micros": m} for p, m in sorted(budgets.items())},
    }


def compact(report: dict[str, Any], now: float) -> list[str]:
    """`status`: one line per platform that spent, or has a budget."""
    days, budgets = _parts(report)
    today = time.strftime("%Y-%m-%d", time.gmtime(now))
    totals: dict[str, int] = {}
    todays: dict[str, int] = {}
    for d in days:
        totals[d["platform"]] = totals.get(d["platform"], 0) + d["micros"]
        if d["day"] == today:
            todays[d["platform"]] = d["micros"]
    lines: list[str] = []
    for platform in sorted({*totals, *budgets}):
        budget = budgets.get(platform)
        of = f" of {budget['usd']} a day" if budget else ""
        line = f"{platform} spend: {usd(todays.get(platform, 0))} today (UTC){of}"
        if report.get("since"):
            line += f", {usd(totals.get(platform, 0))} since {report['since'][:10]}"
        lines.append(line)
    return lines


def table(report: dict[str, Any]) -> list[str]:
    """`gwanjong usage`: a day, a platform, what it spent, its calls (80 columns)."""
    days, budgets = _parts(report)
    if not days and not budgets:
        return []
    out = [f"{'spend (UTC day)':<16}{'platform':<10}{'spent':>14}{'calls':>7}  budget"]
    for d in days:
        budget = budgets.get(d["platform"])
        flight = f" ({d['in_flight']} running)" if d["in_flight"] else ""
        out.append(
            f"{d['day']:<16}{d['platform'][:9]:<10}{d['usd']:>14}{d['calls']:>7}  "
            f"{budget['usd'] if budget else '-'}{flight}"
        )
    if not days:
        out.append("no priced calls in this period")
    return [*out, ""]


def _parts(report: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    spend: dict[str, Any] = report.get("spend") or {}
    return list(spend.get("days") or []), dict(spend.get("daily_budget") or {})
