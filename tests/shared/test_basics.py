"""Small shared pieces: error wording, Retry-After, counting (pacing: kit/test_ratelimit.py)."""

from __future__ import annotations

import httpx
import pytest
from fastmcp import FastMCP

from gwanjong_shared.contract import errors
from gwanjong_shared.contract.errors import ErrorKind, parse_error
from gwanjong_shared.contract.text import graphemes, measure
from gwanjong_shared.kit.cli import serve_main
from gwanjong_shared.kit.http import error_for_status, raise_for_response, retry_after_seconds
from gwanjong_shared.kit.logs import redact, register_secret
from gwanjong_shared.kit.settings import PlatformSettings


def test_error_text_round_trips() -> None:
    err = errors.rate_limited("Slow down. Wait, then retry.", 6.2)
    assert str(err) == "rate_limited retry_after=7: Slow down. Wait, then retry."
    assert parse_error(str(err)) == (ErrorKind.RATE_LIMITED, "Slow down. Wait, then retry.", 7.0)
    assert parse_error("not_found: gone")[:2] == (ErrorKind.NOT_FOUND, "gone")
    assert parse_error("Error calling tool 'x'")[0] is ErrorKind.UNAVAILABLE


def test_retry_after_seconds_and_dates() -> None:
    assert retry_after_seconds({"retry-after": "30"}) == 30
    assert (
        retry_after_seconds({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}, now=1445412470) == 10
    )
    assert retry_after_seconds({}) is None


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (401, "auth"),
        (403, "auth"),
        (404, "not_found"),
        (410, "not_found"),
        (422, "invalid_input"),
        (429, "rate_limited"),
        (500, "unavailable"),
        (503, "unavailable"),
    ],
)
def test_status_mapping(status: int, kind: str) -> None:
    assert str(error_for_status(status, "Example", retry_after=3)).startswith(kind)


def test_a_server_error_says_the_wait_its_retry_after_asked() -> None:
    with pytest.raises(errors.PlatformError) as seen:
        raise_for_response(httpx.Response(503, headers={"retry-after": "120.5"}), "Example")
    assert "Wait 121 seconds, then try again" in seen.value.message, seen.value.message


def test_graphemes_count_what_people_see() -> None:
    assert graphemes("👩‍💻") == 1 and graphemes("🏳️‍🌈") == 1 and graphemes("한국어") == 3
    assert measure("👩‍💻", "chars") == 3 and measure("한", "bytes") == 3


def test_registered_secrets_are_redacted() -> None:
    register_secret("s3cr3t-value")
    assert redact("token=s3cr3t-value in url") == "token=*** in url"


@pytest.mark.parametrize("port", ["65536", "-1", "x"])
def test_a_server_port_out_of_range_is_a_usage_error(
    port: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as done:  # before any settings or build: both unused here
        serve_main("gwanjong-x", "X", PlatformSettings, lambda _: FastMCP(), ["--port", port])
    assert done.value.code == 2 and "give a port from 0 to 65535" in capsys.readouterr().err
