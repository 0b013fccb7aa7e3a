"""strike, where gwanjong writes: the desk, its checks, approvals, hand-offs, settling."""
