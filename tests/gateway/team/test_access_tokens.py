"""The team token file, the `token` CLI, the `[auth]` table and the bind-address rule."""

from __future__ import annotations

import json
import socket
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from gwanjong_gateway.config import ConfigError, parse
from gwanjong_gateway.team.access_tokens import TokenError, TokenStore, digest
from gwanjong_gateway.team.auth import HashedTokenVerifier, bind_problem, build_auth, is_loopback
from tests.fakes.clock import FakeClock
from tests.gateway.helpers import config_file, exit_code

pytestmark = pytest.mark.anyio


START = datetime(2026, 11, 30, 9, 0, tzinfo=UTC).timestamp()


async def test_a_token_is_stored_only_as_its_hash_and_names_its_principal(tmp_path: Path) -> None:
    clock = FakeClock(wall=START)
    store = TokenStore(tmp_path / "state" / "tokens.json", clock.utc)
    token = store.add("alice")
    text = store.path.read_text()
    assert token not in text and digest(token) in text
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert [p.name for p in store.path.parent.iterdir() if p.name.startswith(".tokens")] == []
    assert store.lookup(token) == "alice"
    assert store.lookup(token + "x") is None and store.lookup("") is None
    entry = store.entries()[0]
    assert (entry.name, entry.revoked) == ("alice", None)
    assert entry.created == "2026-11-30T09:00:00+00:00"
    verifier = HashedTokenVerifier(store)
    verified = await verifier.verify_token(token)
    assert verified is not None and (verified.subject, verified.client_id) == ("alice", "alice")
    assert await verifier.verify_token("gwj_" + "A" * 43) is None


def test_revocation_is_seen_by_a_running_verifier_without_restart(tmp_path: Path) -> None:
    clock = FakeClock(wall=START)
    path = tmp_path / "tokens.json"
    gateway_side = TokenStore(path, clock.utc)  # what the serving process holds
    cli_side = TokenStore(path, clock.utc)  # what `gwanjong token` uses
    alice, bob = cli_side.add("alice"), cli_side.add("bob")
    assert gateway_side.lookup(alice) == "alice" and gateway_side.lookup(bob) == "bob"
    clock.advance(timedelta(hours=2).total_seconds())
    assert cli_side.revoke("alice") is True
    assert cli_side.revoke("alice") is False  # nothing active left to revoke
    assert gateway_side.lookup(alice) is None and gateway_side.lookup(bob) == "bob"
    assert cli_side.entries()[0].revoked == "2026-11-30T11:00:00+00:00"
    again = cli_side.add("alice")  # a new token after revocation; the old stays dead
    assert gateway_side.lookup(again) == "alice" and gateway_side.lookup(alice) is None


def test_names_must_be_unique_among_active_tokens_and_well_formed(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "tokens.json")
    store.add("ci-bot@team")
    with pytest.raises(TokenError, match="revoke it first"):
        store.add("ci-bot@team")
    for bad in ("", "has space", "x" * 65, "-lead", "new\nline"):
        with pytest.raises(TokenError, match="not a usable name"):
            store.add(bad)
    store.path.write_text("{not json")
    with pytest.raises(TokenError, match="damaged"):
        store.entries()


TOKENS = {"auth": {"mode": "tokens"}}
AUDITORS = ['" carol"', '"ca\\u0007rol"', '""']  # each refused by name


