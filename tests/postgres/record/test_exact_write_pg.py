"""One exact write on a PostgreSQL record (issue 34): the approval keeps its write's
canonical JSON there (the `outgoing` migration), and `review approve --title --tags` sends exactly it,
as on SQLite (tests/gateway/cli/test_review_exact.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gateway.cli.test_review_exact import edited_title_and_tags
from tests.gateway.review_cli import Bench

pytestmark = [pytest.mark.anyio, pytest.mark.postgres]


async def test_edited_title_and_tags_are_sent_exactly(tmp_path: Path, pg_url: str) -> None:
    bench = Bench(tmp_path, store_url=pg_url)
    await edited_title_and_tags(bench)
    assert not (tmp_path / "gwanjong.db").exists()  # the record is PostgreSQL
