"""What several servers' tests read the same way: the inbox polled to its end, the sandbox's
request counts for one platform."""

from __future__ import annotations

from typing import Any

from fastmcp import Client

from gwanjong_sandbox.control import SandboxControl
from tests.mcp import call


async def drain(client: Client[Any], since: str | None, limit: int) -> list[dict[str, Any]]:
    """Poll as a gateway does (pass next_since back) until nothing more comes."""
    listed: list[dict[str, Any]] = []
    for _ in range(400):  # a bound, so a server that never stops fails instead of hanging
        got = await call(client, "mentions", since=since, limit=limit)
        assert len(got["posts"]) <= limit
        listed += got["posts"]
        if not got["posts"] and not got["more"]:
            return listed
        since = got["next_since"] or since
    raise AssertionError("mentions kept saying more")


def paths(sandbox: SandboxControl, platform: str) -> dict[str, int]:
    """Requests the sandbox answered for ``platform``, per "METHOD path"."""
    counts = sandbox.request_paths().items()
    return {k.split(" ", 1)[1]: v for k, v in counts if k.startswith(f"{platform} ")}
