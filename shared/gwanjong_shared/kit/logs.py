"""Logging to stderr only (stdout is the MCP wire), with secrets masked."""

from __future__ import annotations

import logging
import os
import re
import sys

from gwanjong_shared.contract.untrusted import clean

_secrets: set[str] = set()

#: loggers that quote the wire; kept at WARNING or above (see configure_logging)
WIRE_LOGGERS = (
    "httpx",
    "httpcore",
    "httpx2",  # the MCP SDK's client (a server URL's query)
    "httpcore2",
    "urllib3",  # requests': Apprise's webhook paths hold their tokens
    "sse_starlette",
    "uvicorn.access",
    "mcp.server.streamable_http",
    "mcp.server.streamable_http_manager",  # each new session's id, at INFO
    "mcp.client.streamable_http",
    "mcp.server.sse",
    "mcp.client.sse",
    "bm25s",
)


# An MCP session id is bound to its credential: whoever has it acts as that session while it
# lives. The SDK's session loggers name it in warnings and errors too (a session presented
# by another credential, a crash), which WARNING lets through: masked there, at every level.
_SESSION_LOGGERS = ("mcp.server.streamable_http_manager", "mcp.server.streamable_http")
_SESSION_ID = re.compile(r"\b[0-9a-f]{32}\b")  # the SDK's uuid4().hex


def _no_session_ids(record: logging.LogRecord) -> bool:
    record.msg, record.args = _SESSION_ID.sub("***", record.getMessage()), None
    return True


def register_secret(value: str | None) -> None:
    """Mask this value wherever it would appear in a log line."""
    if value and len(value) >= 4:
        _secrets.add(value)


def redact(text: str) -> str:
    for secret in _secrets:
        text = text.replace(secret, "***")
    return text


#: how every plain log line starts (stderr and the log file)
LINE_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# Every control but tab, and the line and paragraph separators: whatever a reader may take
# for the end of a line
_BREAKING = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")
_ESCAPES = {"\n": "\\n", "\r": "\\r"}


def _escaped(ch: re.Match[str]) -> str:
    c = ch.group()
    return _ESCAPES.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")


def one_line_message(text: str) -> str:
    """A log message as one line: its line breaks and controls written as escapes."""
    return _BREAKING.sub(_escaped, text)


class LineFormatter(logging.Formatter):
    """A plain log line, secrets masked. Log lines may quote platform text (a server's
    error, a platform's answer): the message is one line, its breaks and controls escaped
    (``\\n``), so it cannot forge the lines after it; a traceback keeps its own lines;
    nothing anywhere keeps a terminal escape or a hidden character."""

    def __init__(self) -> None:
        super().__init__(LINE_FORMAT)

    def formatMessage(self, record: logging.LogRecord) -> str:
        return one_line_message(super().formatMessage(record))

    def format(self, record: logging.LogRecord) -> str:
        return redact(clean(super().format(record)))


def configure_logging(level: str = "WARNING") -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(LineFormatter())
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
    for name in _SESSION_LOGGERS:
        logging.getLogger(name).addFilter(_no_session_ids)  # once: the same filter is kept once
