"""cli/link/jsonc.py: text edits of a JSON(C) document that keep every byte they do not touch."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gwanjong_gateway.cli.link.jsonc import JsonError, indent_unit, insert, parse, remove

ENTRY = {"command": "gwanjong", "args": ["--config", "/x/gateway.toml"]}


def inserted(text: str, entry: Any = ENTRY, key: str = "mcpServers") -> str:
    root = parse(text)
    servers = root.member(key)
    assert servers is not None
    return insert(text, servers.node, "gwanjong", entry, indent_unit(text, root))


def add_then_remove(text: str, key: str = "mcpServers") -> str:
    added = inserted(text, key=key)
    value = parse(added).value
    assert value[key]["gwanjong"] == ENTRY
    back = parse(added).member(key)
    assert back is not None
    return remove(added, back.node, "gwanjong")


@pytest.mark.parametrize(
    "text",
    [
        '{\r\n  "mcpServers": {\r\n    "a": {"command": "x"}\r\n  }\r\n}\r\n',  # CRLF
        '\ufeff{\n  "mcpServers": {"a": {"command": "x"}}\n}\n',  # a BOM, a one-line object
        '{"mcpServers": {"a": {"command": "x"}}, "b": [1, 2]}',  # all on one line
        '{\n  "mcpServers": {\n    "a": 1, // trailing comment\n  },\n}\n',  # JSONC
        '{\n  "mcpServers": {\n    // "old": {"command": "x"}\n  }\n}\n',  # only a comment
        '{\n  "mcpServers": { /* none yet */ }\n}\n',
    ],
)
def test_adding_then_removing_gives_back_every_byte(text: str) -> None:
    if "\r\n" in text:  # a CRLF file gets CRLF lines
        assert "\n" not in inserted(text).replace("\r\n", "")
    assert add_then_remove(text) == text


def test_an_empty_object_gets_the_member_on_its_own_lines() -> None:
    added = inserted('{\n  "theme": "x",\n  "mcpServers": {}\n}\n', {"command": "g"})
    assert '"mcpServers": {\n    "gwanjong": {\n      "command": "g"\n    }\n  }' in added
    assert json.loads(added)["theme"] == "x"


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('{"a": 1,, "b": 2}', "line 1 column 9"),
        ('{\n  "a": tru\n}', "line 2 column 8"),
        ("[" * 100_000, "nested too deeply"),
        ('{"a": 1} {"b": 2}', "more text after the end"),
        ("", "the text ends where a value should be"),
    ],
)
def test_what_is_not_json_is_refused_with_where(text: str, where: str) -> None:
    with pytest.raises(JsonError, match=where):
        parse(text)


@pytest.mark.parametrize(
    ("text", "comment"),
    [
        # a server added after ours, with a comment above it
        (
            '{\n  "mcpServers": {\n    "gwanjong": {"command": "g"},\n'
            '    // GitHub: the token is in the keychain\n    "github": {"command": "x"}\n  }\n}\n',
            "// GitHub: the token is in the keychain",
        ),
        # a note on the line before ours, which is the last one
        (
            '{\n  "mcpServers": {\n    "github": {"command": "x"}, // token expires in May\n'
            '    "gwanjong": {"command": "g"}\n  }\n}\n',
            "// token expires in May",
        ),
        # on one line after it: the line break that ends the comment stays
        ('{"mcpServers": {"a": 1, // note\n "gwanjong": 2}}', "// note"),
        # our entry alone, the person's notes around it
        (
            '{\n  "mcpServers": {\n    "gwanjong": {"command": "g"}, /* keep */\n  }\n}\n',
            "/* keep */",
        ),
    ],
)
def test_removing_our_entry_keeps_the_comments_around_it(text: str, comment: str) -> None:
    servers = parse(text).member("mcpServers")
    assert servers is not None
    left = remove(text, servers.node, "gwanjong")
    assert comment in left
    value = parse(left).value
    assert "gwanjong" not in value["mcpServers"]
    expected = dict(parse(text).value["mcpServers"])
    del expected["gwanjong"]
    assert value["mcpServers"] == expected
