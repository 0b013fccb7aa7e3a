"""Credentials typed on the gateway's own page (URL-mode elicitation), never in a form.

A real MCP client (in-memory transport, both protocol eras) asks `setup(save)`; its
elicitation handler gets the URL and does the browser's part with httpx against the real
listener; the `.env`, the restarted platform server and every refusal are checked.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastmcp import Client, FastMCP
from fastmcp.client.elicitation import ElicitResult
from fastmcp.client.transports.base import TransportOptions, VersionAwareClientSession
from mcp.types import (
    ClientCapabilities,
    ElicitationCapability,
    ElicitRequestURLParams,
    FormElicitationCapability,
)

from gwanjong_gateway.config import parse
from gwanjong_gateway.config.load import read_dotenv
from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.server import build_gateway
from gwanjong_gateway.web import HEADERS
from gwanjong_sandbox.control import SandboxControl
from tests.config import config_file, config_text
from tests.e2e.test_chain import gateway as stdio_gateway
from tests.fakes.clock import FakeClock
from tests.mcp import call, error_of
from tests.platforms import SPECS, needs

pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]  # the whole file: see tests/tiers.py
MODES = ["legacy", "auto"]


class FormOnlySession(VersionAwareClientSession):
    """A real client session that declares only form-mode elicitation."""

    def _build_capabilities(self, version: str) -> ClientCapabilities:
        caps = super()._build_capabilities(version)
        return caps.model_copy(
            update={"elicitation": ElicitationCapability(form=FormElicitationCapability())}
        )


def gateway(sandbox: SandboxControl, state_dir: Path, clock: FakeClock) -> FastMCP[Any]:
    needs("devto")
    config = parse(config_text(state_dir, ["devto"]))
    gw = Gateway(
        config, environ={}, transports={"devto": SPECS["devto"].build(sandbox.url)}, clock=clock
    )
    return build_gateway(config, gateway=gw)


def origin_of(url: str) -> str:
    match = re.match(r"^(http://127\.0\.0\.1:\d+)/setup/[A-Za-z0-9_-]{40,}$", url)
    assert match, url
    return match.group(1)


async def post(http: httpx.AsyncClient, url: str, data: dict[str, str], **headers: str) -> Any:
    return await http.post(url, data=data, headers={"Origin": origin_of(url), **headers})


@pytest.mark.parametrize("mode", MODES)
async def test_wrong_tokens_hosts_origins_values_and_a_failed_save_are_refused(
    sandbox: SandboxControl, tmp_path: Path, mode: str
) -> None:
    env, elsewhere = tmp_path / ".env", tmp_path / "elsewhere"
    elsewhere.write_text("", encoding="utf-8")
    codes: dict[str, int] = {}

    async def handler(message: str, response_type: Any, params: Any, ctx: Any) -> Any:
        url = params.url
        wrong = url[:-4] + ("aaaa" if not url.endswith("aaaa") else "bbbb")
        async with httpx.AsyncClient(timeout=60) as http:
            codes["wrong token"] = (await post(http, wrong, {"DEVTO_API_KEY": "k"})).status_code
            codes["wrong token get"] = (await http.get(wrong)).status_code
            codes["foreign origin"] = (
                await http.post(
                    url, data={"DEVTO_API_KEY": "k"}, headers={"Origin": "http://evil.example"}
                )
            ).status_code
            codes["rebound host"] = (
                await post(http, url, {"DEVTO_API_KEY": "k"}, Host="evil.example")
            ).status_code
            for sep in ["\x0b", "\x1c", "\x85", "\u2028", "\n", "\x00"]:
                refused = await post(http, url, {"DEVTO_API_KEY": f"k{sep}BLUESKY_BASE_URL=x"})
                codes[f"separator {sep!r}"] = refused.status_code
                assert "control character" in refused.text and "BLUESKY" not in refused.text
            codes["empty"] = (await post(http, url, {"DEVTO_API_KEY": "  "})).status_code
            assert not env.exists()  # nothing written by any refused request
            env.symlink_to(elsewhere)  # a failed save keeps the link for a retry
            failed = await post(http, url, {"DEVTO_API_KEY": "k1"})
            codes["symlinked"] = failed.status_code
            assert "symbolic link" in failed.text
            env.unlink()  # the person fixes the file, then submits again
            codes["good"] = (await post(http, url, {"DEVTO_API_KEY": "good"})).status_code
            saved = env.read_bytes()
            codes["reused"] = (await post(http, url, {"DEVTO_API_KEY": "again"})).status_code
            codes["reused get"] = (await http.get(url)).status_code
            own = {"Origin": origin_of(url)}  # past the guard: the link itself is gone
            codes["reused put"] = (await http.put(url, headers=own)).status_code
            assert env.read_bytes() == saved
        return ElicitResult(action="accept")

    server = gateway(sandbox, tmp_path, FakeClock())
    async with Client(server, mode=mode, elicitation_handler=handler) as client:
        result = await call(client, "setup", action="save", platform="devto")
    assert codes.pop("good") == 200
    assert codes.pop("rebound host") == 403
    assert codes.pop("foreign origin") == 403
    assert set(codes.values()) <= {400, 404}, codes
    assert codes["wrong token"] == codes["reused"] == codes["reused get"] == 404
    assert codes["reused put"] == 404 and codes["symlinked"] == 400
    assert elsewhere.read_text(encoding="utf-8") == ""  # never written through the link
    assert result["saved"] == ["DEVTO_API_KEY"]
    assert read_dotenv(env) == {"DEVTO_API_KEY": "good"}


@pytest.mark.parametrize("mode", MODES)
async def test_a_declined_or_expired_link_saves_nothing(
    sandbox: SandboxControl, tmp_path: Path, mode: str
) -> None:
    """Declining the page kills its link; a link the person comes back to after its 10
    minutes is dead, and the answer says the save is pending."""
    clock = FakeClock()
    urls: list[str] = []
    codes: list[int] = []

    async def handler(message: str, response_type: Any, params: Any, ctx: Any) -> Any:
        urls.append(params.url)
        if len(urls) == 1:
            return ElicitResult(action="decline")
        async with httpx.AsyncClient(timeout=60) as http:
            codes.append((await http.get(params.url)).status_code)
            clock.advance(601)  # the person came back after the 10 minutes
            codes.append((await http.get(params.url)).status_code)
            codes.append((await post(http, params.url, {"DEVTO_API_KEY": "late"})).status_code)
        return ElicitResult(action="accept")

    server = gateway(sandbox, tmp_path, clock)
    async with Client(server, mode=mode, elicitation_handler=handler) as client:
        declined = await call(client, "setup", action="save", platform="devto")
        async with httpx.AsyncClient(timeout=60) as http:
            late = await post(http, urls[0], {"DEVTO_API_KEY": "k"})
        expired = await call(client, "setup", action="save", platform="devto")
    assert declined == {"saved": [], "status": "declined", "next": "Nothing was saved."}
    assert late.status_code == 404
    assert codes == [200, 404, 404]
    assert expired["saved"] == [] and expired["status"] == "pending"
    assert "setup(action='check'" in expired["next"]
    assert not (tmp_path / ".env").exists()


@pytest.mark.parametrize("mode", MODES)
async def test_a_form_only_client_is_never_asked_for_secrets(
    sandbox: SandboxControl, tmp_path: Path, mode: str
) -> None:
    asked: list[str] = []

    async def handler(message: str, response_type: Any, params: Any, ctx: Any) -> Any:
        asked.append(message)
        return {"DEVTO_API_KEY": "typed-into-a-form"}

    client = Client(gateway(sandbox, tmp_path, FakeClock()), mode=mode, elicitation_handler=handler)
    client._transport_options = TransportOptions(session_class=FormOnlySession)
    async with client:
        text = await error_of(client, "setup", action="save", platform="devto")
    assert text.startswith("not_supported") and "gwanjong setup devto" in text
    assert "environment" in text and "DEVTO_API_KEY" in text
    assert asked == [] and not (tmp_path / ".env").exists()


@pytest.mark.parametrize(
    ("mode", "isolation"),
    [
        ("legacy", "in-process"),
        ("auto", "in-process"),
        pytest.param("legacy", "process", marks=pytest.mark.stdio),
    ],
)
async def test_the_person_types_the_key_on_the_page_and_the_server_restarts_configured(
    sandbox: SandboxControl,
    tmp_path: Path,
    mode: str,
    isolation: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The bundled server, built from the gateway's environment (+ .env): no key before,
    the key the person typed on the gateway's page after the restart, and it works
    against the platform; neither the key nor the link's token is shown or logged."""
    needs("devto")
    caplog.set_level(logging.DEBUG)
    env = SPECS["devto"].env(sandbox.url)
    key = env.pop("DEVTO_API_KEY")
    seen: list[ElicitRequestURLParams] = []
    notes: list[Any] = []

    async def handler(message: str, response_type: Any, params: Any, ctx: Any) -> Any:
        assert isinstance(params, ElicitRequestURLParams) and response_type is None
        seen.append(params)
        async with httpx.AsyncClient(timeout=60) as http:
            page = await http.get(params.url)
            assert page.status_code == 200
            for name, value in HEADERS.items():  # the console's: one CSP, no Referer
                assert page.headers[name] == value, name
            assert 'type="password" name="DEVTO_API_KEY"' in page.text
            assert "BASE_URL" not in page.text and "<script" not in page.text
            done = await post(http, params.url, {"DEVTO_API_KEY": key, "DEVTO_BASE_URL": "x"})
            assert done.status_code == 200 and "you may close this tab" in done.text
        return ElicitResult(action="accept")

    async def on_message(message: Any) -> None:
        notes.append(message)

    config = parse(config_text(tmp_path, ["devto"], platform={"isolation": isolation}))
    client = Client(
        build_gateway(config, environ=env),
        mode=mode,
        elicitation_handler=handler,
        message_handler=on_message,
        timeout=120,
    )
    async with client:
        before = await call(client, "setup", action="check", platform="devto")
        result = await client.call_tool("setup", {"action": "save", "platform": "devto"})
        after = await call(client, "setup", action="check", platform="devto")
    assert before["check"]["devto"]["configured"] is False
    saved = result.structured_content
    assert saved is not None and saved["saved"] == ["DEVTO_API_KEY"] and "warning" not in saved
    assert saved["check"]["devto"]["configured"] is True
    assert after["check"]["devto"]["configured"] is True
    assert after["check"]["devto"]["account"], after  # the key signs in
    assert len(seen) == 1 and "devto" in seen[0].message
    dotenv = tmp_path / ".env"
    assert dotenv.stat().st_mode & 0o777 == 0o600
    assert dotenv.read_text(encoding="utf-8") == f"DEVTO_API_KEY='{key}'\n"
    assert read_dotenv(dotenv) == {"DEVTO_API_KEY": key}  # never the base URL
    token = seen[0].url.rsplit("/", 1)[1]
    shown = str(result.content) + str(saved) + str(after)
    assert key not in shown and token not in shown
    ours = [r for r in caplog.records if r.name.startswith("gwanjong")]  # not the test's httpx
    assert any("saved DEVTO_API_KEY for devto" in r.getMessage() for r in ours)
    logged = "\n".join(r.getMessage() for r in ours)
    assert key not in logged and token not in logged
    if mode == "legacy":  # the handshake era has an id and a completion notification
        eid = seen[0].elicitation_id
        assert eid
        assert any(
            getattr(getattr(n, "params", None), "elicitation_id", None) == eid
            and n.method == "notifications/elicitation/complete"
            for n in notes
        ), notes
    else:  # the stateless era: an input-required result, the link found via request state
        assert seen[0].elicitation_id is None


