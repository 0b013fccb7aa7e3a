"""The README stays a short front door, and no relative link in it or in docs/ is broken.

GitHub renders these files as they are, so a link must name a file that exists (and, with
`#anchor`, a heading in it); `mkdocs build --strict` checks docs/ again for the site.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README_MAX_LINES = 300
#: the Markdown files GitHub shows beside the code, besides docs/
FRONT = ("README.md", "gateway/README.md", "sandbox/README.md", "shared/README.md")

_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)
_CODE = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"!?\[[^\]\n]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)


def markdown_files() -> list[Path]:
    return [ROOT / f for f in FRONT] + sorted((ROOT / "docs").rglob("*.md"))


def _prose(text: str) -> str:
    """The text without fenced blocks and inline code, where brackets are not links."""
    return _CODE.sub("", _FENCE.sub("", text))


def slug(heading: str) -> str:
    """The anchor GitHub and MkDocs give an (ASCII) heading."""
    text = heading.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    return {slug(h) for h in _HEADING.findall(_FENCE.sub("", path.read_text(encoding="utf-8")))}


def broken_links(path: Path) -> list[str]:
    """Each relative link in `path` whose file, or heading, does not exist."""
    problems: list[str] = []
    for target in _LINK.findall(_prose(path.read_text(encoding="utf-8"))):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        if not dest.exists():
            problems.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            problems.append(f"{target}: no heading #{anchor} in {dest.name}")
    return problems


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path: Path) -> None:
    assert path.exists(), f"{path} is missing"
    assert broken_links(path) == [], f"{path.relative_to(ROOT)}: broken links"


def test_readme_is_a_short_front_door_with_the_test_commands() -> None:
    """.ci/run runs the README's test commands; a reader must find them there."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = text.count("\n")
    assert lines <= README_MAX_LINES, (
        f"README.md has {lines} lines; keep it at most {README_MAX_LINES} and move "
        "reference text into docs/"
    )
    for command in ("uv run pytest\n", "uv run pytest --all-tiers", "bash scripts/check"):
        assert command.strip() in text


def test_a_broken_link_is_found(tmp_path: Path) -> None:
    """The checker itself: a missing file, a missing heading, and links it must ignore."""
    (tmp_path / "there.md").write_text("# Here it is\n\n## A `code` heading\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](there.md) [ok](there.md#here-it-is) [ok](there.md#a-code-heading)\n"
        "[web](https://example.com/x.md) `[code](nowhere.md)`\n"
        "```\n[fenced](nowhere.md)\n```\n"
        "[gone](missing.md) [bad anchor](there.md#nope)\n",
        encoding="utf-8",
    )
    assert broken_links(page) == [
        "missing.md: no such file",
        "there.md#nope: no heading #nope in there.md",
    ]
