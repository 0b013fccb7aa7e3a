"""Whose records a caller may read (docs/operate/team-privacy.md): everyone's, or one
principal's.
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
    def only(cls, principal: str | None) -> Reader:
        return cls(everyone=False, principal=principal)

    def may_read(self, row_principal: str) -> bool:
        return self.everyone or (self.principal is not None and row_principal == self.principal)

    @property
    def reads_nothing(self) -> bool:
        return not self.everyone and self.principal is None


#: the local user, and the host's operator at the CLI
EVERYONE = Reader(everyone=True)
