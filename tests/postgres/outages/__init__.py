"""A PostgreSQL that stops, freezes or slows around a write (faults.py applies each)."""
