"""The whole request, recorded usage, the log's model and the what-ifs, driven with AppTest: what the
pages show is what the library computes for the same file and sidebar."""

from __future__ import annotations

import base64
import json
from typing import Any

import numpy as np
from streamlit.testing.v1 import AppTest

from core import CompressorConfig
from core.formats import load
from core.inspections.request import PART_LABELS, ExactWeigher, RoughWeigher, request_breakdown
from core.models import context_window, output_limit
from core.summarizers.extractive import ExtractiveSummarizer
from core.views.replay import replay
from core.views.zones import analyze_zones
from dashboard.memo import content_digest
from tests.app.conftest import html_table, metrics, number, plain, run
from tests.app.test_analysis_pages import page_app
from tests.inspections import request_fixtures as F


def open_file(page: str, name: str, data: bytes, full_history: bool = False) -> AppTest:
    """``pages/<page>.py`` in the dashboard's shared state, with ``data`` uploaded as ``name`` (``full_history``:
    every message of a log the agent compacted, not only the context after its last compaction)."""
    at = page_app(page)
    at.session_state["uploaded_files"] = [{"name": name, "data": data, "digest": content_digest(data)}]
    at.session_state["_kept_conversation_choice"] = f"Uploaded: {name}"
    at.session_state["_kept_full_history"] = full_history
    return run(at)


def table_with(at: AppTest, *columns: str):
    for element in at.dataframe:
        if set(columns) <= set(element.value.columns):
            return element.value
    raise AssertionError(f"no table with {columns}")


def values(array: Any) -> list[Any]:
    """A figure's data array as the page sent it (plotly writes numbers as typed base64)."""
    if isinstance(array, dict) and "bdata" in array:
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"]).tolist()
    return list(array)


def captions(at: AppTest) -> list[str]:
    return [plain(c.value) for c in at.caption]


def small_session() -> list[dict]:
    """A short coding session (about 10,000 tokens): no default threshold comes near it."""
    return F.coding_session(10, 280)


def test_overview_shows_the_whole_request_part_by_part():
    name, data = F.claude_code_session()
    at = open_file("overview", name, data, full_history=True)
    request = request_breakdown(load(data, filename=name), ExactWeigher("o200k_base"))  # the sidebar: gpt-4o
    shown = metrics(at)
    assert number(shown["Whole request"]) == request.total
    assert shown["Context used"] == f"{request.total / 128_000:.0%}"
    table = html_table(at, "request-parts")
    assert table["part"].tolist() == list(PART_LABELS.values())
    assert table["tokens"].tolist() == list(request.parts.values())
    assert table["tokens"].iloc[-1] == 14_900 - request.turns[-1].counted > 0  # unrecorded overhead
    assert any("Last recorded prompt: **14,900** tokens, for message 5 (14,000 read from the cache, 0 written to "
               "it, 900 uncached)" in c for c in captions(at))
    turns = table_with(at, "recorded", "estimate")
    assert turns["recorded"].tolist() == [15_203, 15_285, 14_900]
    # The bar (plain HTML): one segment per part with its count, and the recorded prompt marked.
    bar = next(h.value for h in at.main.get("html") if 'data-chart="whole-request"' in h.value)
    for label, tokens in zip(PART_LABELS.values(), request.parts.values(), strict=True):
        assert (f"{label}: {tokens:,} tokens" in bar) == (tokens > 0)
    assert "recorded last prompt 14,900" in bar


def test_timeline_replay_draws_recorded_and_estimated_sizes_and_can_trigger_on_either():
    name, data = F.claude_code_session()
    at = open_file("timeline_replay", name, data, full_history=True)
    conv = load(data, filename=name)
    request = request_breakdown(conv, RoughWeigher())
    assert at.radio(key="replay_sizing").value == "Recorded prompt sizes where the log has them"
    assert metrics(at)["Estimate error"] == f"{request.estimate_errors()['estimate']:.1f} %"
    expected = replay(conv.messages, CompressorConfig(model="gpt-4o", max_tokens=16_384), ExtractiveSummarizer(),
                      request=request)
    assert metrics(at)["Peak prompt"] == f"{expected.peak_prompt:,}" == "15,285"  # the second recorded prompt
    traces = {trace.get("name"): trace for trace in json.loads(at.get("plotly_chart")[0].proto.spec)["data"]}
    assert values(traces["prompt size (log usage)"]["y"]) == [15_203, 15_285, 14_900]
    assert values(traces["log's prompt (estimate)"]["y"]) == request.turn_table()["estimate"].tolist()
    sizes = table_with(at, "recorded", "messages_only_error_pct")
    assert sizes["estimate"].tolist() == request.turn_table()["estimate"].tolist()

    at.radio(key="replay_sizing").set_value("The whole-request estimate")
    run(at)
    by_estimate = replay(conv.messages, CompressorConfig(model="gpt-4o", max_tokens=16_384), ExtractiveSummarizer(),
                         request=request, use_recorded=False)
    assert metrics(at)["Peak prompt"] == f"{by_estimate.peak_prompt:,}"


