"""The `gwanjong` command line: serving, the demo, doctor (what is in use and what is wrong,
and repair), history, init, tokens, and the process-level pieces (serve loop, log file,
tracing, lean start). It may import every other room; nothing imports it."""
