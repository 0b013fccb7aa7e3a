"""The platform servers behind the gateway: hosting, breaker, client, tool changes, a fifth."""
