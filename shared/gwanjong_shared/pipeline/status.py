"""The auto-registered `status` tool: its description (a prompt) and its report."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from fastmcp import Context

StatusExtra = Callable[[Context], Mapping[str, Any] | Awaitable[Mapping[str, Any]]]
"""Server hook adding top-level keys to the status report (e.g. platform health)."""

RESERVED_KEYS = frozenset({"state", "tools"})

STATUS_DESCRIPTION = """\
Show where your multi-step workflow stands: which intermediate results the server is \
holding for you, and which steps you can call right now.

When to call: before starting or resuming a workflow, when unsure what to do next, or \
after an error saying a step needs data that is empty. Read-only and cheap; it changes \
nothing.

Output (JSON):
- `state`: every stored field with `populated` (true once a step produced it) and \
`count` (how many items it holds).
- `tools.available`: the steps you may call now.
- `tools.blocked`: each step that cannot run yet, with `waiting_for` (the empty fields) \
and `call_first` (the steps that produce them).
The server may add more keys (for example, the health of its backends).

Example: {"state": {"opportunities": {"populated": true, "count": 5}, \
"contexts": {"populated": false, "count": 0}}, "tools": {"available": ["scout", "draft"], \
"blocked": [{"tool": "strike", "waiting_for": ["contexts"], "call_first": ["draft"]}]}} \
means: pick an opportunity and call `draft`; `strike` comes after."""


async def merge_extra(report: dict[str, Any], extra: StatusExtra | None, ctx: Context) -> None:
    """Add the server's extra keys to `report`, refusing to overwrite the pipeline's own."""
    if extra is None:
        return
    added = extra(ctx)
    if inspect.isawaitable(added):
        added = await added
    clash = RESERVED_KEYS.intersection(added)
    if clash:
        raise ValueError(f"status_extra must not return the reserved keys {sorted(clash)}")
    report.update(added)