@pytest.mark.stdio
@pytest.mark.parametrize("mode", MODES)
async def test_the_page_over_a_real_stdio_gateway(
    sandbox: SandboxControl, tmp_path: Path, mode: str
) -> None:
    """The gateway as a process (its listener on its own event loop), talking stdio: the
    key typed on the page works, and neither it nor the link's token is in its log."""
    needs("devto")
    env = SPECS["devto"].env(sandbox.url)
    key = env.pop("DEVTO_API_KEY")
    state = tmp_path / "state"
    settings = {"call_timeout_s": 60, "start_timeout_s": 90}
    config = config_file(tmp_path, ["devto"], settings=settings, others={"devto": {"env": env}})
    log = tmp_path / "gateway.log"
    tokens: list[str] = []

    async def handler(message: str, response_type: Any, params: Any, ctx: Any) -> Any:
        tokens.append(params.url.rsplit("/", 1)[1])
        async with httpx.AsyncClient(timeout=60) as http:  # the key typed, as the person would
            done = await post(http, params.url, {"DEVTO_API_KEY": key})
            assert done.status_code == 200, done.text
        return ElicitResult(action="accept")

    transport = stdio_gateway(config, "DEBUG", log)
    async with Client(transport, mode=mode, elicitation_handler=handler, timeout=120) as client:
        saved = await call(client, "setup", action="save", platform="devto")
        after = await call(client, "setup", action="check", platform="devto")
    assert saved["saved"] == ["DEVTO_API_KEY"] and saved["check"]["devto"]["configured"]
    assert after["check"]["devto"]["account"], after
    assert read_dotenv(state / ".env") == {"DEVTO_API_KEY": key}
    logged = log.read_text(encoding="utf-8")
    assert "credential page: saved DEVTO_API_KEY" in logged
    assert key not in logged and tokens and tokens[0] not in logged
