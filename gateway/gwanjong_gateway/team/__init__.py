"""Team mode: who is calling the HTTP gateway (bearer tokens, OAuth 2.1 JWTs) and the token
file; which records each caller reads (their own, or everyone's for an auditor) and what a
strike answer may show of another member's row; closing the open streams of a token that
no longer passes. It imports `strike` (the results it rewrites), `record` and the base
modules."""
