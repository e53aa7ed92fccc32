"""``python -m mcp_server [--root DIR]...``: serve MCP over stdio."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
