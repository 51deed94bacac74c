"""Run a server command, logging every line it reads on stdin: `python record_stdin.py LOG -- COMMAND...`.

Each line the server reads is appended to LOG (flushed at once) before it is passed on, so a
test can tell exactly which JSON-RPC messages reached the server. Stdout and stderr are the
server's own; the exit code is the server's; SIGTERM is passed on.
"""

from __future__ import annotations

import signal
import subprocess
import sys


def main(argv: list[str]) -> int:
    log_path, command = argv[0], argv[argv.index("--") + 1:]
    server = subprocess.Popen(command, stdin=subprocess.PIPE)
    signal.signal(signal.SIGTERM, lambda *_: server.terminate())
    with open(log_path, "ab", buffering=0) as log:
        for line in sys.stdin.buffer:
            log.write(line)
            try:
                server.stdin.write(line)
                server.stdin.flush()
            except BrokenPipeError:
                break
    try:
        server.stdin.close()
    except BrokenPipeError:
        pass
    return server.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
