"""Token counts of what the model is shown (o200k, offline via bpe-openai)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

# bpe-openai ships no types (no stubs exist); _encoding() is typed Any where it is used.
import bpe_openai  # pyright: ignore[reportMissingTypeStubs]


@lru_cache(maxsize=1)
def _encoding() -> Any:
    return bpe_openai.get_encoding("o200k_base")


def count_tokens(text: str) -> int:
    return len(_encoding().encode(text))


def tool_list_tokens(tools: Iterable[Any]) -> int:
    """Tokens of a tools/list result as a client would put it into the model's context."""
    payload = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
    return count_tokens(json.dumps(payload, ensure_ascii=False))
