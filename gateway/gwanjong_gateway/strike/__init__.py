"""strike: the one place where gwanjong writes.

`desk` → `checks` → `claims` (the record's side) | `send` (the platforms') | `handoffs` |
`elicitation` | `approving` → `settle` | `proof` → `attempt` | `wording` | `locks` →
`results`. Each imports only those to its right (an import-linter contract); strike may
import `scout`, `platforms`, `record` and `rules`.
"""
