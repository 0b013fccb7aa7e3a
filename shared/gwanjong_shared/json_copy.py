"""A deep copy of JSON-shaped data (a tool's schema), made in C: ``copy.deepcopy`` keeps a
memo of every object it meets and was most of what registering a cached tool cost."""

from __future__ import annotations

import copy
import marshal
from typing import Any, TypeVar, cast

T = TypeVar("T")


def json_copy(value: T) -> T:
    """A deep copy of ``value`` (dicts, lists, strings, numbers, booleans, None); anything
    else falls back to ``copy.deepcopy``."""
    try:
        return cast(T, marshal.loads(marshal.dumps(cast(Any, value))))
    except ValueError:  # an object marshal does not know (an enum, a model)
        return copy.deepcopy(value)
