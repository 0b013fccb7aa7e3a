"""The web console's cost: `pages` (each page's p50 and p95 with a big record, against
the stylesheet as the floor, and what the console adds to the gateway's start-up). It
builds the console's ASGI app in-process, and may import `bench.common`, the gateway and
the test fakes; never another room."""
