"""The write-once rule of the server kit (kit/once.py), in process: a write's 5xx is raised
as AnswerLost and reported unsure; a read's passes through for the SDK to retry."""

from __future__ import annotations

import httpx
import pytest

from gwanjong_sandbox.app import SandboxApp
from gwanjong_sandbox.devto import API_KEY
from gwanjong_sandbox.state import Fault, SandboxState
from gwanjong_shared.contract.errors import UNSURE, ErrorKind
from gwanjong_shared.contract.models import Comment, Post
from gwanjong_shared.kit.once import (
    AnswerLost,
    WriteOnce,
    answer_lost,
    find_written,
    lost_answer,
    lost_in,
    may_resend,
)

pytestmark = pytest.mark.anyio
ARTICLE = {"article": {"title": "Once", "body_markdown": "once", "ai_disclosure_level": "no_ai"}}


async def test_a_writes_5xx_is_answer_lost_and_a_reads_is_an_answer() -> None:
    state = SandboxState()
    state.faults.append(Fault("devto", kind="apply_then_status", status=502, count=2))
    transport = WriteOnce(httpx.ASGITransport(SandboxApp(state)))
    async with httpx.AsyncClient(transport=transport, base_url="http://sb") as client:
        with pytest.raises(AnswerLost) as lost:
            await client.post("/api/articles", json=ARTICLE, headers={"api-key": API_KEY})
        assert (lost.value.method, lost.value.status) == ("POST", 502)
        assert len(state.writes) == 1  # applied, once
        read = await client.get("/api/articles/search", params={"q": "once"})
        assert read.status_code == 502  # a read's 5xx is the SDK's to retry


def test_the_rule() -> None:
    assert may_resend("get") and may_resend("HEAD") and not may_resend("POST")
    assert not may_resend("PUT") and not may_resend("DELETE")
    assert answer_lost("GET", "/x", status=502) is None
    assert answer_lost("POST", "/x", status=409) is None  # answered: an outcome
    assert answer_lost("POST", "/x", error=OSError(), left=False) is None  # never left
    timed_out = answer_lost("POST", "/x", error=httpx.ReadTimeout("slow"))
    assert timed_out is not None and timed_out.timed_out


def test_lost_answer_is_unsure_and_found_inside_an_sdks_wrapping() -> None:
    lost = AnswerLost("POST", "/api/comment", status=502)
    error = lost_answer("Reddit", lost, "replying")
    assert error.kind in UNSURE and error.kind is ErrorKind.UNAVAILABLE
    assert "may have been written" in error.message and "HTTP 502" in error.message
    assert lost_answer("X", AnswerLost("POST", "/", timed_out=True)).kind is ErrorKind.TIMEOUT

    class Wrapped(Exception):
        def __init__(self, original: BaseException) -> None:
            self.original_exception = original  # asyncprawcore's RequestException

    try:
        try:
            raise Wrapped(lost)
        except Wrapped as inner:
            raise RuntimeError("the SDK's own") from inner
    except RuntimeError as outer:
        assert lost_in(outer) is lost
    assert lost_in(RuntimeError("plain")) is None


async def test_a_write_read_back_with_no_account_known_is_nobodys() -> None:
    """Without our account, a post of someone else's with the same words is not ours (the
    gateway settled it `posted` once: its read-back matched anyone's when none was known)."""
    theirs = Post(id="9", platform="devto", title="Hi", body="Same words.", author="someone")

    async def search(query: str, limit: int) -> list[Post]:
        return [theirs]

    async def comments(post_id: str, limit: int) -> list[Comment]:
        return []

    assert await find_written(comments, search, None, "Hi", "Same words.", [None]) is None
    assert await find_written(comments, search, None, "Hi", "Same words.", [None, "Someone"])
