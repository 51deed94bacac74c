"""The `turngate` console script: `turngate proxy` goes straight to the proxy's own command
line (the same arguments, help and exit codes as through `turngate.cli`), without importing
the other commands' modules (`turngate.cli` imports them all): an MCP client starts the
proxy and waits for it. Outside `cli/` so that importing it does not import `cli/__init__`."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Run the command line; the exit code is returned, never raised."""
    arguments = sys.argv[1:] if argv is None else argv
    if arguments[:1] == ["proxy"]:
        from .mcp.proxy.command import main as proxy_main
        return proxy_main(arguments[1:])
    from .cli import main as full_main
    return full_main(argv)
