"""The `turngate` command line."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Run the command line; the exit code is returned, never raised. `turngate proxy` goes
    straight to the proxy's own command line (the same arguments, help and exit codes):
    an MCP client starts it and waits, and the other commands' modules are not its to load."""
    arguments = sys.argv[1:] if argv is None else argv
    if arguments[:1] == ["proxy"]:
        from ..mcp.proxy.command import main as proxy_main
        return proxy_main(arguments[1:])
    from .main import main as full_main
    return full_main(argv)


__all__ = ["main"]
