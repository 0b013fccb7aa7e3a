"""`gwanjong init`: a commented starter gateway.toml and the client config snippets."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path
from typing import Any, TextIO, cast

from gwanjong_gateway.config.file import write_config

STARTER = """\
# gwanjong gateway settings. Secrets do not belong here: put platform keys in the
# environment, or let the model call setup(action="save"), which writes <state_dir>/.env.

[gateway]
writes = "dry-run"          # dry-run (shows what would be sent) | confirm (asks you) | live
                            # (live still asks you where a platform wants each write
                            # authorised by a person: a Dev.to article, an X like)
# state_dir = "~/.gwanjong" # strike record, usage figures, saved credentials
                            # (default: ~/.gwanjong if it exists, else the OS user data dir)
call_timeout_s = 20         # every call to a platform server
start_timeout_s = 30        # how long a platform server may take to start
# log_file = "gateway.log"  # also log to a rotating file (relative: inside state_dir)
# expose = ["devto__get_post"]   # raw platform tools to show the model too

[safety]
author_cooldown_days = 7    # not the same author again within this many days
opt_out = []                # authors never to target: "handle" or "platform:handle"
pause_after_failures = 3    # consecutive write failures that pause a platform

# One table per platform; enabled = false turns one off. Each bundled server gets only
# its own variables (DEVTO_*, BLUESKY_*, TWITTER_*, REDDIT_*, MASTODON_*,
# HACKERNEWS_*).

[platforms.devto]           # DEVTO_API_KEY
enabled = true
daily = { post = 1, comment = 10, upvote = 20 }
min_interval_s = 60

[platforms.bluesky]         # BLUESKY_HANDLE, BLUESKY_APP_PASSWORD
enabled = true

[platforms.twitter]         # TWITTER_BEARER_TOKEN (read); TWITTER_API_KEY/_SECRET, TWITTER_ACCESS_TOKEN/_SECRET (write)
enabled = true

[platforms.reddit]          # REDDIT_CLIENT_ID, REDDIT_CLIENT_SECRET, REDDIT_USERNAME, REDDIT_PASSWORD
enabled = true

[platforms.mastodon]        # MASTODON_API_BASE_URL (your instance), MASTODON_ACCESS_TOKEN
enabled = true

[platforms.hackernews]      # HACKERNEWS_USERNAME (optional: the inbox); reads only
enabled = true
"""


def _workspace_root() -> Path | None:
    """The source checkout this package runs from (a `uv run` setup), if any."""
    here = Path(__file__).resolve().parents[3]  # cli -> gwanjong_gateway -> gateway -> root
    pyproject = here / "pyproject.toml"
    if pyproject.exists() and "[tool.uv.workspace]" in pyproject.read_text(encoding="utf-8"):
        return here
    return None


def _in_uv_cache(path: Path) -> bool:
    # uvx runs from a throw-away environment in uv's cache: not a path to put in a config.
    return any(part.startswith("archive-v") for part in path.parts)


def _install_source() -> str | None:
    """Where this package was installed from (PEP 610 direct_url.json), as `uvx --from`
    takes it: a local path, or git+URL#subdirectory=..."""
    try:
        raw = distribution("gwanjong").read_text("direct_url.json")
    except PackageNotFoundError:
        return None
    if not raw:
        return None
    info = json.loads(raw)
    url = str(info.get("url", ""))
    if url.startswith("file://"):
        return url.removeprefix("file://")
    vcs: dict[str, Any] = info.get("vcs_info") or {}
    if url and vcs.get("vcs") == "git":
        spec = f"git+{url}" + (
            f"@{vcs['requested_revision']}" if vcs.get("requested_revision") else ""
        )
        sub = info.get("subdirectory")
        return spec + (f"#subdirectory={sub}" if sub else "")
    return None


def launch_command(config: Path) -> list[str]:
    """How a client should start this gateway, with absolute paths."""
    root = _workspace_root()
    if root is not None:
        uv = shutil.which("uv") or "uv"
        return [uv, "--directory", str(root), "run", "gwanjong", "--config", str(config)]
    installed = shutil.which("gwanjong")
    if installed and not _in_uv_cache(Path(installed).resolve()):
        return [str(Path(installed).absolute()), "--config", str(config)]
    source = _install_source()
    uvx = shutil.which("uvx")
    if _in_uv_cache(Path(sys.executable)) and source and uvx:
        return [uvx, "--from", source, "gwanjong", "--config", str(config)]
    return [sys.executable, "-m", "gwanjong_gateway", "--config", str(config)]


def snippets(command: list[str]) -> str:
    entry = {"mcpServers": {"gwanjong": {"command": command[0], "args": command[1:]}}}
    as_json = json.dumps(entry, indent=2)
    return f"""Claude Desktop: add to claude_desktop_config.json
  (macOS: ~/Library/Application Support/Claude/, Windows: %APPDATA%\\Claude\\)
{as_json}

Cursor: add to ~/.cursor/mcp.json (or .cursor/mcp.json in a project)
{as_json}

Claude Code:
  claude mcp add gwanjong -- {shlex.join(command)}
"""


def run_init(
    target: Path | None,
    out: TextIO | None = None,
    err: TextIO | None = None,
    environ: dict[str, str] | None = None,
) -> int:
    """Write the starter file (never over an existing one), then say how to use it."""
    out = out or cast(TextIO, sys.stdout)
    err = err or cast(TextIO, sys.stderr)
    from gwanjong_gateway.paths import user_config_file  # the last place `locate` looks

    path = (target or user_config_file(environ)).expanduser().absolute()
    if path.exists():
        err.write(
            f"gwanjong init: {path} exists; not overwriting it. Edit it, or pass another path.\n"
        )
        return 1
    try:
        write_config(path, STARTER, "the starter gateway.toml")
    except OSError as exc:  # its folder is a file, read-only, not ours
        err.write(f"gwanjong init: cannot write {path}: {exc.strerror}. Pass another path.\n")
        return 1
    out.write(f"Wrote {path} (writes = dry-run: nothing is posted until you change it).\n\n")
    out.write(snippets(launch_command(path)) + "\n")
    given = f" --config {shlex.quote(str(path))}" if target else ""  # else found by default
    out.write(
        f"Next: `gwanjong setup{given}` saves each platform's keys (hidden input), and "
        f"`gwanjong link{given}` writes this entry into your MCP clients' configs.\n"
    )
    return 0
