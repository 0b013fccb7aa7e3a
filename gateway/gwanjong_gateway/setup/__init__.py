"""Credentials: the `setup` tool, the terminal `gwanjong setup`, the platform's own
setup guide, the one-page credential form (URL-mode elicitation) and the `.env` file. It
may import `strike` (the elicitation helpers) and everything below."""
