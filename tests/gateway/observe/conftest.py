"""Every observability test starts with no tracer provider installed and leaves none
(otel.clean_tracing)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.gateway.observe.otel import clean_tracing


@pytest.fixture(autouse=True)
def tracing_reset() -> Iterator[None]:
    with clean_tracing():
        yield
