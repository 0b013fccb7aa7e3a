"""One JSON object per log line (`[logging] json = true`), masked like the plain lines."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

from opentelemetry import trace

from gwanjong_shared.contract.untrusted import clean
from gwanjong_shared.kit.logs import redact


class JsonLines(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, str] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        context = trace.get_current_span().get_span_context()
        if context.is_valid:
            line["trace_id"] = format(context.trace_id, "032x")
            line["span_id"] = format(context.span_id, "016x")
        # clean keeps a traceback's newlines (JSON escapes them) and drops what hides
        masked = {k: redact(clean(v)) for k, v in line.items()}
        return json.dumps(masked, ensure_ascii=False)


def use_json_lines(logger: logging.Logger | None = None) -> None:
    """Every handler of the root logger (stderr, the log file) writes JSON lines."""
    for handler in (logger or logging.getLogger()).handlers:
        handler.setFormatter(JsonLines())
