"""Optional parts of gwanjong (its extras): when one is missing, say so once, in words
that name the command installing it, never a ModuleNotFoundError traceback."""

from __future__ import annotations

from types import ModuleType

#: what each extra brings, for the message
PARTS = {
    "postgres": 'PostgreSQL support (psycopg), which [store] url = "postgresql://…" needs,',
    "observe": "Tracing and metrics (the OpenTelemetry SDK, prometheus-client), which "
    "[telemetry] otlp_endpoint and [metrics] enabled need,",
    "notify": "Notifications (Apprise), which [notify] urls need,",
    "sandbox": "The sandbox (the local emulator of the four platforms, package gwanjong-sandbox)",
}


class MissingExtra(Exception):
    """An optional part that is not installed; the message says how to install it."""


def missing_message(extra: str) -> str:
    return (
        f"{PARTS[extra]} is not installed: install it with `uv tool install "
        f"'gwanjong[{extra}]'` or `pip install 'gwanjong[{extra}]'` (in a clone: `uv sync`). "
        "Then run gwanjong again."
    )


def require_psycopg() -> ModuleType:
    """psycopg, or MissingExtra naming the `postgres` extra."""
    try:
        import psycopg
    except ImportError:
        raise MissingExtra(missing_message("postgres")) from None
    return psycopg
