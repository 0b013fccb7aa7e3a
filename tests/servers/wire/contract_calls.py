"""Calls of every contract tool, with good arguments and with failing ones, for the
schema checks (tests/servers/wire/test_results_schema.py and the Node clients in
tests/external/test_strict_platforms.py)."""

from __future__ import annotations

from typing import Any

from gwanjong_shared.contract.errors import ErrorKind

# An id no post has; on Bluesky (AT URIs) it is not even an id, so invalid_input there.
MISSING = {ErrorKind.NOT_FOUND, ErrorKind.INVALID_INPUT}


def calls(post_id: str, word: str) -> list[tuple[str, dict[str, Any], set[ErrorKind] | None]]:
    """(tool, arguments, the error kinds expected or None for "either way"), covering each
    tool with good arguments and with failing ones."""
    missing = "999999999"
    bad = {ErrorKind.INVALID_INPUT}
    return [
        ("trending", {"limit": 3}, None),
        ("trending", {"limit": 0}, bad),
        ("search", {"query": word, "limit": 3}, None),
        ("search", {"query": "   "}, bad),
        ("get_post", {"post_id": post_id}, None),
        ("get_post", {"post_id": missing}, MISSING),
        ("get_comments", {"post_id": post_id, "limit": 5}, None),
        ("get_comments", {"post_id": missing}, MISSING),
        ("mentions", {"limit": 5}, None),
        ("mentions", {"since": "not-a-cursor"}, None),
        ("capabilities", {}, None),
        ("validate", {"action": "write_comment", "body": "Nice.", "post_id": post_id}, None),
        ("validate", {"action": "no_such_action"}, bad),
        ("write_post", {"title": "Hello", "body": "A short post."}, None),
        ("write_post", {"title": "Hello"}, bad),
        ("write_comment", {"post_id": post_id, "body": "Thanks for this."}, None),
        ("write_comment", {"post_id": missing, "body": "x"}, None),
        ("upvote", {"post_id": post_id}, None),
        ("upvote", {"post_id": ""}, bad),
    ]
