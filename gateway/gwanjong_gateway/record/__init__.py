"""The strike record on SQLite or PostgreSQL: store, migrations, engine errors, the worker
pool, the write journal, repair, readers and inbox cursors. It imports `rules` and the
base modules.
"""
