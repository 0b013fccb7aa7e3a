"""The notifier through Apprise to real channels on 127.0.0.1: the e-mail reaches an SMTP
server, the JSON webhook and the ntfy POST reach an HTTP receiver, each with the counts
and the console's page and no platform text; a channel that refuses or hangs gives up
with a line naming scheme and host only, and the others are sent all the same."""

from __future__ import annotations

import json
from contextlib import closing
from pathlib import Path

import pytest

from gwanjong_gateway.config.away import NotifySection
from gwanjong_gateway.notify.deliver import Retry
from gwanjong_gateway.notify.notifier import Notifier
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import StrikeStore
from tests.gateway.notify.channels import hanging_port, http_receiver, smtp_server
from tests.gateway.notify.records import BODY, hand_off, open_approval
from tests.mcp import until

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

NOW = 1_800_000_000.0
BASE = "http://127.0.0.1:8765"


def waiting(tmp_path: Path) -> Records:
    with closing(StrikeStore(tmp_path / "gwanjong.db")) as store:
        open_approval(store, "p1", NOW - 3600)
        open_approval(store, "p2", NOW - 60)
        hand_off(store, "q1", NOW - 120)
    return Records(tmp_path / "gwanjong.db")


def expected(text: str) -> None:
    assert "2 approvals waiting on devto (oldest 60 min ago)" in text, text
    assert "1 hand-offs waiting to be posted on bluesky (oldest 2 min ago)" in text, text
    assert f"Open {BASE}/approvals" in text and f"Open {BASE}/handoffs" in text, text
    assert BODY not in text and "signin" not in text, text


async def send_all(records: Records, urls: list[str], retry: Retry) -> str:
    n = Notifier(NotifySection(urls=urls), records, urls, BASE, clock=lambda: NOW, retry=retry)
    await n.scan()
    messages = await n.tick()
    assert messages
    return await n.deliver(messages)


async def test_email_json_webhook_and_ntfy_receive_the_counts_and_the_page(
    tmp_path: Path,
) -> None:
    records = waiting(tmp_path)
    with http_receiver() as (port, web), smtp_server() as (smtp, mail):
        urls = [
            f"json://127.0.0.1:{port}/hook",
            f"ntfy://127.0.0.1:{port}/gwanjong",
            f"mailto://127.0.0.1:{smtp}?from=gw@example.com&to=me@example.com&mode=insecure",
        ]
        error = await send_all(records, urls, Retry(backoff_s=(), try_s=10))
    assert error == ""
    by_path = {path: json.loads(body) for path, body in web.posts}
    assert set(by_path) == {"/hook", "/"}
    hook, ntfy = by_path["/hook"], by_path["/"]
    assert hook["title"] == "gwanjong: 3 things wait for you"
    expected(hook["message"])
    assert ntfy["topic"] == "gwanjong"
    expected(ntfy["message"])
    [(to, subject, text)] = mail.mails
    assert to == ["me@example.com"] and subject == "gwanjong: 3 things wait for you"
    expected(text)
    records.close()


async def test_a_refusing_and_a_hanging_channel_give_up_and_the_others_are_sent(
    tmp_path: Path,
) -> None:
    records = waiting(tmp_path)
    with http_receiver() as (port, web), http_receiver(500) as (bad, _), hanging_port() as hang:
        urls = [
            f"json://user:hunter2@127.0.0.1:{bad}/hook",
            f"json://127.0.0.1:{hang}/hook?token=s3cret",
            f"json://127.0.0.1:{port}/hook",
        ]
        error = await send_all(records, urls, Retry(backoff_s=(0,), try_s=1))
    assert error == (
        "json://127.0.0.1: gave up: the channel refused it; "
        "json://127.0.0.1: gave up: no answer within 1 s"
    )
    assert "hunter2" not in error and "s3cret" not in error
    [(_path, body)] = web.posts
    expected(json.loads(body)["message"])
    records.close()


async def test_the_gateway_notifies_from_its_lifespan_and_names_the_console_page(
    tmp_path: Path,
) -> None:
    from fastmcp import Client

    from gwanjong_gateway.config import parse
    from gwanjong_gateway.gateway import Gateway
    from gwanjong_gateway.server import build_gateway
    from tests.gateway.helpers import config_text

    state = tmp_path / "state"
    state.mkdir()
    with closing(StrikeStore(state / "gwanjong.db")) as store:
        open_approval(store, "p1", NOW)
    with http_receiver() as (port, web):
        tables = {
            "notify": {"urls": ["${GWANJONG_TEST_HOOK}"], "every_s": 10},
            "console": {"public_url": "https://gw.example.com"},
        }
        config = parse(config_text(state, ["devto"], "confirm", tables=tables))
        env = {"GWANJONG_TEST_HOOK": f"json://127.0.0.1:{port}/hook"}
        gw = Gateway(config, environ=env, transports={})
        async with Client(build_gateway(config, gateway=gw)):
            await until(lambda: bool(web.posts), 60, every=0.05)  # sent as soon as it starts
            assert gw.notifier is not None and gw.notifier.channels == ["json://127.0.0.1"]
    [(_path, body)] = web.posts
    message = json.loads(body)["message"]
    assert message.startswith("1 approvals waiting on devto")
    assert "Open https://gw.example.com/approvals" in message and BODY not in message
