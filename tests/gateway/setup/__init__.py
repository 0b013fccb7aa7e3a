"""Credentials: what the `setup` tool and `status` say of refused credentials."""
