"""`capabilities` tells refused credentials apart, from the platform's own answer: each
server over its real SDK, real HTTP to the sandbox, which refuses like the platform."""

from __future__ import annotations

import pytest
from fastmcp import Client

from gwanjong_sandbox.control import SandboxControl
from tests.platforms import SPECS

pytestmark = pytest.mark.anyio

WRONG = [(name, spec.bad_auth_env) for name, spec in SPECS.items()]
if "reddit" in SPECS:  # the case: a wrong app secret (401 at the token endpoint)
    WRONG.append(("reddit", {"REDDIT_CLIENT_SECRET": "wrong-secret"}))


@pytest.mark.parametrize(("name", "wrong"), WRONG, ids=[f"{n}-{next(iter(w))}" for n, w in WRONG])
async def test_wrong_credentials_are_refused(
    sandbox: SandboxControl, name: str, wrong: dict[str, str]
) -> None:
    async with Client(SPECS[name].build(sandbox.url, **wrong)) as client:
        caps = (await client.call_tool("capabilities", {})).structured_content
    assert caps is not None
    assert caps["credentials_state"] == "refused" and caps["account"] is None
    assert caps["configured"] is True and caps["reachable"] is True
    assert set(caps["actions"]) == {"write_post", "write_comment", "upvote"}  # rules still hold
    for secret in (*wrong.values(), *SPECS[name].secrets):
        assert secret not in str(caps)


@pytest.mark.parametrize("name", list(SPECS))
async def test_right_credentials_are_accepted(sandbox: SandboxControl, name: str) -> None:
    async with Client(SPECS[name].build(sandbox.url)) as client:
        caps = (await client.call_tool("capabilities", {})).structured_content
    assert caps is not None and caps["credentials_state"] == "accepted" and caps["account"]


@pytest.mark.parametrize("name", list(SPECS))
async def test_offline_credentials_are_unknown(name: str) -> None:
    # nothing listens on port 9: the rules answer, the credentials were not checked
    async with Client(SPECS[name].build("http://127.0.0.1:9")) as client:
        caps = (await client.call_tool("capabilities", {})).structured_content
    assert caps is not None and caps["reachable"] is False
    assert caps["credentials_state"] == "unknown"
