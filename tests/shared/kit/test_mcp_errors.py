"""The shared ContractErrors middleware: every failure becomes `kind: ...` text plus the
same error as data, with isError set (outputSchema checks skip error results)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from fastmcp import Client, FastMCP
from fastmcp.exceptions import ToolError
from mcp.types import CallToolResult
from pydantic import BaseModel

from gwanjong_shared.contract import errors
from gwanjong_shared.contract.errors import UNSURE, ErrorBody, ErrorKind, ErrorResult, read_error
from gwanjong_shared.contract.models import PostResult
from gwanjong_shared.kit.mcp_errors import ContractErrors
from gwanjong_shared.kit.server import build_platform_server

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


async def test_a_tool_error_that_declares_its_kind_is_reported_as_that_kind() -> None:
    """The pipeline's order hint may not import the contract; it declares its kind as a
    class attribute and the middleware reads it, never its text."""
    from gwanjong_shared.pipeline.graph import NeedsPreviousStep

    mcp: FastMCP[Any] = FastMCP("order", mask_error_details=True)
    mcp.add_middleware(ContractErrors())

    @mcp.tool
    async def draft() -> Out:
        raise NeedsPreviousStep("`draft` needs `opportunities`. Call `scout` first.")

    async with Client(mcp) as client:
        body = body_of(await client.call_tool_mcp("draft", {}))
    assert body.kind is ErrorKind.NEEDS_PREVIOUS_STEP
    assert body.text == "needs_previous_step: `draft` needs `opportunities`. Call `scout` first."


async def test_a_hanging_check_before_a_write_sends_nothing_and_says_so() -> None:
    """The kit bounds the pre-write check like every platform call; a check that never
    answers is `unavailable` (nothing went out), not `timeout` (an unsure write)."""
    from tests.fakes.platform import FakePlatform
    from tests.fakes.profiles import SOCIAL

    world = FakePlatform(SOCIAL)
    target = next(iter(world.posts))
    world.hang("validate")
    with anyio.fail_after(60):  # without the bound, the unguarded check hangs for ever
        async with Client(world.server(call_timeout_s=0.2)) as client:
            args = {"post_id": target, "body": "hi"}
            result = await client.call_tool_mcp("write_comment", args)
    body = body_of(result)
    assert body.kind is ErrorKind.UNAVAILABLE and "nothing was sent" in body.message
    assert body.unsent, "as data too: the gateway fails it rather than holding it unsure"
    assert world.written() == []
    # a server that sends text only cannot say so: unsure, as before
    assert not read_error(None, body.text).unsent


@pytest.mark.parametrize("kind", [ErrorKind.UNAVAILABLE, ErrorKind.TIMEOUT])
async def test_a_check_before_a_write_that_fails_unsure_sent_nothing(kind: ErrorKind) -> None:
    """The platform unreachable for validate's reads (the target, the account): an unsure
    kind, which told the gateway the write may have landed; the check came first, so
    nothing went out, and the error says so as data."""
    from tests.fakes.platform import FakePlatform
    from tests.fakes.profiles import SOCIAL

    world = FakePlatform(SOCIAL)
    world.fail("validate", kind)
    async with Client(world.server()) as client:
        args = {"post_id": next(iter(world.posts)), "body": "hi"}
        body = body_of(await client.call_tool_mcp("write_comment", args))
    assert body.kind is kind and body.unsent
    assert world.written() == []


async def test_a_write_cut_off_by_the_call_bound_is_unsure_and_not_to_be_resent() -> None:
    """A write the kit's bound cuts off may have landed (here it did): the answer is an
    unsure kind worded as a lost answer (may have been written, not sent again, read it
    back), never an invitation to try again; a read cut off the same way may be retried."""
    from tests.fakes.platform import FakePlatform
    from tests.fakes.profiles import SOCIAL

    world = FakePlatform(SOCIAL)
    target = next(iter(world.posts))
    world.hang("write_post", land=True)
    world.hang("get_post")
    with anyio.fail_after(60):
        async with Client(world.server(call_timeout_s=0.2)) as client:
            args = {"title": "", "body": "hi"}
            write = body_of(await client.call_tool_mcp("write_post", args))
            read = body_of(await client.call_tool_mcp("get_post", {"post_id": target}))
    assert write.kind in UNSURE and "may have been written" in write.message, write
    assert "not sent again" in write.message and "read it back" in write.message, write
    assert "try again" not in write.message.lower(), write
    assert len(world.written()) == 1  # it landed: a resend would post it twice
    assert read.kind is ErrorKind.TIMEOUT and "try again" in read.message.lower(), read


async def test_a_write_that_fails_unexpectedly_is_unsure_and_not_to_be_resent() -> None:
    """An SDK's own exception from a write (its answer unread) says the write may have been
    written, as a lost answer does, not "try again"."""
    from tests.fakes.platform import FakeAdapter, FakePlatform
    from tests.fakes.profiles import SOCIAL

    class Broken(FakeAdapter):  # an SDK that raises its own error once it has sent
        platform = SOCIAL.name
        label = SOCIAL.label

        async def write_post(self, title: str, body: str, tags: list[str]) -> PostResult:
            raise KeyError("X-RateLimit-Limit")

    async with Client(build_platform_server(Broken(FakePlatform(SOCIAL)))) as client:
        body = body_of(await client.call_tool_mcp("write_post", {"title": "", "body": "hi"}))
    assert body.kind in UNSURE and "may have been written" in body.message, body
    assert "try again" not in body.message.lower(), body
