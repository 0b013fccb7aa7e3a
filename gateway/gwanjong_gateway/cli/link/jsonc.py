"""Edit one entry of a client's JSON config as text, leaving every other byte alone.

Configs may hold `//` and `/* */` comments (JSONC) that a parse-and-dump would drop, so
this reads JSON with comments and trailing commas, keeping where each member of an object
starts and ends, and splices one member in or out. Adding then removing gives back the
original bytes. The values are read by the standard library's decoder, on a copy of the
text whose comments and trailing commas are blanked out (the same length, the same lines).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

# kept as it is (a comment or comma inside is text); unrolled, a run of plain characters
# at a time: one alternation per character took seconds on a 17 MB ~/.claude.json
_STRING = r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"'
_COMMENT = re.compile(_STRING + r"|//[^\n]*|/\*.*?\*/|/\*", re.S)
#: a comma after a value (a string, a number, a literal, a closed array or object) and
#: before `}` or `]`: the trailing comma JSONC allows
_TRAILING_COMMA = re.compile(_STRING + r'|(?<=[\]}\w"])(\s*),(?=\s*[}\]])')


def _not_json(word: str) -> None:
    raise ValueError(f"{word} is not JSON")


_DECODER = json.JSONDecoder(parse_constant=_not_json)  # NaN, Infinity
BOM = "\ufeff"


class JsonError(ValueError):
    """The text is not JSON (nor JSON with comments); says where, in the person's terms."""

    def __init__(self, text: str, pos: int, what: str) -> None:
        line = text.count("\n", 0, pos) + 1
        col = pos - (text.rfind("\n", 0, pos) + 1) + 1
        super().__init__(f"line {line} column {col}: {what}")


@dataclass
class Member:
    key: str
    key_start: int
    node: Node


@dataclass
class Node:
    """A parsed value; for an object, its members with their places in the text."""

    value: Any
    start: int
    end: int
    members: list[Member] = field(default_factory=list["Member"])

    @property
    def is_object(self) -> bool:
        return isinstance(self.value, dict)  # only `obj` makes one (a dict in a list is inside)

    def member(self, key: str) -> Member | None:
        found = [m for m in self.members if m.key == key]
        return found[-1] if found else None  # like json.loads: the last one wins


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        plain = _COMMENT.sub(self.blank_comment, text)
        self.plain = _TRAILING_COMMA.sub(lambda m: m[0] if m[1] is None else m[1] + " ", plain)

    def blank_comment(self, match: re.Match[str]) -> str:
        """A comment as spaces (its line breaks kept); a string as it is."""
        found = match.group()
        if found == "/*":
            self.pos = match.start()
            raise self.fail("a /* comment that is never closed")
        return _blanked(found)

    def fail(self, what: str) -> JsonError:
        return JsonError(self.text, self.pos, what)

    def skip(self) -> None:
        self.pos = _past_space(self.plain, self.pos)

    def value(self) -> Node:
        self.skip()
        if self.pos >= len(self.plain):
            raise self.fail("the text ends where a value should be")
        if self.plain[self.pos] == "{":
            return self.obj()
        start = self.pos
        try:
            value, self.pos = _DECODER.raw_decode(self.plain, start)
        except ValueError as exc:
            self.pos = getattr(exc, "pos", start)
            raise self.fail(str(getattr(exc, "msg", exc)).lower().removesuffix(" at")) from None
        return Node(value, start, self.pos)

    def obj(self) -> Node:
        node = Node({}, self.pos, self.pos)
        self.pos += 1
        self.skip()
        while not self.plain.startswith("}", self.pos):
            if not self.plain.startswith('"', self.pos):
                raise self.fail('expected "key" or }')
            key_start = self.pos
            key = self.value().value
            self.skip()
            if not self.plain.startswith(":", self.pos):
                raise self.fail("expected : after a key")
            self.pos += 1
            child = self.value()
            node.members.append(Member(key, key_start, child))
            node.value[key] = child.value
            self.skip()
            if self.plain.startswith(",", self.pos):
                self.pos += 1
                self.skip()
            elif not self.plain.startswith("}", self.pos):
                raise self.fail("expected , or } after a value")
        self.pos += 1
        node.end = self.pos
        return node


def parse(text: str) -> Node:
    """The whole document (a BOM first is allowed); JsonError when it is not JSON(C)."""
    parser = _Parser(text)
    if text.startswith(BOM):
        parser.pos = 1
    try:
        root = parser.value()
    except RecursionError:
        raise parser.fail("values nested too deeply") from None
    parser.skip()
    if parser.pos != len(text):
        raise parser.fail("more text after the end of the document")
    return root


