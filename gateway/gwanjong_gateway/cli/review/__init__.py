"""`gwanjong review`: a person decides pending approvals in a terminal (command: the CLI
and its checks; term: the terminal and who is at it; run: the gateway's machinery, built
only when needed; view: how an approval is shown)."""
