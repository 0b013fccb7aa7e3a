"""Token counts of what the model is shown (o200k, offline via bpe-openai's Rust tokenizer)."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any


@lru_cache(maxsize=1)
def _tokenizer() -> Any:
    """bpe-openai's Rust binding, loaded on its own: the package's `__init__` decodes every
    model's vocabulary in pure Python first (~1.3 s, which the first `status` after a call
    waited for), and its tiktoken-style `encode` raises on text such as "<|endoftext|>",
    which a platform's post may hold (a usage batch was dropped for it)."""
    package = importlib.util.find_spec("bpe_openai")  # found, not imported
    assert package is not None and package.submodule_search_locations is not None
    folder = Path(package.submodule_search_locations[0])
    binary = next(
        found
        for suffix in importlib.machinery.EXTENSION_SUFFIXES
        for found in folder.glob(f"_bindings{suffix}")
    )
    spec = importlib.util.spec_from_file_location("bpe_openai._bindings", binary)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.tokenizer_for_encoding("o200k_base")


def count_tokens(text: str) -> int:
    """Every character counted as text (special tokens too), lone surrogates as U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # Rust takes UTF-8 only
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return _tokenizer().count(text)


def tool_list_tokens(tools: Iterable[Any]) -> int:
    """Tokens of a tools/list result as a client would put it into the model's context."""
    payload = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
    return count_tokens(json.dumps(payload, ensure_ascii=False))
