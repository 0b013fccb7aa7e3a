"""Test tiers: which tests `uv run pytest` runs by default and which wait for the full run.

The fast tier (the default) is everything that stays in one process without the network:
the gateway over fake platforms (tests/fakes), shared code, units. The slower tiers are
marked here by what they need, so a test file needs no marker of its own:

- ``sandbox``: uses the sandbox process (real platform SDKs over HTTP)
- ``stdio``, ``e2e``: spawn real processes (marked in the test files)
- ``postgres``: needs a PostgreSQL server (tests/postgres)
- ``install``: builds or installs packages (tests/install)
- ``external``: runs external clients (tests/external: Inspector, conformance suite)

``--all-tiers`` (or ``GWANJONG_ALL_TIERS=1``) runs every tier. So do named paths
(``pytest tests/servers/test_devto.py`` runs what it names, whatever its tier) and an
explicit ``-m`` expression, which then selects on its own (``-m sandbox``: that tier alone).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SLOW = ("sandbox", "stdio", "e2e", "postgres", "install", "external")
#: tests/<dir> whose tests are all in one tier
_BY_DIR = {"postgres": "postgres", "install": "install", "external": "external", "e2e": "e2e"}
_SANDBOX_FIXTURES = {"sandbox", "sandbox_session"}
ENV = "GWANJONG_ALL_TIERS"


def add_option(parser: pytest.Parser) -> None:
    parser.addoption(
        "--all-tiers",
        action="store_true",
        default=False,
        help="run every tier (sandbox, stdio, e2e, postgres, install, external), not only the fast one",
    )


def tier_of(item: pytest.Item, tests_dir: Path) -> None:
    """Mark ``item`` with the tiers it belongs to, from its directory and fixtures."""
    try:
        top = Path(str(item.path)).relative_to(tests_dir).parts[0]
    except ValueError:
        top = ""
    if top in _BY_DIR:
        item.add_marker(_BY_DIR[top])
    if _SANDBOX_FIXTURES & set(getattr(item, "fixturenames", ())):
        item.add_marker("sandbox")


def all_tiers(config: pytest.Config) -> bool:
    # Any -m, even `-m ''`, means the caller selects by marker themself; named paths mean
    # the caller chose the tests.
    marked = any(a == "-m" or a.startswith("-m") for a in config.invocation_params.args)
    named = config.args_source == pytest.Config.ArgsSource.ARGS
    return bool(
        config.getoption("--all-tiers")
        or os.environ.get(ENV, "") not in ("", "0")
        or marked
        or named
    )


def skip_dir(path: Path, config: pytest.Config) -> bool:
    """Whole directories of a slow tier are not even imported for the fast tier."""
    tests_dir = Path(__file__).parent
    return path.parent == tests_dir and path.name in _BY_DIR and not all_tiers(config)


def select(items: list[pytest.Item], config: pytest.Config) -> None:
    tests_dir = Path(__file__).parent
    for item in items:
        tier_of(item, tests_dir)
    if all_tiers(config):
        return
    keep: list[pytest.Item] = []
    slow: list[pytest.Item] = []
    for item in items:
        (slow if any(item.get_closest_marker(m) for m in SLOW) else keep).append(item)
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = keep
