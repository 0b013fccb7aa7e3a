"""What crosses MCP and how long it takes: `tokens` (the tool list's size in tokens),
`calls` (calls per workflow and what each answer holds), `hop` (the gateway's hop over a
direct call and over FastMCP's proxy), `fanout` (scout across platforms with latency
injected) and `degrade` (a hanging platform's cost once the breaker opens). Each runs the
gateway and the platform servers over stdio against the sandbox, and may import
`bench.common`, `bench.baselines` (spawned), the gateway and the sandbox; never
another room."""
