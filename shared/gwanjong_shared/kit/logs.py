"""Logging to stderr only (stdout is the MCP wire), with secrets masked."""

from __future__ import annotations

import logging
import sys

from gwanjong_shared.contract.untrusted import clean

_secrets: set[str] = set()


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
    # httpx logs every request URL at INFO (some platforms put tokens in query strings);
    # bm25s logs each index build at DEBUG.
    for noisy in ("httpx", "bm25s"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level))
