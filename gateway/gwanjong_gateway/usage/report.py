"""The usage report: the log's rows and the spend ledger's as figures, `status` lines, and
`gwanjong usage`'s text or JSON.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict
from enum import StrEnum
from typing import TYPE_CHECKING, Any, NamedTuple

from gwanjong_gateway.rules.approvals import iso
from gwanjong_gateway.usage.prices import usd
from gwanjong_shared.contract.visible import json_escaped, line

if TYPE_CHECKING:
    from gwanjong_gateway.usage.spend_ledger import DaySpend


class Scope(StrEnum):
    """The `scope` column: a platform tool the gateway called, or a gateway tool it served."""

    PLATFORM = "platform"
    GATEWAY = "gateway"


class Call(NamedTuple):
    """One row of the usage log (record/sql/migrations.py: the usage steps), as written and as
    read. A named tuple, not a dataclass: a report reads tens of thousands of them, and a
    tuple is built at a third of a dataclass's cost."""

    at: float
    scope: str  # a `Scope` (read back as its text; a StrEnum compares equal to it)
    platform: str  # '' for gateway tools
    tool: str
    kind: str  # '' on success, else the error kind
    ms: float
    tokens: int | None = None  # gateway tools: o200k tokens of the result
    retry_after: float | None = None  # rate_limited: what the platform asked for
    message: str = ""
    rl_remaining: int | None = None  # the platform's budget as its server reported it
    rl_limit: int | None = None
    rl_reset: str | None = None
    principal: str = ""  # the signed-in caller ('' without sign-in)


def percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100) of already sorted values."""
    if not values:
        return None
    rank = max(1, -(-len(values) * q // 100))  # ceil
    return values[int(rank) - 1]


def aggregate(rows: Iterable[Call], since_s: float | None, now: float) -> dict[str, Any]:
    platform: dict[tuple[str, str], dict[str, Any]] = {}
    gateway: dict[str, dict[str, Any]] = {}
    latencies: dict[tuple[str, str], list[float]] = {}
    for r in rows:
        at, plat, tool, kind, retry_after = r.at, r.platform, r.tool, r.kind, r.retry_after
        if r.scope == Scope.GATEWAY:
            g = gateway.get(tool)  # not setdefault: no throwaway dict per row
            if g is None:
                g = gateway[tool] = {"tool": tool, "calls": 0, "errors": {}, "tokens": 0}
            g["calls"] += 1
            g["tokens"] += int(r.tokens or 0)
            if kind:
                g["errors"][kind] = g["errors"].get(kind, 0) + 1
            continue
        key = (plat, tool)
        p = platform.get(key)
        if p is None:
            p = platform[key] = {
                "platform": plat,
                "tool": tool,
                "calls": 0,
                "errors": {},
                "last_error": None,
                "rate_limit": None,
                "remaining": None,
            }
            latencies[key] = []
        p["calls"] += 1
        if r.rl_remaining is not None:
            # The last budget this tool's platform server read from the headers.
            p["remaining"] = {
                "remaining": r.rl_remaining,
                "limit": r.rl_limit,
                "reset_at": r.rl_reset,
                "at": iso(at),
            }
        latencies[key].append(float(r.ms))
        if kind:
            p["errors"][kind] = p["errors"].get(kind, 0) + 1
            p["last_error"] = {"kind": kind, "message": r.message, "at": iso(at)}
            if retry_after is not None:
                # What the platform told us it allows (the contract carries no header
                # counts, only the wait a rate_limited error asks for).
                p["rate_limit"] = {
                    "retry_after_s": retry_after,
                    "until": iso(at + retry_after),
                    "now_limited": at + retry_after > now,
                }
    for key, p in platform.items():
        values = sorted(latencies[key])
        p["p50_ms"] = _ms(percentile(values, 50))
        p["p95_ms"] = _ms(percentile(values, 95))
    for g in gateway.values():
        g["tokens_per_call"] = round(g["tokens"] / g["calls"]) if g["calls"] else 0
    tools = sorted(platform.values(), key=lambda p: (p["platform"], p["tool"]))
    return {
        "since": iso(now - since_s) if since_s else None,
        "platform_tools": tools,
        "rate_remaining": _tightest_per_platform(tools, now),
        "gateway_tools": sorted(gateway.values(), key=lambda g: g["tool"]),
    }


def _tightest_per_platform(tools: list[dict[str, Any]], now: float) -> dict[str, Any]:
    """Per platform, the known window with the least left whose reset is not past (X
    counts per endpoint: the tightest one is what stops us first)."""
    out: dict[str, Any] = {}
    stamp = iso(now)
    for t in tools:
        window = t["remaining"]
        if window is None or (window["reset_at"] and window["reset_at"] <= stamp):
            continue  # ISO-8601 Z strings compare in time order
        best = out.get(t["platform"])
        if best is None or window["remaining"] < best["remaining"]:
            out[t["platform"]] = {**window, "tool": t["tool"]}
    return out


def compact_lines(report: dict[str, Any], now: float) -> list[str]:
    """One line per platform, one for the gateway's tools."""
    lines: list[str] = spend_compact(report, now)
    by_platform: dict[str, list[dict[str, Any]]] = {}
    for p in report["platform_tools"]:
        by_platform.setdefault(p["platform"], []).append(p)
    for name, tools in by_platform.items():
        calls = sum(t["calls"] for t in tools)
        errors = sum((Counter[str](t["errors"]) for t in tools), Counter[str]())
        worst = max((t["p95_ms"] or 0 for t in tools), default=0)
        line = f"{name}: {calls} calls, p95 {worst:g} ms"
        if errors:
            line += ", errors " + _kinds(errors)
        limited = [
            t["rate_limit"] for t in tools if t["rate_limit"] and t["rate_limit"]["now_limited"]
        ]
        if limited:
            line += f", rate-limited until {max(r['until'] for r in limited)}"
        budget = report["rate_remaining"].get(name)
        if budget:
            line += f", {_left(budget)} left ({budget['tool']})"
        lines.append(line)
    if report["gateway_tools"]:
        parts = [
            f"{g['tool']} {g['calls']}x ~{g['tokens_per_call']} tok"
            for g in report["gateway_tools"]
        ]
        lines.append("gateway: " + ", ".join(parts))
    return lines or ["no calls recorded yet"]


