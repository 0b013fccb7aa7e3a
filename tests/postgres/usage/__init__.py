"""Usage figures and the daily spend budget on a shared PostgreSQL."""
