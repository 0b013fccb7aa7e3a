"""`gwanjong link`: the gwanjong entry in real config files of six MCP clients, in a temp
home: added beside what is there (other servers, other keys, comments, the file's own
indentation), a second run changes no byte, `--dry-run` writes nothing, `--remove` gives
back the original bytes, a file that is not JSON is refused and left alone.
"""

from __future__ import annotations

import io
import json
import stat
import tomllib
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from gwanjong_gateway.cli.init import launch_command
from gwanjong_gateway.cli.link.clients import clients
from gwanjong_gateway.cli.link.jsonc import parse
from gwanjong_gateway.cli.link.link_command import gateway_command, run_link
from tests.gateway.helpers import config_file
from tests.gateway.record.test_read_only_state import remount_ro, tmpfs

CLAUDE_DESKTOP = """{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/Desktop"]
    }
  },
  "preferences": {
    "sidebarMode": "chat",
    "coworkScheduledTasksEnabled": false
  }
}
"""
CLAUDE_CODE = """{
  "numStartups": 42,
  "installMethod": "native",
  "projects": {
    "/home/me/src/app": {
      "allowedTools": [],
      "mcpServers": {},
      "hasTrustDialogAccepted": true
    }
  },
  "mcpServers": {
    "context7": {
      "type": "stdio",
      "command": "npx",
      "args": [
        "--yes",
        "@upstash/context7-mcp"
      ],
      "env": {}
    }
  },
  "userID": "0123abcd"
}"""
CURSOR = """{
    "mcpServers": {
        "github": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-github"],
            "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "<token>"}
        },
        "remote": {"url": "https://mcp.example.com/mcp"}
    }
}
"""
VSCODE = """{
\t// Inputs are prompted on first server start, then stored securely by VS Code.
\t"inputs": [
\t\t{
\t\t\t"type": "promptString",
\t\t\t"id": "perplexity-key",
\t\t\t"description": "Perplexity API Key",
\t\t\t"password": true
\t\t}
\t],
\t"servers": {
\t\t"github": {
\t\t\t"type": "http",
\t\t\t"url": "https://api.githubcopilot.com/mcp/"
\t\t},
\t\t"perplexity": {
\t\t\t"type": "stdio",
\t\t\t"command": "npx",
\t\t\t"args": ["-y", "server-perplexity-ask"],
\t\t\t"env": {"PERPLEXITY_API_KEY": "${input:perplexity-key}"}
\t\t},
\t}
}
"""
WINDSURF = """{
  "mcpServers": {
    "slack": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-slack"],
      "disabled": false,
      "env": {"SLACK_BOT_TOKEN": "xoxb-…", "SLACK_TEAM_ID": "T0"}
    },
    "zapier": {"serverUrl": "https://actions.zapier.com/mcp/KEY/sse"}
  }
}
"""
ZED = """// Zed settings
//
// For information on how to configure Zed, see the Zed
// documentation: https://zed.dev/docs/configuring-zed
{
  "theme": "One Dark", // dark, always
  /* fonts */
  "buffer_font_size": 15,
  "vim_mode": true,
  "languages": {
    "Python": {"tab_size": 4},
  },
}
"""
#: client -> (its file under the temp home on Linux, what is in it)
EXISTING = {
    "claude-desktop": (".config/Claude/claude_desktop_config.json", CLAUDE_DESKTOP),
    "claude-code": (".claude.json", CLAUDE_CODE),
    "cursor": (".cursor/mcp.json", CURSOR),
    "vscode": (".config/Code/User/mcp.json", VSCODE),
    "windsurf": (".codeium/windsurf/mcp_config.json", WINDSURF),
    "zed": (".config/zed/settings.json", ZED),
}
KEYS = {"vscode": "servers", "zed": "context_servers"}
COMMAND = "uvx gwanjong"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    for rel, text in EXISTING.values():
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_bytes(text.encode("utf-8"))
    return home


@pytest.fixture
def config(tmp_path: Path) -> Path:
    return config_file(tmp_path, [])


def link(home: Path, *names: str, system: str = "linux", **kw: Any) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    kw.setdefault("command", COMMAND)
    code = run_link(list(names), out=out, err=err, system=system, environ={"HOME": str(home)}, **kw)
    return code, out.getvalue(), err.getvalue()


def doc(path: Path) -> dict[str, Any]:
    value = parse(path.read_text(encoding="utf-8")).value
    assert isinstance(value, dict)
    return value


