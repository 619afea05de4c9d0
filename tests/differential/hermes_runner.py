"""Runs differential cases on a published Hermes release (inside that release's own venv).

Reads one JSON case per line on standard input and prints one JSON result per line. Hermes is used
as a black box through the names its own tests patch: ``call_llm`` (a scripted responder that
records each call's prompt, ``max_tokens`` and ``model``), ``get_model_context_length``, the
module's ``time`` (so ``time.monotonic()`` is the case's clock) and ``hermes_time.now`` (the
anchoring date). ``HERMES_HOME`` must point at an empty temporary directory (the caller sets it).

This file never imports the project: the project's package is blocked below, so an accidental
import fails loudly instead of comparing the project with itself.
"""

from __future__ import annotations

import inspect
import json
import os
import sys
import time as real_time
import traceback
from types import SimpleNamespace
from typing import Any

sys.modules["core"] = None  # type: ignore[assignment]  # the project must not be importable here

import protocol  # noqa: E402  (this directory is sys.path[0])

# Nothing else of this directory may shadow a module Hermes or its dependencies import.
sys.path[:] = [entry for entry in sys.path if os.path.abspath(entry or ".") != os.path.dirname(os.path.abspath(__file__))]


def _load_hermes() -> tuple[Any, Any]:
    if not os.environ.get("HERMES_HOME"):
        raise SystemExit("HERMES_HOME must be set to a temporary directory")
    import hermes_time  # noqa: F401  (imported so its ``now`` can be patched)
    from agent import context_compressor

    return context_compressor, sys.modules["hermes_time"]


class _Clock:
    """Stands in for the compressor module's ``time``: monotonic time is the case's clock."""

    def __init__(self, script: protocol.Script) -> None:
        self._script = script

    def monotonic(self) -> float:
        return self._script.monotonic()

    def __getattr__(self, name: str) -> Any:
        return getattr(real_time, name)


class HermesEngine:
    def __init__(self, module: Any, hermes_time: Any, config: dict[str, Any], script: protocol.Script) -> None:
        self.script = script
        self.module = module
        context_length = config["context_length"]

        def call_llm(**kwargs: Any) -> Any:
            messages = kwargs.get("messages") or [{}]
            content = script.respond(messages[0].get("content"), kwargs.get("max_tokens"), kwargs.get("model"))
            return SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content=content))])

        module.call_llm = call_llm
        module.get_model_context_length = lambda *args, **kwargs: context_length
        module.time = _Clock(script)
        hermes_time.now = script.wall
        kwargs: dict[str, Any] = dict(
            model=config["model"],
            threshold_percent=config["threshold_percent"],
            protect_first_n=config["protect_first_n"],
            protect_last_n=config["protect_last_n"],
            summary_target_ratio=config["summary_target_ratio"],
            quiet_mode=True,
            summary_model_override=config.get("summary_model") or None,
            config_context_length=context_length,
            abort_on_summary_failure=config["abort_on_summary_failure"],
        )
        parameters = inspect.signature(module.ContextCompressor.__init__).parameters
        if "max_tokens" in parameters:  # v0.18.0 and later
            kwargs["max_tokens"] = config.get("max_tokens")
        self.compressor = module.ContextCompressor(**kwargs)
        self._accepts_memory = "memory_context" in inspect.signature(self.compressor.compress).parameters

    @property
    def compression_count(self) -> int:
        return self.compressor.compression_count

    @property
    def previous_summary(self) -> Any:
        return self.compressor._previous_summary

    @property
    def threshold_tokens(self) -> int:
        return self.compressor.threshold_tokens

    def compress(self, messages: list[Any], op: dict[str, Any]) -> tuple[list[Any], bool]:
        kwargs: dict[str, Any] = dict(
            current_tokens=op.get("current_tokens"), focus_topic=op.get("focus_topic"), force=bool(op.get("force")),
        )
        if "memory_context" in op:
            if not self._accepts_memory:
                raise TypeError("this release's compress() takes no memory_context")
            kwargs["memory_context"] = op["memory_context"]
        output = self.compressor.compress(messages, **kwargs)
        return output, bool(getattr(self.compressor, "_last_compress_aborted", False))

    def should_compress(self, tokens: int | None) -> bool:
        return bool(self.compressor.should_compress(tokens))

    def session_end(self) -> None:
        self.compressor.on_session_end("differential-session", [])

    def session_reset(self) -> None:
        self.compressor.on_session_reset()

    def usage(self, usage: dict[str, Any]) -> None:
        self.compressor.update_from_response(usage)

    def update_model(self, op: dict[str, Any]) -> None:
        # The module's context lookup answers with the new window from now on, as the host's would.
        self.module.get_model_context_length = lambda *args, **kwargs: op["context_length"]
        kwargs: dict[str, Any] = {}
        if "max_tokens" in inspect.signature(self.compressor.update_model).parameters:
            kwargs["max_tokens"] = op.get("max_tokens")
        self.compressor.update_model(op["model"], op["context_length"], **kwargs)


def main() -> None:
    module, hermes_time = _load_hermes()
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        case = json.loads(line)  # plain JSON: only its messages are encoded, and run_case decodes those
        try:
            result = protocol.run_case(case, lambda config, script: HermesEngine(module, hermes_time, config, script))
        except Exception:  # a harness fault: reported with the case, never silently dropped
            result = {"seed": case.get("seed"), "harness_error": traceback.format_exc(limit=8)}
        out.write(protocol.result_line(result) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
