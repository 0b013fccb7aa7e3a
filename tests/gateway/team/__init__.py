"""Team mode: tokens, JWTs, auth metadata over HTTP, private records, revocation."""
