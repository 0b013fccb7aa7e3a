"""Which tier a test lands in (tests/tiers.py): by the fixtures it uses and its directory."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest

from tests import tiers

TESTS = Path(__file__).parent


class _Item:
    def __init__(self, path: Path, fixturenames: tuple[str, ...] = ()) -> None:
        self.path = path
        self.fixturenames = list(fixturenames)
        self.marks: list[str] = []

    def add_marker(self, mark: str) -> None:
        self.marks.append(mark)


def marks(rel: str, *fixtures: str) -> list[str]:
    item = _Item(TESTS / rel, fixtures)
    tiers.tier_of(cast(pytest.Item, item), TESTS)
    return item.marks


def test_tiers_come_from_fixtures_and_directories() -> None:
    assert marks("gateway/strike/test_strike.py", "forum", "tmp_path") == []  # fast: fakes only
    assert marks("gateway/usage/test_token_budget.py", "tmp_path") == []  # the budget stays fast
    assert marks("servers/devto/test_devto.py", "sandbox") == ["sandbox"]
    assert marks("postgres/record/test_store_pg.py", "pg_url") == ["postgres"]
    assert marks("e2e/test_chain.py", "sandbox_session") == ["e2e", "sandbox"]
    assert marks("install/test_uvx.py") == ["install"]
    assert marks("external/test_inspector.py") == ["external"]


def test_a_file_marked_with_a_slow_tier_is_in_it_without_being_imported(tmp_path: Path) -> None:
    marked = tmp_path / "test_marked.py"
    marked.write_text(
        "import pytest\nimport no_such_module_here\n"
        "pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]\n"
    )
    plain = tmp_path / "test_plain.py"
    plain.write_text("import pytest\npytestmark = pytest.mark.anyio\n")
    assert tiers.file_marks(marked) == {"anyio", "sandbox"}
    assert tiers.file_marks(plain) == {"anyio"}
    # and the suite's own files that declare their tier are read the same way
    assert "sandbox" in tiers.file_marks(TESTS / "servers" / "reddit" / "test_reddit.py")
    assert "stdio" in tiers.file_marks(TESTS / "contract" / "test_stdio.py")
