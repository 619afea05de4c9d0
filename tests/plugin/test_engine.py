"""The plugin's engine, settings and log without Hermes: the host's calls, copies, failures."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from core.cli import main as cli_main
from core.compressor import ContextCompressor
from core.config import CompressorConfig
from core.formats import load, tool_pair_problems
from core.hermes_plugin import register
from core.hermes_plugin.engine import ContextLensEngine
from core.hermes_plugin.events import EventLog, message_id
from core.hermes_plugin.settings import (
    PluginSettings,
    SettingsError,
    log_path,
    read_settings,
    settings_path,
    write_settings,
)

SAMPLE = Path(__file__).resolve().parents[2] / "sample_conversations" / "long_coding_session.json"


@pytest.fixture(scope="module")
def conversation() -> list[dict[str, Any]]:
    return load(SAMPLE).copy_messages()[:260]


def _summary(prompt: str, max_tokens: int | None) -> str:
    return "## Active Task\nUser asked: 'keep going'\n## Remaining Work\nThe rest."


def _engine(home: Path, **settings: Any) -> ContextLensEngine:
    engine = ContextLensEngine(PluginSettings(**settings), hermes_home=home, summarizer=_summary)
    engine.update_model("gpt-4o", 128_000, base_url="", api_key="sk-secret-value", provider="openai")
    return engine


def _records(home: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log_path(home).read_text().splitlines()]


def test_compress_matches_the_library_and_logs_without_text(tmp_path: Path, conversation: list[dict[str, Any]]) -> None:
    engine = _engine(tmp_path, profile="v0.18.0", protect_last_n=8)
    output = engine.compress(copy.deepcopy(conversation), force=True)
    library = ContextCompressor(CompressorConfig(context_length=128_000, profile="v0.18.0", protect_last_n=8,
                                                 strict_redaction=True, model="gpt-4o"), _summary)
    assert output == library.compress(copy.deepcopy(conversation), force=True).messages
    assert tool_pair_problems(output) == []
    assert engine.compression_count == 1 and engine._last_compression_made_progress
    assert not engine._last_compress_aborted and not engine._last_summary_fallback_used
    (record,) = _records(tmp_path)
    assert record["outcome"] == "summarized" and record["profile"] == "v0.18.0"
    assert record["settings"]["protect_last_n"] == 8 and record["settings"]["strict_redaction"] is True
    assert "raw" not in record
    text = log_path(tmp_path).read_text()
    assert "sk-secret-value" not in text
    for message in conversation[5:40]:  # no message text in the log, only ids
        if isinstance(message.get("content"), str) and len(message["content"]) > 80:
            assert message["content"] not in text
    entry = record["messages"][10]
    assert entry["id"] == message_id(conversation[10]) and entry["role"] == conversation[10]["role"]
    assert {e["fate"] for e in record["messages"]} >= {"kept", "summarised"}
    assert record["facts"]["total"] == record["facts"]["kept"] + record["facts"]["lost"]


def test_record_message_text_puts_the_raw_messages_in(tmp_path: Path, conversation: list[dict[str, Any]]) -> None:
    engine = _engine(tmp_path, record_message_text=True)
    output = engine.compress(copy.deepcopy(conversation), force=True)
    (record,) = _records(tmp_path)
    assert record["raw"]["input"] == conversation and record["raw"]["output"] == output


def test_the_host_attributes_are_the_compressor_state(tmp_path: Path) -> None:
    engine = _engine(tmp_path, threshold_percent=0.6, profile="v0.19.0")
    assert engine.name == "context-lens"
    assert engine.threshold_tokens == engine.compressor.threshold_tokens == int(128_000 * 0.75)  # v0.19.0's floor
    engine.update_from_response({"prompt_tokens": 100_000, "completion_tokens": 10, "total_tokens": 100_010})
    assert engine.last_prompt_tokens == 100_000 and engine.should_compress()
    engine.last_prompt_tokens = -1  # what Hermes sets after a compaction
    assert engine.get_status()["last_prompt_tokens"] == 0 and engine.compressor.last_prompt_tokens == -1
    engine.threshold_tokens = 5  # derived: a host write is ignored
    assert engine.threshold_tokens == int(128_000 * 0.75)
    engine.record_completed_compaction(used_fallback=True)
    engine.record_completed_compaction(used_fallback=True)
    assert engine._fallback_compression_streak == 2 and engine._automatic_compression_blocked()
    engine.on_session_reset()
    assert engine.compression_count == 0 and engine.last_prompt_tokens == 0
    assert engine.get_tool_schemas() == [] and "error" in json.loads(engine.handle_tool_call("x", {}))
    engine.update_model("other-model", 600_000, provider="custom", base_url="http://127.0.0.1:1/v1")
    assert engine.context_length == 600_000 and engine.threshold_tokens == int(600_000 * 0.6)


def test_deepcopy_gives_an_independent_working_engine(tmp_path: Path, conversation: list[dict[str, Any]]) -> None:
    engine = ContextLensEngine(PluginSettings(summarizer="extractive"), hermes_home=tmp_path)
    engine.update_model("gpt-4o", 128_000)
    engine._current_summarizer()  # a built summarizer is not copied; the copy builds its own
    clone = copy.deepcopy(engine)
    assert clone._lock is not engine._lock and clone.compressor._lock is not engine.compressor._lock
    assert clone.compressor is not engine.compressor and clone._summarizer is None
    clone.compress(copy.deepcopy(conversation), force=True)
    assert clone.compression_count == 1 and engine.compression_count == 0
    assert copy.deepcopy(clone).compressor.previous_summary == clone.compressor.previous_summary


def test_failures_inside_never_reach_the_agent(tmp_path: Path, conversation: list[dict[str, Any]]) -> None:
    def broken(prompt: str, max_tokens: int | None) -> str:
        raise RuntimeError("no LLM provider configured")

    engine = ContextLensEngine(PluginSettings(), hermes_home=tmp_path, summarizer=broken)
    engine.update_model("gpt-4o", 128_000)
    out = engine.compress(copy.deepcopy(conversation), force=True)
    assert engine._last_summary_fallback_used and tool_pair_problems(out) == []

    engine.compressor.plan = None  # type: ignore[assignment]  # anything raising inside compress()
    messages = copy.deepcopy(conversation)
    assert engine.compress(messages, force=True) is messages
    assert engine._last_compress_aborted and "context-lens" in engine._last_summary_error
    records = _records(tmp_path)
    assert [r["outcome"] for r in records] == ["fallback", "error"] and records[1]["error"]


def test_an_unwritable_log_is_a_warning(tmp_path: Path, conversation: list[dict[str, Any]],
                                        caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "context-lens"
    blocker.write_text("a file where the log folder should be")
    engine = _engine(tmp_path)
    out = engine.compress(copy.deepcopy(conversation), force=True)
    assert len(out) < len(conversation) and engine.compression_count == 1
    assert "could not write the compaction log" in caplog.text
    assert EventLog(None).append({"x": 1}) is False


def test_settings_round_trip_and_validation(tmp_path: Path) -> None:
    config = CompressorConfig(profile="v0.17.0", threshold_percent=0.7, protect_last_n=12, strict_redaction=False)
    settings = PluginSettings.from_config(config, summarizer="extractive", record_message_text=True)
    path = write_settings(settings, hermes_home=tmp_path)
    assert path == settings_path(tmp_path) == tmp_path / "context-lens" / "settings.json"
    assert read_settings(tmp_path) == (settings, None)
    assert settings.context_length is None  # the window is the agent's unless pinned
    assert PluginSettings.from_config(config, pin_context_length=True).context_length == 128_000
    for bad in ({"profile": "v9"}, {"summarizer": "gpt"}, {"threshold_percent": 2}, {"protect_last_n": -1},
                {"log": "yes"}, {"nonsense": 1}, {"version": 7}):
        with pytest.raises(SettingsError):
            PluginSettings.from_dict(bad)
    path.write_text("{not json")
    settings_read, warning = read_settings(tmp_path)
    assert settings_read == PluginSettings() and warning and "using the defaults" in warning


def test_settings_fall_back_to_hermes_config(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("model:\n  default: m\n  context_length: 300000\n"
                                          "compression:\n  threshold: 0.9\n  protect_last_n: 7\n")
    engine = ContextLensEngine(PluginSettings(protect_last_n=11), hermes_home=tmp_path)
    assert engine.compressor.config.threshold_percent == 0.9  # config.yaml's, the file does not set it
    assert engine.protect_last_n == 11  # the settings file wins
    assert engine.context_length == 300_000


def test_new_session_rereads_the_settings_file(tmp_path: Path) -> None:
    write_settings(PluginSettings(protect_last_n=5), hermes_home=tmp_path)
    engine = ContextLensEngine(hermes_home=tmp_path)
    engine.update_model("gpt-4o", 128_000)
    write_settings(PluginSettings(protect_last_n=9, profile="v0.16.0"), hermes_home=tmp_path)
    engine.on_session_start("s2", boundary_reason="compression")  # a compaction boundary: same conversation
    assert engine.protect_last_n == 5
    engine.on_session_start("s3")
    assert engine.protect_last_n == 9 and engine.compressor.config.profile == "v0.16.0"
    assert engine.context_length == 128_000 and engine.model == "gpt-4o"


def test_register_hands_hermes_one_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HERMES_HOME", str(tmp_path))
    registered: list[Any] = []

    class Context:
        def register_context_engine(self, engine: Any) -> None:
            registered.append(engine)

    register(Context())
    (engine,) = registered
    assert isinstance(engine, ContextLensEngine) and engine.log_file == tmp_path / "context-lens" / "compactions.jsonl"


def test_cli_writes_and_keeps_settings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = str(tmp_path)
    assert cli_main(["hermes-settings", "--hermes-home", home, "--profile", "v0.18.0", "--threshold-percent", "0.6"]) == 0
    assert cli_main(["hermes-settings", "--hermes-home", home, "--no-strict-redaction"]) == 0
    settings, _ = read_settings(tmp_path)
    assert (settings.profile, settings.threshold_percent, settings.strict_redaction) == ("v0.18.0", 0.6, False)
    assert cli_main(["hermes-settings", "--hermes-home", home, "--threshold-percent", "1.5"]) == 2
    assert cli_main(["hermes-settings", "--hermes-home", home, "--reset", "--summarizer", "none"]) == 0
    assert read_settings(tmp_path)[0] == PluginSettings(summarizer="none")
    capsys.readouterr()
    assert cli_main(["hermes-settings", "--hermes-home", home, "--show"]) == 0
    assert json.loads(capsys.readouterr().out)["summarizer"] == "none"


def test_the_log_opens_as_a_conversation(tmp_path: Path, conversation: list[dict[str, Any]]) -> None:
    engine = _engine(tmp_path)
    engine.on_session_start("20260601_101500_abcdef")
    first = engine.compress(copy.deepcopy(conversation), force=True)
    engine.compress(first + copy.deepcopy(conversation[len(first):len(first) + 40]), force=True)
    loaded = load(log_path(tmp_path))
    assert loaded.format == "context-lens-log"
    assert [s.id for s in loaded.sessions] == ["20260601_101500_abcdef#1", "20260601_101500_abcdef#2"]
    assert loaded.session_id == "20260601_101500_abcdef#2"
    first_loaded = load(log_path(tmp_path), session="20260601_101500_abcdef#1")
    assert [m["role"] for m in first_loaded.messages] == [m["role"] for m in conversation]
    assert tool_pair_problems(first_loaded.messages) == tool_pair_problems(conversation)  # placeholders keep the pairs
    (event,) = first_loaded.compaction_events
    record = _records(tmp_path)[0]
    assert event.position == record["zones"]["compress_start"] and event.summary == record["summary"]["text"]
    assert event.details["facts"]["total"] == record["facts"]["total"]
