"""Which tier a test lands in (tests/tiers.py): by the fixtures it uses and its directory."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace
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


class _Config:
    """What `tiers.workers_for` reads of pytest's config."""

    def __init__(self, all_tiers: bool = True, **option: object) -> None:
        self.all_tiers = all_tiers
        defaults = {"numprocesses": None, "usepdb": False, "collectonly": False}
        self.option = SimpleNamespace(**{**defaults, **option})

    def getoption(self, name: str) -> object:
        assert name == "--all-tiers"
        return self.all_tiers


def workers(config: _Config) -> int | None:
    return tiers.workers_for(cast(pytest.Config, config))


def test_every_tier_runs_on_workers_unless_the_caller_chose(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in (tiers.ENV, tiers.WORKERS_ENV, "PYTEST_XDIST_WORKER"):
        monkeypatch.delenv(name, raising=False)
    cores = os.cpu_count() or 1
    assert workers(_Config()) == min(8, 2 * cores)
    monkeypatch.setenv(tiers.WORKERS_ENV, "3")
    assert workers(_Config()) == 3
    # the fast tier, an explicit -n (0 included), a debugger, a collection: left alone
    assert workers(_Config(all_tiers=False)) is None
    assert workers(_Config(numprocesses=0)) is None
    assert workers(_Config(usepdb=True)) is None
    assert workers(_Config(collectonly=True)) is None
    monkeypatch.setenv(tiers.WORKERS_ENV, "four")  # says what it must be
    with pytest.raises(pytest.UsageError, match="whole number of worker processes"):
        workers(_Config())
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")  # a worker spreads nothing further
    assert workers(_Config()) is None