@pytest.mark.parametrize("client", sorted(EXISTING))
def test_link_adds_the_entry_keeps_the_rest_and_remove_gives_the_file_back(
    home: Path, config: Path, client: str
) -> None:
    rel, original = EXISTING[client]
    path = home / rel
    before = doc(path)
    code, out, err = link(home, client, config=str(config))
    assert (code, err) == (0, ""), err
    assert f"{path}: 'gwanjong' added" in out
    after = doc(path)
    key = KEYS.get(client, "mcpServers")
    entry = after[key]["gwanjong"]  # type: ignore[index]
    assert [entry["command"], *entry["args"]] == ["uvx", "gwanjong", "--config", str(config)]
    if client in ("vscode", "claude-code"):
        assert entry["type"] == "stdio"
    # every other server and every other key as it was
    servers_before = before.get(key, {})
    assert {k: v for k, v in after[key].items() if k != "gwanjong"} == servers_before  # type: ignore[union-attr]
    assert {k: v for k, v in after.items() if k != key} == {
        k: v for k, v in before.items() if k != key
    }
    text = path.read_text(encoding="utf-8")
    if client == "zed":  # its comments stay
        assert "// dark, always" in text and "/* fonts */" in text
    if client == "vscode":  # its tabs stay, and the new lines use them too
        assert '\n\t\t"gwanjong": {\n\t\t\t"type": "stdio"' in text
    backup = path.with_name(path.name + ".gwanjong-backup")
    assert backup.read_bytes() == original.encode("utf-8")

    # a second run changes no byte
    written = path.read_bytes()
    code, out, _ = link(home, client, config=str(config))
    assert code == 0 and "'gwanjong' unchanged" in out
    assert path.read_bytes() == written

    # --remove: the original bytes, and the backup stays as it was
    code, out, err = link(home, client, remove=True)
    assert (code, err) == (0, "") and "'gwanjong' removed" in out
    assert path.read_bytes() == original.encode("utf-8")
    assert backup.read_bytes() == original.encode("utf-8")
    code, out, _ = link(home, client, remove=True)
    assert code == 0 and "'gwanjong' not there" in out


def test_dry_run_shows_the_diff_and_writes_nothing(home: Path, config: Path) -> None:
    code, out, _ = link(home, "cursor", "windsurf", "zed", config=str(config), dry_run=True)
    assert code == 0
    # other servers' credentials stay out of what is printed (a model may run this)
    assert not any(s in out for s in ("<token>", "xoxb", "/mcp/KEY/")), out
    assert "'gwanjong' would be added" in out
    assert '+        "gwanjong": {' in out and '+  "context_servers": {' in out
    assert f"--- {home / '.cursor/mcp.json'} (now)" in out
    for rel, text in EXISTING.values():
        assert (home / rel).read_bytes() == text.encode("utf-8")
        assert not (home / (rel + ".gwanjong-backup")).exists()


def test_a_file_that_is_not_json_is_refused_and_left_alone(home: Path, config: Path) -> None:
    broken = '{\n  "mcpServers": {\n    "a": {"command": "x",}\n  \n'
    path = home / ".cursor" / "mcp.json"
    path.write_text(broken, encoding="utf-8")
    (home / ".codeium/windsurf/mcp_config.json").write_text('{"mcpServers": []}\n')
    code, out, err = link(home, "cursor", "windsurf", "zed", config=str(config))
    assert code == 1
    assert f"Cursor: {path}: not valid JSON (line 5 column 1:" in err
    assert "nothing was changed" in err
    assert '"mcpServers" is not an object' in err
    assert path.read_text(encoding="utf-8") == broken
    assert not path.with_name("mcp.json.gwanjong-backup").exists()
    assert "zed" in out and "'gwanjong' added" in out  # the others are still linked


def test_an_entry_already_there_is_updated_and_keeps_the_keys_we_do_not_manage(
    home: Path, config: Path
) -> None:
    path = home / ".cursor" / "mcp.json"
    mine = {"command": "old", "args": [], "env": {"DEVTO_API_KEY": "kept"}}
    path.write_text(json.dumps({"mcpServers": {"gwanjong": mine}}, indent=2) + "\n")
    code, out, _ = link(home, "cursor", config=str(config), command=None)
    assert code == 0 and "'gwanjong' updated" in out
    entry = doc(path)["mcpServers"]["gwanjong"]  # type: ignore[index]
    assert entry["env"] == {"DEVTO_API_KEY": "kept"} and set(entry) == {"command", "args", "env"}
    # by default, the command `gwanjong init` prints
    assert [entry["command"], *entry["args"]] == launch_command(config.absolute())
    # an entry that reaches the gateway over HTTP is not made half command, half URL
    remote = {"mcpServers": {"gwanjong": {"type": "http", "url": "http://127.0.0.1:8765/mcp"}}}
    path.write_text(json.dumps(remote), encoding="utf-8")
    code, _, err = link(home, "cursor", config=str(config))
    assert code == 1 and '"gwanjong" connects to a URL, not a command' in err, err
    assert "nothing was changed" in err and "gwanjong link --remove" in err
    assert json.loads(path.read_text(encoding="utf-8")) == remote


