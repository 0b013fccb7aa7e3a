"""The benchmarks, in rooms by what they measure: `record/` (the strike record's cost),
`wire/` (what crosses MCP and its latency), `start/` (start-up, memory and CPU of the
processes) and `console/` (the web console's pages). Here at the top stay the pieces the
rooms share: `common` (the sandbox, configs, clients, tables) and `baselines` (what a user
would build instead of the gateway, spawned as `python -m bench.baselines`). A room may
import these two, the gateway, the sandbox and the tests' helpers, never another room.
`bash bench/run` runs every benchmark; `uv run python -m bench.<room>.<name>` runs one."""
