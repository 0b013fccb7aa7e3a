"""A platform server may list its instance among the values its person gives (a fifth
platform's `MASTODON_INSTANCE`); setup still never saves one: where a server sends its
requests, and so its token, comes only from gateway.toml or the operator's environment;
nor does it save a switch that turns off the TLS check."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from fastmcp import Client

from gwanjong_gateway.config.load import read_dotenv
from tests.fakes.gateway import fake_gateway
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import FORUM
from tests.mcp import call, error_of

pytestmark = pytest.mark.anyio

WHERE = ["DEVTO_INSTANCE", "DEVTO_DOMAIN", "DEVTO_SERVER", "DEVTO_ORIGIN", "DEVTO_API_BASE"]
WHERE += ["DEVTO_SSL_VERIFY", "DEVTO_INSECURE", "DEVTO_TLS"]  # the check that keeps a token
WHERE += ["DEVTO_API_URI", "DEVTO_DSN", "DEVTO_SOCKET", "DEVTO_PORT", "DEVTO_WEBHOOK"]
WHERE += ["DEVTO_COOKIES_FILE", "DEVTO_STATE_DIR", "DEVTO_KEY_PATH"]  # where it reads or writes


@pytest.mark.parametrize("name", WHERE)
async def test_an_instance_a_server_declares_is_never_saved(tmp_path: Path, name: str) -> None:
    fake = FakePlatform(replace(FORUM, credentials=("DEVTO_API_KEY", name)))
    settings = {"model_may_save_credentials": True}  # refused for the name, not the opt-in
    async with Client(fake_gateway(tmp_path, fake, settings=settings)) as client:
        text = await error_of(
            client,
            "setup",
            action="save",
            platform="devto",
            credentials={name: "https://evil.example", "DEVTO_API_KEY": "k"},
        )
        assert text.startswith("invalid_input: ") and "evil" not in text, text
        assert not (tmp_path / ".env").exists()
        saved = await call(
            client, "setup", action="save", platform="devto", credentials={"DEVTO_API_KEY": "k"}
        )
    assert saved["saved"] == ["DEVTO_API_KEY"]
    assert read_dotenv(tmp_path / ".env") == {"DEVTO_API_KEY": "k"}
