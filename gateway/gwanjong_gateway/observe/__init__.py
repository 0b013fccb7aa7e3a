"""Watching a running gateway (docs/operate/observability.md): OTLP traces, Prometheus
metrics, JSON log lines. Reads the gateway's parts, never changes them; the SDKs are
imported only when gateway.toml turns a part on.
"""
