"""MCP: the gate in front of a client session (`gate`), and the example server of the demo.
Needs the `mcp` extra, imported only where used."""
