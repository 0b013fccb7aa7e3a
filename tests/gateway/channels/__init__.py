"""Approvals decided outside the terminal: the one-approval page and the MCP Apps card."""
