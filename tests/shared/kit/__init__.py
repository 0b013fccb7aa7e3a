"""The server kit: host gate, limiter, inbox paging, target cache, errors, quiet, logs."""
