"""The gateway holds no platform facts: a platform's name, host or brand words appear in
gateway code only where gateway.toml's defaults are written, and in the few lines listed
here with the reason. Everything else comes from the platform's own server (its profile).
Comments are not code and are not checked."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import gwanjong_gateway

GATEWAY = Path(gwanjong_gateway.__file__).parent
WORDS = re.compile(
    r"dev\.?to|bluesky|bsky|twitter|tweet|reddit|subreddit|x\.com|mastodon|fediverse|toot"
    r"|hacker\s?news|ycombinator|algolia",
    re.IGNORECASE,
)

#: whole modules that write gateway.toml's defaults
DEFAULTS = {
    "cli/init.py": "the starter gateway.toml that `gwanjong init` writes",
    "cli/demo.py": "the offline demo: the gateway.toml and script for the sandbox's six platforms",
}
#: single lines elsewhere, by a part of their text
LINES = {
    ("server.py", 'platforms=["devto"], limit=5'): "scout's example: public surface, unchanged",
    ("server.py", 'draft(opportunity_id="devto-1a2b3c")'): "draft's example: public surface",
    ("server.py", 'strike(opportunity_id="devto-1a2b3c"'): "strike's example: public surface",
    ("server.py", 'platform="devto")"""'): "setup's example: public surface, unchanged",
    ("cli/main.py", "description="): "the CLI's one-line description (`--help`)",
}


def mentions(path: Path) -> list[tuple[int, str]]:
    """(line number, line) for each platform word in a code or string token."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    found: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            continue
        for match in WORDS.finditer(token.string):
            found.add(token.start[0] + token.string.count("\n", 0, match.start()))
    return [(n, lines[n - 1]) for n in sorted(found)]


def test_no_platform_name_in_gateway_code_outside_the_defaults() -> None:
    unexpected: list[str] = []
    used: set[tuple[str, str]] = set()
    for path in sorted(GATEWAY.rglob("*.py")):
        name = path.relative_to(GATEWAY).as_posix()
        if name in DEFAULTS:
            continue
        for number, line in mentions(path):
            allowed = [key for key in LINES if key[0] == name and key[1] in line]
            used.update(allowed)
            if not allowed:
                unexpected.append(f"{name}:{number}: {line.strip()}")
    assert not unexpected, "platform facts belong in the platform's server:\n" + "\n".join(
        unexpected
    )
    assert used == set(LINES), f"stale allow-list entries: {set(LINES) - used}"
    assert all((GATEWAY / name).is_file() for name in DEFAULTS)


def test_the_check_sees_a_name_in_code_and_strings_but_not_in_comments(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        '# a comment about reddit\nX = {"dev.to": 1}\nDOC = """line\nBluesky here"""\n',
        encoding="utf-8",
    )
    assert [n for n, _ in mentions(sample)] == [2, 4]
