from __future__ import annotations

from pathlib import Path

import pytest

from gwanjong_gateway.config import ConfigError, parse
from gwanjong_gateway.config.load import expand, load, locate
from gwanjong_gateway.platforms.upstreams import Upstreams, platform_env


def error_of(text: str) -> str:
    with pytest.raises(ConfigError) as info:
        parse(text)
    return str(info.value)


def test_the_shipped_file_is_valid_and_dry_run() -> None:
    config = parse(Path("gateway.toml").read_text(encoding="utf-8"))
    assert config.gateway.writes == "dry-run"
    every = {"devto", "bluesky", "twitter", "reddit", "mastodon", "hackernews"}
    assert set(config.enabled()) == every
    assert config.gateway.expose == []


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            '[gateway]\nwrites = "live"\n\n[platforms.devto]\nenabeld = true\n',
            "gateway.toml:5: platforms.devto.enabeld: unknown key",
        ),
        (
            '[gateway]\nwrites = "yolo"\n',
            "gateway.toml:2: gateway.writes: Input should be 'dry-run', 'confirm' or 'live'",
        ),
        ("[gateway\nwrites = 1", "line 1"),  # not TOML: still where
        ('[gateway]\nstate_dir = "C:\\Users\\me"\n', "line 2, column 18); a Windows path goes in"),
        ('[platforms.devto]\ncommand = ["x"]\nurl = "http://127.0.0.1:1/mcp"\n', "not both"),
        ('[gateway]\nexpose = ["search"]\n', "namespaced"),
        (  # a watch nobody runs: the name must be one of [platforms]
            '[platforms.bluesky]\nenabled = true\n\n[watch]\nenabled = true\nplatforms = ["blusky"]\n',
            "gateway.toml:6: watch.platforms: 'blusky' is no platform in [platforms] (known: bluesky)",
        ),
    ],
)
def test_a_config_error_says_what_and_where(text: str, said: str) -> None:
    assert said in error_of(text)


def test_a_fifth_platform_needs_a_command_or_url() -> None:
    # (Mastodon and Hacker News are bundled now: a platform no installed package declares)
    assert "give it command" in error_of("[platforms.lemmy]\nenabled = true\n")
    config = parse('[platforms.lemmy]\ncommand = ["lemmy-mcp"]\n')
    assert config.platforms["lemmy"].command == ["lemmy-mcp"]


