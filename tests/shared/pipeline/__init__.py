"""The workflow pipeline: state over MCP, state sources, per-principal caps."""
