"""Helpers for `gwanjong review` tests: a confirm-mode gateway over fake platforms, and the
review command run in-process against the same record with the same fakes (injected
transports, clock, terminal and login: no patching)."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastmcp import Client

from gwanjong_gateway.cli.main import parser
from gwanjong_gateway.cli.review import review_command as review
from gwanjong_gateway.config import GatewayConfig, parse
from gwanjong_gateway.record.records import open_store
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.approvals import Approval
from gwanjong_gateway.rules.ledger import Strike
from gwanjong_gateway.server import build_gateway
from tests.fakes.clock import FakeClock
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import FORUM, LINKS
from tests.gateway.helpers import config_text, patient_gateway

#: who types at the injected terminal
LOGIN = "alice"


class Screen(io.StringIO):
    """A stream that says it is a terminal (what a person's shell gives a command);
    ``reading`` runs while the person reads the question (before their line is read)."""

    def __init__(self, typed: str = "", reading: Callable[[], object] | None = None) -> None:
        super().__init__(typed)
        self.reading = reading

    def isatty(self) -> bool:
        return True

    def readline(self, size: int = -1) -> str:
        if self.reading is not None:
            self.reading()
        return super().readline(-1 if size is None else size)  # StringIO takes an int


@dataclass(frozen=True)
class Ran:
    code: int
    out: str
    err: str


@dataclass
class Bench:
    """A confirm-mode gateway on `links` (comments auto, a disclosure footer) and `forum`
    (comments and likes handed off), and `review` against its record."""

    tmp: Path
    links: FakePlatform = field(default_factory=lambda: FakePlatform(LINKS))
    forum: FakePlatform = field(default_factory=lambda: FakePlatform(FORUM))
    clock: FakeClock = field(default_factory=FakeClock)
    #: the record: "" = SQLite in ``tmp``; a PostgreSQL URL
    store_url: str = ""
    #: each platform's table (`config_text`'s ``platform``)
    platform: dict[str, Any] | None = None
    config: GatewayConfig | None = None
    #: who types at the terminal
    login: str = LOGIN
    #: the gateway.toml text of ``config`` (when the bench built it)
    toml: str = ""

    def __post_init__(self) -> None:
        tables: dict[str, dict[str, Any]] = {"safety": {"author_cooldown_days": 0}}
        if self.store_url:
            tables["store"] = {"url": self.store_url}
        if self.config is None:
            names = ["reddit", "devto"]
            self.toml = config_text(self.tmp, names, "confirm", None, tables, self.platform)
            self.config = parse(self.toml)

    @property
    def cfg(self) -> GatewayConfig:
        assert self.config is not None
        return self.config

    def transports(self) -> dict[str, Any]:
        return {"reddit": self.links.server(), "devto": self.forum.server()}

    @asynccontextmanager
    async def client(self, **kwargs: Any) -> AsyncIterator[Client[Any]]:
        """The model's client (no elicitation unless ``elicitation_handler`` is given)."""
        gw = patient_gateway(self.cfg, {}, self.transports(), wall=self.clock.time)
        async with Client(build_gateway(self.cfg, gateway=gw), **kwargs) as client:
            yield client

    async def review(
        self,
        *argv: str,
        typed: str | None = None,
        tty: bool = True,
        out_tty: bool | None = None,
        reading: Callable[[], object] | None = None,
    ) -> Ran:
        """`gwanjong review ARGV` at a terminal (``tty``) where the person types ``typed``
        (``reading``: what happens while they read the question)."""
        args = parser().parse_args(["review", *argv])
        stdin = Screen(typed or "", reading) if tty else io.StringIO(typed or "")
        stdout = Screen() if (tty if out_tty is None else out_tty) else io.StringIO()
        stderr = io.StringIO()
        term = review.Terminal(stdin=stdin, stdout=stdout, stderr=stderr)
        code = await review.run(
            args,
            self.cfg,
            transports=self.transports(),
            clock=self.clock.time,
            term=term,
            login=lambda: self.login,
        )
        return Ran(code, stdout.getvalue(), stderr.getvalue())

    def store(self) -> StrikeStore:
        return open_store(self.cfg)

    def rows(self) -> list[Strike]:
        """The strike record, newest first."""
        with closing(self.store()) as store:
            return store.history(limit=1000)

    def approval(self, approval_id: int) -> Approval:
        with closing(self.store()) as store:
            found = store.approval(approval_id)
        assert found is not None
        return found