# -- splicing ---------------------------------------------------------------------------


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _line_indent(text: str, pos: int) -> str:
    """The whitespace that starts the line holding ``pos``."""
    start = text.rfind("\n", 0, pos) + 1
    match = re.match(r"[ \t]*", text[start:])
    return match.group() if match else ""


def indent_unit(text: str, root: Node) -> str:
    """The file's own indentation step (two spaces when it shows none)."""
    for m in root.members:
        indent = _line_indent(text, m.key_start)
        if indent and text.rfind("\n", 0, m.key_start) > root.start:
            return indent
    return "  "


def render(value: Any, unit: str, at: str, newline: str) -> str:
    """``value`` as JSON in the file's style, its lines after the first indented by ``at``."""
    lines = json.dumps(value, indent=unit, ensure_ascii=False).split("\n")
    return (newline + at).join(lines)


def insert(text: str, obj: Node, key: str, value: Any, unit: str) -> str:
    """``text`` with ``"key": value`` added as the last member of ``obj``."""
    nl = _newline(text)
    outer = _line_indent(text, obj.start)
    at = outer + unit  # unless its members are on lines of their own (not `{"a": 1}`)
    first = obj.members[0].key_start if obj.members else obj.start
    if text.rfind("\n", 0, first) > obj.start:
        at = _line_indent(text, first)
    member = f"{json.dumps(key)}: {render(value, unit, at, nl)}"
    if obj.members:
        end = obj.members[-1].node.end
        return text[:end] + f",{nl}{at}{member}" + text[end:]
    inside = text[obj.start + 1 : obj.end - 1]
    if inside.strip():  # only comments inside: keep them after the new member
        return text[: obj.start + 1] + f"{nl}{at}{member}" + text[obj.start + 1 :]
    return text[: obj.start + 1] + f"{nl}{at}{member}{nl}{outer}" + text[obj.end - 1 :]


def replace(text: str, member: Member, value: Any, unit: str) -> str:
    at = _line_indent(text, member.key_start)
    rendered = render(value, unit, at, _newline(text))
    return text[: member.node.start] + rendered + text[member.node.end :]


def _blanked(found: str) -> str:
    """A comment as spaces (its line breaks kept); a string as it is."""
    return found if found.startswith('"') else re.sub(r"[^\n]", " ", found)


_SHOWN = re.compile(_STRING + r"(\s*:)?|//[^\n]*|/\*.*?\*/|/\*", re.S)


def masked(text: str, keep: frozenset[str]) -> str:
    """``text`` (JSON it read) with every string value but those in ``keep`` as "…", keys
    and comments as they are: a client's config holds other servers' keys and secret URLs."""

    def one(m: re.Match[str]) -> str:
        shown = not m[0].startswith('"') or m[1] or json.loads(m[0]) in keep
        return m[0] if shown else '"…"'

    return _SHOWN.sub(one, text)


def _bare(text: str) -> str:
    """``text`` with its comments blanked (same length), its trailing commas kept."""
    return _COMMENT.sub(lambda m: _blanked(m[0]), text)


def _past_space(text: str, pos: int) -> int:
    while text.startswith((" ", "\t", "\r", "\n"), pos):
        pos += 1
    return pos


def _past_comma(bare: str, pos: int) -> int:
    """Just past the comma after the value that ends at ``pos``; ``pos`` when there is none."""
    at = _past_space(bare, pos)
    return at + 1 if bare.startswith(",", at) else pos


def remove(text: str, obj: Node, key: str) -> str:
    """``text`` without the member ``key`` of ``obj`` (and the comma that went with it);
    the person's comments around it stay."""
    i = max(i for i, m in enumerate(obj.members) if m.key == key)
    member = obj.members[i]
    bare = _bare(text)
    if len(obj.members) == 1:
        end = _past_comma(bare, member.node.end)
        before = text[obj.start + 1 : member.key_start]
        if before.strip():  # comments before it: cut only the member
            return text[: member.key_start] + text[end:]
        if text[end : obj.end - 1].strip():  # comments after it (or in place of it)
            return text[: obj.start + 1] + text[end:]
        return text[: obj.start + 1] + text[obj.end - 1 :]
    if i == len(obj.members) - 1:  # the last one: from the comma of the one before it
        comma = _past_comma(bare, obj.members[i - 1].node.end) - 1
        gap = text[comma + 1 : member.key_start]
        kept = gap.rstrip(" \t\r\n")  # a comment on that line, or above ours
        if kept and not re.match(r"[ \t]*\r?\n", text[member.node.end :]):
            kept = gap  # its line break too: a `//` comment must not swallow what follows
        return text[:comma] + kept + text[member.node.end :]
    end = _past_space(text, _past_comma(bare, member.node.end))  # up to a comment
    return text[: member.key_start] + text[end:]
