"""The shared outbound limiter: platform headers in, local refusals out, on a fake clock."""

from __future__ import annotations

from importlib.metadata import version

import httpx
import pytest

from gwanjong_shared.contract.errors import ErrorKind, PlatformError
from gwanjong_shared.kit.http import raise_for_response
from gwanjong_shared.kit.ratelimit import (
    ANY,
    Limiter,
    MinInterval,
    TokenBucket,
    read_window,
    wait_from,
)
from gwanjong_shared.kit.server import package_version
from tests.fakes.clock import WALL_START, FakeClock

pytestmark = pytest.mark.anyio
WALL = WALL_START  # "now" in epoch seconds at the start of every test


def limiter() -> tuple[Limiter, FakeClock]:
    clock = FakeClock()
    return Limiter("Example", clock=clock, wall=clock.time), clock


def refusal(lim: Limiter, key: str = ANY) -> PlatformError:
    with pytest.raises(PlatformError) as caught:
        lim.check(key)
    return caught.value


def test_each_platforms_window_headers() -> None:
    x = read_window(
        {
            "x-rate-limit-limit": "450",
            "x-rate-limit-remaining": "0",
            "x-rate-limit-reset": str(int(WALL) + 40),
        },
        now=WALL,
    )
    assert x is not None and (x.limit, x.remaining, x.reset_in) == (450, 0, 40)
    # Reddit: remaining as a float string, reset as a delay, limit = used + remaining.
    reddit = read_window(
        {"x-ratelimit-used": "97", "x-ratelimit-remaining": "3.0", "x-ratelimit-reset": "12"},
        now=WALL,
    )
    assert reddit is not None and (reddit.limit, reddit.remaining, reddit.reset_in) == (100, 3, 12)
    bluesky = read_window(
        {
            "ratelimit-limit": "3000",
            "ratelimit-remaining": "0",
            "ratelimit-reset": str(int(WALL) + 9),
        },
        now=WALL,
    )
    assert bluesky is not None and (bluesky.remaining, bluesky.reset_in) == (0, 9)
    assert read_window({"content-type": "text/plain"}) is None


def test_wait_from_a_429_prefers_retry_after_then_the_window() -> None:
    assert (
        wait_from(429, {"Retry-After": "7", "x-rate-limit-reset": str(int(WALL) + 99)}, WALL) == 7
    )
    assert wait_from(429, {"x-rate-limit-reset": str(int(WALL) + 30)}, WALL) == 30
    assert wait_from(429, {}, WALL) == 60  # a 429 that names no wait
    odd = {"Retry-After": "inf", "x-rate-limit-limit": "inf", "x-rate-limit-reset": "nan"}
    assert wait_from(429, odd, WALL) == 60  # a proxy's inf or nan is no number: no wait named
    assert wait_from(200, {"x-ratelimit-remaining": "5.0", "x-ratelimit-reset": "30"}, WALL) is None
    assert wait_from(200, {"x-ratelimit-remaining": "0.0", "x-ratelimit-reset": "30"}, WALL) == 30


def test_after_a_429_calls_are_refused_locally_until_the_reset() -> None:
    lim, clock = limiter()
    lim.check("read")  # nothing known yet
    assert lim.observe("read", 429, {"Retry-After": "30"}) == 30
    err = refusal(lim, "read")
    assert err.kind is ErrorKind.RATE_LIMITED and err.retry_after == pytest.approx(30)
    assert str(err).startswith("rate_limited retry_after=30: Example ")
    lim.check("write")  # another window is unaffected
    clock.advance(29.5)
    assert refusal(lim, "read").retry_after == pytest.approx(0.5)
    clock.advance(0.5)
    lim.check("read")


def test_an_empty_window_blocks_until_its_reset_and_budget_reopens_it() -> None:
    lim, clock = limiter()
    start = clock.now
    lim.observe("GET /2/tweets/:id", 200, {
        "x-rate-limit-limit": "15", "x-rate-limit-remaining": "0",
        "x-rate-limit-reset": str(int(WALL) + 120),
    })  # fmt: skip
    assert refusal(lim, "GET /2/tweets/:id").retry_after == pytest.approx(120)
    assert lim.windows["GET /2/tweets/:id"].remaining == 0
    lim.check("GET /2/users/me")
    lim.observe("GET /2/tweets/:id", 200, {
        "x-rate-limit-remaining": "15", "x-rate-limit-reset": str(int(WALL) + 900),
    })  # fmt: skip
    lim.check("GET /2/tweets/:id")
    assert clock.now == start  # no time had to pass


