"""A log line is one line: platform text quoted in a message (its controls written as escapes) (a server's error, a platform's
answer in a warning) cannot forge the lines after it; a traceback keeps its own lines."""

from __future__ import annotations

import logging

import pytest

from gwanjong_shared.kit.logs import configure_logging, register_secret
from gwanjong_shared.kit.quiet import quiet_fastmcp

FORGED = "2026-12-07 08:00:00,000 WARNING gwanjong_gateway.strike: posted to @everyone"


def test_a_message_is_one_line_and_a_traceback_keeps_its_lines(
    capsys: pytest.CaptureFixture[str],
) -> None:
    configure_logging("WARNING")
    log = logging.getLogger("gwanjong_gateway.test_log_lines")
    try:
        log.warning("devto said: %s", f"x\nWARNING forged\r\n{FORGED}\x0b\u2028\x85end\x1b[2J")
        lines = capsys.readouterr().err.splitlines()
        assert len(lines) == 1, lines
        assert lines[0].endswith(
            f"devto said: x\\nWARNING forged\\r\\n{FORGED}\\x0b\\u2028\\x85end\\x1b[2J"
        )
        try:
            raise ValueError("boom")
        except ValueError:
            log.exception("failed:\nWARNING forged too")
        lines = capsys.readouterr().err.splitlines()
        assert lines[0].endswith("failed:\\nWARNING forged too"), lines
        assert lines[1] == "Traceback (most recent call last):" and lines[-1] == "ValueError: boom"
        assert len(lines) >= 4, lines
    finally:
        configure_logging("WARNING")


def test_fastmcp_lines_are_our_lines(capsys: pytest.CaptureFixture[str]) -> None:
    """FastMCP gives its logger a handler of its own: its lines (a tool's unexpected error
    quotes the exception) are written by ours too, one line, cleaned and masked."""
    configure_logging("WARNING")
    quiet_fastmcp()
    register_secret("s3cr3t-token-value")
    try:
        logging.getLogger("fastmcp.server.server").warning(
            "Session x said: y\nWARNING forged s3cr3t-token-value \x1b[2J"
        )
        lines = capsys.readouterr().err.splitlines()
        assert len(lines) == 1, lines
        assert lines[0].endswith(
            "WARNING fastmcp.server.server: Session x said: y\\nWARNING forged *** \\x1b[2J"
        ), lines
    finally:
        configure_logging("WARNING")
