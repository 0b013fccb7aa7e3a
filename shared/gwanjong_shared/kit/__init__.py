"""The server kit: what a platform server is built from.

`server.build_platform_server` turns a `adapter.PlatformAdapter` into a FastMCP server that
speaks the contract (tool names, schemas, descriptions, time limits, errors as data via
`mcp_errors`, the rate window via `ratelimit.RateMeta`). Beside it: `http` (platform answers to
error kinds), `host_gate` (only the configured hosts), `once` (a write is never resent; its
lost answer is unsure), `ratelimit` (pacing on an injectable
clock), `target_cache` (one target read per write), `settings`, `cli`, `hosted` (the
`gwanjong.platforms` entry point), `logs`, `quiet`.
"""
