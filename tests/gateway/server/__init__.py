"""The gateway as an MCP server: the five tools, results, schemas, resources, protocol errors."""
