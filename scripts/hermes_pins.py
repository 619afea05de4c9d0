"""Print the exact-version pins of the hermes-agent installed beside this Python, as pip constraints.

Run it with Hermes' own interpreter before installing Context Lens there, so pip keeps every package
Hermes pinned where it is (a newer litellm would otherwise lift some of them)::

    HERMES_PY=~/.hermes/hermes-agent/venv/bin/python      # wherever Hermes' venv is
    $HERMES_PY scripts/hermes_pins.py > /tmp/hermes-pins.txt
    $HERMES_PY -m pip install -c /tmp/hermes-pins.txt .

Standard library only: it runs before any of Context Lens' dependencies are there.
"""

from __future__ import annotations

import re
import sys
from importlib import metadata

_PIN = re.compile(r"^\s*([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?\s*==\s*([^\s;,]+)\s*(?:;(.*))?$")


def pins(distribution: str = "hermes-agent") -> list[str]:
    found = []
    for requirement in metadata.requires(distribution) or []:
        match = _PIN.match(requirement)
        if not match:
            continue
        marker = (match.group(3) or "").strip()
        if "extra" in marker or "win32" in marker:  # optional extras and Windows-only pins do not apply
            continue
        found.append(f"{match.group(1)}=={match.group(2)}")
    return sorted(found, key=str.lower)


def main() -> int:
    try:
        lines = pins()
    except metadata.PackageNotFoundError:
        print("hermes-agent is not installed for this Python; run this with Hermes' own interpreter", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
