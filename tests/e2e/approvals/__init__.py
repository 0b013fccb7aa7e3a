"""Approvals end to end: in the client, on the page or app card, at a real terminal."""
