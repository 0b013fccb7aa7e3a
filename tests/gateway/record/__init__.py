"""The strike record: store, migrations, journal, and trouble (busy, corrupt, full, read-only)."""