def test_a_short_session_gets_advice_it_can_follow_on_the_replay():
    messages = small_session()
    at = open_file("timeline_replay", "short.json", json.dumps(messages).encode())
    assert metrics(at)["Compactions"] == "0"
    assert "never reached the threshold" in at.info[0].value
    advice = [plain(m.value) for m in at.markdown if plain(m.value).startswith(("Scale", "Lower", "What-if", "No "))]
    assert len(advice) == 2
    assert advice[0].startswith("Scale the window to ") and "What-if (not what Hermes does)" in advice[-1]
    at.button(key="replay_option_0").click()
    run(at)
    assert int(metrics(at)["Compactions"]) >= 1
    scale = at.select_slider(key="window_scale").value
    assert scale < 1
    assert any("What-if: the window scaled to" in c for c in captions(at))

    at.button[-1].click()  # "Reset to Hermes defaults" also turns the what-ifs off
    run(at)
    assert at.select_slider(key="window_scale").value == 1.0 and metrics(at)["Compactions"] == "0"
    at.button(key="replay_option_1").click()  # the floor dropped, the threshold lowered
    run(at)
    assert at.checkbox(key="what_if_no_floor").value is True
    assert int(metrics(at)["Compactions"]) >= 1
    assert any("the 64K floor dropped (not what Hermes does)" in c for c in captions(at))


def test_a_sweep_of_identical_cells_says_so_instead_of_drawing_them():
    at = open_file("parameter_sweep", "short.json", json.dumps(small_session()).encode())
    assert not at.get("plotly_chart")
    assert any("cells give the same result" in plain(i.value) and "never reach a threshold" in plain(i.value)
               for i in at.info)
    at.button(key="sweep_option_0").click()
    run(at)
    assert len(at.get("plotly_chart")) == 1


def caption_helps(at: AppTest) -> list[str]:
    return [plain(c.proto.help) for c in at.caption if c.proto.help]


def test_every_page_names_the_window_in_one_line_and_offers_the_logs_model():
    name, data = F.claude_code_session()
    at = open_file("zones", name, data)
    line = [c for c in captions(at) if c.startswith(name)]
    assert len(line) == 1 and "gpt-4o · window 128,000 · threshold " in line[0] and "\n" not in line[0]
    assert any(h.startswith("Window **128,000** tokens, gpt-4o's input window in litellm's model table. Output "
                            "reserve 16,384 (its output limit in litellm's table).") for h in caption_helps(at))
    model = "claude-sonnet-4-5-20250929"
    assert at.button(key="use_log_model").label == f"Use {model}"
    at.button(key="use_log_model").click()
    run(at)
    assert at.selectbox(key="model").value == model
    assert at.number_input(key="context_length").value == context_window(model)
    # Hermes' default config keeps no output reserve: the model's output limit is not one.
    assert output_limit(model) and at.number_input(key="max_tokens").value == 0
    assert any(f"Window **{context_window(model):,}** tokens, {model}'s input window in litellm's model table. "
               "No output reserve." in h for h in caption_helps(at))
    assert not [b for b in at.button if b.key == "use_log_model"]

    at.number_input(key="context_length").set_value(150_000)
    run(at)
    assert any(f"Window **150,000** tokens, entered by hand (litellm's table gives {model} {context_window(model):,})"
               in h for h in caption_helps(at))


def test_a_codex_log_names_its_recorded_window():
    name, data = F.codex_rollout()
    at = open_file("savings", name, data)
    assert any("The log records a window of 258,400." in h for h in caption_helps(at))


def test_zones_decide_the_trigger_on_the_recorded_prompt_as_the_host_does():
    name, data = F.claude_code_session()
    at = open_file("zones", name, data, full_history=True)
    messages_alone = analyze_zones(load(data, filename=name).messages, CompressorConfig()).prompt_tokens
    assert plain(at.info[0].value).startswith(
        "**Compression would not trigger on its own.** The last prompt size the log recorded is 14,900 (the "
        f"messages alone: {messages_alone:,}), below the threshold of 83,712")  # v0.19.0: 75 % of 111,616
    at.number_input(key="context_length").set_value(16_000)  # v0.18.0: 85 % of it, 13,600
    run(at)
    assert plain(at.success[0].value) == (
        "**Compression would trigger.** The last prompt size the log recorded is 14,900 (the messages alone: "
        f"{messages_alone:,}), at or above the threshold of 13,600.")
    why = [plain(m.value) for m in at.markdown if "Compression triggers" in plain(m.value)]
    assert why and f"the whole request is 14,900 tokens (the messages alone {messages_alone:,} estimated tokens)" \
        in why[0]


def test_the_sweep_triggers_on_the_whole_request():
    # A request body whose tool schemas take it over a 20,000-token window's threshold (v0.18.0: 85 %
    # of it, 17,000) although the messages alone stay below it.
    tools = [{"type": "function", "function": {"name": f"tool_{n}", "description": "Reads a file. " * 120,
                                               "parameters": {"type": "object", "properties": {}}}}
             for n in range(20)]
    body = {"model": "gpt-4o", "messages": small_session(), "tools": tools}
    at = open_file("parameter_sweep", "request.json", json.dumps(body).encode())
    at.number_input(key="context_length").set_value(20_000)
    run(at)
    request = request_breakdown(load(json.dumps(body).encode(), filename="request.json"), RoughWeigher())
    assert request.messages < 17_000 <= request.total
    assert any(f"the trigger tests {request.total:,}, the whole-request estimate." in c for c in captions(at))
    best = table_with(at, "threshold_percent", "savings_pct")
    assert len(best) and (best["savings_pct"] > 0).all()
    at.number_input(key="context_length").set_value(128_000)
    run(at)
    assert any("never reach a threshold" in plain(i.value) for i in at.info)
