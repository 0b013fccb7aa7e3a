"""The Reddit server's specifics, through asyncpraw over real HTTP to the sandbox."""
