"""How a person and the model name approvals and hand-offs: `a7` is approval 7, `h12` is
hand-off 12 (its strike record). The two are numbered apart, so a bare number could mean
either: every surface writes the letter, and a bare number is only taken where it cannot
be the other kind (the CLI asks "did you mean a2 or h2?")."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class Kind(StrEnum):
    APPROVAL = "a"
    HANDOFF = "h"


def approval_ref(approval_id: int) -> str:
    return f"a{approval_id}"


def handoff_ref(record_id: int) -> str:
    return f"h{record_id}"


_REF = re.compile(r"\s*([ahAH]?)#?(\d{1,18})\s*")


@dataclass(frozen=True)
class Ref:
    """A parsed id: ``kind`` None for a bare number."""

    kind: Kind | None
    id: int

    def __str__(self) -> str:
        return f"{self.kind or ''}{self.id}"


def parse_ref(text: str) -> Ref:
    """``a7``, ``h12`` or a bare ``12``; ValueError saying what an id looks like."""
    found = _REF.fullmatch(text)
    if found is None:
        raise ValueError(
            f"{text[:40]!r} is not an id: approvals are a<number> (a7), "
            "hand-offs h<number> (h12); `gwanjong review list` shows them"
        )
    letter, number = found.groups()
    return Ref(Kind(letter.lower()) if letter else None, int(number))
