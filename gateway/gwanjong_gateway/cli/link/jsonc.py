"""Edit one entry of a client's JSON config as text, leaving every other byte alone.

Configs may hold `//` and `/* */` comments (JSONC) that a parse-and-dump would drop, so
this parses JSON (comments, trailing commas) keeping where each member starts and ends,
and splices one member in or out. Adding then removing gives back the original bytes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"')
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_LITERALS = {"true": True, "false": False, "null": None}
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
    value_start: int
    value_end: int
    node: Node


@dataclass
class Node:
    """A parsed value; for an object, its members with their places in the text."""

    value: Any
    start: int
    end: int
    members: list[Member] = field(default_factory=list["Member"])
    is_object: bool = False

    def member(self, key: str) -> Member | None:
        found = [m for m in self.members if m.key == key]
        return found[-1] if found else None  # like json.loads: the last one wins


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, what: str) -> JsonError:
        return JsonError(self.text, self.pos, what)

    def skip(self) -> None:
        """Whitespace and comments."""
        text, n = self.text, len(self.text)
        while self.pos < n:
            ch = text[self.pos]
            if ch in " \t\r\n":
                self.pos += 1
            elif text.startswith("//", self.pos):
                end = text.find("\n", self.pos)
                self.pos = n if end < 0 else end + 1
            elif text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                if end < 0:
                    raise self.fail("a /* comment that is never closed")
                self.pos = end + 2
            else:
                return

    def value(self) -> Node:
        self.skip()
        if self.pos >= len(self.text):
            raise self.fail("the text ends where a value should be")
        ch, start = self.text[self.pos], self.pos
        if ch == "{":
            return self.obj()
        if ch == "[":
            return self.array()
        if ch == '"':
            return Node(self.string(), start, self.pos)
        for word, literal in _LITERALS.items():
            if self.text.startswith(word, self.pos):
                self.pos += len(word)
                return Node(literal, start, self.pos)
        match = _NUMBER.match(self.text, self.pos)
        if match is None:
            raise self.fail(f"unexpected {ch!r}")
        self.pos = match.end()
        return Node(json.loads(match.group()), start, self.pos)

    def string(self) -> str:
        match = _STRING.match(self.text, self.pos)
        if match is None:
            raise self.fail("a string that is not closed, or holds a bad escape or a raw newline")
        self.pos = match.end()
        decoded: str = json.loads(match.group())
        return decoded

    def items(self, close: str, each: Callable[[], None]) -> None:
        """An object's or array's items up to ``close`` (a trailing comma allowed)."""
        self.pos += 1
        while True:
            self.skip()
            if self.text.startswith(close, self.pos):
                break
            each()
            self.skip()
            if self.text.startswith(",", self.pos):
                self.pos += 1
            elif not self.text.startswith(close, self.pos):
                raise self.fail(f"expected , or {close} after a value")
        self.pos += 1

    def obj(self) -> Node:
        node = Node({}, self.pos, self.pos, is_object=True)

        def member() -> None:
            if not self.text.startswith('"', self.pos):
                raise self.fail('expected "key" or }')
            key_start = self.pos
            key = self.string()
            self.skip()
            if not self.text.startswith(":", self.pos):
                raise self.fail("expected : after a key")
            self.pos += 1
            child = self.value()
            node.members.append(Member(key, key_start, child.start, child.end, child))
            node.value[key] = child.value

        self.items("}", member)
        node.end = self.pos
        return node

    def array(self) -> Node:
        node = Node([], self.pos, self.pos)
        self.items("]", lambda: node.value.append(self.value().value))
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
        end = obj.members[-1].value_end
        return text[:end] + f",{nl}{at}{member}" + text[end:]
    inside = text[obj.start + 1 : obj.end - 1]
    if inside.strip():  # only comments inside: keep them after the new member
        return text[: obj.start + 1] + f"{nl}{at}{member}" + text[obj.start + 1 :]
    return text[: obj.start + 1] + f"{nl}{at}{member}{nl}{outer}" + text[obj.end - 1 :]


def replace(text: str, member: Member, value: Any, unit: str) -> str:
    at = _line_indent(text, member.key_start)
    rendered = render(value, unit, at, _newline(text))
    return text[: member.value_start] + rendered + text[member.value_end :]


def remove(text: str, obj: Node, key: str) -> str:
    """``text`` without the member ``key`` of ``obj`` (and the comma that went with it)."""
    i = max(i for i, m in enumerate(obj.members) if m.key == key)
    member = obj.members[i]
    if len(obj.members) == 1:
        return text[: obj.start + 1] + text[obj.end - 1 :]
    if i == len(obj.members) - 1:  # the last one: from the end of the one before it
        return text[: obj.members[i - 1].value_end] + text[member.value_end :]
    return text[: member.key_start] + text[obj.members[i + 1].key_start :]
