"""The strike record: one store over two engines (SQLite, PostgreSQL), its migrations,
its errors as `unavailable` answers, the worker that keeps it off the event loop, and the
shared inbox cursors. It imports `rules` and the base modules."""
