"""The shared ContractErrors middleware: every failure becomes `kind: ...` text plus the
same error as data, with isError set (outputSchema checks skip error results)."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client, FastMCP
from fastmcp.exceptions import ToolError
from mcp.types import CallToolResult
from pydantic import BaseModel

from gwanjong_shared.contract import errors
from gwanjong_shared.contract.errors import ErrorBody, ErrorKind, ErrorResult, read_error
from gwanjong_shared.kit.mcp_errors import ContractErrors

pytestmark = pytest.mark.anyio


class Out(BaseModel):
    n: int


def server() -> FastMCP[Any]:
    mcp: FastMCP[Any] = FastMCP("errors", mask_error_details=True)
    mcp.add_middleware(ContractErrors())

    @mcp.tool
    async def act(how: str) -> Out:
        if how == "platform":
            raise errors.rate_limited("Slow down.", 2.5)
        if how == "text":
            raise ToolError("not_supported: a person must do this.")
        if how == "crash":
            raise RuntimeError("secret detail https://x?token=abc")
        return Out(n=1)

    return mcp


async def call(how: str) -> CallToolResult:
    async with Client(server()) as client:
        return await client.call_tool_mcp("act", {"how": how})


def body_of(result: CallToolResult) -> ErrorBody:
    assert result.is_error
    text = " ".join(getattr(c, "text", "") for c in result.content)
    body = ErrorResult.model_validate(result.structured_content).error
    assert text == body.text
    return body


async def test_a_platform_error_is_data_and_text() -> None:
    body = body_of(await call("platform"))
    assert (body.kind, body.message, body.retry_after) == (ErrorKind.RATE_LIMITED, "Slow down.", 3)
    assert body.text == "rate_limited retry_after=3: Slow down."


async def test_a_bare_tool_error_keeps_its_kind() -> None:
    body = body_of(await call("text"))
    assert body.kind is ErrorKind.NOT_SUPPORTED and body.message == "a person must do this."


async def test_an_unexpected_exception_is_unavailable_without_its_text() -> None:
    body = body_of(await call("crash"))
    assert body.kind is ErrorKind.UNAVAILABLE
    assert "RuntimeError" in body.message and "token" not in body.message


async def test_the_typed_client_of_fastmcp_still_raises_on_error_results() -> None:
    async with Client(server()) as client:
        with pytest.raises(ToolError, match=r"^rate_limited retry_after=3: "):
            await client.call_tool("act", {"how": "platform"})
        assert (await client.call_tool("act", {"how": "ok"})).data.n == 1


def test_read_error_prefers_data_and_falls_back_to_text() -> None:
    data = {"error": {"kind": "auth", "message": "bad key", "retry_after": None}}
    assert read_error(data, "not_found: other").kind is ErrorKind.AUTH
    assert read_error(None, "not_found: gone") == ErrorBody(
        kind=ErrorKind.NOT_FOUND, message="gone"
    )
    assert read_error({"error": "not ours"}, "timeout: slow").kind is ErrorKind.TIMEOUT
    assert read_error(None, "Error calling tool").kind is ErrorKind.UNAVAILABLE
