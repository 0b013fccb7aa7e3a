"""Wrong credentials through the real chain: MCP client -> gateway process (stdio) -> each
real platform server -> sandbox, which refuses them as the platform does. `setup(check)`
and `status` must agree that the keys were refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastmcp import Client

from gwanjong_sandbox.control import SandboxControl
from tests.config import config_file
from tests.e2e.test_chain import gateway
from tests.mcp import call
from tests.platforms import SPECS

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]
# Reddit's wrong app secret (a 401 at the token endpoint) is the case from the issue.
WRONG = {name: dict(spec.bad_auth_env) for name, spec in SPECS.items()}
if "reddit" in WRONG:
    WRONG["reddit"] = {"REDDIT_CLIENT_SECRET": "wrong-secret"}


async def test_setup_check_and_status_agree_on_refused_keys(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    wrong_env = {n: {"env": {**SPECS[n].env(sandbox.url), **w}} for n, w in WRONG.items()}
    settings = {"call_timeout_s": 30, "start_timeout_s": 60}
    config = config_file(tmp_path, list(WRONG), None, settings, others=wrong_env)
    async with Client(gateway(config), timeout=120) as client:
        checked = (await call(client, "setup", action="check"))["check"]
        status = (await call(client, "status"))["platforms"]
    text = str(checked) + str(status)
    for name, wrong in WRONG.items():
        one = checked[name]
        assert one["ok"] is False and one["credentials"] == "refused", (name, one)
        assert f"gwanjong setup {name}" in one["next"], one
        assert status[name]["platform"]["state"] == "auth failed", (name, status[name])
        for secret in (*wrong.values(), *SPECS[name].secrets):
            assert secret not in text