@pytest.mark.stdio  # mounts a tmpfs (a process)
def test_a_config_that_cannot_be_written_is_refused_and_left_alone(
    home: Path, config: Path, tmp_path: Path
) -> None:
    # a file another tool manages (Nix, a dotfiles manager): a link into a read-only place
    (tmp_path / "nix").mkdir()
    path = home / ".cursor" / "mcp.json"
    with contextmanager(tmpfs)(tmp_path / "nix", "1m", "cannot mount a read-only folder") as ro:
        (ro / "mcp.json").write_text(CURSOR, encoding="utf-8")
        remount_ro(ro)
        path.unlink()
        path.symlink_to(ro / "mcp.json")
        code, out, err = link(home, "cursor", "zed", config=str(config))
        assert (ro / "mcp.json").read_text(encoding="utf-8") == CURSOR
    assert code == 1, out
    assert f"Cursor: {path}: cannot be written (Read-only file system); nothing was changed" in err
    assert "gwanjong link --dry-run" in err  # what to add where that tool keeps it
    assert not path.with_name("mcp.json.gwanjong-backup").exists()
    assert "zed" in out and "'gwanjong' added" in out  # the others are still linked


def test_a_read_only_config_is_refused_and_left_alone(home: Path, config: Path) -> None:
    """A person who made their client's config read-only (0444) meant it: link does not
    rewrite it behind that (a rename would), it says how to go on."""
    path = home / ".cursor" / "mcp.json"
    path.write_text(CURSOR, encoding="utf-8")
    path.chmod(0o444)
    code, out, err = link(home, "cursor", "zed", config=str(config))
    assert code == 1, out
    assert f"Cursor: {path}: is read-only (mode 0444); nothing was changed" in err, err
    assert f"chmod u+w {path}" in err and "gwanjong link --dry-run" in err
    assert path.read_text(encoding="utf-8") == CURSOR and stat.S_IMODE(path.stat().st_mode) == 0o444
    assert not path.with_name("mcp.json.gwanjong-backup").exists()
    assert "zed" in out  # the others are still done


@pytest.mark.parametrize("remove", [False, True])
def test_two_gwanjong_entries_in_one_object_are_refused_and_left_alone(
    home: Path, config: Path, remove: bool
) -> None:
    twice = (
        '{\n  "mcpServers": {\n    "gwanjong": {"command": "old"},\n'
        '    "github": {"command": "x"},\n    "gwanjong": {"command": "older"}\n  }\n}\n'
    )
    path = home / ".cursor" / "mcp.json"
    path.write_text(twice, encoding="utf-8")
    code, out, err = link(home, "cursor", "zed", config=str(config), remove=remove)
    assert code == 1, out
    assert f'Cursor: {path}: "mcpServers" holds "gwanjong" twice (lines 3 and 5)' in err
    assert "nothing was changed" in err and "Keep one of them" in err, err
    assert path.read_text(encoding="utf-8") == twice
    assert not path.with_name("mcp.json.gwanjong-backup").exists()
    assert "zed" in out  # the others are still done


