"""The MCP Registry entries: seven `server.json` files valid against the published schema
(the copy in schemas/), in step with their packages, and the `mcp-name:` line the registry
reads in each package's README to verify that the PyPI package is ours.

Offline and in-process (fast tier): the schema is the repository's copy, the facts come
from each package's pyproject.toml and its server's own settings and profile.
"""

from __future__ import annotations

import importlib
import json
import re
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from pydantic import SecretStr
from pydantic.fields import FieldInfo

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_URL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
#: the platforms the gateway bundles (its server.json names their credentials), each with a
#: registry entry of its own
PLATFORMS = ("devto", "bluesky", "twitter", "reddit", "mastodon", "hackernews")
#: package folder -> the server.json in it
PACKAGES = {"gateway": ROOT / "gateway", **{p: ROOT / "servers" / p for p in PLATFORMS}}


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _project(folder: Path) -> dict[str, Any]:
    return tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _validator() -> jsonschema.Draft7Validator:
    schema = _json(ROOT / "schemas" / "server.schema.json")
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(
        schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER
    )


def _env(entry: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every environment variable a server.json names, by name; each package must name
    the same ones (the stdio and the HTTP way of running one package)."""
    packages = entry["packages"]
    first = {v["name"]: v for v in packages[0].get("environmentVariables", [])}
    for package in packages[1:]:
        assert {v["name"]: v for v in package.get("environmentVariables", [])} == first
    return first


def _secret(field: FieldInfo) -> bool:
    ann = field.annotation
    return ann is SecretStr or SecretStr in getattr(ann, "__args__", ())


def test_the_schema_copy_is_the_published_2025_12_11_one() -> None:
    schema = _json(ROOT / "schemas" / "server.schema.json")
    assert schema["$id"] == SCHEMA_URL
    readme = (ROOT / "schemas" / "README.md").read_text(encoding="utf-8")
    assert SCHEMA_URL in readme and re.search(r"Copied on \d{4}-\d{2}-\d{2}", readme)


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_server_json_is_valid_and_names_the_package_its_version_and_console_script(
    package: str,
) -> None:
    folder = PACKAGES[package]
    project = _project(folder)
    entry = _json(folder / "server.json")
    assert entry["$schema"] == SCHEMA_URL
    problems = [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in _validator().iter_errors(entry)
    ]
    assert problems == []
    assert entry["version"] == project["version"]
    assert entry["name"] == f"io.github.gwanjong/{project['name']}"
    transports = set()
    for p in entry["packages"]:
        assert (p["registryType"], p["identifier"], p["version"]) == (
            "pypi",
            project["name"],
            project["version"],
        )
        # `uvx <identifier>` runs the console script of the same name
        assert p["runtimeHint"] == "uvx" and p["identifier"] in project["scripts"]
        transports.add(p["transport"]["type"])
    assert transports == {"stdio", "streamable-http"}
    # the registry reads the ownership line in the README: the exact name followed by a
    # boundary (space, newline, tag, -->)
    readme = (folder / project["readme"]).read_text(encoding="utf-8")
    name = entry["name"]
    assert re.search(rf"mcp-name: {re.escape(name)}(?=\s|<|-->|$)", readme, re.M), name


def test_the_validator_refuses_what_the_registry_refuses() -> None:
    """The check can fail: a name without a namespace, a `latest` version and a package
    without its transport are each caught."""
    entry = _json(PACKAGES["devto"] / "server.json")
    entry["name"] = "gwanjong-devto"
    entry["packages"][0]["version"] = "latest"
    del entry["packages"][1]["transport"]
    messages = [e.message for e in _validator().iter_errors(entry)]
    assert len(messages) == 3, messages


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_platform_server_json_names_every_variable_its_settings_read(platform: str) -> None:
    settings = importlib.import_module(f"gwanjong_{platform}.settings").Settings
    prefix = settings.model_config["env_prefix"]
    read = {f"{prefix}{name.upper()}": f for name, f in settings.model_fields.items()}
    named = _env(_json(PACKAGES[platform] / "server.json"))
    assert sorted(named) == sorted(read)
    for var, field in read.items():
        assert named[var].get("isSecret", False) is _secret(field), var


def test_the_gateway_server_json_names_its_config_and_every_platform_credential() -> None:
    named = _env(_json(PACKAGES["gateway"] / "server.json"))
    assert named["GWANJONG_CONFIG"]["format"] == "filepath"
    assert not named["GWANJONG_CONFIG"].get("isSecret", False)
    expected = {"GWANJONG_CONFIG"}
    for platform in PLATFORMS:
        settings = importlib.import_module(f"gwanjong_{platform}.settings").Settings
        prefix = settings.model_config["env_prefix"]
        profile = importlib.import_module(f"gwanjong_{platform}.profile").PROFILE
        assert profile.setup is not None
        for var in profile.setup.credentials:
            field = settings.model_fields[var.removeprefix(prefix).lower()]
            assert named[var].get("isSecret", False) is _secret(field), var
            expected.add(var)
    assert set(named) == expected
