"""The MCP clients `gwanjong link` knows: where each keeps its config per OS (from the given
environment, so every OS's paths can be checked anywhere), its servers' key, and the shape
of one stdio entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePath, PurePosixPath, PureWindowsPath
from typing import Any

#: the name our entry has in every client (and the sandbox one, side by side with it)
ENTRY = "gwanjong"
SANDBOX_ENTRY = "gwanjong-sandbox"


@dataclass(frozen=True)
class Client:
    name: str
    label: str
    #: the config file, on the OS it was resolved for
    path: PurePath
    #: the object that maps server names to entries
    key: str
    #: any of these existing means the client is installed here (for `link` without names)
    installed: tuple[PurePath, ...]
    #: fields every entry of this client carries besides command and args
    extra: tuple[tuple[str, str], ...] = ()

    def entry(self, command: list[str]) -> dict[str, Any]:
        return {**dict(self.extra), "command": command[0], "args": command[1:]}


def clients(system: str, environ: Mapping[str, str]) -> dict[str, Client]:
    """Every known client, its paths resolved for ``system`` (sys.platform's spelling)."""
    win = system == "win32"
    path: type[PurePath] = PureWindowsPath if win else PurePosixPath
    home = path(environ.get("USERPROFILE" if win else "HOME") or environ.get("HOME") or "~")
    appdata = path(environ.get("APPDATA") or home / "AppData" / "Roaming")  # Windows only
    # XDG applies on Linux and the BSDs; macOS apps use ~/Library/Application Support
    xdg = path(environ.get("XDG_CONFIG_HOME") or home / ".config")
    app_support = home / "Library" / "Application Support"

    def by_os(linux: PurePath, darwin: PurePath, win32: PurePath) -> PurePath:
        return {"darwin": darwin, "win32": win32}.get(system, linux)

    # modelcontextprotocol.io/docs/develop/connect-local-servers (Claude Desktop > Settings >
    # Developer > Edit Config): macOS ~/Library/Application Support/Claude/, Windows
    # %APPDATA%\Claude\. Claude Desktop has no official Linux build; community builds use
    # $XDG_CONFIG_HOME/Claude/ (~/.config/Claude/).
    desktop_dir = by_os(xdg / "Claude", app_support / "Claude", appdata / "Claude")
    # code.claude.com/docs/en/mcp, "MCP installation scopes": user-scoped servers are the
    # top-level `mcpServers` of ~/.claude.json (%USERPROFILE%\.claude.json on Windows).
    claude_json = home / ".claude.json"
    # cursor.com/docs/mcp: global servers in ~/.cursor/mcp.json, under `mcpServers`.
    cursor_dir = home / ".cursor"
    # code.visualstudio.com/docs/agents/reference/mcp-configuration: the user profile's
    # mcp.json, top-level `servers`, each stdio entry with "type": "stdio"; the profile
    # folder is the one settings.json is in (code.visualstudio.com/docs/configure/settings):
    # ~/.config/Code/User, ~/Library/Application Support/Code/User, %APPDATA%\Code\User.
    vscode_dir = by_os(
        xdg / "Code" / "User", app_support / "Code" / "User", appdata / "Code" / "User"
    )
    # docs.windsurf.com/windsurf/cascade/mcp: ~/.codeium/windsurf/mcp_config.json
    # (%USERPROFILE%\.codeium\windsurf\ on Windows), under `mcpServers`.
    windsurf_dir = home / ".codeium" / "windsurf"
    # zed.dev/docs/configuring-zed: ~/.config/zed/settings.json on macOS and Linux
    # ($XDG_CONFIG_HOME/zed on Linux), %APPDATA%\Zed\settings.json on Windows; JSON with
    # comments. zed.dev/docs/ai/mcp: custom servers under `context_servers`.
    zed_dir = by_os(xdg / "zed", home / ".config" / "zed", appdata / "Zed")
    found = [
        Client(
            "claude-desktop",
            "Claude Desktop",
            desktop_dir / "claude_desktop_config.json",
            "mcpServers",
            (desktop_dir,),
        ),
        Client(
            "claude-code",
            "Claude Code (user scope)",
            claude_json,
            "mcpServers",
            (claude_json, home / ".claude"),
            (("type", "stdio"),),
        ),
        Client("cursor", "Cursor", cursor_dir / "mcp.json", "mcpServers", (cursor_dir,)),
        Client(
            "vscode",
            "VS Code",
            vscode_dir / "mcp.json",
            "servers",
            (vscode_dir,),
            (("type", "stdio"),),
        ),
        Client(
            "windsurf", "Windsurf", windsurf_dir / "mcp_config.json", "mcpServers", (windsurf_dir,)
        ),
        Client("zed", "Zed", zed_dir / "settings.json", "context_servers", (zed_dir,)),
    ]
    return {c.name: c for c in found}
