"""Who and what `gwanjong review` talks to: the terminal's streams (and whether a person
can be at them), the login name, and the dependencies a command runs with (injectable:
tests pass in-process platform transports, a fake clock, stream doubles)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

from gwanjong_gateway.config import GatewayConfig
from gwanjong_gateway.rules.approvals import operator_name
from gwanjong_shared.contract.visible import plain

#: what the person types to approve
APPROVE_WORD = "approve"


@dataclass
class Terminal:
    """The streams a command talks through (the process's own by default)."""

    stdin: TextIO | None = field(default_factory=lambda: sys.stdin)
    stdout: TextIO = field(default_factory=lambda: sys.stdout)
    stderr: TextIO = field(default_factory=lambda: sys.stderr)

    def out(self, *lines: str) -> None:
        """Lines to stdout; any hidden character (a reason, a URL) marked, never raw."""
        for line in lines:
            self.stdout.write(plain(line) + "\n")
        self.stdout.flush()

    def fail(self, why: str, code: int = 1) -> int:
        """One line on stderr; the exit code."""
        self.stderr.write(f"gwanjong review: {plain(' '.join(why.split()))}\n")
        self.stderr.flush()
        return code

    def why_no_person(self) -> str:
        """ "" when a person can be at this terminal; else why not."""
        if self.stdin is None or not _tty(self.stdin):
            return "stdin is not a terminal (the answer would be piped in)"
        if not _tty(self.stdout):
            return "stdout is not a terminal (nobody would see the text)"
        return ""

    def ask(self, prompt: str) -> str:
        """One typed line ("" at the end of input)."""
        self.stdout.write(prompt)
        self.stdout.flush()
        assert self.stdin is not None
        return self.stdin.readline().strip()


def _tty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):  # no such method, or a closed stream
        return False


@dataclass
class Review:
    """One `gwanjong review` command's dependencies."""

    config: GatewayConfig
    term: Terminal = field(default_factory=Terminal)
    #: platform name -> transport (in-process servers in tests); None: as configured
    transports: dict[str, Any] | None = None
    clock: Callable[[], float] = time.time  # the wall clock (an approval's expiry)
    login: Callable[[], str] = operator_name  # who decides, for the audit

    def nothing_recorded(self) -> bool:
        """SQLite with no file yet: nothing was ever recorded (reading must not make one)."""
        return not self.config.store.url and not (self.config.state_dir / "gwanjong.db").exists()
