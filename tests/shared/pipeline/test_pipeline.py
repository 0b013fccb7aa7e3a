"""Pipeline state over the real MCP protocol: in-memory and streamable HTTP, both eras."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any, Literal

import anyio
import pytest
from fastmcp import Client, Context, FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.server.auth.providers.jwt import StaticTokenVerifier
from fastmcp.utilities.tests import ASGIServer, asgi_server
from pydantic import Field

from gwanjong_shared.pipeline import (
    PROCESS_KEY,
    Pipeline,
    PipelineState,
    StateStore,
    Stored,
    field_count,
    is_populated,
)
from tests.fakes.clock import FakeClock
from tests.mcp import call, error_of

pytestmark = pytest.mark.anyio

Mode = Literal["legacy", "auto"]
MODES: list[Mode] = ["legacy", "auto"]  # 2025-11-25 handshake era, 2026-07-28 modern era
HEADER = "X-Gwanjong-Session"
KEY_A = "0f3c7d1e-aaaa-4b3e-9a55-1c2d3e4f5a6b"
KEY_B = "7b9e2c4a-bbbb-4c1d-8e66-6f5e4d3c2b1a"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> Mode:
    """Each protocol-era test runs in both eras."""
    return request.param


class Flow(PipelineState):
    opportunities: dict[str, dict[str, str]] = Field(default_factory=dict)
    contexts: dict[str, str] = Field(default_factory=dict)
    history: list[str] = Field(default_factory=list)
    note: str | None = None


class OtherState(PipelineState):
    other: list[str] = Field(default_factory=list)


class LiteralDefaults(PipelineState):
    items: list[str] = []  # noqa: RUF012 - pydantic copies it per instance; tested below


def build(**options: Any) -> tuple[FastMCP, Pipeline[Flow]]:
    """A three-step pipeline (scout -> draft -> strike) plus helpers for the tests."""
    mcp = FastMCP("pipeline-test")
    pipeline = Pipeline(mcp, Flow, **options)

    @pipeline.tool(stores="opportunities")
    async def scout(topic: str) -> Stored[list[str]]:
        """Find opportunities about a topic."""
        full = {
            f"{topic}-{i}": {"title": f"{topic} #{i}", "body": f"body {i} about {topic}"}
            for i in (1, 2)
        }
        return Stored(sorted(full), store={"opportunities": full})  # the model sees ids only

    @pipeline.tool(requires="opportunities", stores="contexts")
    async def draft(opportunity_id: str, state: Flow) -> Stored[str]:
        """Collect context for one opportunity."""
        if opportunity_id not in state.opportunities:
            raise ToolError(f"unknown opportunity {opportunity_id}")
        body = state.opportunities[opportunity_id]["body"]
        contexts = {**state.contexts, opportunity_id: body}
        return Stored(f"context ready for {opportunity_id}", store={"contexts": contexts})

    @pipeline.tool(requires=("opportunities", "contexts"), stores="history")
    def strike(opportunity_id: str, text: str, state: Flow) -> Stored[dict[str, str]]:
        """Publish a reply (a sync tool: it runs in a worker thread)."""
        entry = f"{opportunity_id}: {text} [{state.contexts[opportunity_id]}]"
        return Stored({"published": opportunity_id}, store={"history": [*state.history, entry]})

    @pipeline.tool
    async def peek(state: Flow) -> dict[str, Any]:
        """Show this client's stored ids and history."""
        return {"opportunities": sorted(state.opportunities), "history": list(state.history)}

    return mcp, pipeline


def field(populated: bool, count: int) -> dict[str, Any]:
    return {"populated": populated, "count": count}


# -- state and store units -------------------------------------------------------------


