"""`gwanjong setup [PLATFORM]`: the person types each credential (hidden), no model in
between; saved, the server restarted and the connection checked.
"""

from __future__ import annotations

import difflib
import getpass
import os
import signal
import sys
from collections.abc import Callable
from typing import TextIO

import anyio

from gwanjong_gateway.config import GatewayConfig
from gwanjong_gateway.platforms.client import PlatformClient
from gwanjong_gateway.platforms.upstreams import Upstreams
from gwanjong_gateway.setup.dotenv_file import DotenvError, check_value, overridden, save
from gwanjong_gateway.setup.guide import allowed_names, guide_for
from gwanjong_gateway.setup.setup_results import Unchecked
from gwanjong_gateway.setup.tool import checked
from gwanjong_shared.contract.errors import PlatformError
from gwanjong_shared.contract.untrusted import one_line

Prompt = Callable[[str], str]


def run_setup(
    config: GatewayConfig,
    platforms: list[str],
    out: TextIO = sys.stdout,
    ask: Prompt = getpass.getpass,
) -> int:
    """0 when every chosen platform saved and checked fine, else 1 (2: bad platform)."""
    enabled = list(config.enabled())
    unknown = [p for p in platforms if p not in enabled]
    if unknown:
        names = ", ".join(one_line(p, 40) for p in unknown)
        close = [f"Did you mean {p}? " for p in difflib.get_close_matches(unknown[0], enabled, 1)]
        sys.stderr.write(
            f"gwanjong setup: not an enabled platform: {names}. {''.join(close)}Enabled: "
            f"{', '.join(enabled) or 'none'} (to turn one on: enabled = true in its "
            "[platforms.NAME] table).\n"
        )
        return 2
    return anyio.run(_run, config, platforms or enabled, out, ask)


async def _run(config: GatewayConfig, platforms: list[str], out: TextIO, ask: Prompt) -> int:
    environ = dict(os.environ)
    upstreams = Upstreams(config, environ)
    failures = 0
    try:
        for name in platforms:
            failures += not await _one(config, upstreams, name, environ, out, ask)
    finally:
        await upstreams.close_all()
    return 1 if failures else 0


def _at_once(ask: Prompt, prompt: str) -> str:
    """``ask``, which Ctrl-C stops at once. asyncio's own Ctrl-C only cancels the task, which
    a prompt blocking the loop never saw: the line typed next was saved."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return ask(prompt)
    finally:
        signal.signal(signal.SIGINT, previous)


async def _one(
    config: GatewayConfig,
    upstreams: Upstreams,
    name: str,
    environ: dict[str, str],
    out: TextIO,
    ask: Prompt,
) -> bool:
    print(f"== {name}", file=out)
    why, profile = "it declares no credentials", None
    try:
        caps = await PlatformClient(upstreams, name).capabilities()
        names, profile = allowed_names(name, caps.credentials), caps.profile
    except PlatformError as exc:
        # its text is the model's advice (status()); a person has doctor
        names, why = None, f"its server does not answer ({exc.kind}); `gwanjong doctor` shows why"
    if names is None:
        print(f"Cannot ask for {name}'s credentials: {why}.", file=out)
        return False
    for step in guide_for(name, profile).steps:
        print(f"  - {step}", file=out)
    print("Type each value (hidden); leave empty to keep what is there.", file=out, flush=True)
    values: dict[str, str] = {}
    for key in names:
        while value := _at_once(ask, f"{key}: ").strip():  # empty: keep what is there
            try:
                check_value(key, value)
            except DotenvError as exc:
                print(str(exc), file=out, flush=True)
                continue
            values[key] = value
            break
    if values:
        try:
            save(config.state_dir / ".env", values)
        except DotenvError as exc:
            print(f"Not saved: {exc}", file=out)
            return False
        print(f"Saved {', '.join(sorted(values))} to {config.state_dir / '.env'}.", file=out)
        over = overridden(values, environ)
        if over:
            print(
                f"Warning: {', '.join(over)} is also set in this environment, which wins over "
                "the saved value.",
                file=out,
            )
    await upstreams.reload_env(name, environ)
    row = await checked(upstreams, name)
    if isinstance(row, Unchecked) or not row.ok:
        why = row.error if isinstance(row, Unchecked) else row.next
        print(f"Check failed: {why}", file=out, flush=True)
        return False
    state = "configured" if row.configured else "NOT configured"
    print(
        f"Check: {name} is {state}; account: {row.account or 'none'}; credentials "
        f"{row.credentials}.",
        file=out,
        flush=True,
    )
    if row.credentials == "missing":
        print(f"Run `gwanjong setup {name}` again and type {', '.join(names)}.", file=out)
    elif row.credentials == "unknown":
        print(f"{name} did not answer: saved, unchecked; `gwanjong doctor` checks.", file=out)
    return row.configured
