"""setup: check each platform's credentials, explain how to get them, or save them through
a local page (the model never sees them)."""

from __future__ import annotations

from typing import Literal

from fastmcp import Context
from mcp.types import InputRequiredResult

from gwanjong_gateway.setup import tool as setup_tool
from gwanjong_gateway.setup.setup_results import SetupCheck, SetupResult
from gwanjong_gateway.team.auth import principal_name
from gwanjong_gateway.tools.served import Served


async def setup(
    served: Served,
    ctx: Context,
    action: Literal["check", "guide", "save"],
    platform: str,
    credentials: dict[str, str] | None,
) -> SetupResult | InputRequiredResult:
    gw = served.gw
    platform = platform.strip().lower()
    if action == "guide":
        return await setup_tool.guides(gw, platform)
    names = served.known(platform)  # '': all of them
    if action == "save":
        return await setup_tool.save(gw, ctx, platform, credentials, owner=principal_name())
    return SetupCheck(check=await setup_tool.check(gw, names, principal_name()))
