"""``python -m mcp_server [--root DIR]...``: serve MCP over stdio."""

import sys

from .cli import main

sys.exit(main())
