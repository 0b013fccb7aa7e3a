"""Test tiers: which tests `uv run pytest` runs by default and which wait for the full run.

The fast tier (the default) is everything that stays in one process without the network:
the gateway over fake platforms (tests/fakes), shared code, units. The slower tiers are
marked here by what they need, so a test file needs no marker of its own:

- ``sandbox``: uses the sandbox process (real platform SDKs over HTTP)
- ``stdio``, ``e2e``: spawn real processes (marked in the test files)
- ``postgres``: needs a PostgreSQL server (tests/postgres; the postgres param of ``store_url``)
- ``install``: builds or installs packages (tests/install)
- ``external``: runs external clients (tests/external: Inspector, conformance suite)
- ``browser``: drives Debian's headless Chromium through Playwright (tests/browser: the console)

A test file whose module-level ``pytestmark`` names a slow tier (``pytestmark =
[pytest.mark.anyio, pytest.mark.sandbox]``) is in that tier as a whole, and the fast tier
does not even import it (read from its source, not by importing it): the SDKs such files
import are most of what collecting them costs.

``--all-tiers`` (or ``GWANJONG_ALL_TIERS=1``) runs every tier, spread over worker processes
(pytest-xdist; ``GWANJONG_TEST_WORKERS`` or ``-n N`` sets how many, ``-n 0`` none): most of
the slow tiers' time is spent waiting on the processes they start, not computing. So do named paths
(``pytest tests/servers/devto/test_devto.py`` runs what it names, whatever its tier) and an
explicit ``-m`` expression, which then selects on its own (``-m sandbox``: that tier alone).
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

SLOW = ("sandbox", "stdio", "e2e", "postgres", "install", "external", "browser")
#: tests/<dir> whose tests are all in the tier of that name
_TIER_DIRS = {"postgres", "install", "external", "e2e", "browser"}
_SANDBOX_FIXTURES = {"sandbox", "sandbox_session"}
ENV = "GWANJONG_ALL_TIERS"


def add_option(parser: pytest.Parser) -> None:
    parser.addoption(
        "--all-tiers",
        action="store_true",
        default=False,
        help="run every tier (sandbox, stdio, e2e, postgres, install, external, browser), not only the fast one",
    )


def tier_of(item: pytest.Item, tests_dir: Path) -> None:
    """Mark ``item`` with the tiers it belongs to, from its directory and fixtures."""
    try:
        top = Path(str(item.path)).relative_to(tests_dir).parts[0]
    except ValueError:
        top = ""
    if top in _TIER_DIRS:
        item.add_marker(top)
    if _SANDBOX_FIXTURES & set(getattr(item, "fixturenames", ())):
        item.add_marker("sandbox")


WORKERS_ENV = "GWANJONG_TEST_WORKERS"


def workers_for(config: pytest.Config) -> int | None:
    """How many worker processes a run of every tier gets, unless the caller chose (``-n``),
    is already a worker, debugs (``--pdb``), only collects, or runs without xdist."""
    option = config.option
    if not _asked(config) or os.environ.get("PYTEST_XDIST_WORKER"):
        return None
    if not hasattr(option, "numprocesses"):  # -p no:xdist
        return None
    if option.numprocesses is not None or option.usepdb or option.collectonly:
        return None
    given = os.environ.get(WORKERS_ENV, "").strip()
    if given:
        if not given.isdigit():
            raise pytest.UsageError(
                f"{WORKERS_ENV} must be a whole number of worker processes (0: none), not {given!r}"
            )
        return int(given)
    # Twice the cores: each worker spends most of its time waiting on a child process.
    return min(8, 2 * (os.cpu_count() or 1))


def spread(config: pytest.Config) -> None:
    """A run of every tier on workers (see `workers_for`), each with a sandbox of its own."""
    workers = workers_for(config)
    if workers:
        config.option.numprocesses = workers
        config.option.dist = "worksteal"


def _asked(config: pytest.Config) -> bool:
    """Every tier asked for by name: ``--all-tiers`` or the environment."""
    return bool(config.getoption("--all-tiers") or os.environ.get(ENV, "") not in ("", "0"))


def all_tiers(config: pytest.Config) -> bool:
    # Any -m, even `-m ''`, means the caller selects by marker themself; named paths mean
    # the caller chose the tests.
    marked = any(a == "-m" or a.startswith("-m") for a in config.invocation_params.args)
    named = config.args_source == pytest.Config.ArgsSource.ARGS
    return _asked(config) or marked or named


def file_marks(path: Path) -> set[str]:
    """The ``pytest.mark.X`` names in a test file's module-level ``pytestmark``, read from
    its source (nothing imported)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return set()  # let the import report it
    names: set[str] = set()
    for node in tree.body:
        if not isinstance(node, ast.Assign) or not any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
        ):
            continue
        for sub in ast.walk(node.value):
            if (
                isinstance(sub, ast.Attribute)
                and isinstance(sub.value, ast.Attribute)
                and sub.value.attr == "mark"
            ):
                names.add(sub.attr)
    return names


def skip_path(path: Path, config: pytest.Config) -> bool:
    """Whole directories of a slow tier, and test files marked with one as a whole, are not
    even imported for the fast tier."""
    if all_tiers(config):
        return False
    tests_dir = Path(__file__).parent
    if path.parent == tests_dir and path.name in _TIER_DIRS:
        return True
    is_test_file = path.suffix == ".py" and path.name.startswith("test_")
    return is_test_file and bool(file_marks(path) & set(SLOW))


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
