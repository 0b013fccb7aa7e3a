"""Start-up, memory and CPU of the processes: `coldstart` (spawn to the first useful
answer), `warm` (CPU per scout once up), `footprint` (peak memory of each process) and
`inproc` (one interpreter, for a profiler), with their two helpers: `subjects` (the servers
compared: the gateway, isolation=process, an earlier commit, the FastMCP mount, a bare
server) and `procstats` (CPU and peak memory of a process tree, from /proc). They may
import `bench.common`, `bench.baselines` (spawned), the gateway and `tests.e2e.procs`;
never another room."""
