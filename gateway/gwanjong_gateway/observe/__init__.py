"""Watching a running gateway: traces over OTLP, Prometheus metrics, JSON log lines.

A room of its own (import-linter: just below `server`, above `status`): it reads the
gateway's parts (the platform calls, the strike record) and never changes them. The CLI's
serve path calls :func:`gwanjong_gateway.observe.attach.attach` once the server is built;
nothing here runs at import time, and the SDKs (the `observe` extra) are imported only
when gateway.toml turns a part on.
"""
