"""Usage figures: the usage log (SQLite or PostgreSQL), the metering middleware and
observer that feed it, and token counts of what the model is shown. It may import
`platforms`, `record` and `rules`."""
