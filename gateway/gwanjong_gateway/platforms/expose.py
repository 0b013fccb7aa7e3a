"""Pass chosen raw platform tools through, by namespaced name (`expose` in gateway.toml).

Declared from the config at build time, so they are in the first `tools/list`; until the
backend is up a tool answers `unavailable`, then takes the server's own definition (output
schema admitting the error shape) and clients are told (tool_changes.py).

Only tools that read: a forwarded call goes around the strike chain, so the contract's
write tools are refused when the config loads, and any other tool unless its server
annotates it `readOnlyHint: true` (`gwanjong doctor` names such a tool).
"""

from __future__ import annotations

import contextlib
import json
import logging
import weakref
from typing import Any, NoReturn, cast

import anyio
from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.tools.base import Tool, ToolResult
from mcp.types import TextContent
from pydantic import PrivateAttr

from gwanjong_gateway.platforms.tool_changes import ToolChanges
from gwanjong_gateway.platforms.upstream import Health
from gwanjong_gateway.platforms.upstreams import SEP, Upstreams
from gwanjong_shared.contract import WRITE_TOOLS
from gwanjong_shared.contract.errors import ErrorKind, format_error
from gwanjong_shared.contract.schemas import admit_errors

log = logging.getLogger(__name__)

_ANY_ARGS: dict[str, Any] = {"type": "object", "additionalProperties": True}
#: each gateway server's announcer of changed tool lists (only one that exposes tools)
_CHANGES: weakref.WeakKeyDictionary[FastMCP[Any], ToolChanges] = weakref.WeakKeyDictionary()


def writes(tool: str, definition: Any) -> bool:
    """True unless ``tool`` (a platform server's tool, as it listed it) only reads: one of
    the contract's write tools, or annotations that do not say `readOnlyHint: true`."""
    annotations = getattr(definition, "annotations", None)
    return tool in WRITE_TOOLS or getattr(annotations, "read_only_hint", None) is not True


def _fail(kind: ErrorKind, message: str) -> NoReturn:
    raise ToolError(format_error(kind, message))


class ForwardedTool(Tool):
    upstream_name: str
    upstream_tool: str
    _upstreams: Upstreams | None = PrivateAttr(default=None)

    def bind(self, upstreams: Upstreams) -> ForwardedTool:
        """Forward through ``upstreams`` (the gateway's; not a model field)."""
        self._upstreams = upstreams
        return self

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        assert self._upstreams is not None
        upstream = self._upstreams.get(self.upstream_name)
        if upstream is None:
            _fail(
                ErrorKind.NOT_SUPPORTED,
                f"{self.upstream_name} is not enabled in gateway.toml; enable it or drop "
                f"{self.name} from expose.",
            )
        if upstream.health is not Health.UP:
            # Its tool list (and so whether the tool only reads) is known once it is up.
            with anyio.move_on_after(self._upstreams.config.gateway.call_timeout_s):
                await upstream.ensure()
        if upstream.health is Health.STARTING:
            upstream.still_starting().raise_for_error()
        if upstream.health is not Health.UP:
            upstream.unavailable().raise_for_error()
        if self.upstream_tool not in upstream.tools:
            _fail(
                ErrorKind.NOT_SUPPORTED,
                f"the {self.upstream_name} server has no tool {self.upstream_tool!r}; "
                "fix expose in gateway.toml.",
            )
        if writes(self.upstream_tool, upstream.tools[self.upstream_tool]):
            _fail(
                ErrorKind.NOT_SUPPORTED,
                f"{self.name} may write to the platform (its server does not mark it read-only), "
                "and a write goes through strike, where a person approves it; drop it from "
                "expose in gateway.toml and use strike.",
            )
        outcome = await self._upstreams.call(self.upstream_name, self.upstream_tool, arguments)
        outcome.raise_for_error()
        # A pass-through: the platform's own answer, as its server shaped it.
        raw = outcome.result.structured_content if outcome.result is not None else None
        data: dict[str, Any] = {"result": raw}
        if isinstance(raw, dict):
            data = cast("dict[str, Any]", raw)
        text = json.dumps(data, ensure_ascii=False)
        return ToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def _forwarded(
    upstreams: Upstreams,
    name: str,
    description: str,
    parameters: dict[str, Any],
    annotations: Any = None,
    output_schema: dict[str, Any] | None = None,
) -> ForwardedTool:
    platform, _, tool = name.partition(SEP)
    forwarded = ForwardedTool(
        name=name,
        description=description,
        parameters=parameters,
        annotations=annotations,
        output_schema=admit_errors(output_schema) if output_schema is not None else None,
        upstream_name=platform,
        upstream_tool=tool,
    )
    return forwarded.bind(upstreams)


def declare_exposed(mcp: FastMCP[Any], upstreams: Upstreams, names: list[str]) -> None:
    """Every configured name, before any backend is up."""
    if names:
        _CHANGES[mcp] = ToolChanges().attach(mcp)
    for name in names:
        platform, _, tool = name.partition(SEP)
        mcp.add_tool(
            _forwarded(
                upstreams,
                name,
                f"[{platform}] {tool}, forwarded to the {platform} server (not started yet).",
                _ANY_ARGS,
            )
        )


def register_exposed(mcp: FastMCP[Any], upstreams: Upstreams, names: list[str]) -> list[str]:
    """Give each exposed tool whose backend is up that server's description and schema."""
    added: list[str] = []
    removed: list[str] = []
    for name in names:
        platform, _, tool = name.partition(SEP)
        upstream = upstreams.get(platform)
        if upstream is None or tool not in upstream.tools:
            log.warning("expose: %s is not available yet (platform down or no such tool)", name)
            continue
        source = upstream.tools[tool]
        if writes(tool, source):
            log.error("expose: %s is refused: it may write to %s (not read-only)", name, platform)
            with contextlib.suppress(Exception):  # its placeholder goes too: never listed
                mcp.local_provider.remove_tool(name)
            removed.append(name)
            continue
        forwarded = _forwarded(
            upstreams,
            name,
            f"[{platform}] {source.description or ''}",
            source.input_schema,
            source.annotations,
            source.output_schema,
        )
        with contextlib.suppress(Exception):  # absent if never declared
            mcp.local_provider.remove_tool(name)
        mcp.add_tool(forwarded)
        added.append(name)
    changes = _CHANGES.get(mcp)
    if (added or removed) and changes is not None:
        changes.changed()
    return added
