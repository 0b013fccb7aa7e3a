"""scout and draft: ranking, BM25, the inbox and the server-minted handles."""