def test_without_names_it_links_the_clients_installed_here(
    tmp_path: Path, config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "bare"
    (home / ".cursor").mkdir(parents=True)  # Cursor is installed, with no mcp.json yet
    code, out, _ = link(home, config=str(config))
    assert code == 0
    assert out.count("'gwanjong' added") == 1 and "cursor" in out
    assert doc(home / ".cursor" / "mcp.json")["mcpServers"] == {  # a new file, just ours
        "gwanjong": {"command": "uvx", "args": ["gwanjong", "--config", str(config)]}
    }
    code, _, err = link(tmp_path / "empty", config=str(config))
    assert code == 2 and "found no MCP client's config folder" in err
    code, _, err = link(tmp_path / "empty", remove=True)  # an uninstall script's step
    assert code == 0 and "nothing to remove" in err
    err = io.StringIO()
    monkeypatch.chdir(tmp_path)  # where a literal ~ would be written
    assert run_link(["cursor"], config=str(config), err=err, system="linux", environ={}) == 2
    assert "HOME is not set" in err.getvalue() and not Path("~").exists()
    code, _, err = link(home, "emacs", config=str(config))
    assert code == 2 and "unknown client 'emacs'" in err


def test_no_gateway_toml_says_to_write_one(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GWANJONG_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    code, _, err = link(home, "cursor")
    assert code == 2 and "gwanjong init" in err and "--sandbox" in err
    assert (home / ".cursor/mcp.json").read_text(encoding="utf-8") == CURSOR


def test_link_sandbox_points_a_second_entry_at_the_local_sandbox_only(
    home: Path, config: Path, tmp_path: Path
) -> None:
    code, out, err = link(home, "cursor", config=str(config), sandbox=True, sandbox_port=8123)
    assert (code, err) == (0, ""), err
    sandbox_toml = tmp_path / "state" / "gateway.sandbox.toml"
    assert f"wrote {sandbox_toml}" in out and "gwanjong sandbox --port 8123" in out
    servers = doc(home / ".cursor/mcp.json")["mcpServers"]
    entry = servers["gwanjong-sandbox"]  # type: ignore[index]
    assert entry["args"][-2:] == ["--config", str(sandbox_toml)]
    assert "gwanjong" not in servers  # the real entry is a separate one
    settings = tomllib.loads(sandbox_toml.read_text(encoding="utf-8"))
    assert settings["gateway"]["writes"] == "live"
    assert settings["gateway"]["state_dir"] == (tmp_path / "state" / "sandbox").as_posix()
    platforms = settings["platforms"]
    # every platform the sandbox serves whose server is installed (here: all six)
    assert set(platforms) == {"devto", "bluesky", "twitter", "reddit", "mastodon", "hackernews"}
    for name, table in platforms.items():
        urls = {k: v for k, v in table["env"].items() if k.endswith("_URL")}
        assert urls, name  # each platform is pointed somewhere, and only at the sandbox
        assert all(v.startswith("http://127.0.0.1:8123") for v in urls.values()), urls
    assert platforms["bluesky"]["env"]["BLUESKY_ALLOWED_HOSTS"] == "127.0.0.1"
    # again: nothing to write
    written = sandbox_toml.read_bytes()
    code, out, _ = link(home, "cursor", config=str(config), sandbox=True, sandbox_port=8123)
    assert code == 0 and "wrote" not in out and "'gwanjong-sandbox' unchanged" in out
    assert sandbox_toml.read_bytes() == written
    code, out, _ = link(home, "cursor", sandbox=True, remove=True)
    assert code == 0 and "'gwanjong-sandbox' removed" in out
    assert (home / ".cursor/mcp.json").read_text(encoding="utf-8") == CURSOR


def test_each_os_paths_come_from_the_environment_given() -> None:
    roaming = r"C:\Users\me\AppData\Roaming"
    win = clients("win32", {"USERPROFILE": r"C:\Users\me", "APPDATA": roaming})
    assert str(win["claude-desktop"].path) == roaming + r"\Claude\claude_desktop_config.json"
    assert str(win["claude-code"].path) == r"C:\Users\me\.claude.json"
    assert str(win["cursor"].path) == r"C:\Users\me\.cursor\mcp.json"
    assert str(win["vscode"].path) == r"C:\Users\me\AppData\Roaming\Code\User\mcp.json"
    assert str(win["windsurf"].path) == r"C:\Users\me\.codeium\windsurf\mcp_config.json"
    assert str(win["zed"].path) == r"C:\Users\me\AppData\Roaming\Zed\settings.json"
    # --command as Windows reads it: backslashes kept, the quotes around a path dropped
    uvx = r'"C:\Program Files\uv\uvx.exe" --from C:\src\gw gwanjong'
    assert gateway_command(Path("gateway.toml"), uvx, "win32")[:4] == [
        r"C:\Program Files\uv\uvx.exe",
        "--from",
        r"C:\src\gw",
        "gwanjong",
    ]
    mac = clients("darwin", {"HOME": "/Users/me", "XDG_CONFIG_HOME": "/elsewhere"})
    support = "/Users/me/Library/Application Support"
    assert str(mac["claude-desktop"].path) == f"{support}/Claude/claude_desktop_config.json"
    assert str(mac["vscode"].path) == f"{support}/Code/User/mcp.json"
    assert str(mac["zed"].path) == "/Users/me/.config/zed/settings.json"
    assert str(mac["cursor"].path) == "/Users/me/.cursor/mcp.json"
    linux = clients("linux", {"HOME": "/home/me", "XDG_CONFIG_HOME": "/home/me/xdg"})
    assert str(linux["zed"].path) == "/home/me/xdg/zed/settings.json"
    assert str(linux["vscode"].path) == "/home/me/xdg/Code/User/mcp.json"
    assert str(linux["claude-code"].path) == "/home/me/.claude.json"
    assert str(linux["windsurf"].path) == "/home/me/.codeium/windsurf/mcp_config.json"


def test_macos_layout_is_linked_for_real_in_a_temp_home(tmp_path: Path, config: Path) -> None:
    home = tmp_path / "mac"
    folder = home / "Library" / "Application Support" / "Claude"
    folder.mkdir(parents=True)
    (folder / "claude_desktop_config.json").write_text(CLAUDE_DESKTOP, encoding="utf-8")
    code, _, err = link(home, config=str(config), system="darwin")
    assert (code, err) == (0, "")
    servers = doc(folder / "claude_desktop_config.json")["mcpServers"]
    assert set(servers) == {"filesystem", "gwanjong"}  # type: ignore[arg-type]
