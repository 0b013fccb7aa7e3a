"""Team mode: who is calling the HTTP gateway (bearer tokens, OAuth 2.1 JWTs) and the
token file. It imports only the base modules."""
