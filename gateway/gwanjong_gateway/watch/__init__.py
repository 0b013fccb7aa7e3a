"""Watching while the person is away: `[watch]` polls the inbox and saved topics."""