def format_report(report: dict[str, Any]) -> str:
    """`gwanjong usage` as text for an 80-column terminal."""
    since = report["since"] or "the start of the record"
    out = [f"Usage since {since}.", "", *spend_table(report)]
    if report["platform_tools"]:
        out.append(f"{'platform':<9}{'tool':<14}{'calls':>6}{'p50 ms':>9}{'p95 ms':>9}  errors")
        for p in report["platform_tools"]:
            errors = _kinds(p["errors"]) or "-"
            out.append(
                f"{p['platform'][:8]:<9}{p['tool'][:13]:<14}{p['calls']:>6}"
                f"{_num(p['p50_ms']):>9}{_num(p['p95_ms']):>9}  {errors}"
            )
            if p["last_error"]:
                e = p["last_error"]
                # a platform's own words: each control character marked, never raw
                out.append(f"    last error {e['at']}: {e['kind']}: {line(e['message'], 200)}"[:78])
            if p["rate_limit"]:
                r = p["rate_limit"]
                out.append(
                    f"    rate limited: retry after {r['retry_after_s']:g} s (until {r['until']})"
                )
            if p["remaining"]:
                w = p["remaining"]
                resets = f", resets {w['reset_at']}" if w["reset_at"] else ""
                out.append(f"    remaining {_left(w)}{resets} (as of {w['at']})")
        out.append("")
    if report["gateway_tools"]:
        out.append(f"{'gateway tool':<23}{'calls':>6}{'tokens':>9}{'per call':>9}  errors")
        for g in report["gateway_tools"]:
            errors = _kinds(g["errors"]) or "-"
            out.append(
                f"{g['tool'][:22]:<23}{g['calls']:>6}{g['tokens']:>9}{g['tokens_per_call']:>9}  {errors}"
            )
    if not report["platform_tools"] and not report["gateway_tools"]:
        out.append("No calls recorded in this period.")
    return "\n".join(out).rstrip()


def _kinds(errors: dict[str, int]) -> str:
    return " ".join(f"{k}={n}" for k, n in sorted(errors.items()))


def _left(window: dict[str, Any]) -> str:
    """What a rate window has left, out of its limit when the platform said it."""
    of = f"/{window['limit']}" if window["limit"] is not None else ""
    return f"{window['remaining']}{of}"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def parse_since(text: str) -> float:
    """`7d`, `12h`, `30m`, `90s` (or plain seconds) -> seconds."""
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
    text = text.strip().lower()
    try:
        scale = units.get(text[-1:], 0)
        value = float(text[:-1]) * scale if scale else float(text)
    except ValueError:
        raise ValueError(f"--since {text!r}: give a duration like 7d, 12h or 30m") from None
    if value <= 0:
        raise ValueError(f"--since {text!r}: give a positive duration")
    return value


def _ms(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def as_json(report: dict[str, Any]) -> str:
    """The report as JSON for a terminal: the same values, hidden characters as escapes."""
    return json_escaped(json.dumps(report, ensure_ascii=False, indent=2))


# -- spend -------------------------------------------------------------------------------


def spend_section(days: list[DaySpend], budgets: dict[str, int]) -> dict[str, Any]:
    """The report's `spend`: one entry per day and platform, and each platform's budget."""
    return {
        # day, platform, usd, then the row's other figures (day and platform keep their places)
        "days": [
            {"day": d.day, "platform": d.platform, "usd": usd(d.micros), **asdict(d)} for d in days
        ],
        "daily_budget": {p: {"usd": usd(m), "micros": m} for p, m in sorted(budgets.items())},
    }


def spend_compact(report: dict[str, Any], now: float) -> list[str]:
    """`status`: one line per platform that spent, or has a budget."""
    days, budgets = report["spend"]["days"], report["spend"]["daily_budget"]
    today = time.strftime("%Y-%m-%d", time.gmtime(now))
    totals: Counter[str] = Counter()
    for d in days:
        totals[d["platform"]] += d["micros"]
    todays = {d["platform"]: d["micros"] for d in days if d["day"] == today}
    lines: list[str] = []
    for platform in sorted({*totals, *budgets}):
        budget = budgets.get(platform)
        of = f" of {budget['usd']} a day" if budget else ""
        line = f"{platform} spend: {usd(todays.get(platform, 0))} today (UTC){of}"
        if report.get("since"):
            line += f", {usd(totals.get(platform, 0))} since {report['since'][:10]}"
        lines.append(line)
    return lines


def spend_table(report: dict[str, Any]) -> list[str]:
    """`gwanjong usage`: a day, a platform, what it spent, its calls (80 columns)."""
    days, budgets = report["spend"]["days"], report["spend"]["daily_budget"]
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