def test_state_fields_defaults_and_populated() -> None:
    first, second = Flow(), Flow()
    first.history.append("x")
    first.opportunities["a"] = {"title": "t"}
    assert second.history == [] and second.opportunities == {}
    assert Flow.field_names() == ("opportunities", "contexts", "history", "note")
    assert first.missing(["opportunities", "contexts", "history", "note"]) == ["contexts", "note"]
    empty, populated = (None, "", [], {}, set()), (0, False, "x", [0])
    assert [is_populated(v) for v in (*empty, *populated)] == [False] * 5 + [True] * 4
    assert [field_count(v) for v in (None, "", "abc", [1, 2], {"a": 1}, 0)] == [0, 0, 1, 2, 1, 1]
    with pytest.raises(ValueError, match="no field"):
        first.typo = 1  # type: ignore[attr-defined]
    literal = LiteralDefaults()
    literal.items.append("x")
    assert LiteralDefaults().items == []


def test_decoration_rejects_mistakes() -> None:
    mcp = FastMCP("bad")
    pipeline = Pipeline(mcp, Flow)
    with pytest.raises(ValueError, match="opportunites"):

        @pipeline.tool(requires="opportunites")
        async def typo() -> None: ...

    with pytest.raises(TypeError, match="OtherState"):

        @pipeline.tool
        async def wrong(state: OtherState) -> None: ...

    with pytest.raises(TypeError, match="only one state parameter"):

        @pipeline.tool
        async def twice(a: Flow, b: Flow) -> None: ...

    assert list(pipeline.specs) == []


async def test_stateless_tool_is_left_unwrapped() -> None:
    mcp, pipeline = build()

    @pipeline.tool
    def echo(text: str) -> str:
        """Echo text."""
        return text

    registered = await mcp.get_tool("echo")
    assert registered is not None and getattr(registered, "fn", None) is echo
    assert "echo" not in pipeline.specs
    assert list(pipeline.specs) == ["scout", "draft", "strike", "peek"]


def test_store_expires_idle_buckets_and_caps_their_number() -> None:
    clock = FakeClock()
    store = StateStore(Flow, ttl=60, max_clients=2, clock=clock)
    store.bucket("a").state.history.append("a")
    clock.advance(10)
    store.bucket("b")
    clock.advance(10)
    assert store.bucket("a").state.history == ["a"]  # touching "a" makes "b" the oldest
    store.bucket("c")
    assert store.keys() == ["a", "c"]
    clock.advance(59)
    assert store.peek("a") is not None  # idle 59 s < ttl; peek refreshes it
    clock.advance(2)
    assert store.sweep() == 1  # "c" (idle 61 s) goes, "a" (2 s) stays
    assert store.keys() == ["a"]
    clock.advance(60)
    assert store.peek("a") is None and len(store) == 0
    with pytest.raises(ValueError):
        StateStore(Flow, ttl=0)


async def test_store_never_evicts_a_bucket_in_use() -> None:
    clock = FakeClock()
    store = StateStore(Flow, ttl=60, max_clients=1, clock=clock)
    async with store.hold("busy") as state:
        state.note = "working"
        clock.advance(120)
        store.bucket("other")  # over the cap and past the ttl, but "busy" is mid-call
        assert "busy" in store
    assert store.keys() == ["other", "busy"]
    store.sweep()  # now idle: the cap of one applies, least recently used first
    assert store.keys() == ["busy"]


# -- the protocol, in-memory, both eras -------------------------------------------------


async def test_injected_state_is_absent_from_input_schemas(mode: Mode) -> None:
    mcp, _ = build()
    async with Client(mcp, mode=mode) as client:
        tools = {tool.name: tool for tool in await client.list_tools()}
    assert set(tools) == {"status", "scout", "draft", "strike", "peek"}
    schemas = {name: tool.input_schema for name, tool in tools.items()}
    assert schemas["scout"]["properties"] == {"topic": {"type": "string"}}
    assert schemas["draft"]["properties"] == {"opportunity_id": {"type": "string"}}
    assert schemas["strike"]["required"] == ["opportunity_id", "text"]
    assert set(schemas["strike"]["properties"]) == {"opportunity_id", "text"}
    assert schemas["peek"]["properties"] == {} and schemas["status"]["properties"] == {}
    # Stored[X] is unwrapped: the output schema describes what the model gets.
    assert tools["scout"].output_schema is not None
    assert tools["scout"].output_schema["properties"]["result"]["type"] == "array"
    annotations = tools["status"].annotations
    assert annotations is not None and annotations.read_only_hint is True
    description = tools["status"].description or ""
    assert "When to call" in description and "call_first" in description
    assert "Example" in description


