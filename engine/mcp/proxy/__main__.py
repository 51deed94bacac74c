"""`python -m turngate.mcp.proxy [options] -- COMMAND [ARGS...]`: see `turngate.mcp.proxy`."""

import sys

from .command import main

sys.exit(main())
