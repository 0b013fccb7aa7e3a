// A stock MCP client driven by pytest (tests/external/node.py), one JSON line at a time.
//
//   node client.mjs '<config json>'   config: {sdk: "v1"|"v2", pin?: "2026-07-28",
//       server: {command, args, env} | {url}, modules: "<.tools/node/node_modules>"}
//
// It connects and lists the tools (so the SDK compiles each tool's output validator, as a
// host does), prints {"ready": ...}, then for each line read from stdin
//   {"op": "list", "refresh"?: true} | {"op": "call", "name", "arguments"}
// prints {"ok": true, "result", "raw"} or {"ok": false, "error": {code, message, name}}.
// `raw` holds the JSON-RPC results exactly as they arrived (the SDK's parsed view may drop
// fields), so the test can check the wire's required fields. Nothing is validated here:
// the SDK's own checks run (output validation ON, its default) and pytest judges.
import { createInterface } from "node:readline";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const config = JSON.parse(process.argv[2]);
const mod = (path) => import(pathToFileURL(join(config.modules, path)).href);
const out = (value) => process.stdout.write(JSON.stringify(value) + "\n");

let Client, Stdio, Http, getDefaultEnvironment;
if (config.sdk === "v1") {
  ({ Client } = await mod("@modelcontextprotocol/sdk/dist/esm/client/index.js"));
  ({ StdioClientTransport: Stdio, getDefaultEnvironment } = await mod(
    "@modelcontextprotocol/sdk/dist/esm/client/stdio.js",
  ));
  ({ StreamableHTTPClientTransport: Http } = await mod(
    "@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js",
  ));
} else {
  ({ Client, StreamableHTTPClientTransport: Http } = await mod(
    "@modelcontextprotocol/client/dist/index.mjs",
  ));
  ({ StdioClientTransport: Stdio, getDefaultEnvironment } = await mod(
    "@modelcontextprotocol/client/dist/stdio.mjs",
  ));
}

const server = config.server;
const transport = server.url
  ? new Http(new URL(server.url))
  : new Stdio({
      command: server.command,
      args: server.args,
      env: { ...(getDefaultEnvironment ? getDefaultEnvironment() : {}), ...server.env },
      stderr: "inherit",
    });
const options = config.pin ? { versionNegotiation: { mode: { pin: config.pin } } } : {};
const client = new Client({ name: `gwanjong-strict-${config.sdk}`, version: "1.0.0" }, options);

const raw = [];
function describe(error) {
  return {
    code: error?.code ?? null,
    message: String(error?.message ?? error).slice(0, 2000),
    name: error?.constructor?.name ?? typeof error,
  };
}

try {
  await client.connect(transport);
} catch (error) {
  out({ ok: false, error: describe(error) });
  process.exit(1);
}
// After connect the SDK owns transport.onmessage: see each message first, then pass it on.
const dispatch = transport.onmessage;
transport.onmessage = (message, extra) => {
  if (message && "result" in message) raw.push(message.result);
  return dispatch.call(transport, message, extra);
};
const take = () => raw.splice(0, raw.length);

async function run(command) {
  if (command.op === "list") {
    return client.listTools(undefined, command.refresh ? { cacheMode: "refresh" } : undefined);
  }
  if (command.op === "call") {
    return client.callTool({ name: command.name, arguments: command.arguments ?? {} });
  }
  throw new Error(`unknown op ${command.op}`);
}

try {
  const listed = await client.listTools();
  out({
    ready: true,
    era: client.getProtocolEra ? client.getProtocolEra() : "legacy",
    protocolVersion: client.getNegotiatedProtocolVersion
      ? client.getNegotiatedProtocolVersion()
      : (client.transport?.protocolVersion ?? null),
    tools: listed.tools,
    raw: take(),
  });
} catch (error) {
  out({ ok: false, error: describe(error), raw: take() });
  process.exit(1);
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  const command = JSON.parse(line);
  try {
    const result = await run(command);
    out({ ok: true, result, raw: take() });
  } catch (error) {
    out({ ok: false, error: describe(error), raw: take() });
  }
}
await client.close();
