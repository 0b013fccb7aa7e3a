"""scout and draft: the workflow state a client keeps between calls, ranking (BM25,
engagement, age), the thread's mood, fencing of untrusted text, writing guides, and the
inbox. It may import `platforms`, `record` and `rules`; never `strike`."""
