"""Fixtures for the whole suite: one sandbox process per test run, anyio on asyncio, a
fresh PostgreSQL database per test of the postgres tier; the tiers (tests/tiers.py): the
fast tier by default, every tier with --all-tiers."""

from __future__ import annotations

import gc
import os
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gwanjong_sandbox.control import SandboxControl, start_sandbox
from tests import tiers


def pytest_configure(config: pytest.Config) -> None:
    # A test run allocates many short-lived objects (MCP sessions, pydantic models): the
    # collector's default thresholds spent ~10% of the fast tier's CPU on young objects
    # that die anyway. Collect less often; everything imported so far is frozen out.
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)
    # No test touches the person's own gwanjong files: a config without a state_dir (or a
    # test that replaced it by mistake) lands in a home of this run's (XDG: Linux, CI).
    home = Path(tempfile.mkdtemp(prefix="gwanjong-tests-"))
    os.environ["XDG_DATA_HOME"] = str(home / "data")
    os.environ["XDG_CONFIG_HOME"] = str(home / "config")


def pytest_addoption(parser: pytest.Parser) -> None:
    tiers.add_option(parser)


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    tiers.spread(config)  # before xdist reads -n


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    return True if tiers.skip_path(collection_path, config) else None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    tiers.select(items, config)


@pytest.fixture(autouse=True)
def _fast_tier_stays_in_process(request: pytest.FixtureRequest) -> Iterator[None]:
    """The fast tier promises one process: a test there that starts a process fails at
    once, naming the marker it needs, instead of silently making the tier slow."""
    if any(request.node.get_closest_marker(tier) for tier in tiers.SLOW):
        yield
        return
    real = subprocess.Popen._execute_child  # type: ignore[attr-defined]

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError(
            f"{request.node.nodeid} starts a process: mark it @pytest.mark.stdio "
            "(the fast tier runs in one process)"
        )

    subprocess.Popen._execute_child = refuse  # type: ignore[attr-defined]
    try:
        yield
    finally:
        subprocess.Popen._execute_child = real  # type: ignore[attr-defined]


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def sandbox_session() -> Iterator[SandboxControl]:
    with start_sandbox() as control:
        yield control


@pytest.fixture
def sandbox(sandbox_session: SandboxControl) -> Iterator[SandboxControl]:
    """The shared sandbox, reset to its seed before and after each test that uses it."""
    sandbox_session.reset()
    yield sandbox_session
    sandbox_session.reset()


PG_HOW = 'start one with: eval "$(bash scripts/pg start)"  (then pytest -m postgres)'


def _pg_missing(why: str) -> None:
    """In CI (`CI` or `GWANJONG_REQUIRE_PG` set) a missing or unreachable server FAILS the
    test: a postgres test must never pass by skipping there."""
    if os.environ.get("CI") or os.environ.get("GWANJONG_REQUIRE_PG"):
        pytest.fail(f"PostgreSQL is required here but {why}; .ci/run starts it", pytrace=False)
    pytest.skip(f"{why}; {PG_HOW}")


@pytest.fixture(scope="session")
def pg_server() -> str:
    """`GWANJONG_TEST_PG_URL` (`.ci/run` starts one; locally `eval "$(bash scripts/pg start)"`)."""
    import psycopg  # only the postgres tier pays for it

    url = os.environ.get("GWANJONG_TEST_PG_URL", "")
    if not url:
        _pg_missing("GWANJONG_TEST_PG_URL is not set")
    try:
        psycopg.connect(url, connect_timeout=20).close()
    except psycopg.OperationalError as exc:
        _pg_missing(f"PostgreSQL at GWANJONG_TEST_PG_URL is unreachable ({exc})")
    return url


@pytest.fixture
def pg_url(pg_server: str) -> Iterator[str]:
    """The URL of a new, empty database, dropped after the test."""
    import psycopg
    from psycopg import sql

    name = f"gwanjong_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_server, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    yield pg_server.rsplit("/", 1)[0] + "/" + name
    with psycopg.connect(pg_server, autocommit=True) as admin:
        admin.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )


def _check_each_schema_once() -> None:
    """The MCP client checks a tool's output schema against the JSON Schema metaschema
    once per session (`ClientSession._output_schema_validator`); a test process opens
    hundreds of short sessions over the same few schemas, and that check was a third of
    the fast tier's CPU. Here each distinct schema is checked once per process: the same
    answer (a schema that fails still raises, every time), computed once."""
    import json

    from jsonschema.validators import Draft202012Validator

    checked: set[str] = set()
    check = Draft202012Validator.check_schema.__func__  # type: ignore[attr-defined]

    def check_once(cls: type[Draft202012Validator], schema: Any, *args: Any, **kw: Any) -> None:
        key = f"{cls.__qualname__}:{json.dumps(schema, sort_keys=True, default=str)}"
        if key in checked:
            return
        check(cls, schema, *args, **kw)  # raises SchemaError: not remembered
        checked.add(key)

    Draft202012Validator.check_schema = classmethod(check_once)  # type: ignore[method-assign,assignment]


_check_each_schema_once()


def _share_tls_contexts() -> None:
    """Every HTTP client builds a TLS context and loads the whole CA bundle into it, even
    one that only speaks plain HTTP to 127.0.0.1 (the test clients, the MCP client's
    transport): ~45 ms of CPU each, a tenth of the fast tier. httpx's own advice is to
    share one context; the test process shares one of each kind."""
    import functools
    import ssl

    import httpcore2

    ssl.create_default_context = functools.cache(ssl.create_default_context)
    httpcore2.default_ssl_context = functools.cache(httpcore2.default_ssl_context)


_share_tls_contexts()
