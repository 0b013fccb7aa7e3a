"""What a write is and which writes gwanjong allows itself: the record's vocabulary
(actions, statuses, the same-text test), the self-imposed policy, and what each platform
says about itself (profiles). It imports only the base modules (config)."""
