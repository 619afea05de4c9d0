"""``python -m core.live watch PATH [--json]`` and ``python -m core.live sessions``: the same command
line as ``context-lens`` (``core.cli``), kept under the name it first had."""

import sys

from core.cli import main

if __name__ == "__main__":
    sys.exit(main())
