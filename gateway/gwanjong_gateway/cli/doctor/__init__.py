"""`gwanjong doctor`: what this gwanjong runs and what is wrong with it (command: the
report and `--repair`; where: which config file and state folder, and why; probe: starting
each enabled platform server to see whether it answers)."""
