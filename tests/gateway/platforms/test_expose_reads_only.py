"""Nothing reaches a platform around the strike chain: an `expose`d tool is forwarded with
no approval, record, caps or footer, so only a tool that reads may be exposed. The
contract's write tools are refused when the config loads (with file and line, `doctor`
too); any other tool its server does not mark `readOnlyHint: true` is neither listed nor
called once the server has said so."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp.types import ToolAnnotations

from gwanjong_gateway.cli.doctor.doctor_command import run_doctor
from gwanjong_gateway.config import ConfigError, parse
from gwanjong_gateway.config.load import load
from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.platforms.expose import _forwarded as forwarded  # pyright: ignore[reportPrivateUsage]
from gwanjong_gateway.server import build_gateway
from tests.fakes.platform import FakePlatform
from tests.gateway.helpers import config_file, config_text, exit_code, patient_gateway
from tests.mcp import error_of

pytestmark = pytest.mark.anyio
DEADLINE_S = 60  # generous: only catches a hang


@pytest.mark.parametrize("tool", ["reddit__write_comment", "devto__write_post", "x__upvote"])
def test_a_contract_write_tool_is_refused_at_load_and_by_doctor_with_its_line(
    tmp_path: Path, tool: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "gateway.toml"
    path.write_text(  # by hand: the error names the line
        f'[gateway]\nstate_dir = "{tmp_path.as_posix()}"\nwrites = "confirm"\n'
        f'expose = ["reddit__get_post", "{tool}"]\n',
        encoding="utf-8",
    )
    with pytest.raises(ConfigError) as refused:
        load(str(path), check_env=False)
    said = str(refused.value)
    assert said.startswith(f"{path}:4: gateway.expose: "), said
    assert repr(tool) in said and "strike" in said
    assert exit_code(["doctor", "--offline", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:4: gateway.expose: {tool!r} writes to the platform" in err
    assert "no problems found" not in capsys.readouterr().out


def boosting(tmp_path: Path, forum: FakePlatform, expose: list[str]) -> tuple[Gateway, list[str]]:
    """A gateway exposing ``expose`` of the forum's extra tools; what reached `boost`/`pin`."""
    config = parse(config_text(tmp_path, ["devto"], "confirm", {"expose": expose}))
    boosted: list[str] = []
    server = forum.server()

    def boost(post_id: str) -> dict[str, str]:
        """Boost a post (no annotations: it may write)."""
        boosted.append(post_id)
        return {"boosted": post_id}

    def pin(post_id: str) -> dict[str, str]:
        """Pin a post; annotated, but not read-only."""
        boosted.append(post_id)
        return {"pinned": post_id}

    def peek(post_id: str) -> dict[str, str]:
        """Read a post's id back (read-only)."""
        return {"peeked": post_id}

    server.tool(boost)
    server.tool(pin, annotations=ToolAnnotations(read_only_hint=False, idempotent_hint=True))
    server.tool(peek, annotations=ToolAnnotations(read_only_hint=True))
    return patient_gateway(config, {}, {"devto": server}), boosted


async def refusal(client: Client[Any], name: str) -> str:
    """Why a call to ``name`` was refused: a tool error, or (once it is off the list) the
    protocol's unknown tool."""
    try:
        return await error_of(client, name, post_id="1")
    except MCPError as exc:
        return str(exc)


async def test_an_exposed_tool_not_marked_read_only_is_not_listed_and_not_called(
    forum: FakePlatform, tmp_path: Path
) -> None:
    gw, boosted = boosting(tmp_path, forum, ["devto__boost", "devto__pin", "devto__peek"])
    async with Client(build_gateway(gw.config, gateway=gw), timeout=120) as client:
        # The first call may come before the server is up (its placeholder is listed).
        first = await refusal(client, "devto__boost")
        assert first.startswith("not_supported: devto__boost may write") or (
            "Unknown tool: 'devto__boost'" in first
        ), first
        with anyio.fail_after(DEADLINE_S):
            while True:
                tools = {t.name: t for t in await client.list_tools()}
                if "post_id" in tools["devto__peek"].input_schema.get("properties", {}):
                    break
                await anyio.sleep(0.05)
        assert "devto__boost" not in tools and "devto__pin" not in tools
        for name in ("devto__boost", "devto__pin"):
            assert f"Unknown tool: {name!r}" in await refusal(client, name)
        peeked = await client.call_tool("devto__peek", {"post_id": "7"})
        assert peeked.structured_content == {"peeked": "7"}
    assert boosted == []  # nothing reached the platform


async def test_a_forwarded_call_asks_the_annotations_first(
    forum: FakePlatform, tmp_path: Path
) -> None:
    """A call to an exposed tool (its placeholder, before the server is up) starts the
    server and reads its annotations before anything is sent."""
    gw, boosted = boosting(tmp_path, forum, ["devto__boost", "devto__peek"])
    try:
        boost = forwarded(gw.upstreams, "devto__boost", "placeholder", {"type": "object"})
        with pytest.raises(ToolError) as refused:
            await boost.run({"post_id": "1"})
        assert str(refused.value).startswith("not_supported: devto__boost may write")
        assert "drop it from expose" in str(refused.value)
        peek = forwarded(gw.upstreams, "devto__peek", "placeholder", {"type": "object"})
        assert (await peek.run({"post_id": "3"})).structured_content == {"peeked": "3"}
    finally:
        await gw.upstreams.close_all()
    assert boosted == []


@pytest.mark.stdio  # spawns the fifth platform's server
def test_doctor_names_an_exposed_tool_its_server_does_not_mark_read_only(
    tmp_path: Path,
) -> None:
    from tests.fifth import server as fifth

    settings = {"start_timeout_s": 300, "expose": ["mastodon__boost", "mastodon__get_post"]}
    env = {"MASTODON_TOKEN": "test-token", "MASTODON_BOOST": "1"}
    server = {"command": [sys.executable, fifth.__file__], "env": env}
    path = config_file(tmp_path, [], settings=settings, others={"mastodon": server})
    config, found = load(str(path), check_env=False)
    out, err = io.StringIO(), io.StringIO()
    code = run_doctor(config, found, out=out, err=err, start_servers=True)
    assert code == 1, out.getvalue() + err.getvalue()
    out = out.getvalue()
    assert "gateway.expose: mastodon__boost is not marked read-only by its server" in out
    assert "mastodon__get_post" not in out.partition("problems:")[2]
