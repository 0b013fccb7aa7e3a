"""Usage figures and spend (docs/operate/spend.md). It may import `platforms`, `record` and
`rules`.
"""
