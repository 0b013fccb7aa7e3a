"""The workflow every client driver runs, with nothing but the standard library, so each
client's own virtualenv (.tools/py/<name>) can import it beside its driver.

A driver turns its library's tool objects into one coroutine, ``call(name, arguments)``,
that answers the tool's structured result, or ``{"error": <text>}`` when the tool reported
an error (``isError``). The run prints one JSON report on stdout for the test to read;
everything else a library logs goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any

Call = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]

TOPIC = "rust async cancellation"
TITLE = "Guards for cancellation"
BODY = "Pin the executor before you measure; a guard per await keeps cancellation honest."


def arguments(
    extra: Callable[[argparse.ArgumentParser], object] | None = None,
) -> argparse.Namespace:
    """The common arguments, plus what ``extra`` adds for one driver."""
    p = argparse.ArgumentParser(description=__doc__)
    if extra:
        extra(p)
    p.add_argument("--transport", choices=["stdio", "http"], required=True)
    p.add_argument("--url", help="the gateway's MCP URL (http)")
    p.add_argument("--command", help="the gateway's command line as a JSON list (stdio)")
    p.add_argument("--token", help="a bearer token (team mode): the standard Authorization header")
    p.add_argument(
        "--scenario",
        choices=["flow", "list", "scout", "draft", "strike"],
        default="flow",
        help="flow: scout -> draft -> strike; list: tools only; scout: only scout; "
        "draft/strike: only that call, on --handle",
    )
    p.add_argument("--handle", help="the opportunity id for --scenario draft/strike")
    p.add_argument("--platform", default="devto")
    return p.parse_args()


def command(args: argparse.Namespace) -> list[str]:
    line = json.loads(args.command)
    assert isinstance(line, list) and line, "--command must be a JSON list"
    return [str(part) for part in line]


def headers(args: argparse.Namespace) -> dict[str, str] | None:
    """The only header any driver sends: the standard bearer token, in team mode."""
    return {"Authorization": f"Bearer {args.token}"} if args.token else None


async def run(call: Call, args: argparse.Namespace) -> dict[str, Any]:
    """What the test asserts on: each step's result, stopping at the first error."""
    report: dict[str, Any] = {}
    if args.scenario == "list":
        return report
    if args.scenario == "draft":
        report["draft"] = await call("draft", {"opportunity_id": args.handle})
        return report
    if args.scenario == "strike":
        report["strike"] = await call("strike", strike_args(args.handle))
        return report
    scouted = await call("scout", {"topic": TOPIC, "platforms": [args.platform], "limit": 5})
    report["scout"] = scouted
    if "error" in scouted or not scouted.get("opportunities"):
        return report
    handle = str(scouted["opportunities"][0]["id"])
    report["handle"] = handle
    if args.scenario == "scout":
        return report
    report["draft"] = await call("draft", {"opportunity_id": handle})
    if "error" in report["draft"]:
        return report
    report["strike"] = await call("strike", strike_args(handle))
    return report


def strike_args(handle: str) -> dict[str, Any]:
    """A new post: on dev.to a comment is a hand-off to a person, a post is a write (here a
    dry run, which sends nothing)."""
    return {"opportunity_id": handle, "action": "post", "title": TITLE, "content": BODY}


class Wire:
    """What the client itself sent and got over HTTP, seen by an httpx(2) response hook the
    driver adds to the client's own HTTP client: the MCP session ids the server handed out
    (one per session: a per-call client shows one per call), the protocol versions the client
    put in `MCP-Protocol-Version`, and whether any request carried a gwanjong header."""

    def __init__(self) -> None:
        self.sessions: list[str] = []
        self.versions: list[str] = []
        self.gwanjong_headers: list[str] = []

    async def hook(self, response: Any) -> None:
        session = response.headers.get("mcp-session-id")
        if session and session not in self.sessions:
            self.sessions.append(session)
        version = response.request.headers.get("mcp-protocol-version")
        if version and version not in self.versions:
            self.versions.append(version)
        for name in response.request.headers:
            if str(name).lower().startswith("x-gwanjong"):
                self.gwanjong_headers.append(str(name))

    def report(self) -> dict[str, Any]:
        return {
            "sessions": len(self.sessions),
            "versions": self.versions,
            "gwanjong_headers": self.gwanjong_headers,
        }


def emit(report: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(report) + "\n")
    sys.stdout.flush()
