"""strike: the one place where gwanjong writes.

`desk` (the entry: builds the `attempt`, runs the `checks`, concludes) → `checks` (one small
function each, given `Deps`, never the desk) → `claims` (the record's side: earlier claims,
limits, the claim, rows that send nothing) | `send` (the platforms' side: their rules,
`validate`, the write and its outcome) | `handoffs` (a person's: closed by them, or by
`proof`) → `settle` (reading unsure writes back) | `proof` (reading a hand-off back) → `attempt`, `text`, `locks`, `approval` (what all of them
pass along and show) → `results` (the typed answers of strike, one model per status).
Each imports only those to its right (an import-linter contract).
strike may import `scout` (the workflow state), `platforms`, `record` and `rules`."""
