"""What gwanjong's gateway and platform servers share, in three packages by audience:

- `gwanjong_shared.contract`: the platform tool contract (tool names, models, error kinds,
  the rate window): what any gateway or agent needs to talk to a platform server.
- `gwanjong_shared.kit`: the server kit (`build_platform_server`, HTTP helpers, the host
  gate, the rate limiter, settings, the CLI): what a platform server is built from.
- `gwanjong_shared.pipeline`: server-side workflow state (`stores=` / `requires=`) for any
  FastMCP server.

Import-linter contracts keep the contract free of the other two and the pipeline free of both.
"""
