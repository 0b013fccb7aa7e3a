"""The `setup` tool (docs/use/setup.md). Only the credential names a server declares can be
saved (never an endpoint or proxy); secrets come from the person's local page, and the
model's values only with `[gateway] model_may_save_credentials`.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

import anyio
from fastmcp import Context, FastMCP
from mcp.types import InputRequiredResult

from gwanjong_gateway import bundled
from gwanjong_gateway.config import PLATFORM_NAME, GatewayConfig
from gwanjong_gateway.platforms.client import PlatformClient, ensure_profiles
from gwanjong_gateway.platforms.upstreams import Upstreams
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.setup.dotenv_file import (
    DotenvError,
    DotenvUnwritable,
    check_value,
    overridden,
)
from gwanjong_gateway.setup.dotenv_file import save as save_dotenv
from gwanjong_gateway.setup.guide import (
    MAX_CREDENTIALS,
    allowed_names,
    check_names,
    guide_for,
    refused,
)
from gwanjong_gateway.setup.secret_listener import SecretListener
from gwanjong_gateway.setup.secret_page import Ask, ask_secrets
from gwanjong_gateway.setup.setup_results import (
    Checked,
    SetupGuide,
    SetupResult,
    SetupSaved,
    SetupWaiting,
    Unchecked,
)
from gwanjong_shared.contract import CredentialState
from gwanjong_shared.contract.errors import ErrorKind, PlatformError
from gwanjong_shared.contract.untrusted import one_line, quote
from gwanjong_shared.tool_templates import add_tool

#: the argument only an operator's opt-in shows to the model
CREDENTIALS_ARG = "credentials"
F = TypeVar("F", bound=Callable[..., Any])


def registered(mcp: FastMCP[Any], model_may_save: bool, **options: Any) -> Callable[[F], F]:
    """``@tool`` for setup: `credentials` (an open map no strict schema can express) is in the
    input schema only with `[gateway] model_may_save_credentials`; sent anyway, `save`
    refuses it and says the other ways (so a tricked model learns what to do)."""

    def register(fn: F) -> F:
        added = add_tool(mcp, fn, **options)
        if not model_may_save:
            # a copy without it (the parsed tool is shared); having a default, it is never
            # in `required`
            schema = added.parameters
            shown = {k: v for k, v in schema["properties"].items() if k != CREDENTIALS_ARG}
            mcp.local_provider.remove_tool(added.name)
            mcp.add_tool(added.model_copy(update={"parameters": {**schema, "properties": shown}}))
        return fn

    return register


class SetupHost(Protocol):
    """What setup needs of the gateway (the `Gateway` holder has it), no more."""

    config: GatewayConfig
    environ: dict[str, str] | None
    upstreams: Upstreams
    records: Records
    secret_listener: SecretListener

    def revoked(self, principal: str | None) -> bool: ...


async def guides(gw: SetupHost, platform: str) -> SetupGuide:
    if platform and not PLATFORM_NAME.match(platform):
        raise PlatformError(
            ErrorKind.INVALID_INPUT,
            f"No platform named {quote(platform, 40)}. Use one of: {', '.join(gw.upstreams.names())}.",
        )
    # Each platform's server tells how to get its keys; one not enabled here is only named.
    names = [platform] if platform else (gw.upstreams.names() or bundled.installed())
    enabled = [name for name in names if name in gw.upstreams.by_name]
    await ensure_profiles(gw.upstreams, enabled)
    return SetupGuide(
        guides={
            name: guide_for(
                name, gw.upstreams.profiles.get(name) if name in enabled else None, name in enabled
            )
            for name in names
        },
        next="Put the values in the environment, or ask the user to run `gwanjong setup "
        "<platform>` in a terminal, or call setup(action='save', platform=...) so the client "
        "opens a page where the user types them.",
    )


async def save(
    gw: SetupHost,
    ctx: Context,
    platform: str,
    credentials: dict[str, str] | None,
    owner: str | None = None,
) -> SetupResult | InputRequiredResult:
    """``owner``: the signed-in caller; their credential link is theirs alone (a new link
    supersedes only their own older one for the platform)."""
    if not platform:
        raise PlatformError(
            ErrorKind.INVALID_INPUT,
            f"save needs a platform, one of: {', '.join(gw.upstreams.names()) or 'none enabled'}.",
        )
    if not may_operate(gw.config, owner):
        raise PlatformError(
            ErrorKind.NOT_SUPPORTED,
            f"The {platform} credentials are the team's (every member's writes go out as "
            "their account): only the operator or an approver may save them. Nothing was "
            f"saved; ask one of them (the operator: `gwanjong setup {platform}` on the "
            "gateway's host).",
        )
    if credentials is not None and len(credentials) > MAX_CREDENTIALS:
        raise PlatformError(
            ErrorKind.INVALID_INPUT,
            f"{len(credentials)} credentials is too many; give at most {MAX_CREDENTIALS}.",
        )
    try:
        caps = await PlatformClient(gw.upstreams, platform).capabilities()
        names = allowed_names(platform, caps.credentials)
    except PlatformError:
        names = None
    if names is None:
        raise PlatformError(
            ErrorKind.UNAVAILABLE,
            f"The {platform} server did not say which credentials it takes (it is down or "
            "predates the contract's `credentials`), so setup saves nothing for it. Set them in "
            "the environment or gateway.toml, or check status().",
        )
    try:
        if credentials:
            check_names(platform, names, credentials)
            for key, value in credentials.items():
                check_value(key, value)
            if not gw.config.gateway.model_may_save_credentials:
                raise PlatformError(
                    ErrorKind.NOT_SUPPORTED,
                    "Saving credentials that pass through the assistant is off "
                    "([gateway] model_may_save_credentials = false). Ask the user to run "
                    f"`gwanjong setup {platform}` in a terminal (hidden input), or call "
                    f"setup(action='save', platform='{platform}') without credentials so the "
                    "client opens a page where the user types them (you never see them).",
                )
            values = dict(credentials)
        else:
            return await _ask_person(gw, ctx, platform, names, owner)
        save_dotenv(gw.config.state_dir / ".env", values)  # atomic, mode 0600
    except DotenvUnwritable as exc:  # a full or read-only disk: not the caller's input
        raise PlatformError(ErrorKind.UNAVAILABLE, str(exc)) from None
    except (DotenvError, ValueError) as exc:
        raise PlatformError(ErrorKind.INVALID_INPUT, str(exc)) from None
    return await _saved(gw, platform, values, owner)


async def _ask_person(
    gw: SetupHost, ctx: Context, platform: str, names: list[str], owner: str | None
) -> SetupResult | InputRequiredResult:
    """The person types the values on the gateway's own page (URL-mode elicitation)."""

    async def on_save(values: dict[str, str]) -> SetupSaved:
        if gw.revoked(owner):
            raise ValueError(
                "Your team token was revoked since this link was made: nothing was saved."
            )
        save_dotenv(gw.config.state_dir / ".env", values)
        return await _saved(gw, platform, values, owner)

    answer = await ask_secrets(ctx, gw.secret_listener, platform, names, on_save, owner)
    if isinstance(answer, (InputRequiredResult, SetupSaved)):
        return answer
    if answer is Ask.UNSUPPORTED:
        raise PlatformError(
            ErrorKind.NOT_SUPPORTED,
            "This client cannot open a page for the user (no URL-mode elicitation), and "
            "secrets are never asked for in a form. Ask the user to run "
            f"`gwanjong setup {platform}` in a terminal, or to set "
            f"{', '.join(names)} in the gateway's environment.",
        )
    if answer is Ask.DECLINED:
        return SetupWaiting(saved=[], status="declined", next="Nothing was saved.")
    return SetupWaiting(
        saved=[],
        status="pending",
        next=f"The user is entering the {platform} credentials on the page their client "
        "opened (the link works once, for 10 minutes); nothing is saved yet. When they say "
        f"they are done, call setup(action='check', platform='{platform}').",
    )