async def test_passing_the_injected_state_is_refused(mode: Mode) -> None:
    mcp, _ = build()
    async with Client(mcp, mode=mode) as client:
        forged = {"opportunities": {"x": {"body": "forged"}}}
        message = await error_of(client, "draft", opportunity_id="x", state=forged)
        assert "state" in message and "unexpected keyword argument" in message.lower()
        # A tool without a state parameter hides its injected key under another name.
        message = await error_of(client, "scout", topic="t", pipeline_state="k")
        assert "pipeline_state" in message and "unexpected keyword argument" in message.lower()
        assert (await call(client, "status"))["state"]["opportunities"] == field(False, 0)


async def test_out_of_order_calls_get_a_guided_error(mode: Mode) -> None:
    mcp, _ = build()
    async with Client(mcp, mode=mode) as client:
        assert await error_of(client, "draft", opportunity_id="x") == (
            "`draft` needs `opportunities`, which is empty. Call `scout` first."
        )
        assert await error_of(client, "strike", opportunity_id="x", text="hi") == (
            "`strike` needs `opportunities` and `contexts`, which are empty. "
            "Call `scout`, then `draft` first."
        )
        await client.call_tool("scout", {"topic": "rust"})
        assert await error_of(client, "strike", opportunity_id="rust-1", text="hi") == (
            "`strike` needs `contexts`, which is empty. Call `draft` first."
        )


async def test_three_step_chain_and_status_at_every_step(mode: Mode) -> None:
    mcp, _ = build()
    always = ["scout", "peek"]
    async with Client(mcp, mode=mode) as client:
        assert await call(client, "status") == {
            "state": {
                "opportunities": field(False, 0),
                "contexts": field(False, 0),
                "history": field(False, 0),
                "note": field(False, 0),
            },
            "tools": {
                "available": always,
                "blocked": [
                    {"tool": "draft", "waiting_for": ["opportunities"], "call_first": ["scout"]},
                    {
                        "tool": "strike",
                        "waiting_for": ["opportunities", "contexts"],
                        "call_first": ["scout", "draft"],
                    },
                ],
            },
        }

        ids = await client.call_tool("scout", {"topic": "rust"})
        assert ids.data == ["rust-1", "rust-2"]  # compressed; bodies stay on the server
        after_scout = await call(client, "status")
        assert after_scout["state"]["opportunities"] == field(True, 2)
        assert after_scout["state"]["contexts"] == field(False, 0)
        assert after_scout["tools"] == {
            "available": ["scout", "draft", "peek"],
            "blocked": [{"tool": "strike", "waiting_for": ["contexts"], "call_first": ["draft"]}],
        }

        drafted = await client.call_tool("draft", {"opportunity_id": "rust-2"})
        assert drafted.data == "context ready for rust-2"
        after_draft = await call(client, "status")
        assert after_draft["state"]["contexts"] == field(True, 1)
        assert after_draft["tools"] == {
            "available": ["scout", "draft", "strike", "peek"],
            "blocked": [],
        }

        struck = await client.call_tool("strike", {"opportunity_id": "rust-2", "text": "nice"})
        assert struck.structured_content == {"published": "rust-2"}
        after_strike = await call(client, "status")
        assert after_strike["state"]["history"] == field(True, 1)
        # The body reached strike through the server-side state, never through the model.
        assert await call(client, "peek") == {
            "opportunities": ["rust-1", "rust-2"],
            "history": ["rust-2: nice [body 2 about rust]"],
        }


