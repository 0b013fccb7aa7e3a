"""`[store] url` in a gateway, over MCP: the table's validation, `${VAR}` in the URL, and
a database that is down (the gateway still scouts; `strike` and `status` say where the
record is unreachable, never the password). The happy path on a real server is
test_team_gateways.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from gwanjong_gateway.config import ConfigError, parse
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import PostgresStrikeStore, StrikeStore
from gwanjong_gateway.server import build_gateway
from gwanjong_sandbox.control import SandboxControl
from gwanjong_shared.contract.errors import PlatformError
from tests.gateway.helpers import config_text, in_memory_gateway, opportunity_for
from tests.gateway.http_gateway import free_port
from tests.mcp import call, error_of
from tests.platforms import SPECS

pytestmark = pytest.mark.anyio
SECRET = "s3cret-pw"


def test_the_store_url_must_be_postgresql(tmp_path: Path) -> None:
    text = config_text(tmp_path, ["devto"], tables={"store": {"url": "mysql://db/x"}})
    line = text.splitlines().index('url = "mysql://db/x"') + 1  # the error names its line
    with pytest.raises(ConfigError, match=rf"gateway.toml:{line}: store.url: .*postgresql://"):
        parse(text)
    assert parse(config_text(tmp_path, ["devto"])).store.url == ""


async def test_an_unset_variable_in_the_url_breaks_only_the_record(tmp_path: Path) -> None:
    config = parse(
        config_text(
            tmp_path, ["devto"], tables={"store": {"url": "postgresql://gw:${NO_SUCH_PW}@db/x"}}
        )
    )
    records = Records.for_config(config, {"HOME": "/nowhere"})
    assert not await records.open()
    assert records.broken.startswith("[store] url: ${NO_SUCH_PW} is not set"), records.broken
    with pytest.raises(PlatformError, match="unavailable: \\[store\\] url"):
        await records.run(StrikeStore.history)


async def test_a_gateway_whose_database_is_down_scouts_but_writes_nothing(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    port = free_port()  # nothing listens here
    store = {"url": f"postgresql://gw:${{GWJ_DB_PW}}@127.0.0.1:{port}/gwanjong"}
    config = parse(config_text(tmp_path / "state", ["devto"], tables={"store": store}))
    mcp = build_gateway(
        config,
        environ={"GWJ_DB_PW": SECRET},
        transports={"devto": SPECS["devto"].build(sandbox.url)},
    )
    async with Client(mcp) as c:
        scouted = await call(c, "scout", topic="rust async cancellation", limit=5)
        oid = opportunity_for(scouted, "devto", "Rust async")
        await call(c, "draft", opportunity_id=oid)
        message = await error_of(
            c, "strike", opportunity_id=oid, action="post", content="Hello there", title="Hi"
        )
        status = await call(c, "status")
    where = f"the strike record database at 127.0.0.1:{port} is unreachable"
    assert message.startswith(f"unavailable: {where}"), message
    assert where in status["strike_record"], status
    assert SECRET not in message and SECRET not in str(status)
    assert sandbox.writes() == []
    assert not (tmp_path / "state" / "gwanjong.db").exists()  # no silent SQLite fallback


async def test_replicas_on_one_database_share_the_inbox_cursors(
    sandbox: SandboxControl, tmp_path: Path, pg_url: str
) -> None:
    """A summons listed by one replica is not listed again by another (own state dirs)."""
    platforms = ["bluesky", "twitter"]
    tables = {"store": {"url": pg_url}}

    def replica(name: str) -> Client[Any]:
        return Client(in_memory_gateway(sandbox, tmp_path / name, platforms, tables=tables))

    async with replica("a") as a:
        first = await call(a, "scout", source="mentions", limit=25)
    assert {o["platform"] for o in first["opportunities"] if o.get("summoned")} == set(platforms)
    async with replica("b") as b:
        again = await call(b, "scout", source="mentions", limit=25)
    assert [o for o in again["opportunities"] if o.get("summoned")] == []
    assert not (tmp_path / "a" / "inbox.json").exists()
    store = PostgresStrikeStore(pg_url)
    try:
        assert all(store.inbox_cursor(p) for p in platforms)
    finally:
        store.close()


async def test_two_replicas_at_a_small_limit_list_every_summons_once(
    sandbox: SandboxControl, tmp_path: Path, pg_url: str
) -> None:
    """Two gateways on one record take turns polling the flooded inbox at limit 4: every
    summons the server holds is listed once for the team, never twice, none lost."""
    from tests.servers.wire.test_inbox_paging import drain

    sandbox.flood_inbox(30, noise=10)
    async with Client(SPECS["bluesky"].build(sandbox.url)) as server:
        truth = {p["url"] for p in await drain(server, None, limit=100)}
    tables = {"store": {"url": pg_url}}
    listed: list[str] = []
    async with (
        Client(in_memory_gateway(sandbox, tmp_path / "a", ["bluesky"], tables=tables)) as a,
        Client(in_memory_gateway(sandbox, tmp_path / "b", ["bluesky"], tables=tables)) as b,
    ):
        for poll in range(40):
            got = await call(a if poll % 2 else b, "scout", source="mentions", limit=4)
            urls = [o["url"] for o in got["opportunities"] if o.get("summoned")]
            if not urls:
                break
            listed += urls
    assert len(truth) > 30
    assert len(listed) == len(set(listed))
    assert set(listed) == truth
