"""Every result of every platform tool, a success or a failure, conforms to the output
schema the tool declares (the MCP spec's MUST, which strict hosts such as the TS SDK and
Inspector 2.x enforce on error results too), and a failure's text says what its data does. In-process, through the real SDKs and the
sandbox; tests/external checks the same with the Node clients themselves."""

from __future__ import annotations

import json

import pytest
from fastmcp import Client
from jsonschema import Draft202012Validator

from gwanjong_sandbox.control import SandboxControl
from gwanjong_shared.contract.errors import ErrorResult, parse_error
from tests.platforms import SPECS
from tests.servers.wire.contract_calls import calls

pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]


@pytest.mark.parametrize("name", list(SPECS))
async def test_every_result_matches_the_declared_schema(name: str, sandbox: SandboxControl) -> None:
    spec = SPECS[name]
    post_id = sandbox.ids(name)["rust-async"]
    async with Client(spec.build(sandbox.url)) as client:
        tools = {t.name: t for t in await client.list_tools()}  # the contract's: test_reads
        validators: dict[str, Draft202012Validator] = {}
        for tool in tools.values():
            assert tool.output_schema is not None, tool.name
            # inlined once when registered: the server does not dereference per request
            assert "$ref" not in json.dumps([tool.input_schema, tool.output_schema]), tool.name
            Draft202012Validator.check_schema(tool.output_schema)
            validators[tool.name] = Draft202012Validator(tool.output_schema)
        errors_seen = 0
        for tool, args, expected in calls(post_id, spec.search_word):
            result = await client.call_tool_mcp(tool, args)
            data = result.structured_content
            assert isinstance(data, dict), (tool, args, result.content)
            problems = [e.message for e in validators[tool].iter_errors(data)]
            assert not problems, (tool, args, problems, data)
            if result.is_error:
                errors_seen += 1
                error = ErrorResult.model_validate(data).error
                assert expected is None or error.kind in expected, (tool, args, error)
                # the text says the same, for people and agents that read text only
                text = " ".join(getattr(c, "text", "") for c in result.content)
                assert parse_error(text) == (error.kind, error.message, error.retry_after)
            else:
                assert expected is None, (tool, args, "succeeded")
                assert "error" not in data
        assert errors_seen >= 7  # the failing calls above did fail, and still conformed
