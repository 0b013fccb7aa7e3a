"""Each platform server as a real stdio process (what an MCP client spawns)."""

from __future__ import annotations

import pytest
from fastmcp import Client

from gwanjong_sandbox.control import SandboxControl
from gwanjong_shared.contract import CONTRACT_TOOLS, OPTIONAL_TOOLS
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
        post = await client.call_tool("get_post", {"post_id": ids["rust-async"]})
        assert post.structured_content is not None and "select!" in post.structured_content["body"]
        gone = await client.call_tool("get_post", {"post_id": ids["missing"]}, raise_on_error=False)
        assert gone.is_error and gone.content[0].text.startswith("not_found: ")  # type: ignore[union-attr]
        bad = await client.call_tool("trending", {"limit": "lots"}, raise_on_error=False)
        assert bad.is_error and bad.content[0].text.startswith("invalid_input: ")  # type: ignore[union-attr]
