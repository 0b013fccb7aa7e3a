"""The strike record's tables beside the strikes: approvals, handles, hand-offs, history,
notices (mixins of `StrikeStore`)."""
