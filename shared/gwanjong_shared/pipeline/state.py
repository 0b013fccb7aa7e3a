"""The typed per-client state a pipeline keeps between tool calls."""

from __future__ import annotations

from collections.abc import Iterable, Sized

from pydantic import BaseModel, ConfigDict


def is_populated(value: object) -> bool:
    """A value counts as produced when it is neither None nor an empty container or string."""
    if value is None:
        return False
    if isinstance(value, Sized):
        return len(value) > 0
    return True


def field_count(value: object) -> int:
    """How many items a field holds: its length for containers, else 1 if populated."""
    if isinstance(value, Sized) and not isinstance(value, str | bytes):
        return len(value)
    return int(is_populated(value))


class PipelineState(BaseModel):
    """Base class for one workflow's server-side state; subclass it and declare fields.

    Fields are ordinary annotated class attributes with defaults::

        class ResearchState(PipelineState):
            results: dict[str, Doc] = {}
            summary: str | None = None

    Pydantic copies mutable defaults, so every client gets its own `{}`. Assignment is
    not validated (tools store whatever they computed, quickly), but assigning a name that
    is not a declared field raises, which catches typos.
    """

    # Tools store arbitrary domain objects (dataclasses, clients' models), not just JSON.
    model_config = ConfigDict(arbitrary_types_allowed=True)

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """The declared fields, in declaration order (base classes first)."""
        return tuple(cls.model_fields)

    def is_populated(self, name: str) -> bool:
        """Whether field `name` holds something (not None, not empty)."""
        return is_populated(getattr(self, name))

    def missing(self, names: Iterable[str]) -> list[str]:
        """The fields among `names` that are not populated, in the given order."""
        return [name for name in names if not self.is_populated(name)]