def test_the_any_window_blocks_every_key_and_short_waits_can_be_tolerated() -> None:
    lim, _clock = limiter()
    lim.observe(
        ANY,
        200,
        {"x-ratelimit-used": "100", "x-ratelimit-remaining": "0.0", "x-ratelimit-reset": "8"},
    )
    assert refusal(lim, "read").retry_after == pytest.approx(8)
    lim.check("read", tolerate_s=10)  # a wait the SDK may sleep through
    assert lim.longest_wait_s() == pytest.approx(8)


async def test_a_shut_window_refuses_and_intervals_count_from_the_answer() -> None:
    clock = FakeClock()
    interval = MinInterval(5, clock=clock)
    lim = Limiter("Example", writes=interval, clock=clock, wall=clock.time)
    lim.check("write")
    async with lim.paced(write=True):
        clock.advance(3)  # the call took 3 s to answer
    clock.advance(5)
    assert await interval.acquire() == 0  # 5 s after the answer, not after the start
    lim.observe("write", 429, {"Retry-After": "12"})
    with pytest.raises(PlatformError, match="retry_after=12"):
        lim.check("write")


async def test_a_paced_write_counts_its_interval_from_the_answer_even_when_it_fails() -> None:
    clock = FakeClock()
    interval = MinInterval(5, clock=clock, sleep=clock.sleep)
    lim = Limiter("Example", writes=interval, clock=clock, wall=clock.time)
    with pytest.raises(RuntimeError):
        async with lim.paced(write=True):
            clock.advance(4)  # the platform took 4 s to answer, then the call failed
            raise RuntimeError
    async with lim.paced(write=True):
        pass
    assert clock.slept == [pytest.approx(5)]  # a full interval after that answer, not 1 s


async def test_pacing_waits_on_the_injected_sleep() -> None:
    time = FakeClock()
    interval = MinInterval(30, clock=time, sleep=time.sleep)
    assert await interval.acquire() == 0
    time.advance(10)  # 10 s after the first call: 20 s of the interval are left
    assert await interval.acquire() == pytest.approx(20)
    bucket = TokenBucket(2, 60, clock=time, sleep=time.sleep)  # 2 a minute, burst 2
    assert [await bucket.acquire() for _ in range(3)] == [0, 0, pytest.approx(30)]
    assert time.slept == [pytest.approx(20), pytest.approx(30)]  # and no real time passed


def _response(status: int, body: bytes, content_type: str = "application/json") -> httpx.Response:
    request = httpx.Request("GET", "https://example.test/items")  # as every real one has
    headers = {"content-type": content_type}
    return httpx.Response(status, content=body, headers=headers, request=request)


@pytest.mark.parametrize(
    ("status", "body", "kind"),
    [
        (403, b"", ErrorKind.UNAVAILABLE),  # a CDN block: no platform body
        (403, b"<html><body>Access denied</body></html>", ErrorKind.UNAVAILABLE),
        (403, b'{"error": "forbidden", "status": 403}', ErrorKind.AUTH),
        (429, b"Rate limit exceeded\n", ErrorKind.RATE_LIMITED),
        (404, b"<html>Not found</html>", ErrorKind.NOT_FOUND),
    ],
)
def test_error_bodies_that_are_not_json_map_by_status(
    status: int, body: bytes, kind: ErrorKind
) -> None:
    with pytest.raises(PlatformError) as caught:
        raise_for_response(_response(status, body), "Example")
    assert caught.value.kind is kind
    if kind is ErrorKind.UNAVAILABLE:
        assert "credentials" in str(caught.value) and "not about our credentials" in str(
            caught.value
        )


def test_server_version_is_the_packages_own() -> None:
    assert package_version("gwanjong_devto.adapter") == version("gwanjong-devto")
    assert package_version("no_such_package_here.adapter") == "0+unknown"


async def test_a_short_shut_window_can_be_slept_through_a_long_one_not() -> None:
    clock = FakeClock()
    lim = Limiter("Example", clock=clock, wall=clock.time)
    assert await lim.wait_or_refuse("read", tolerate_s=5) == 0
    lim.block("read", 40)
    with pytest.raises(PlatformError, match="retry_after=40"):
        await lim.wait_or_refuse("read", tolerate_s=5)
    clock.advance(39.99)  # 0.01 s left: slept, not refused
    assert await lim.wait_or_refuse("read", tolerate_s=5) == pytest.approx(0.01)
