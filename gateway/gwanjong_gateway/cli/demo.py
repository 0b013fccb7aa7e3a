"""`gwanjong demo`: the whole pipeline on this machine against the local sandbox: a throw-away
gateway.toml (writes = live; the sandbox is the only place anything goes), the gateway as a
real stdio MCP server, and scout -> draft -> strike through a real MCP client, printing what
an agent would see: the inbox first, then a topic.
"""

from __future__ import annotations

import json
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, TypeVar

import anyio
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from mcp.types import ElicitResult
from pydantic import BaseModel, TypeAdapter
from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table

from gwanjong_gateway.config.file import render, write_config
from gwanjong_gateway.scout.scout_results import DraftResult, Found, ScoutResult
from gwanjong_gateway.status_report import StatusResult
from gwanjong_gateway.strike.results import Handoff, Posted, StrikeResult
from gwanjong_gateway.usage.token_count import count_tokens, tool_list_tokens
from gwanjong_shared.contract.errors import ErrorBody, read_error
from gwanjong_shared.contract.visible import link
from gwanjong_shared.kit.quiet import QUIET_ENV

R = TypeVar("R", bound=BaseModel)

#: the six bundled platforms the sandbox serves
DEFAULT_PLATFORMS = ["devto", "bluesky", "twitter", "reddit", "mastodon", "hackernews"]

# The terminal's width (COLUMNS, else 80 when not a terminal); every table folds to fit.
console = Console(stderr=False, highlight=False)


#: set by a Ctrl-C during the run: asyncio answers it by cancelling the demo, and a library
#: between us and the gateway (which got the same SIGINT and closed) may swallow that
#: cancellation, so the demo would go on and end as if nothing was asked
_STOPPED: list[bool] = []


def _note_ctrl_c() -> None:
    """Wrap asyncio's SIGINT handler (installed by the running loop) to note the Ctrl-C."""
    _STOPPED.clear()
    previous = signal.getsignal(signal.SIGINT)

    def on_sigint(signum: int, frame: Any) -> None:
        _STOPPED.append(True)
        if callable(previous):
            previous(signum, frame)

    signal.signal(signal.SIGINT, on_sigint)


async def _drive(config_path: Path, topic: str, platforms: list[str], sandbox: Any) -> int:
    _note_ctrl_c()
    transport = StdioTransport(
        command=sys.executable,
        args=["-m", "gwanjong_gateway", "--config", str(config_path)],
        env=dict(QUIET_ENV),
    )
    started = time.perf_counter()
    async with Client(transport, timeout=60, elicitation_handler=_approve) as client:
        tools = await client.list_tools()
        console.print(
            f"[bold]1. Connected[/] to the gateway over stdio in {time.perf_counter() - started:.1f} s; "
            f"protocol {getattr(client, 'protocol_version', '')}"
        )
        rows = [(t.name, str(count_tokens(_schema(t)))) for t in tools]
        rows.append(("[bold]total[/]", f"[bold]{tool_list_tokens(tools)}[/]"))
        table = _table("Tools the model sees", ("tool", "tokens (o200k)"), rows)
        table.columns[1].justify = "right"
        console.print(table)

        inbox_outcomes = await _inbox(client, platforms)

        async def progress(progress: float, total: float | None, message: str | None) -> None:
            console.print(f"   scout: {progress:.0f}/{total or 0:.0f} {message or ''}")

        console.print(f"\n[bold]2. scout[/](topic={topic!r}) across {', '.join(platforms)}")
        asked = {"topic": topic, "platforms": platforms, "limit": 8}
        data = await _call(client, "scout", asked, ScoutResult, progress_handler=progress)
        found = [
            (o.id, o.platform, f"{o.score:.3f}", str(o.comments_count), o.title[:60], o.reason)
            for o in data.opportunities
        ]
        columns = ("id", "platform", "score", "comments", "title", "reason")
        console.print(_table("Opportunities", columns, found))
        _unanswered(data.errors)
        opportunities = data.opportunities
        if not opportunities:
            console.print("[red]scout found nothing; the demo cannot go on.[/]")
            return 1

        outcomes: list[tuple[str, str, str]] = list(inbox_outcomes)
        reply = (
            "One gateway with scout/draft/strike keeps the tool list small: five tools "
            "instead of thirty-six, and the raw posts stay on the server."
        )
        for platform in platforms:
            mine = [o for o in opportunities if o.platform == platform]
            if not mine:
                continue
            # Prefer a thread where a program may reply (one that summoned us); otherwise
            # show the hand-off on the best one.
            chosen, drafted = mine[0], None
            for opportunity in mine[:3]:
                candidate = await _draft(client, opportunity)
                if drafted is None:
                    chosen, drafted = opportunity, candidate
                if _comment_rule(candidate) == "auto":
                    chosen, drafted = opportunity, candidate
                    break
            assert drafted is not None
            oid = chosen.id
            rules = drafted.strike.actions
            console.print(
                f"\n[bold]3. draft[/](opportunity_id={oid!r})  [{platform}] {chosen.title[:70]}"
            )
            console.print(f"   mood: {drafted.mood.label} · approach: {drafted.approach}")
            console.print(
                "   strike may: " + ", ".join(f"{a}={r.allowed}" for a, r in rules.items())
            )
            console.print("[bold]4. strike[/](action='comment')")
            result = await _strike(client, oid, reply)
            status, where = _status(result), _where(result)
            console.print(f"   -> [bold]{status}[/] {where}{_why(result)}")
            outcomes.append((platform, status, where))
            if status == "posted":
                again = await _strike(client, oid, reply)
                console.print(f"   strike again -> [bold]{_status(again)}[/] (never twice)")
            if platform == "devto" and status == "handoff":
                posted = await _strike(
                    client,
                    oid,
                    "What we learned putting one MCP gateway in front of four platform servers.",
                    action="post",
                    title="Five tools instead of thirty-six",
                )
                status = _status(posted)
                url = _where(posted) if isinstance(posted, Posted) else ""
                console.print(f"   strike(action='post') -> [bold]{status}[/] {url}{_why(posted)}")
                outcomes.append((platform, status, url))
        report = await _call(client, "status", {}, StatusResult)
        console.print(
            "\n[bold]5. status[/]: "
            + ", ".join(f"{k}={v.health}" for k, v in report.platforms.items())
        )

    writes = sandbox.writes()
    rows = [
        (
            w["platform"],
            w["action"],
            str(w["target"] or "-"),
            json.dumps(w["data"], ensure_ascii=False)[:90],
        )
        for w in writes
    ]
    title = "What reached the sandbox (its write log)"
    console.print(_table(title, ("platform", "action", "target", "text"), rows))
    posted = sum(1 for _, s, _ in outcomes if s == "posted")
    console.print(
        f"\n[bold green]Demo complete:[/] {len(outcomes)} strikes, {posted} posted, "
        f"{sum(1 for _, s, _ in outcomes if s == 'handoff')} handed to a human, {len(writes)} writes in the sandbox."
    )
    return 0 if outcomes and len(writes) >= posted else 1


