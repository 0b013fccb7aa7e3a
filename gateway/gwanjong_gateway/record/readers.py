"""Whose records a caller may read: everyone's, or one principal's.

In team mode (HTTP with `[auth]`) the record is private by default: each signed-in
principal reads their own strikes and usage, `[auth] auditors` read everyone's
(`team/privacy.py` decides which Reader a request gets). Locally (stdio, or HTTP without
`[auth]`) there is one person, who reads it all; so does the CLI, run by the host's
operator. The record's rows carry the principal that made them (`principal`, '' when
made without sign-in).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Reader:
    """``everyone``: every row. Else only the rows of ``principal`` (None: no row at all,
    for a team-mode request that somehow carries no principal: it fails closed)."""

    everyone: bool
    principal: str | None = None

    @classmethod
    def all(cls) -> Reader:
        return cls(everyone=True)

    @classmethod
    def only(cls, principal: str | None) -> Reader:
        return cls(everyone=False, principal=principal)

    def may_read(self, row_principal: str) -> bool:
        return self.everyone or (self.principal is not None and row_principal == self.principal)

    @property
    def reads_nothing(self) -> bool:
        return not self.everyone and self.principal is None


#: the local user, and the host's operator at the CLI
EVERYONE = Reader.all()
