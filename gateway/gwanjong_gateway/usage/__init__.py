"""Usage figures: the usage log (SQLite or PostgreSQL) and its report, the metering
middleware and observer that feed it, token counts of what the model is shown, and spend:
what paid platform calls cost (prices, the spend ledger) and the daily budget that gates
them (spend.py). It may import `platforms`, `record` and `rules`."""
