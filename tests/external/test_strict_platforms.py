"""Stock TS SDK clients (v1 1.32.2 in the 2025-11-25 era, v2 2.4.0 pinned to 2026-07-28)
list and call every tool of each platform server over stdio, against the sandbox, with
their own output validation on: every result, a success or a failure, is accepted (no
-32602 "Structured content does not match the tool's output schema") and each failure
is readable as data (`structuredContent.error`)."""

from __future__ import annotations

import sys

import pytest

from gwanjong_sandbox.control import SandboxControl
from gwanjong_shared.contract import CONTRACT_TOOLS, OPTIONAL_TOOLS
from tests.external.node import CLIENTS, NodeClient, accepted, error_data
from tests.platforms import SPECS
from tests.servers.wire.contract_calls import calls

pytestmark = pytest.mark.stdio


@pytest.mark.parametrize("client", list(CLIENTS))
@pytest.mark.parametrize("name", list(SPECS))
def test_every_tool_result_is_accepted(name: str, client: str, sandbox: SandboxControl) -> None:
    sdk, pin = CLIENTS[client]
    spec = SPECS[name]
    server = {
        "command": sys.executable,
        "args": ["-m", spec.module],
        "env": {**spec.env(sandbox.url), "FASTMCP_LOG_LEVEL": "WARNING"},
    }
    post_id = sandbox.ids(name)["rust-async"]
    with NodeClient(sdk, server, pin=pin) as c:
        if pin is not None:
            assert c.ready["protocolVersion"] == pin
        tools = {t["name"]: t for t in c.ready["tools"]}
        assert set(tools) == {*CONTRACT_TOOLS, *OPTIONAL_TOOLS}
        assert all("outputSchema" in t for t in tools.values())
        failures = 0
        for tool, args, expected in calls(post_id, spec.search_word):
            answer = c.call(tool, args)
            result = accepted(answer)
            if result.get("isError"):
                failures += 1
                kind = error_data(answer)["kind"]
                assert expected is None or kind in expected, (tool, args, kind)
            else:
                assert expected is None, (tool, args, "succeeded")
                assert "error" not in result["structuredContent"]
        assert failures >= 7
