"""``python -m fel_rules`` runs the command line."""

import sys

from .cli.app import main

if __name__ == "__main__":
    sys.exit(main())
