"""strike: the desk that runs each write through its chain of checks, the checks, the
per-target locks, what strike shows, settling unsure writes, and asking a person. It may
import `scout` (the workflow state), `platforms`, `record` and `rules`."""
