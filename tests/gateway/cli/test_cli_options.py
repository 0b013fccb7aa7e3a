"""The CLI's options: the global ones after every subcommand, help on every option,
clear errors instead of tracebacks (bad log level, setup without a terminal, a closed
pipe)."""

from __future__ import annotations

import argparse
import io
import os
from pathlib import Path

import pytest

from gwanjong_gateway.cli import main as cli_main
from gwanjong_gateway.cli.main import parser
from tests.gateway.helpers import config_text, exit_code

ONE_WORD = ["serve", "demo", "sandbox", "setup", "history", "usage", "init"]
SUBCOMMANDS = [c.split() for c in [*ONE_WORD, "token list", "token add ann", "token revoke ann"]]


def _parsers(p: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    found = [p]
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                found += _parsers(child)
    return found


def test_every_option_has_help() -> None:
    missing = [
        f"{p.prog}: {'/'.join(a.option_strings) or a.dest}"
        for p in _parsers(parser())
        for a in p._actions
        if not a.help
    ]
    assert missing == []


@pytest.mark.parametrize("command", SUBCOMMANDS, ids=" ".join)
def test_global_options_after_every_subcommand(command: list[str]) -> None:
    after = parser().parse_args(
        [*command, "--config", "x.toml", "--log-level", "info", "--host", "0.0.0.0"]
    )
    assert (after.config, after.log_level, after.host) == ("x.toml", "INFO", "0.0.0.0")
    before = parser().parse_args(["--config", "y.toml", "--log-level", "DEBUG", *command])
    assert (before.config, before.log_level) == ("y.toml", "DEBUG")
    assert parser().parse_args(command).config is None
    if command == ["usage"]:  # a subcommand's own option after --config
        assert parser().parse_args(["usage", "--config", "z.toml", "--json"]).config == "z.toml"


def test_link_lists_no_serving_option() -> None:
    link = next(p for p in _parsers(parser()) if p.prog.endswith(" link"))
    assert not {"--transport", "--host", "--port"} & set(link._option_string_actions)


def test_serve_transport_http_is_the_same_as_transport_http() -> None:
    args = parser().parse_args(["serve", "--transport", "http", "--port", "9000"])
    assert (args.transport, args.port) == ("http", 9000)
    assert parser().parse_args(["sandbox"]).port == 8799  # the sandbox's own --port


def test_a_bogus_log_level_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_code(["--log-level", "bogus"]) == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'bogus'" in err and "WARNING" in err
    assert "Traceback" not in err


class _NoTty(io.StringIO):
    def isatty(self) -> bool:
        return False


def test_setup_without_a_terminal_says_to_run_it_in_one(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", _NoTty(""))
    assert exit_code(["setup"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs a terminal" in err and ".env" in err


def test_setup_whose_input_ends_says_to_run_it_in_a_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    class Tty(_NoTty):
        def isatty(self) -> bool:
            return True

    def eof(*_args: object, **_kw: object) -> int:
        raise EOFError

    monkeypatch.setattr("sys.stdin", Tty(""))
    monkeypatch.setattr("gwanjong_gateway.setup.terminal.run_setup", eof)
    config = tmp_path / "gateway.toml"
    config.write_text(config_text(tmp_path, []), encoding="utf-8")
    assert exit_code(["setup", "--config", str(config)]) == 2
    assert "needs a terminal" in capsys.readouterr().err


def test_a_closed_pipe_ends_quietly(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(_args: object) -> int:
        raise BrokenPipeError

    dup2: list[int] = []
    monkeypatch.setattr(os, "dup2", lambda _fd, to: dup2.append(to))
    real = cli_main.parser

    def patched() -> argparse.ArgumentParser:
        p = real()
        p.set_defaults(run=broken)
        return p

    monkeypatch.setattr(cli_main, "parser", patched)
    assert exit_code([]) == 0
    assert dup2  # stdout pointed at devnull: no second complaint at exit


@pytest.mark.parametrize("value", ["-3", "0", "99999999999999999999999"])
@pytest.mark.parametrize("argv", [["history", "--limit"], ["review", "list", "--limit"]])
def test_a_limit_out_of_range_is_a_usage_error(
    argv: list[str], value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # SQLite reads LIMIT -3 as no limit, and a number past 64 bits raised OverflowError
    assert exit_code([*argv, value]) == 2
    assert (
        f"{value!r}: give a whole number from 1 to 9223372036854775807" in capsys.readouterr().err
    )


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["serve", "--port", "-1"], "give a port from 0 to 65535"),
        (["console", "--port", "65536"], "give a port from 0 to 65535"),
        (["sandbox", "--port", "x"], "give a port from 0 to 65535"),
        (["link", "--sandbox-port", "70000"], "give a port from 0 to 65535"),
        (["link", "--sandbox-port", "0"], "give the sandbox's port, 1 to 65535"),
        (["link", "--command", "  "], "give a command line"),  # wrote "command": "--config"
        (["link", "--command", "uvx 'gwanjong"], "give a command line"),  # an open quote
    ],
)
def test_a_bad_port_or_command_line_is_a_usage_error(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert exit_code(argv) == 2  # bind() raised OverflowError, shlex ValueError: tracebacks
    assert f"{argv[-1]!r}: {said}" in capsys.readouterr().err
