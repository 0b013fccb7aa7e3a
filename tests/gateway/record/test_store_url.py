"""`[store] url` without a database to reach: the table's validation, `${VAR}` in the URL,
and a database that is down (the gateway still scouts; `strike` and `status` say where the
record is unreachable, never the password). Nothing listens at the URL, so no server is
needed: the record on a real PostgreSQL is tests/postgres/record/."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastmcp import Client

from gwanjong_gateway.config import ConfigError, parse
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.server import build_gateway
from gwanjong_shared.contract.errors import PlatformError
from tests.fakes.platform import FakePlatform
from tests.gateway.helpers import config_text, opportunity_for, patient_gateway
from tests.gateway.http_gateway import free_port
from tests.mcp import call, error_of

pytestmark = pytest.mark.anyio
SECRET = "s3cret-pw"


def test_the_store_url_must_be_postgresql(tmp_path: Path) -> None:
    text = config_text(tmp_path, ["devto"], tables={"store": {"url": "mysql://db/x"}})
    line = text.splitlines().index('url = "mysql://db/x"') + 1  # the error names its line
    with pytest.raises(ConfigError, match=rf"gateway.toml:{line}: store.url: .*postgresql://"):
        parse(text)
    assert parse(config_text(tmp_path, ["devto"])).store.url == ""


async def test_a_gateway_whose_database_is_down_scouts_but_writes_nothing(
    forum: FakePlatform, tmp_path: Path
) -> None:
    port = free_port()  # nothing listens here
    store = {"url": f"postgresql://gw:${{GWJ_DB_PW}}@127.0.0.1:{port}/gwanjong"}
    config = parse(config_text(tmp_path / "state", ["devto"], tables={"store": store}))
    gw = patient_gateway(config, {"GWJ_DB_PW": SECRET}, {"devto": forum.server()})
    mcp = build_gateway(config, gateway=gw)
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
    assert forum.writes == []
    assert not (tmp_path / "state" / "gwanjong.db").exists()  # no silent SQLite fallback


async def test_an_unset_variable_or_an_unreachable_database_is_unavailable_and_keeps_its_password(
    tmp_path: Path,
) -> None:
    url = "postgresql://gw:${NO_SUCH_PW}@db/x"
    config = parse(config_text(tmp_path, ["devto"], tables={"store": {"url": url}}))
    records = Records.for_config(config, {"HOME": "/nowhere"})  # breaks only the record
    assert not await records.open()
    assert records.broken.startswith("[store] url: ${NO_SUCH_PW} is not set"), records.broken
    with pytest.raises(PlatformError, match="unavailable: \\[store\\] url"):
        await records.run(StrikeStore.history)

    port = free_port()  # nothing listens here
    records = Records(
        tmp_path / "unused.db", url=f"postgresql://gw:{SECRET}@127.0.0.1:{port}/gwanjong"
    )
    assert not await records.open()
    with pytest.raises(PlatformError) as down:
        await records.run(StrikeStore.history)
    text = str(down.value)
    assert text.startswith(
        f"unavailable: the strike record database at 127.0.0.1:{port} is unreachable"
    )
    assert SECRET not in text
    assert not records.broken  # retried on the next call, not given up


async def test_a_password_in_the_urls_query_is_kept_out_of_errors_and_history(
    tmp_path: Path,
) -> None:
    # libpq takes `?password=` as well as `user:password@`; a "%" not followed by two hex
    # digits makes it quote the whole value ("invalid percent-encoded token: ...")
    from gwanjong_gateway.record.sql.pg_errors import redact

    port = free_port()  # nothing listens here
    for url in (
        f"postgresql://gw@127.0.0.1:{port}/gwanjong?password=Ab%9K{SECRET}",
        f"postgresql://gw@127.0.0.1:{port}/gwanjong?sslmode=disable&password=Ab%9K{SECRET}",
        f"postgresql://gw@127.0.0.1:{port}/gwanjong?sslpassword=Ab%9K{SECRET}",  # the key's
        f"postgresql://gw:Ab%9K{SECRET}@127.0.0.1:{port}/gwanjong",
    ):
        records = Records(tmp_path / "unused.db", url=url)
        assert not await records.open()
        with pytest.raises(PlatformError) as refused:
            await records.run(StrikeStore.history)
        text = str(refused.value)
        assert text.startswith("unavailable: the strike record database at "), text
        assert SECRET not in text, text
        assert SECRET not in redact(url)  # what `gwanjong history` shows as its source
    assert redact("postgresql://gw@db/x?password=pw1&sslmode=require") == (
        "postgresql://gw@db/x?password=***&sslmode=require"
    )
