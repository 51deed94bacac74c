"""`turngate proxy` over Streamable HTTP: `--url` reaches a remote server (`remote`,
`remote_run`), `--listen` serves HTTP clients (`listen_run`) in front of a stdio server
(`stdio_sessions`, `stdio_backend`) or a remote one (`forward`); `wire` and `events` hold
what the transport adds to a message. Needs httpx2, Starlette and uvicorn (the `mcp` extra),
imported only in these modes."""
