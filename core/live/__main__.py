"""``python -m core.live watch PATH [--json]`` and ``python -m core.live sessions``."""

import sys

from core.live.cli import main

if __name__ == "__main__":
    sys.exit(main())
