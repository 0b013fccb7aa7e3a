"""Logs without secrets at every level (issue 27): wire loggers stay at WARNING even at
DEBUG, unless named in GWANJONG_WIRE_LOGS."""

from __future__ import annotations

import logging

import pytest

from gwanjong_shared.kit.logs import WIRE_LOGGERS, configure_logging

SECRETS = ("Bearer gwj_0123456789abcdef", "link-token-Zq8x1", "devto-api-key-77")


def emit_wire_lines() -> None:
    # httpx2 and httpcore2: the MCP SDK's client; urllib3: requests' (Apprise's webhooks)
    wire = ("httpcore.http11", "httpx", "httpx2", "httpcore2.http11", "urllib3.connectionpool")
    for name in (*wire, "sse_starlette.sse", "uvicorn.access"):
        logging.getLogger(name).debug("wire %s %s", name, " ".join(SECRETS))
    logging.getLogger("mcp.server.streamable_http").debug("event %s", SECRETS[1])
    logging.getLogger("gwanjong_gateway.server").debug("our own debug line")


def test_debug_level_keeps_the_wire_out(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GWANJONG_WIRE_LOGS", raising=False)
    configure_logging("DEBUG")
    try:
        emit_wire_lines()
        err = capsys.readouterr().err
        assert "our own debug line" in err  # debug is on
        assert not any(s in err for s in SECRETS), err
        assert "wire " not in err, err
        monkeypatch.setenv("GWANJONG_WIRE_LOGS", "httpcore")  # named explicitly: shown
        configure_logging("DEBUG")
        emit_wire_lines()
        err = capsys.readouterr().err
        assert "wire httpcore.http11" in err and "wire httpx" not in err, err
    finally:
        configure_logging("WARNING")
        for name in WIRE_LOGGERS:
            logging.getLogger(name).setLevel(logging.NOTSET)
