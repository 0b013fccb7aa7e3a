"""The strike record's tables beside the strikes: approvals, handles, hand-offs, notices
(mixins of `StrikeStore`)."""