async def _approve(message: str, response_type: Any, params: Any, context: Any) -> ElicitResult:
    """The approval dialog a client shows the person (a Dev.to article, an X like: the
    platform allows it only once a person approves that write, even in live mode). The
    demo shows it and answers for you, since only the sandbox receives it."""
    console.print("   [bold]a person is asked[/] (in your client, this dialog):")
    for text in message.splitlines():
        console.print(f"     {escape(text)}")
    console.print("   the demo answers [bold]Approve[/] for you")
    return ElicitResult(action="accept", content={"decision": "approve"})


async def _strike(
    client: Client[Any], oid: str, content: str, **more: str
) -> StrikeResult | ErrorBody:
    args = {"opportunity_id": oid, "action": "comment", "content": content, **more}
    return _answer(await client.call_tool("strike", args, raise_on_error=False))


def _schema(tool: Any) -> str:
    """A tool as the model reads it in the tool list."""
    return json.dumps(tool.model_dump(mode="json", by_alias=True, exclude_none=True))


def _unanswered(errors: dict[str, str]) -> None:
    """What a platform said instead of (all of) its answer, one line each."""
    for platform, why in errors.items():
        console.print(f"   [yellow]{platform}:[/] {escape(why)}")


def _table(title: str, columns: tuple[str, ...], rows: list[tuple[str, ...]]) -> Table:
    table = Table(title=title)
    for col in columns:
        table.add_column(col, overflow="fold")
    for row in rows:
        table.add_row(*row)
    return table


async def _call(
    client: Client[Any], tool: str, args: dict[str, Any], result: type[R], **more: Any
) -> R:
    """A tool's structured answer, as its result model."""
    return result.model_validate((await client.call_tool(tool, args, **more)).structured_content)


async def _draft(client: Client[Any], opportunity: Found) -> DraftResult:
    return await _call(client, "draft", {"opportunity_id": opportunity.id}, DraftResult)


def _comment_rule(drafted: DraftResult) -> str:
    rule = drafted.strike.actions.get("comment")
    return rule.allowed if rule is not None else "unknown"


def _answer(called: Any) -> StrikeResult | ErrorBody:
    """A strike's result, typed: one of its statuses, or the error it failed with."""
    if called.is_error:
        text = " ".join(getattr(c, "text", "") for c in called.content)
        return read_error(called.structured_content, text)
    result: StrikeResult = TypeAdapter(StrikeResult).validate_python(called.structured_content)
    return result


def _status(result: StrikeResult | ErrorBody) -> str:
    return "error" if isinstance(result, ErrorBody) else str(result.status)


def _where(result: StrikeResult | ErrorBody) -> str:
    """The link to show: what was posted, or where the person posts it, with its real host
    (as every surface draws a link) and no markup."""
    url = ""
    if isinstance(result, Posted):
        url = result.url or ""
    elif isinstance(result, Handoff):
        url = result.open or ""
    return escape(link(url)) if url else ""