def test_token_cli_prints_the_token_once_and_lists_names_and_dates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = str(config_file(tmp_path, [], tables=TOKENS))
    assert exit_code(["--config", config, "token", "add", "alice"]) == 0
    out, err = capsys.readouterr()
    token = out.strip()
    assert token.startswith("gwj_") and len(token) > 40 and token not in err
    assert "shown only this once" in err
    assert exit_code(["--config", config, "token", "list"]) == 0
    out, _ = capsys.readouterr()
    assert out.startswith("alice\tcreated ") and token not in out
    assert exit_code(["--config", config, "token", "revoke", "alice"]) == 0
    assert exit_code(["--config", config, "token", "revoke", "alice"]) == 1
    _, err = capsys.readouterr()
    assert "no active token" in err
    assert exit_code(["--config", config, "token", "list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [sorted(r) for r in rows] == [["created", "name", "revoked"]] and rows[0]["revoked"]


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20", "gateway.example.com"])
def test_serving_beyond_loopback_without_auth_is_refused_at_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], host: str
) -> None:
    config = str(config_file(tmp_path, []))
    assert exit_code(["--config", config, "--transport", "http", "--host", host]) == 2
    err = capsys.readouterr().err
    assert f"refusing to serve HTTP on {host} without authentication" in err
    assert '[auth] mode = "tokens"' in err and "Traceback" not in err


def test_a_port_in_use_is_refused_at_start_with_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        config = str(config_file(tmp_path, []))
        assert exit_code(["--config", config, "--transport", "http", "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert f"cannot listen on 127.0.0.1:{port}" in err and "choose another --port" in err
    assert "Traceback" not in err


def test_token_mode_without_any_active_token_is_refused_at_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = str(config_file(tmp_path, [], tables=TOKENS))
    assert exit_code(["--config", config, "--transport", "http"]) == 2
    assert "gwanjong token add NAME" in capsys.readouterr().err


async def test_which_binds_need_auth_and_a_damaged_token_file_stops_the_start(
    tmp_path: Path,
) -> None:
    for host in ("127.0.0.1", "127.0.0.9", "::1", "[::1]", "localhost"):
        assert is_loopback(host) and bind_problem(host, None) is None
    for host in ("0.0.0.0", "::", "10.0.0.1", "localhost.evil.test"):
        assert not is_loopback(host) and bind_problem(host, None)
    config = parse(config_file(tmp_path, [], tables=TOKENS).read_text())
    auth = build_auth(config)
    assert isinstance(auth, HashedTokenVerifier)
    assert bind_problem("0.0.0.0", auth)  # no token issued yet
    token = auth.store.add("alice")
    assert bind_problem("0.0.0.0", auth) is None
    assert build_auth(parse("")) is None
    assert await auth.verify_token(token) is not None
    # a damaged token file lets nobody in and stops the start
    auth.store.path.write_text('{"tokens": [{"name": "alice"}]}')
    assert await auth.verify_token(token) is None
    problem = bind_problem("127.0.0.1", auth)
    assert problem is not None and "damaged" in problem


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ('mode = "jwt"', "needs issuer and audience"),
        ('mode = "jwt"\nissuer = "i"\naudience = "a"', "exactly one of jwks_uri or jwks_file"),
        (
            'mode = "jwt"\nissuer = "i"\naudience = "a"\njwks_uri = "u"\njwks_file = "f"',
            "exactly one of jwks_uri or jwks_file",
        ),
        ('mode = "tokens"\nissuer = "i"', 'issuer only apply with mode = "jwt"'),
        ('mode = "basic"', "auth.mode"),
        ('mode = "none"\ntoken = "x"', "unknown key"),
        ('auditors = ["carol"]', "auditors only apply with mode"),
        *(('mode = "tokens"\nauditors = [' + bad + "]", "auditor") for bad in AUDITORS),
    ],
)
def test_auth_table_is_validated(table: str, problem: str) -> None:
    with pytest.raises(ConfigError, match=r"gateway\.toml:") as raised:
        parse(f"[auth]\n{table}\n")
    assert problem in str(raised.value)


def test_the_team_example_config_is_valid_and_auditors_are_named_once() -> None:
    example = Path(__file__).parents[3] / "deploy" / "gateway.team.toml"
    config = parse(example.read_text(encoding="utf-8"), str(example))
    assert config.auth.mode == "tokens" and config.gateway.state_dir == "/home/gwanjong/.gwanjong"
    twice = parse('[auth]\nmode = "tokens"\nauditors = ["carol", "carol"]\n')
    assert twice.auth.auditors == ["carol"]
