"""The X server's specifics: weighted length, lazy twikit, its SDKs against the sandbox."""
