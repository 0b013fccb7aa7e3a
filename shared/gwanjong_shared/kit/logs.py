"""Logging to stderr only (stdout is the MCP wire), with secrets masked."""

from __future__ import annotations

import logging
import os
import sys

from gwanjong_shared.contract.untrusted import clean

_secrets: set[str] = set()

#: loggers that quote the wire; kept at WARNING or above (see configure_logging)
WIRE_LOGGERS = (
    "httpx",
    "httpcore",
    "sse_starlette",
    "uvicorn.access",
    "mcp.server.streamable_http",
    "mcp.client.streamable_http",
    "mcp.server.sse",
    "mcp.client.sse",
    "bm25s",
)


def register_secret(value: str | None) -> None:
    """Mask this value wherever it would appear in a log line."""
    if value and len(value) >= 4:
        _secrets.add(value)


def redact(text: str) -> str:
    for secret in _secrets:
        text = text.replace(secret, "***")
    return text


class _RedactingFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        # Log lines may quote platform text: no terminal escapes or hidden characters.
        return redact(clean(super().format(record)))


def configure_logging(level: str = "WARNING") -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_RedactingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # Wire loggers quote requests, headers and event-stream bodies (bearer tokens, setup
    # links, credentials): they stay at WARNING at every level unless named explicitly in
    # GWANJONG_WIRE_LOGS (comma-separated). bm25s logs each index build at DEBUG.
    named = {n.strip() for n in os.environ.get("GWANJONG_WIRE_LOGS", "").split(",")}
    for noisy in WIRE_LOGGERS:
        wanted = logging.NOTSET if noisy in named else max(logging.WARNING, root.level)
        logging.getLogger(noisy).setLevel(wanted)
