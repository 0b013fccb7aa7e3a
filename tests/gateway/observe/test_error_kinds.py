"""The error kind counted is the kind the caller got (issue 38): behind the gateway's own
middleware order (ContractErrors outermost, then usage metering, then the metrics), every
way a tool call can fail (each contract kind a tool raises, the pipeline's order hint, bad
arguments, an unknown tool, an unexpected exception, a bare ToolError) is counted in
`gwanjong_tool_errors_total` and in the usage record under the kind the client read."""

from __future__ import annotations

import time
from typing import Any, cast

import pytest
from fastmcp import Client, FastMCP
from fastmcp.exceptions import ToolError
from mcp.shared.exceptions import MCPError

from gwanjong_gateway.observe.metrics import Metrics, ToolMetrics
from gwanjong_gateway.usage.log import UsageLog
from gwanjong_gateway.usage.metering import UsageMiddleware
from gwanjong_shared.contract.errors import ErrorKind, PlatformError
from gwanjong_shared.kit.mcp_errors import ContractErrors
from gwanjong_shared.pipeline import NeedsPreviousStep

pytestmark = pytest.mark.anyio


class Usage:
    """What the usage middleware records, by tool."""

    def __init__(self) -> None:
        self.kinds: dict[str, str] = {}

    def record_gateway(
        self, tool: str, kind: str, seconds: float, result_text: str, principal: str = ""
    ) -> None:
        self.kinds[tool] = kind


def server(metrics: Metrics, usage: Usage) -> FastMCP[Any]:
    mcp: FastMCP[Any] = FastMCP("kinds", mask_error_details=True)
    mcp.add_middleware(ContractErrors())
    mcp.add_middleware(UsageMiddleware(cast(UsageLog, usage)))
    mcp.add_middleware(ToolMetrics(metrics, time.perf_counter))

    @mcp.tool
    def platform(kind: str) -> str:
        raise PlatformError(ErrorKind(kind), "as scripted")

    @mcp.tool
    def too_early() -> str:
        raise NeedsPreviousStep(
            "`draft` needs `opportunities`, which is empty. Call `scout` first."
        )

    @mcp.tool
    def counted(n: int) -> int:
        return n

    @mcp.tool
    def broken() -> str:
        raise RuntimeError("a bug")

    @mcp.tool
    def bare() -> str:
        raise ToolError("timeout: took too long")

    return mcp


def counted_kind(metrics: Metrics, tool: str) -> list[str]:
    return [
        s.labels["kind"]
        for family in metrics.registry.collect()
        if family.name == "gwanjong_tool_errors"
        for s in family.samples
        if s.name.endswith("_total") and s.labels["tool"] == tool and s.value
    ]


CALLS: list[tuple[str, dict[str, Any]]] = [
    *[("platform", {"kind": k.value}) for k in ErrorKind],
    ("too_early", {}),
    ("counted", {"n": "not a number"}),
    ("counted", {}),
    ("broken", {}),
    ("bare", {}),
]


@pytest.mark.parametrize(("tool", "arguments"), CALLS)
async def test_every_error_is_counted_as_the_kind_the_client_got(
    tool: str, arguments: dict[str, Any]
) -> None:
    metrics, usage = Metrics(), Usage()
    async with Client(server(metrics, usage)) as client:
        result = await client.call_tool(tool, arguments, raise_on_error=False)
    assert result.is_error and result.structured_content is not None
    got = result.structured_content["error"]["kind"]
    assert counted_kind(metrics, tool) == [got]
    assert usage.kinds[tool] == got


async def test_an_unknown_tool_is_counted_as_invalid_input() -> None:
    metrics, usage = Metrics(), Usage()
    async with Client(server(metrics, usage)) as client:
        with pytest.raises(MCPError, match="Unknown tool"):  # -32602: invalid params
            await client.call_tool("no_such_tool", {})
    assert counted_kind(metrics, "no_such_tool") == ["invalid_input"]
    assert usage.kinds["no_such_tool"] == "invalid_input"
