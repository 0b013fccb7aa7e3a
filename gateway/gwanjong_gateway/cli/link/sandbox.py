"""`gwanjong link --sandbox`: the demo's set-up made lasting. `<state_dir>/gateway.sandbox.toml`
points every platform the sandbox serves at `http://127.0.0.1:PORT` with its made-up
credentials, a record apart in `<state_dir>/sandbox/`, and live writes (the sandbox is the
only place they can go).
"""

from __future__ import annotations

from pathlib import Path

from gwanjong_gateway.bundled import installed
from gwanjong_gateway.config.file import render, write_config
from gwanjong_gateway.extras import MissingExtra, missing_message

FILE = "gateway.sandbox.toml"
HEADER = (
    "# Written by `gwanjong link --sandbox`: every platform below talks to the local sandbox\n"
    "# (`gwanjong sandbox --port {port}`), with the sandbox's own made-up credentials.\n"
    "# Nothing leaves this machine. `gwanjong link --sandbox` writes it again as it was.\n"
)


def sandbox_env(port: int) -> dict[str, dict[str, str]]:
    """Each servable platform's variables for a sandbox on 127.0.0.1:port."""
    try:
        from gwanjong_sandbox.emulator import make_emulators
        from gwanjong_sandbox.state import SandboxState
    except ModuleNotFoundError:
        raise MissingExtra(missing_message("sandbox")) from None
    url = f"http://127.0.0.1:{port}"
    envs: dict[str, dict[str, str]] = {}
    servers = set(installed())  # a platform whose server is not installed could not start
    for emulator in make_emulators(SandboxState()):
        make = getattr(emulator, "demo_env", None)  # as GET /_sandbox/env/<platform> answers
        if make is not None and emulator.platform in servers:
            envs[emulator.platform] = {str(k): str(v) for k, v in make(url).items()}
    return dict(sorted(envs.items()))


def sandbox_config_text(state_dir: Path, port: int) -> str:
    gateway = {"writes": "live", "state_dir": state_dir / "sandbox"}
    platforms = {name: {"env": env, "min_interval_s": 0} for name, env in sandbox_env(port).items()}
    return HEADER.format(port=port) + render(gateway, platforms)


def write_sandbox_config(state_dir: Path, port: int, dry_run: bool) -> tuple[Path, bool]:
    """The sandbox config's path, and whether it was (or, dry-run, would be) changed."""
    path = state_dir / FILE
    text = sandbox_config_text(state_dir, port)
    try:
        same = path.read_text(encoding="utf-8") == text
    except OSError:
        same = False
    if not same and not dry_run:
        write_config(path, text, str(path))
    return path, not same
