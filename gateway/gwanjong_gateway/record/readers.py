"""Whose records a caller may read (docs/operate/team-privacy.md): everyone's, or one
principal's.
"""

from __future__ import annotations

from collections.abc import Collection
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

    @classmethod
    def signed_in(cls, principal: str | None, auditors: Collection[str]) -> Reader:
        """A signed-in caller's: an auditor reads every row (named, for the approvals only
        they may see), anyone else their own."""
        if principal is not None and principal in auditors:
            return cls(everyone=True, principal=principal)
        return cls.only(principal)

    def may_read(self, row_principal: str) -> bool:
        return self.everyone or (self.principal is not None and row_principal == self.principal)

    @property
    def reads_nothing(self) -> bool:
        return not self.everyone and self.principal is None

    def approvals(self, deciders: Collection[str]) -> tuple[str | None, str | None]:
        """Whose pending approvals, and whose decided ones, this reader sees (None:
        everyone's). The local user and ``deciders`` see all; an auditor reads every
        decision (the audit) but only their own pending writes, as the console shows."""
        decides = (self.everyone and self.principal is None) or self.principal in deciders
        own = self.principal or "\x00nobody"  # no principal: no row (fails closed)
        return None if decides else own, None if decides or self.everyone else own


#: the local user, and the host's operator at the CLI
EVERYONE = Reader(everyone=True)
