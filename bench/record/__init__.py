"""The strike record's cost: `store` (SQLite file vs PostgreSQL, latency and contended
throughput, and the fresh-database helpers the others use), `pool` (many users at once:
one worker thread vs the pool), `claims` (strike's decision and claim on a full record vs
an empty one) and `handles` (what finding an opportunity by its handle adds to draft).
They drive the record's API in-process (no MCP) and may import `bench.common`, each
other's `store` helpers and the gateway; nothing here imports another room."""