async def test_how_outcomes_are_stored(mode: Mode) -> None:
    mcp = FastMCP("outcomes")
    pipeline = Pipeline(mcp, Flow)

    @pipeline.tool(stores="note")
    async def remember(text: str) -> str:
        """A plain return value is stored whole when one field is declared."""
        return text.upper()

    @pipeline.tool(stores=("note", "history"))
    async def ambiguous() -> str:
        """Two declared fields need a Stored."""
        return "x"

    @pipeline.tool(stores="note")
    async def sneaky() -> Stored[str]:
        """Stores a field it did not declare."""
        return Stored("x", store={"note": "n", "history": ["h"]})

    @pipeline.tool(stores="history")
    async def in_place(state: Flow) -> Stored[int]:
        """Mutates the state itself; Stored without store writes nothing more."""
        state.history.append("appended")
        return Stored(len(state.history))

    async with Client(mcp, mode=mode) as client:
        assert (await client.call_tool("remember", {"text": "hi"})).data == "HI"
        assert "Stored(result, store=" in await error_of(client, "ambiguous")
        assert "['history']" in await error_of(client, "sneaky")
        assert (await client.call_tool("in_place", {})).data == 1
        report = await call(client, "status")
    assert report["state"]["note"] == field(True, 1)  # still "HI": sneaky changed nothing
    assert report["state"]["history"] == field(True, 1)


async def test_status_extra_and_a_server_owned_status(mode: Mode) -> None:
    async def health(ctx: Context) -> dict[str, Any]:
        return {"platforms": {"devto": "ok"}, "server": ctx.fastmcp.name}

    mcp, _ = build(status_extra=health)
    async with Client(mcp, mode=mode) as client:
        report = await call(client, "status")
    assert report["platforms"] == {"devto": "ok"} and report["server"] == "pipeline-test"
    assert report["tools"]["available"] == ["scout", "peek"]

    clashing, _ = build(status_extra=lambda ctx: {"state": "mine"})
    async with Client(clashing, mode=mode) as client:
        assert "reserved" in await error_of(client, "status")

    own, pipeline = build(status_tool=None)

    @own.tool(name="status")
    async def own_status(ctx: Context) -> dict[str, Any]:
        """Pipeline status plus this server's own view."""
        return {**pipeline.describe(pipeline.state_for(ctx)), "mine": True}

    async with Client(own, mode=mode) as client:
        await client.call_tool("scout", {"topic": "go"})
        report = await call(client, "status")
    assert report["mine"] is True and report["state"]["opportunities"] == field(True, 2)


async def test_programmatic_access_from_server_code(mode: Mode) -> None:
    mcp, pipeline = build()

    @mcp.tool
    async def admin(ctx: Context, forget: bool = False) -> dict[str, Any]:
        """Server code reaching the caller's state directly."""
        async with pipeline.locked(ctx) as state:
            found = sorted(state.opportunities)
        same = pipeline.state_for(ctx) is state
        dropped = pipeline.reset(ctx) if forget else False
        return {"found": found, "same": same, "dropped": dropped, "key": pipeline.key_for(ctx)}

    async with Client(mcp, mode=mode) as client:
        await client.call_tool("scout", {"topic": "py"})
        first = await call(client, "admin")
        key = first.pop("key")
        assert first == {
            "found": ["py-1", "py-2"],
            "same": True,
            "dropped": False,
        }
        assert pipeline.store.keys() == [key]
        # In-memory: the handshake era has a session; the modern era one process, one client.
        assert key == PROCESS_KEY if mode == "auto" else key.startswith("session:")
        assert (await call(client, "admin", forget=True))["dropped"] is True
        assert (await call(client, "status"))["state"]["opportunities"] == field(False, 0)
    assert len(pipeline.store) == 0  # status peeks; it does not create a bucket