def _why(result: StrikeResult | ErrorBody) -> str:
    """Why a strike did not post (its reason or error), for the line after its status."""
    if isinstance(result, Posted):
        return ""
    why = result.text if isinstance(result, ErrorBody) else result.reason
    return f" ({escape(why or 'no reason given')})"  # a reason may hold "[...]" (not markup)


INBOX_REPLY = (
    "Thanks for asking! We keep one gateway with scout/draft/strike: five tools instead of "
    "thirty-six, so the tool list stays around 1,400 tokens."
)


async def _inbox(client: Client[Any], platforms: list[str]) -> list[tuple[str, str, str]]:
    """Step 1b: scout(source="mentions") and answer one summons per platform."""
    console.print(f"\n[bold]1b. scout[/](source='mentions') across {', '.join(platforms)}")
    asked = {"source": "mentions", "platforms": platforms, "limit": 10}
    scouted = await _call(client, "scout", asked, ScoutResult)
    inbox = [o for o in scouted.opportunities if o.summoned]
    title = "Inbox: where someone asked for us (unanswered, newest first)"
    rows = [(o.id, o.platform, o.title[:60], o.reason) for o in inbox]
    console.print(_table(title, ("id", "platform", "title", "reason"), rows))
    _unanswered(scouted.errors)
    outcomes: list[tuple[str, str, str]] = []
    for platform in platforms:
        mine = [o for o in inbox if o.platform == platform]
        if not mine:
            continue
        # A post that tagged us is where a program may answer (X, Bluesky); else the newest.
        chosen = next((o for o in mine if "mentions you" in o.reason), mine[0])
        allowed = _comment_rule(await _draft(client, chosen))
        result = await _strike(client, chosen.id, INBOX_REPLY)
        status, where = _status(result), _where(result)
        why = "" if status == "handoff" else _why(result)
        console.print(
            f"   \\[{platform}] {chosen.reason}: comment is {allowed} -> [bold]{status}[/] {where}{why}"
        )
        outcomes.append((platform, status, where))
        if allowed != "never":
            outcomes += await _refusal(client, platform, [o for o in mine if o is not chosen])
    return outcomes


async def _refusal(
    client: Client[Any], platform: str, others: list[Found]
) -> list[tuple[str, str, str]]:
    """A summons the platform's rules refuse for this target (an author who opted out of
    automated replies), struck to show the refusal and its reason."""
    for opportunity in others[:4]:
        if _comment_rule(await _draft(client, opportunity)) != "never":
            continue
        result = await _strike(client, opportunity.id, INBOX_REPLY)
        status = _status(result)
        console.print(
            f"   \\[{platform}] {opportunity.reason}: comment is never -> [bold]{status}[/]"
            f"{_why(result)}"
        )
        return [(platform, status, "")]
    return []


def run_demo(
    topic: str = "MCP gateway design", platforms: list[str] | None = None, keep: bool = False
) -> int:
    try:
        from gwanjong_sandbox.control import start_sandbox
    except ModuleNotFoundError:
        from gwanjong_gateway.extras import missing_message

        sys.stderr.write(f"gwanjong demo: {missing_message('sandbox')}\n")
        return 1
    console.print(
        Panel(
            "gwanjong demo: scout -> draft -> strike against a local sandbox of Dev.to, Bluesky, "
            "X, Reddit, Mastodon and Hacker News.\n"
            "Nothing leaves this machine.",
            expand=False,
        )
    )
    state = Path(tempfile.mkdtemp(prefix="gwanjong-demo-"))
    try:
        with start_sandbox() as sandbox:
            return _run(sandbox, state, topic, platforms)
    finally:
        if keep:
            console.print(f"The demo's gateway.toml and state are kept in {state}.")
        else:
            shutil.rmtree(state, ignore_errors=True)
            console.print(
                f"Deleted the demo's gateway.toml and state ({state}); "
                "`gwanjong demo --keep` keeps them."
            )


def _run(sandbox: Any, tmp: Path, topic: str, platforms: list[str] | None) -> int:
    available = sandbox.health()["servable"]
    chosen = [p for p in (platforms or DEFAULT_PLATFORMS) if p in available]
    if not chosen:
        console.print(
            f"[red]None of {platforms} is served by the sandbox ({', '.join(available)}).[/]"
        )
        return 2
    envs = {p: sandbox.env(p) for p in chosen}
    console.print(f"Sandbox at {sandbox.url} serving {', '.join(available)}")
    config_path = tmp / "gateway.toml"
    # the demo shows every platform's answer: its scout waits for all of them (a real
    # client gets what arrived within `answer_within_s`, the rest on its next call)
    gateway = {
        "writes": "live",
        "state_dir": tmp / "state",
        "call_timeout_s": 20,
        "answer_within_s": 20,
    }
    platforms_ = {name: {"env": env, "min_interval_s": 0} for name, env in envs.items()}
    write_config(config_path, render(gateway, platforms_))
    try:
        code = anyio.run(_drive, config_path, topic, chosen, sandbox)
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if _STOPPED:
        raise KeyboardInterrupt  # the person asked: main says so in one line (130)
    return code
