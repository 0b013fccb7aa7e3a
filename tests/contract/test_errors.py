"""The contract's errors, the same kinds from every platform server, and its secrets kept
(the cases: tests/contract/conftest.py)."""

from __future__ import annotations

import json
import logging
import time
from importlib.metadata import version
from typing import Any

import pytest
from fastmcp import Client

from gwanjong_sandbox.control import SandboxControl
from tests.mcp import call, error_of
from tests.platforms import SPECS, PlatformSpec

pytestmark = pytest.mark.anyio


# -- errors ------------------------------------------------------------------------------


WRONG = [(spec, spec.bad_auth_env) for spec in SPECS.values()]
if "reddit" in SPECS:  # a wrong app secret too: 401 at the token endpoint
    WRONG.append((SPECS["reddit"], {"REDDIT_CLIENT_SECRET": "wrong-secret"}))


@pytest.mark.parametrize(
    ("spec", "wrong"), WRONG, ids=[f"{s.name}-{next(iter(w))}" for s, w in WRONG]
)
async def test_wrong_credentials_are_refused_and_said_so(
    spec: PlatformSpec, wrong: dict[str, str], sandbox: SandboxControl
) -> None:
    """From the platform's own answer: capabilities says refused, a write and the inbox
    say auth (a write the rule refuses says so first), and no secret is repeated."""
    async with Client(spec.build(sandbox.url, **wrong)) as client:
        caps = await call(client, "capabilities")
        write = await error_of(client, "write_post", title="Hello", body="A short post.")
        inbox = await error_of(client, "mentions")
    assert caps["credentials_state"] == "refused" and caps["account"] is None
    assert caps["configured"] is True and caps["reachable"] is True
    assert set(caps["actions"]) == {"write_post", "write_comment", "upvote"}  # rules still hold
    refused_by_rule = spec.rules["write_post"] == "never"  # before keys matter
    assert write.startswith("not_supported: " if refused_by_rule else "auth: "), write
    assert inbox.startswith("auth: "), inbox
    for secret in (*spec.secrets, *wrong.values()):
        assert secret not in write + inbox + json.dumps(caps)
    assert sandbox.writes(spec.name) == []


@pytest.mark.parametrize(
    ("fault", "prefix"),
    [
        *(({"status": n}, f"{kind}: ") for n, kind in [(401, "auth"), (403, "auth")]),
        ({"status": 404}, "not_found: "),
        ({"status": 500}, "unavailable: "),
        ({"status": 503, "retry_after": 9}, "unavailable: "),  # it says for how long
        ({"status": 503, "retry_after": 9, "method": "GET"}, "unavailable: "),  # past sign-in
        ({"status": 429, "retry_after": 7}, "rate_limited retry_after=7: "),
        ({"kind": "hang", "seconds": 6}, "timeout: "),  # a hanging platform times out
    ],
    ids=["401", "403", "404", "500", "503", "503-read", "429-retry-after", "hang"],
)
async def test_platform_errors_map_to_kinds(
    spec: PlatformSpec,
    overrides: dict[str, str],
    ids: dict[str, str],
    sandbox: SandboxControl,
    fault: dict[str, Any],
    prefix: str,
) -> None:
    if fault.get("kind") == "hang":  # the server's bound is what ends it: a short one
        overrides = overrides | spec.timeouts(2)
    sandbox.fault(spec.name, count=20, **fault)  # enough for any SDK's own retries
    async with Client(spec.build(sandbox.url, **overrides)) as client:
        started = time.monotonic()
        text = await error_of(client, "get_post", post_id=ids["rust-async"])
        waited = time.monotonic() - started
    assert text.startswith(prefix), text
    assert len(text.split(": ", 1)[1]) > 20  # a sentence that says what to do
    if fault.get("status", 0) >= 500:
        assert ("Wait 9 seconds" if "retry_after" in fault else "minute") in text, text
    if fault.get("kind") == "hang":  # shorter than an SDK's own bound (asyncprawcore: 16 s),
        assert waited >= 1.9  # so a timeout at all is TIMEOUT_S's, and it was waited out


async def test_a_404_on_a_read_by_no_id_says_to_check_the_base_url(
    client: Client[Any], spec: PlatformSpec, sandbox: SandboxControl
) -> None:
    """A base URL that leads elsewhere, or server software without the endpoint: there is
    no id to check."""
    sandbox.fault(spec.name, status=404, count=50)
    for tool in ("trending", "mentions"):
        text = await error_of(client, tool)
        assert text.startswith("not_found: ") and "base URL" in text, text
        assert "the id" not in text and "an id" not in text, text


def wait_of(text: str) -> int:
    """The seconds in a ``rate_limited retry_after=N: ...`` answer."""
    return int(text.split("=", 1)[1].split(":", 1)[0])


async def test_after_a_429_the_server_holds_calls_until_the_reset(
    client: Client[Any], spec: PlatformSpec, ids: dict[str, str], sandbox: SandboxControl
) -> None:
    sandbox.fault(spec.name, status=429, retry_after=30, count=20)
    first = await error_of(client, "get_post", post_id=ids["rust-async"])
    assert first.startswith("rate_limited retry_after=") and wait_of(first) in (29, 30), first
    sandbox.clear_faults()
    sent = sum(sandbox.requests().values())
    # The platform said 30 s: the next call is refused here, without asking it again, with
    # what is left of the wait (seconds, whatever the platform's headers say).
    second = await error_of(client, "get_post", post_id=ids["rust-async"])
    assert second.startswith("rate_limited retry_after="), second
    assert 20 <= wait_of(second) <= 30, second
    assert sum(sandbox.requests().values()) == sent


