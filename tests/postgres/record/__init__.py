"""The strike record on PostgreSQL: store, approvals, hand-offs, journal, review, a gateway."""