async def test_calls_of_one_client_run_one_at_a_time(mode: Mode) -> None:
    mcp = FastMCP("serial")
    pipeline = Pipeline(mcp, Flow)

    @pipeline.tool
    async def bump(state: Flow) -> int:
        """Read-modify-write across an await: lost updates unless calls are serialized."""
        seen = list(state.history)
        await anyio.sleep(0.01)
        state.history = [*seen, str(len(seen))]
        return len(state.history)

    @pipeline.tool
    async def rescout(topic: str, ctx: Context, state: Flow) -> list[str]:
        """Calls another pipeline tool of the same client from inside a call."""
        await ctx.fastmcp.call_tool("scout", {"topic": topic})
        return sorted(state.opportunities)

    @pipeline.tool(stores="opportunities")
    async def scout(topic: str) -> dict[str, dict[str, str]]:
        """Find opportunities."""
        return {topic: {"body": topic}}

    async with Client(mcp, mode=mode) as client:
        async with anyio.create_task_group() as group:
            for _ in range(5):
                group.start_soon(client.call_tool, "bump", {})
        assert (await call(client, "status"))["state"]["history"] == field(True, 5)
        with anyio.fail_after(60):  # re-entering the same client's lock must not deadlock
            assert (await client.call_tool("rescout", {"topic": "zig"})).data == ["zig"]


async def test_idle_state_is_evicted_after_the_ttl(mode: Mode) -> None:
    clock = FakeClock()
    mcp, pipeline = build(ttl=60, clock=clock)
    async with Client(mcp, mode=mode) as client:
        await client.call_tool("scout", {"topic": "ttl"})
        clock.advance(59)
        await client.call_tool("draft", {"opportunity_id": "ttl-1"})  # still there; touched
        clock.advance(59)
        assert (await call(client, "status"))["state"]["contexts"] == field(True, 1)
        clock.advance(61)
        assert await error_of(client, "draft", opportunity_id="ttl-1") == (
            "`draft` needs `opportunities`, which is empty. Call `scout` first."
        )
    assert len(pipeline.store) == 1  # the fresh bucket the last call made


# -- streamable HTTP: the real app (session manager, auth, headers), served in-process -----


def serve_http(mcp: FastMCP, *, stateless: bool = False) -> AbstractAsyncContextManager[ASGIServer]:
    return asgi_server(mcp, host_origin_protection="auto", stateless_http=stateless)


def http_client(
    app: ASGIServer, mode: Mode, headers: dict[str, str] | None = None, token: str | None = None
) -> Client[Any]:
    return app.client(headers=headers, auth=token, mode=mode)


async def run_chain(client: Client[Any], topic: str) -> dict[str, Any]:
    ids = (await client.call_tool("scout", {"topic": topic})).data
    await client.call_tool("draft", {"opportunity_id": ids[0]})
    await client.call_tool("strike", {"opportunity_id": ids[0], "text": topic})
    return await call(client, "peek")


async def test_two_http_clients_keep_separate_state(mode: Mode) -> None:
    mcp, pipeline = build()
    # Handshake era: the MCP session tells clients apart. Modern era: the key header.
    headers_a = {HEADER: KEY_A} if mode == "auto" else None
    headers_b = {HEADER: KEY_B} if mode == "auto" else None
    results: dict[str, dict[str, Any]] = {}
    async with (
        serve_http(mcp) as app,
        http_client(app, mode, headers_a) as a,
        http_client(app, mode, headers_b) as b,
    ):

        async def chain(name: str, client: Client[Any]) -> None:
            results[name] = await run_chain(client, name)

        async with anyio.create_task_group() as group:  # both at the same time
            group.start_soon(chain, "alpha", a)
            group.start_soon(chain, "beta", b)
        message = await error_of(b, "draft", opportunity_id="alpha-1")
        assert message == "unknown opportunity alpha-1"
        assert (await call(a, "status"))["state"]["history"] == field(True, 1)
    assert results == {
        "alpha": {
            "opportunities": ["alpha-1", "alpha-2"],
            "history": ["alpha-1: alpha [body 1 about alpha]"],
        },
        "beta": {
            "opportunities": ["beta-1", "beta-2"],
            "history": ["beta-1: beta [body 1 about beta]"],
        },
    }
    prefix = "session:" if mode == "legacy" else "client:"
    assert len(pipeline.store) == 2 and all(k.startswith(prefix) for k in pipeline.store)