async def test_rules_answer_before_any_rate_limit(
    client: Client[Any], spec: PlatformSpec, ids: dict[str, str], sandbox: SandboxControl
) -> None:
    """On a rate-limited platform, a rule that needs no read of it (never, human) still
    answers: not_supported, and validate names the rule. A rule that depends on the target
    (summoned) or lets a program act (auto) cannot be answered without the platform: it
    says rate_limited, never a verdict it did not get. Every action on a target falls in
    one of the two (Dev.to's both answer from the rules, Bluesky's both need the target),
    so no platform passes by checking nothing."""
    sandbox.fault(spec.name, status=429, retry_after=30, count=50)
    await error_of(client, "get_post", post_id=ids["rust-async"])  # now rate limited
    for action in ("write_comment", "upvote"):
        rule = spec.rules[action]
        args = {"post_id": ids["rust-async"]} | ({"body": "hi"} if action != "upvote" else {})
        text = await error_of(client, action, **args)
        if rule in ("never", "human"):
            assert text.startswith("not_supported: "), (action, text)
            check = await call(client, "validate", action=action, **args)
            assert check["allowed"] == rule and not check["ok"], (action, check)
        else:
            assert text.startswith("rate_limited retry_after="), (action, text)
    assert sandbox.writes(spec.name) == []  # nothing written while the platform said wait


async def test_rules_answer_offline(spec: PlatformSpec) -> None:
    # Nothing listens on port 9: the platform is unreachable, its rules are not.
    async with Client(spec.build("http://127.0.0.1:9")) as offline:
        caps = await call(offline, "capabilities")
        check = await call(
            offline, "validate", action="write_post", title="Offline", body="Short and fine."
        )
        body_max = caps["limits"]["body"]["max"]
        if body_max < 100_000:
            over = {"title": "Offline", "body": "a" * (body_max + 1)}
        else:  # a body limit beyond what a tool argument takes: the title's is the one to hit
            over = {"title": "a" * (caps["limits"]["title"]["max"] + 1), "body": "fine"}
        too_long = await call(offline, "validate", action="write_post", **over)
        info = offline.server_info  # era-neutral: initialize or server/discover
    assert caps["reachable"] is False and caps["account"] is None
    assert caps["credentials_state"] == "unknown"  # not checked: nothing answered
    assert {a: r["allowed"] for a, r in caps["actions"].items()} == spec.rules
    if spec.rules["write_post"] == "never":  # the rule is the only problem, offline too
        assert check["ok"] is False and check["allowed"] == "never", check
        assert check["problems"] == [caps["actions"]["write_post"]["reason"]], check
    else:
        assert check["ok"] is True, check
    assert too_long["ok"] is False and any("Cut at least 1" in p for p in too_long["problems"])
    # serverInfo names our package's version, not FastMCP's.
    assert info is not None and info.version == version(f"gwanjong-{spec.name}")


async def test_recovers_after_a_fault(
    client: Client[Any], spec: PlatformSpec, ids: dict[str, str], sandbox: SandboxControl
) -> None:
    sandbox.fault(spec.name, status=503, count=1)
    await client.call_tool("get_post", {"post_id": ids["rust-async"]}, raise_on_error=False)
    post = await call(client, "get_post", post_id=ids["rust-async"])
    assert post["id"] == ids["rust-async"]


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("trending", {"limit": "many"}),
        ("trending", {"limit": 0}),
        ("search", {"query": 42}),
        ("search", {"query": "   "}),
        ("search", {}),
        ("get_post", {}),
        ("get_post", {"post_id": ""}),
        ("get_comments", {"post_id": ["a"]}),
        ("write_post", {"title": "t"}),
        ("write_post", {"title": "t", "body": "b", "tags": 5}),  # a union: one error, not two
        ("validate", {"action": "write_post", "body": "x", "surprise": 1}),
    ],
)
async def test_wrong_arguments_are_invalid_input(
    client: Client[Any],
    spec: PlatformSpec,
    sandbox: SandboxControl,
    tool: str,
    args: dict[str, Any],
) -> None:
    text = await error_of(client, tool, **args)
    assert text.startswith("invalid_input: ") and "[" not in text, text  # no `list[str]:`
    assert "item after validation" not in text, text  # an empty id: a string, not a list
    assert sandbox.writes(spec.name) == []


async def test_no_secret_in_any_result_or_log(
    spec: PlatformSpec,
    overrides: dict[str, str],
    ids: dict[str, str],
    sandbox: SandboxControl,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    texts = []
    async with Client(spec.build(sandbox.url, **overrides)) as client:
        for tool, args in [
            ("capabilities", {}),  # signed in, where the platform signs in
            ("trending", {"limit": 3}),
            ("get_post", {"post_id": ids["missing"]}),
        ]:
            result = await client.call_tool(tool, args, raise_on_error=False)
            texts.append(json.dumps(result.structured_content, ensure_ascii=False))
            texts.extend(getattr(c, "text", "") for c in result.content)
        sandbox.fault(spec.name, status=401, count=20)
        texts.append(await error_of(client, "get_post", post_id=ids["rust-async"]))
        texts.append(await error_of(client, "write_post", title="Hello", body="hello"))
    assert caplog.records  # the SDKs and the server did log, at every level
    blob = "\n".join([*texts, caplog.text])
    for secret in spec.secrets:
        assert secret not in blob
