"""The strike record: one store over two engines (SQLite, PostgreSQL), its migrations, its
errors read from each engine's own codes and answered as `unavailable`, the worker pool that
keeps it off the event loop, the append-only write journal beside it (a trace of every
write before it is sent, replayed at start), repair of a damaged record, whose rows a
caller may read (`readers`), and the shared inbox cursors. It imports `rules` and the base
modules."""
