"""``python -m core``: the ``context-lens`` command line."""

import sys

from core.cli import main

if __name__ == "__main__":
    sys.exit(main())
