"""Each platform server as a real stdio process (what an MCP client spawns)."""

from __future__ import annotations

import pytest
from fastmcp import Client

from gwanjong_sandbox.control import SandboxControl
from gwanjong_shared.contract import CONTRACT_TOOLS, OPTIONAL_TOOLS
from tests.mcp import call, error_of
from tests.platforms import SPECS, PlatformSpec

pytestmark = [pytest.mark.anyio, pytest.mark.stdio]


@pytest.mark.parametrize("spec", list(SPECS.values()), ids=list(SPECS))
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_server_process_speaks_the_contract(
    spec: PlatformSpec, mode: str, sandbox: SandboxControl
) -> None:
    ids = sandbox.ids(spec.name)
    async with Client(spec.stdio(sandbox.url), mode=mode, timeout=60) as client:
        assert {t.name for t in await client.list_tools()} == {*CONTRACT_TOOLS, *OPTIONAL_TOOLS}
        assert "select!" in (await call(client, "get_post", post_id=ids["rust-async"]))["body"]
        gone = await error_of(client, "get_post", post_id=ids["missing"])
        assert gone.startswith("not_found: ")
        assert (await error_of(client, "trending", limit="lots")).startswith("invalid_input: ")
