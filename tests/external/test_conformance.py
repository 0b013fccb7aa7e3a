"""The official MCP conformance suite (0.2, `--requirements` per spec revision) against the
gateway over streamable HTTP, in both protocol eras, as a gate.

Many scenarios call fixture tools, prompts and resources (`test_image_content`,
`test://static-text`, `slow_compute`, ...) that only the suite's reference server has; the
gateway serves its own five tools. So every scenario is named below in exactly one list:

- GENUINE: it tests the gateway itself and must pass (every check);
- VACUOUS: it passes today only because our answer to a missing fixture tool happens to
  look like what it checks (an isError result); it may pass or fail;
- FIXTURES: it needs the reference server's fixtures, or an optional feature the gateway
  does not offer (completion, resource subscriptions, the Tasks extension); it fails.

A scenario the suite adds, or one that moves, fails the test until it is listed. Every
scenario, whatever its list, must pass the suite's `wire-schema-valid` check (each message
we sent is valid per the spec's JSON schema). docs/develop/external-clients.md gives the
figures.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.config import config_file
from tests.external.tools import CONFORMANCE, NODE22, need
from tests.gateway.http_gateway import http_gateway

pytestmark = pytest.mark.e2e
PASSING = {"SUCCESS", "INFO", "SKIPPED"}

GENUINE = {
    "2025-11-25": {
        "server-initialize",
        "server-session-lifecycle",  # scored from a later release
        "logging-set-level",
        "ping",
        "tools-list",
        "server-sse-multiple-streams",
        "resources-list",
        "prompts-list",
        "dns-rebinding-protection",
    },
    "2026-07-28": {
        "server-stateless",  # but for the two fixture checks in FIXTURE_CHECKS
        "tools-list",
        "server-sse-multiple-streams",
        "resources-list",
        "sep-2164-resource-not-found",
        "prompts-list",
        "dns-rebinding-protection",
        "caching",
        "http-header-validation",
        "input-required-result-unsupported-methods",
    },
}
# Checks of a genuine scenario that need a fixture tool only the reference server lists
# (`test_missing_capability`, `test_streaming_elicitation`, `test_logging_tool`): the suite
# reports them "not testable" (before unknown tools were -32602, two passed by accident).
FIXTURE_CHECKS = frozenset(
    {
        "sep-2575-server-rejects-undeclared-capability",
        "sep-2575-missing-capability-http-400",
        "sep-2575-http-server-no-independent-requests-on-stream",
        "sep-2575-server-no-log-without-loglevel",
    }
)
VACUOUS = {
    "2025-11-25": {"tools-call-simple-text", "tools-call-error"},
    "2026-07-28": {
        "tools-call-simple-text",
        "tools-call-error",
        "input-required-result-missing-input-response",
        "input-required-result-ignore-extra-params",
        "input-required-result-validate-input",
        "tasks-status-notifications",  # the suite skips its only check
    },
}
_CONTENT = {
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-with-progress",
    "resources-read-text",
    "resources-read-binary",
    "resources-templates-read",
    "prompts-get-simple",
    "prompts-get-with-args",
    "prompts-get-embedded-resource",
    "prompts-get-with-image",
    "json-schema-2020-12",
    "completion-complete",  # FastMCP serves no completion/complete
}
FIXTURES = {
    "2025-11-25": _CONTENT
    | {
        "tools-call-with-logging",
        "tools-call-sampling",
        "tools-call-elicitation",
        "elicitation-sep1034-defaults",
        "elicitation-sep1330-enums",
        "server-sse-polling",
        "resources-subscribe",  # FastMCP serves no resources/subscribe
        "resources-unsubscribe",
    },
    "2026-07-28": _CONTENT
    | {
        "http-custom-header-server-validation",  # needs a tool with x-mcp-header params
        *(
            f"input-required-result-{name}"
            for name in (
                "basic-elicitation",
                "basic-sampling",
                "basic-list-roots",
                "request-state",
                "multiple-input-requests",
                "multi-round",
                "non-tool-request",
                "result-type",
                "tampered-state",
                "capability-check",
            )
        ),
        *(
            f"tasks-{name}"  # the Tasks extension: not offered (its fixtures neither)
            for name in (
                "lifecycle",
                "capability-negotiation",
                "wire-fields",
                "request-state-removal",
                "mrtr-input",
                "request-headers",
                "dispatch-and-envelope",
                "required-task-error",
                "mrtr-composition",
            )
        ),
    },
}


def run_suite(era: str, tmp_path: Path) -> dict[str, list[dict[str, object]]]:
    """Each scenario's checks, from the suite's results directory."""
    node, suite = need(NODE22), need(CONFORMANCE)
    # A platform that is never reached: the suite only talks to the gateway itself.
    devto = {"env": {"DEVTO_BASE_URL": "http://127.0.0.1:9"}}
    config = config_file(tmp_path, ["devto"], None, {"call_timeout_s": 20}, others={"devto": devto})
    results = tmp_path / "results"
    with http_gateway(config, log_level="WARNING") as running:
        command = [str(node), str(suite), "server", "--url", running.url]
        run = subprocess.run(
            [*command, "--requirements", era, "-o", str(results)],
            capture_output=True,
            text=True,
            timeout=900,
        )
    assert "=== SUMMARY ===" in run.stdout, run.stdout[-2000:] + run.stderr[-2000:]
    scenarios: dict[str, list[dict[str, object]]] = {}
    for checks in results.glob("*/checks.json"):
        match = re.match(r"^server-(.+)-\d{4}-\d{2}-\d{2}T", checks.parent.name)
        assert match, checks.parent.name
        scenarios[match.group(1)] = json.loads(checks.read_text(encoding="utf-8"))
    return scenarios


def failed(checks: list[dict[str, object]], allowed: frozenset[str] = frozenset()) -> list[str]:
    return [
        f"{c.get('id')}: {c.get('errorMessage') or c.get('description')}"
        for c in checks
        if c.get("status") not in PASSING and c.get("id") not in allowed
    ]


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
def test_conformance_suite(era: str, tmp_path: Path) -> None:
    scenarios = run_suite(era, tmp_path)
    genuine, vacuous, fixtures = GENUINE[era], VACUOUS[era], FIXTURES[era]
    assert not (genuine & vacuous or genuine & fixtures or vacuous & fixtures)
    # Every scenario the suite ran is listed (a new one fails here until it is).
    assert set(scenarios) == genuine | vacuous | fixtures, (
        f"unlisted: {sorted(set(scenarios) - genuine - vacuous - fixtures)}; "
        f"not run: {sorted(genuine | vacuous | fixtures - set(scenarios))}"
    )
    bad = {name: failed(scenarios[name], FIXTURE_CHECKS) for name in genuine}
    assert {name: why for name, why in bad.items() if why} == {}
    # The listed non-genuine ones fail for want of a fixture, so the figures stay true.
    assert all(failed(scenarios[name]) for name in fixtures), [
        name for name in fixtures if not failed(scenarios[name])
    ]
    wire = {
        name: [c for c in checks if c.get("id") == "wire-schema-valid"]
        for name, checks in scenarios.items()
    }
    assert {name: failed(w) for name, w in wire.items() if failed(w)} == {}
