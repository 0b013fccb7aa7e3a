"""`gwanjong link`: the gwanjong entry in MCP clients' config files (command: the CLI;
clients: where each client keeps its config on each OS; jsonc: editing JSON with comments
as text, so nothing else in the file changes; apply: plan, back up, write, read back;
sandbox: the entry and config that point a client at a local sandbox). Imports only
config and paths from the gateway."""
