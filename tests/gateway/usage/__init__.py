"""Usage figures and spend: the usage log, daily budgets, prices, the tool list's tokens."""
