"""`knowledge-engine serve`: the engine as a long-running local HTTP sidecar for non-Python hosts.

One engine per process, fed through the same `register(api)` + `HookRunner` code as a Python host.
Modules: `transport` (private Unix socket or loopback TCP), `auth` (bearer token from the
environment), `runtime` (engine lifecycle, drain, stop), `server` (the aiohttp app and signals).
API reference: docs/sidecar.md.
"""
