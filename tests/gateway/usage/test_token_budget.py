"""The tool list is what every request costs the model: its budget is pinned here, with
the same count as `bench/wire/tokens.py` (name + description + inputSchema, o200k)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastmcp import Client

from gwanjong_gateway.config import parse
from gwanjong_gateway.server import build_gateway
from gwanjong_gateway.usage.token_count import count_tokens, tool_list_tokens
from tests.gateway.helpers import config_text, patient_gateway

pytestmark = pytest.mark.anyio

# Issue 24: at most 960 tokens as the model sees the list (name, description, inputSchema:
# what hosts put into the context); measured 958 (the result shapes moved from the
# descriptions into the output schemas).
MODEL_VIEW_BUDGET = 960
# Issue 24: the whole tools/list JSON, output schemas included (each tool's typed result or
# the error shape, docs/develop/results.md), annotations and _meta; measured 4,316. Issue 22
# added strike's pending_approval answer and status's approvals and decisions: 4,622.
WHOLE_JSON_BUDGET = 1950


async def test_the_tool_list_stays_within_its_token_budget(tmp_path: Path) -> None:
    config = parse(config_text(tmp_path, []))
    async with Client(build_gateway(config, gateway=patient_gateway(config))) as client:
        tools = await client.list_tools()
    assert {t.name for t in tools} == {"scout", "draft", "strike", "status", "setup"}
    seen = [
        {"name": t.name, "description": t.description or "", "input_schema": t.input_schema}
        for t in tools
    ]
    model_view = count_tokens(json.dumps(seen, ensure_ascii=False, separators=(",", ":")))
    assert model_view <= MODEL_VIEW_BUDGET, model_view
    assert tool_list_tokens(tools) <= WHOLE_JSON_BUDGET