async def _saved(
    gw: SetupHost, platform: str, values: dict[str, str], who: str | None
) -> SetupSaved:
    """After a save: restart that platform's server, check it, warn about overrides."""
    environ = dict(os.environ if gw.environ is None else gw.environ)
    upstream = await gw.upstreams.reload_env(platform, environ)
    checked = await check(gw, [platform], who)
    table = upstream.platform.env
    over = sorted(set(overridden(values, environ)) | {k for k in values if k in table})
    return SetupSaved(
        saved=sorted(values),
        file=str(gw.config.state_dir / ".env"),
        check=checked,
        warning=(
            f"{', '.join(over)} is also set in the gateway's environment or gateway.toml, which "
            "wins over the saved value: remove it there for the saved one to take effect."
        )
        if over
        else None,
    )


def may_operate(config: GatewayConfig, who: str | None) -> bool:
    """Resuming paused writes and saving the team's platform credentials (whom every write
    goes out as) are the operator's (``who`` None: stdio, the terminal) or an `[review]
    approvers` member's, on every surface (the console asks the same)."""
    return who is None or who in config.review.approvers


async def checked(upstreams: Upstreams, name: str) -> Checked | Unchecked:
    """One platform's credentials as its server answers now (`next`: what to do when the
    platform refused them)."""
    try:
        caps = await PlatformClient(upstreams, name).capabilities()
    except PlatformError as exc:
        return Unchecked(error=one_line(str(exc), 300))
    refused_now = caps.credentials_state is CredentialState.REFUSED
    return Checked(
        ok=not refused_now,
        configured=caps.configured,
        credentials=caps.credentials_state.value,
        account=one_line(caps.account or "", 60) or None,
        actions={k: v.allowed for k, v in caps.actions.items()},
        next=refused(name, caps.profile) if refused_now else None,
    )


async def check(
    gw: SetupHost, names: list[str], who: str | None = None
) -> dict[str, Checked | Unchecked]:
    """Each platform's credentials; a platform whose writes are paused is resumed once it
    answers, when ``who`` (the signed-in caller) may resume them."""
    out: dict[str, Checked | Unchecked] = {}

    async def one(name: str) -> None:
        row = out[name] = await checked(gw.upstreams, name)
        if not isinstance(row, Checked) or not row.ok:
            return  # unanswered, or its keys refused: writes stay paused (the keys are wrong)
        with contextlib.suppress(PlatformError):  # a busy record: resume next check
            if not await gw.records.run(StrikeStore.paused, name):
                return
            if not may_operate(gw.config, who):
                row.writes_resumed = False
                row.next = (
                    f"Writes to {name} stay paused: only the operator or an approver may "
                    "resume them (setup check, or Resume in the console's usage page)."
                )
                return
            await gw.records.run(StrikeStore.clear_pause, name)
            row.writes_resumed = True

    async with anyio.create_task_group() as tg:
        for name in names:
            tg.start_soon(one, name)
    return out
