"""The Bluesky server's specifics, through atproto over real HTTP to the sandbox."""
