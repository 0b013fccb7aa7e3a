"""`[logging] json = true`: each log line one JSON object, masked like the plain lines,
with the trace it was written in."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace import TracerProvider

from gwanjong_gateway.observe.jsonlog import use_json_lines
from gwanjong_shared.kit.logs import register_secret


@pytest.fixture
def logged() -> Iterator[tuple[logging.Logger, io.StringIO]]:
    out = io.StringIO()
    logger = logging.getLogger("tests.gateway.observe.json")
    handler = logging.StreamHandler(out)
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    try:
        yield logger, out
    finally:
        logger.removeHandler(handler)


def test_a_line_is_one_masked_json_object(logged: tuple[logging.Logger, io.StringIO]) -> None:
    logger, out = logged
    use_json_lines(logger)
    register_secret("s3cr3t-token-value")
    logger.warning("devto: down: key s3cr3t-token-value refused \x1b[31mred\x1b[0m\nnext")
    [line] = out.getvalue().splitlines()
    record = json.loads(line)
    assert record["level"] == "WARNING" and record["logger"] == "tests.gateway.observe.json"
    assert "s3cr3t-token-value" not in line and "***" in record["message"]
    assert "\x1b" not in record["message"]
    assert record["time"].endswith("+00:00")
    assert "trace_id" not in record  # no span: no trace fields


def test_an_exception_is_cleaned_like_the_message(
    logged: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, out = logged
    use_json_lines(logger)
    try:
        raise ValueError("platform said \u202eevil\x9b2J")
    except ValueError:
        logger.exception("failed")
    record = json.loads(out.getvalue())
    assert "Traceback (most recent call last):\n" in record["exception"]
    assert record["exception"].endswith("ValueError: platform said evil2J"), record


def test_a_line_written_in_a_span_names_its_trace(
    logged: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, out = logged
    use_json_lines(logger)
    tracer = TracerProvider().get_tracer("test")  # never installed (conftest resets anyway)
    with tracer.start_as_current_span("work") as span:
        logger.info("inside")
    context = span.get_span_context()
    record = json.loads(out.getvalue())
    assert record["trace_id"] == f"{context.trace_id:032x}"
    assert record["span_id"] == f"{context.span_id:016x}"
