"""openai-agents (run by .tools/py/openai-agents/bin/python): `MCPServerStreamableHttp` over
plain HTTP. With `mcp` 2.x installed the SDK connects through `mcp.Client(mode="auto")`,
which picks the 2026-07-28 era (no protocol session). The tools are the ones an `Agent`
hands its model (`Agent.get_mcp_tools`, with `convert_schemas_to_strict`), invoked through
their `on_invoke_tool` as a run does, with no model. The report names each tool's strict
flag: a schema the SDK cannot make strict is served to the model non-strict."""

# pyright: reportMissingImports=false
from __future__ import annotations

import asyncio
import json
from typing import Any

import flow
import httpx2
from agents import Agent, RunContextWrapper
from agents.mcp import MCPServerStreamableHttp
from agents.tool_context import ToolContext


async def main() -> None:
    args = flow.arguments()
    wire = flow.Wire()

    def watched(headers: Any = None, timeout: Any = None, auth: Any = None) -> Any:
        # The SDK's own default client (follow_redirects off), plus a hook that only looks.
        return httpx2.AsyncClient(
            headers=headers,
            timeout=timeout,
            auth=auth,
            follow_redirects=False,
            event_hooks={"response": [wire.hook]},
        )

    params: dict[str, Any] = {"url": args.url, "httpx_client_factory": watched, "timeout": 60}
    if args.token:
        params["headers"] = flow.headers(args)
    server = MCPServerStreamableHttp(
        params,  # type: ignore[arg-type]
        name="gwanjong",
        client_session_timeout_seconds=120,  # the default 5 s is less than a cold scout
        use_structured_content=True,  # the gateway's results are structured
    )
    async with server:
        agent = Agent(
            name="probe",
            mcp_servers=[server],
            mcp_config={"convert_schemas_to_strict": True},
        )
        context: RunContextWrapper[None] = RunContextWrapper(context=None)
        tools = {t.name: t for t in await agent.get_mcp_tools(context)}

        async def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
            raw = json.dumps(arguments)
            tool_context = ToolContext(
                context=None, tool_name=name, tool_call_id=f"call-{name}", tool_arguments=raw
            )
            output = await tools[name].on_invoke_tool(tool_context, raw)
            # The SDK hands over the structured result as a JSON string; an isError result
            # keeps its text content (a {"type": "text"} item).
            if isinstance(output, str):
                try:
                    parsed = json.loads(output)
                except ValueError:
                    return {"error": output}
                return parsed if isinstance(parsed, dict) else {"error": output}
            items = output if isinstance(output, list) else [output]
            return {"error": "\n".join(str(i.get("text", i)) for i in items)}

        report = await flow.run(call, args)
        report["tools"] = sorted(tools)
        report["strict"] = {name: bool(t.strict_json_schema) for name, t in tools.items()}
        report["protocol"] = server.session.protocol_version if server.session else None
    report["wire"] = wire.report()
    flow.emit(report)


if __name__ == "__main__":
    asyncio.run(main())
