"""MCP: the gate in front of a client session (`gate`), `turngate proxy` in front of any
server (`proxy`), and the example server of the demo. Needs the `mcp` extra, imported only
where used."""
