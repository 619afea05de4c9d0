"""Times a published Hermes release's own ``compress()`` (run inside that release's venv).

Reads the messages from the JSON file named on the command line, builds Hermes' compressor for a
128,000-token window with the summary call answered at once (``call_llm`` patched, as its own tests
do), then times one cold ``compress(messages, current_tokens=200_000)`` each time a line arrives on
standard input, printing the milliseconds. The caller alternates these runs with the project's own,
so a busy spell of the machine hits both. Never imports the project.
"""

from __future__ import annotations

import json
import os
import sys
import time
from types import SimpleNamespace
from typing import Any

sys.modules["core"] = None  # type: ignore[assignment]  # the project must not be importable here


def main() -> None:
    if not os.environ.get("HERMES_HOME"):
        raise SystemExit("HERMES_HOME must be set to a temporary directory")
    from agent import context_compressor as module

    def call_llm(**_kwargs: Any) -> Any:
        return SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content="## Goal\nDone."))])

    module.call_llm = call_llm
    module.get_model_context_length = lambda *args, **kwargs: 128_000
    with open(sys.argv[1], encoding="utf-8") as handle:
        messages = json.load(handle)["messages"]
    print("ready", flush=True)
    for _line in sys.stdin:
        compressor = module.ContextCompressor(model="bench-model", config_context_length=128_000, quiet_mode=True)
        start = time.perf_counter()
        compressor.compress(messages, current_tokens=200_000)
        print(f"{(time.perf_counter() - start) * 1000:.3f}", flush=True)


if __name__ == "__main__":
    main()
