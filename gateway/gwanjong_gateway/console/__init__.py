"""The console: one local web page where a person reviews approvals, closes hand-offs and
sees what happened (history, inbox, usage and health).

`gwanjong console` serves it (`serve.py`); the gateway serves the same one when
`[console] enabled = true`. Server-rendered HTML (Starlette, Jinja2 with autoescape) under
a strict Content-Security-Policy: no inline script, nothing from another origin. `guard`
holds the sign-in, the sessions and the Host/Origin/CSRF checks; `app` the routes; the
pages' data comes from the gateway's record, desk and upstreams. Nothing here runs at
import time, and nothing imports this package unless the console is used.
"""
