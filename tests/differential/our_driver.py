"""The project's side of the differential check: the same cases, driven in-process through ``core``.

Only the public API is used (``CompressorConfig``, ``ContextCompressor``, the result's
``messages`` and ``aborted``, the session hooks), so a mismatch is a difference the library's
users would see.
"""

from __future__ import annotations

import json
from typing import Any

from tests.differential import protocol


def profile_name(release: str) -> str:
    return f"v{release}"


class _Summarizer:
    """Answers from the case's script; the call's ``max_tokens`` is recorded as received."""

    def __init__(self, script: protocol.Script) -> None:
        self.script = script

    def __call__(self, prompt: str, max_tokens: Any) -> Any:
        return self.script.respond(prompt, max_tokens, None)


class _SeparateModelSummarizer(_Summarizer):
    """A separate summary model that the compressor may drop once for the main model, as Hermes'
    ``summary_model_override`` does (the fallback is permanent for the instance)."""

    def __init__(self, script: protocol.Script, summary_model: str, main_model: str) -> None:
        super().__init__(script)
        self.summary_model = summary_model
        self.main_model = main_model

    def __call__(self, prompt: str, max_tokens: Any) -> Any:
        return self.script.respond(prompt, max_tokens, self.summary_model or None)

    def can_fall_back_to_main(self) -> bool:
        return bool(self.summary_model) and self.summary_model != self.main_model

    def fall_back_to_main(self) -> None:
        self.summary_model = ""


class OurEngine:
    def __init__(self, release: str, config: dict[str, Any], script: protocol.Script) -> None:
        from core import CompressorConfig, ContextCompressor

        cfg = CompressorConfig(
            context_length=config["context_length"],
            threshold_percent=config["threshold_percent"],
            protect_first_n=config["protect_first_n"],
            protect_last_n=config["protect_last_n"],
            summary_target_ratio=config["summary_target_ratio"],
            abort_on_summary_failure=config["abort_on_summary_failure"],
            profile=profile_name(release),
            max_tokens=config.get("max_tokens"),
            model=config["model"],
        )
        summarizer: _Summarizer = (
            _SeparateModelSummarizer(script, config["summary_model"], config["model"])
            if config.get("summary_model") else _Summarizer(script)
        )
        self.compressor = ContextCompressor(cfg, summarizer=summarizer, clock=script.monotonic, wall_clock=script.wall)
        self.summarizer = summarizer
        self.release = release

    @property
    def compression_count(self) -> int:
        return self.compressor.compression_count

    @property
    def previous_summary(self) -> Any:
        return self.compressor.previous_summary

    @property
    def threshold_tokens(self) -> int:
        return self.compressor.threshold_tokens

    def compress(self, messages: list[Any], op: dict[str, Any]) -> tuple[list[Any], bool]:
        kwargs: dict[str, Any] = dict(
            current_tokens=op.get("current_tokens"), focus_topic=op.get("focus_topic"), force=bool(op.get("force")),
        )
        if "memory_context" in op:
            kwargs["memory_context"] = op["memory_context"]
        result = self.compressor.compress(messages, **kwargs)
        return result.messages, bool(result.aborted)

    def should_compress(self, tokens: int | None) -> bool:
        return bool(self.compressor.should_compress(tokens))

    def session_end(self) -> None:
        self.compressor.on_session_end("differential-session", [])

    def session_reset(self) -> None:
        self.compressor.on_session_reset()

    def usage(self, usage: dict[str, Any]) -> None:
        self.compressor.update_from_response(usage)

    def update_model(self, op: dict[str, Any]) -> None:
        # Hermes' update_model takes an output reserve from v0.18.0 on; earlier ones have no such argument.
        reserve = op.get("max_tokens") if self.release not in ("0.15.1", "0.16.0", "0.17.0") else None
        self.compressor.update_model(op["model"], op["context_length"], max_tokens=reserve)
        if isinstance(self.summarizer, _SeparateModelSummarizer):
            # Whether the summary model may fall back is decided against the main model in effect.
            self.summarizer.main_model = op["model"]


def run_ours(release: str, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every case on the project's compressor, results in the runner's JSON shape (round-tripped
    through JSON exactly as the runner's output is)."""
    results = []
    for case in cases:
        result = protocol.run_case(case, lambda config, script: OurEngine(release, config, script))
        results.append(json.loads(protocol.result_line(result)))
    return results