def test_locate_prefers_flag_then_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = tmp_path / "a.toml", tmp_path / "b.toml"
    a.write_text("", encoding="utf-8")
    b.write_text("", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert locate(str(a), {"GWANJONG_CONFIG": str(b)}) == a
    assert locate(None, {"GWANJONG_CONFIG": str(b)}) == b
    with pytest.raises(ConfigError, match="no such file"):
        locate(str(tmp_path / "missing.toml"), {})
    (tmp_path / "latin1.toml").write_bytes(b"# caf\xe9\n")
    for unreadable, why in ((tmp_path, "Is a directory"), (tmp_path / "latin1.toml", "not UTF-8")):
        with pytest.raises(ConfigError, match=f"cannot be read \\({why}"):  # not a traceback
            load(str(unreadable))


def test_each_server_gets_only_its_own_secrets() -> None:
    config = parse(
        '[platforms.devto]\nenv = { DEVTO_BASE_URL = "${FOREM}" }\n[platforms.bluesky]\n'
    )
    environ = {
        "DEVTO_API_KEY": "d-key",
        "BLUESKY_APP_PASSWORD": "b-pass",
        "FOREM": "http://forem.local",
        "AWS_SECRET": "x",
    }
    saved = {"REDDIT_PASSWORD": "r-pass", "BLUESKY_HANDLE": "me.bsky.social"}
    devto = platform_env("devto", config.platforms["devto"], saved, environ)
    bluesky = platform_env("bluesky", config.platforms["bluesky"], saved, environ)
    assert devto["DEVTO_API_KEY"] == "d-key" and devto["DEVTO_BASE_URL"] == "http://forem.local"
    assert not any(k.startswith(("BLUESKY_", "REDDIT_", "AWS_")) for k in devto)
    assert bluesky["BLUESKY_APP_PASSWORD"] == "b-pass"
    assert bluesky["BLUESKY_HANDLE"] == "me.bsky.social"
    assert "DEVTO_API_KEY" not in bluesky and "REDDIT_PASSWORD" not in bluesky
    # a platform whose name extends another's keeps its variables from the shorter one
    two = '[platforms.mastodon]\n[platforms.mastodon_work]\ncommand = ["gwanjong-mastodon"]\n'
    upstreams = Upstreams(parse(two), {"MASTODON_WORK_ACCESS_TOKEN": "w-token"})
    assert "MASTODON_WORK_ACCESS_TOKEN" not in upstreams.by_name["mastodon"].env
    assert upstreams.by_name["mastodon_work"].env["MASTODON_WORK_ACCESS_TOKEN"] == "w-token"


def test_an_unset_variable_is_an_error_naming_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "gateway.toml"
    path.write_text(
        '[gateway]\nwrites = "dry-run"\n\n[platforms.devto]\n'
        'env = { DEVTO_BASE_URL = "${MY_FOREM}", DEVTO_TIMEOUT_S = "${T:-7}" }\n'
        '[notify]\nurls = ["json://h.example/x", "${MY_HOOK}"]\n',
        encoding="utf-8",
    )
    with pytest.raises(ConfigError) as err:
        load(str(path), environ={"MY_HOOK": "json://h.example/y"})
    assert f"{path}:5: platforms.devto.env.DEVTO_BASE_URL" in str(err.value)
    assert "${MY_FOREM} is not set" in str(err.value) and "${MY_FOREM:-" in str(err.value)
    with pytest.raises(ConfigError) as err:  # the notifier would not start, untold
        load(str(path), environ={"MY_FOREM": "http://forem.local"})
    assert (
        str(err.value)
        == f"{path}:7: notify.urls: ${{MY_HOOK}} is not set; set it, or write ${{MY_HOOK:-default}}"
    )
    with pytest.raises(ConfigError) as err:
        load(str(path), environ={"MY_FOREM": "http://forem.local", "MY_HOOK": "ntfy.sh/s3cret"})
    assert (
        str(err.value) == f"{path}:7: notify.urls: ${{MY_HOOK}} holds no Apprise URL (scheme://…)"
    )
    config, _ = load(str(path), environ={"MY_FOREM": "http://forem.local", "MY_HOOK": "json://x"})
    env = platform_env("devto", config.platforms["devto"], {}, {"MY_FOREM": "http://forem.local"})
    assert env["DEVTO_BASE_URL"] == "http://forem.local" and env["DEVTO_TIMEOUT_S"] == "7"
    assert expand("${T:-7}", {"T": "9"}) == "9" and expand("${T:-}", {}) == ""


@pytest.mark.parametrize(
    ("text", "line", "needle"),
    [
        ('[gateway]\nwrites = "live"\n\n[platforms.lemmy]\nenabled = true\n', 4, "lemmy"),
        ("[gateway]\n\n[platfroms.devto]\nenabled = true\n", 3, "unknown key"),
        (
            '[platforms.devto]\nenabled = true\n\n[platforms.Bad-Name]\ncommand = ["x"]\n',
            4,
            "Bad-Name",
        ),
        (  # an approval opened just after one message would expire before the next
            '[notify]\nurls = ["json://h.example/x"]\nevery_s = 86400\n',
            3,
            "not shorter than [review] expire_after_s (86400 s)",
        ),
        (
            '[review]\nhandoff_expire_after_s = 600\n[notify]\nurls = ["${N}"]\nevery_s = 600\n',
            5,
            "not shorter than [review] handoff_expire_after_s (600 s)",
        ),
    ],
)
def test_table_level_errors_have_a_line(text: str, line: int, needle: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse(text, "g.toml")
    assert f"g.toml:{line}:" in str(err.value) and needle in str(err.value)


@pytest.mark.parametrize("name", ["ali\u00adce", "\uff41\uff4c\uff49\uff43\uff45", "alice\u200b"])
def test_auditors_and_approvers_are_named_in_their_one_form(name: str) -> None:
    """Sign-in takes a name in one form only (NFKC, no hidden characters): another
    spelling in the config could never match anyone, so it is refused with its line."""
    texts = {
        "auth.auditors": f'[auth]\nmode = "tokens"\n\nauditors = ["{name}"]\n',
        "review.approvers": f'[auth]\nmode = "tokens"\n[review]\napprovers = ["{name}"]\n',
    }
    for where, text in texts.items():
        said = error_of(text)
        assert said.startswith(f"gateway.toml:4: {where}: "), said
        assert "one form" in said and "\n" not in said, said
