"""The one gateway.toml writer (the product's and the tests'): what it writes loads back
as written, hostile text included, and it never writes a bad file."""

from __future__ import annotations

import math
import tomllib
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

import pytest

from gwanjong_gateway.config import ConfigError, parse
from gwanjong_gateway.config.file import dumps, render, write_config
from gwanjong_gateway.config.load import load
from tests.gateway.helpers import config_text


def test_a_rendered_config_is_written_and_loads_back(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "gateway.toml"
    text = render(
        {"writes": "live", "state_dir": tmp_path / "state"},
        {"devto": {"env": {"DEVTO_BASE_URL": "http://127.0.0.1:9"}, "min_interval_s": 0}},
    )
    written = write_config(path, text)
    loaded, where = load(str(path), check_env=False)
    assert where == path and loaded == written
    assert loaded.gateway.writes == "live"
    assert loaded.platforms["devto"].env == {"DEVTO_BASE_URL": "http://127.0.0.1:9"}


def test_a_file_the_gateway_would_refuse_is_never_written(tmp_path: Path) -> None:
    path = tmp_path / "gateway.toml"
    with pytest.raises(ConfigError, match=r"mine\.toml:2: gateway\.writes"):
        write_config(path, render({"writes": "sometimes"}, {}), "mine.toml")
    assert not path.exists()


HOSTILE = [
    'a "quoted" word',
    "back\\slash and \\u0041 and \\n as text",
    "new\nline\r\nand\ttab",
    "\"\"\"triple\"\"\" and '''single'''",
    "control \x00 \x01 \x08 \x0c \x1b[2J \x1f \x7f",
    "unicode: 관종 ☃ 🦀 \u202e \u2028 \u00e9",
    "",
    "# not a comment = [not] {a table}",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_any_text_reads_back_as_written(text: str) -> None:
    doc = {
        "gateway": {"s": text, "list": [text, text], "inline": [{"k": text}]},
        "platforms": {"devto": {"env": {text or "empty": text}}},
        text: {text: text},  # keys too: quoted where they are not bare
    }
    assert tomllib.loads(dumps(doc)) == doc


def test_every_value_type_reads_back() -> None:
    doc = {
        "t": {
            "yes": True,
            "no": False,
            "n": -(2**62),
            "f": 0.1,
            "big": 1e300,
            "tiny": -5e-324,
            "inf": math.inf,
            "ninf": -math.inf,
            "nested": [[1, 2], ["a"], []],
            "empty": {},
            "path": PurePosixPath("/srv/with space/and\\slash"),
            "win": PureWindowsPath("C:\\Users\\ann\\gwanjong"),
        },
        "a": {"b": {"c": {"d": 1}}},
    }
    back = tomllib.loads(dumps(doc))
    assert back["t"]["path"] == "/srv/with space/and\\slash"
    assert back["t"]["win"] == "C:/Users/ann/gwanjong"
    expected = {**doc["t"], "path": back["t"]["path"], "win": back["t"]["win"]}
    assert back == {"t": expected, "a": doc["a"]}
    assert math.isnan(tomllib.loads(dumps({"x": math.nan}))["x"])


@pytest.mark.parametrize(
    ("doc", "why"),
    [
        ({"x": None}, "NoneType"),
        ({"x": "lone \ud800 surrogate"}, "surrogates not allowed"),
        ({"x": {1: "a"}}, "Keys must be strings"),
        ({"x": object()}, "object"),
    ],
)
def test_what_toml_cannot_hold_is_refused(doc: dict[str, Any], why: str) -> None:
    with pytest.raises((TypeError, ValueError), match=why):
        dumps(doc)


def test_the_tests_config_text_is_written_by_the_same_writer(tmp_path: Path) -> None:
    state = tmp_path / 'a "quoted" dir\\with\nnewline'
    text = config_text(
        state,
        ["devto"],
        settings={"expose": ["devto__get_post"]},
        tables={"safety": {"opt_out": ['devto:x"y']}},
        platform={"disclosure": '\n\n-- "bot" \\o/'},
    )
    config = parse(text)
    assert config.state_dir == state
    assert config.gateway.expose == ["devto__get_post"]
    assert config.safety.opt_out == ['devto:x"y']
    assert config.platforms["devto"].disclosure == '\n\n-- "bot" \\o/'
    assert text == render(
        {
            "writes": "live",
            "state_dir": state,
            "call_timeout_s": 8,
            "expose": ["devto__get_post"],
            "answer_within_s": 8,
        },
        {"devto": {"disclosure": '\n\n-- "bot" \\o/'}},
        {"safety": {"opt_out": ['devto:x"y']}},
    )
