"""The five tools' bodies: what scout, draft, strike and setup do once the server has parsed
their arguments (`server.py` declares each tool, its schema and description, and hands the
call here); `served.py` holds what every body works with. It may import every room below
`server` except `status` and `resources`."""
