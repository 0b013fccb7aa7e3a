"""The Dev.to server's specifics, through httpx over real HTTP to the sandbox."""
