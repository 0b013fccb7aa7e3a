"""The storage layer: one engine over SQLite and PostgreSQL, its statements, the migrations
of every table the gateway keeps, and each engine's errors told by code."""