async def test_modern_http_without_a_client_key_is_refused() -> None:
    mcp, pipeline = build()
    async with serve_http(mcp) as app:
        async with http_client(app, "auto") as anonymous:
            message = await error_of(anonymous, "scout", topic="x")
            assert f"`{HEADER}: <random UUID>` header" in message and "2025-11-25" in message
            assert HEADER in await error_of(anonymous, "status")
            assert (await anonymous.call_tool("peek", {}, raise_on_error=False)).is_error
        for name in (HEADER, "Mcp-Session-Id"):  # a guessable key would be shared by many
            async with http_client(app, "auto", {name: "short"}) as weak:
                message = await error_of(weak, "scout", topic="x")
                assert f"`{name.lower()}` header must be 16 to 256" in message
    assert len(pipeline.store) == 0


async def test_modern_http_client_key_resumes_and_cannot_reach_a_session() -> None:
    mcp, _ = build()
    async with serve_http(mcp) as app:
        async with http_client(app, "legacy") as legacy:
            await legacy.call_tool("scout", {"topic": "secret"})
            session_id = legacy.transport.get_session_id()
            assert session_id is not None
            # A modern client that presents the legacy session id, as our header or as
            # Mcp-Session-Id, lands in its own bucket.
            for headers in ({HEADER: session_id}, {"Mcp-Session-Id": session_id}):
                async with http_client(app, "auto", headers) as intruder:
                    assert await call(intruder, "peek") == {"opportunities": [], "history": []}
        async with http_client(app, "auto", {HEADER: KEY_A}) as first:
            await first.call_tool("scout", {"topic": "resume"})
        async with http_client(app, "auto", {HEADER: KEY_A}) as again:  # new connection
            assert await call(again, "peek") == {
                "opportunities": ["resume-1", "resume-2"],
                "history": [],
            }


async def test_modern_http_authenticated_principals_are_isolated() -> None:
    mcp = FastMCP(
        "auth",
        auth=StaticTokenVerifier(
            tokens={
                "token-alice": {"client_id": "alice", "scopes": []},
                "token-bob": {"client_id": "bob", "scopes": []},
            }
        ),
    )
    pipeline = Pipeline(mcp, Flow)

    @pipeline.tool(stores="note")
    async def remember(text: str) -> str:
        """Remember a note."""
        return text

    @pipeline.tool
    async def recall(state: Flow) -> str | None:
        """Return the note."""
        return state.note

    async with serve_http(mcp) as app:
        async with http_client(app, "auto", token="token-alice") as alice:
            await alice.call_tool("remember", {"text": "alice's"})
        async with http_client(app, "auto", token="token-bob") as bob:
            assert (await bob.call_tool("recall", {})).data is None
        async with http_client(app, "auto", token="token-alice") as alice_again:
            assert (await alice_again.call_tool("recall", {})).data == "alice's"
    assert sorted(key.split(":")[0] for key in pipeline.store) == ["user", "user"]


async def test_stateless_http_server_handshake_clients_need_a_client_key() -> None:
    # A stateless_http server issues no sessions: every handshake-era request would get a
    # fresh id, so state would vanish between calls. Such clients are keyed like modern ones.
    mcp, _ = build()
    async with serve_http(mcp, stateless=True) as app:
        async with http_client(app, "legacy") as anonymous:
            message = await error_of(anonymous, "scout", topic="x")
            assert f"`{HEADER}: <random UUID>` header with every request." in message
        async with http_client(app, "legacy", {HEADER: KEY_A}) as keyed:
            await keyed.call_tool("scout", {"topic": "kept"})
            assert await call(keyed, "peek") == {
                "opportunities": ["kept-1", "kept-2"],
                "history": [],
            }
        async with http_client(app, "legacy", {HEADER: KEY_B}) as other:
            assert await call(other, "peek") == {"opportunities": [], "history": []}
