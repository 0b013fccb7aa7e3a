"""Where a person decides a pending approval outside the terminal: the one-approval page
served on 127.0.0.1 (URL-mode elicitation, `page`) and the MCP Apps card with its app-only
tool (`app`). Both end in `StrikeDesk.decide` with the approval's one-time token."""
