"""The console (docs/use/console.md): Starlette and Jinja2 (autoescape) under a strict CSP;
`guard` holds sign-in, sessions and the Host/Origin/CSRF checks. Nothing runs at import.
"""
