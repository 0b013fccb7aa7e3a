"""The platform servers behind the gateway: spawning or hosting each one, the circuit
breaker, the typed client (the only place a platform answer is read), two-layer health
and exposed raw tools. It imports `rules` (profiles) and the base modules, never the
record, scout or strike."""
