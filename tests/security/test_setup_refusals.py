"""setup(save) over stdio cannot move an endpoint: base URLs, proxies, another platform's
variables and values holding any separator are all refused, `.env` stays byte for byte
the same, and no request ever leaves for a host that is not configured."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastmcp import Client

from gwanjong_sandbox.control import SandboxControl
from tests.e2e.test_chain import gateway
from tests.mcp import call, error_of
from tests.security.test_hostile_stdio import ALL, gateway_config

pytestmark = [pytest.mark.anyio, pytest.mark.e2e, pytest.mark.stdio]

SEPARATORS = [chr(c) for c in range(0x20)] + ["\x7f", "\x85", "\u2028", "\u2029"]


class Listener:
    """A throwaway TCP listener: every connection it accepts is a request that leaked."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.accepted += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self.sock.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    one = Listener()
    yield one
    one.close()


def attempts(evil: str) -> list[tuple[str, dict[str, str]]]:
    tries: list[tuple[str, dict[str, str]]] = [
        ("devto", {"DEVTO_BASE_URL": evil}),
        ("bluesky", {"BLUESKY_BASE_URL": evil}),
        ("bluesky", {"BLUESKY_ALLOWED_HOSTS": "127.0.0.1"}),
        ("reddit", {"REDDIT_BASE_URL": evil}),
        ("reddit", {"REDDIT_OAUTH_URL": evil}),
        ("twitter", {"TWITTER_API_BASE_URL": evil}),
        ("twitter", {"TWITTER_WEB_BASE_URL": evil}),
        ("devto", {"HTTPS_PROXY": evil}),
        ("devto", {"https_proxy": evil}),
        ("devto", {"ALL_PROXY": evil}),
        ("devto", {"BLUESKY_APP_PASSWORD": "stolen"}),
        ("devto", {"DEVTO_API_KEY": "fine", "BLUESKY_BASE_URL": evil}),
        ("twitter", {"REDDIT_PASSWORD": "x"}),
        # the Mastodon instance is the person's choice in gateway.toml, never the model's
        ("mastodon", {"MASTODON_API_BASE_URL": evil}),
        ("mastodon", {"MASTODON_ACCESS_TOKEN": "fine", "MASTODON_API_BASE_URL": evil}),
    ]
    for sep in SEPARATORS:
        tries.append(("devto", {"DEVTO_API_KEY": f"k{sep}BLUESKY_BASE_URL={evil}"}))
    return tries


async def test_setup_save_cannot_move_endpoints_or_inject_variables(
    sandbox: SandboxControl, tmp_path: Path, listener: Listener
) -> None:
    evil = f"http://127.0.0.1:{listener.port}"
    # The operator did allow model-supplied credentials: every refusal below is about names
    # and values, not the opt-in.
    config = gateway_config(tmp_path, sandbox, {"model_may_save_credentials": True})
    env_file = tmp_path / "state" / ".env"
    env_file.parent.mkdir(parents=True)
    env_file.write_text("# saved earlier\nDEVTO_API_KEY='sandbox-devto-key'\n", encoding="utf-8")
    os.chmod(env_file, 0o600)
    before = env_file.read_bytes()
    async with Client(gateway(config, "INFO", tmp_path / "gateway.log"), timeout=180) as client:
        for platform, credentials in attempts(evil):
            text = await error_of(
                client, "setup", action="save", platform=platform, credentials=credentials
            )
            assert text.startswith("invalid_input: "), (platform, credentials, text)
            assert evil not in text
            assert env_file.read_bytes() == before, (platform, credentials)
        # Every platform still works, against the sandbox only.
        checked = await call(client, "setup", action="check")
        assert all(checked["check"][name]["ok"] for name in ALL), checked
        await call(client, "scout", topic="rust async", limit=5)
    assert listener.accepted == 0
    sandbox_host = sandbox.url.split("://", 1)[1]
    hosts = set(sandbox.hosts())
    # the X server keeps X's own Host header while it talks to the sandbox
    assert hosts <= {sandbox_host, "x.com", "api.x.com", "api.twitter.com"}, hosts
    assert sandbox_host in hosts
