"""Zones: the boundaries the page shows are the ones ``compress()`` uses, for every control."""

from __future__ import annotations

import json

import pytest

from core import ContextCompressor
from core.tokens import estimate_messages_tokens_rough
from tests.app.conftest import SAMPLES, go, load_messages, metrics, number, run, sidebar_config, upload

LONG_SAMPLE = SAMPLES / "long_coding_session.json"

CONTROL_CHANGES = [
    ("slider", "threshold_percent", 0.8),
    ("slider", "threshold_percent", 0.25),
    ("slider", "protect_first_n", 7),
    ("slider", "protect_first_n", 0),
    ("slider", "protect_last_n", 60),
    ("slider", "protect_last_n", 0),
    ("slider", "summary_target_ratio", 0.5),
    ("slider", "summary_target_ratio", 0.1),
    ("number_input", "context_length", 400_000),
    ("number_input", "context_length", 32_000),
    ("radio", "token_estimator", "tiktoken"),
    ("selectbox", "profile", "v0.15.1"),
]


def first_crossing(messages: list, threshold: int) -> int | None:
    """Smallest i whose prefix estimate reaches the threshold (prefix estimates only grow)."""
    if estimate_messages_tokens_rough(messages) < threshold:
        return None
    low, high = 0, len(messages) - 1
    while low < high:
        middle = (low + high) // 2
        if estimate_messages_tokens_rough(messages[: middle + 1]) >= threshold:
            high = middle
        else:
            low = middle + 1
    return low


def assert_zones_match_core(at, messages):
    config = sidebar_config(at)
    result = ContextCompressor(config).compress(messages)
    shown = metrics(at)
    assert number(shown["Threshold"]) == config.threshold_tokens
    assert number(shown["Tail budget"]) == config.tail_token_budget
    assert number(shown["Head"]) == result.plan.compress_start
    assert number(shown["Middle"]) == result.plan.compress_end - result.plan.compress_start
    assert number(shown["Tail"]) == len(messages) - result.plan.compress_end
    assert number(shown["Prune boundary"]) == result.plan.prune_boundary
    table = at.dataframe[0].value
    zones = list(table["zone"])
    assert zones.count("HEAD") == result.plan.compress_start
    assert zones.index("TAIL") == result.plan.compress_end
    touched = {int(i) for i, action in zip(table["index"], table["phase1"], strict=True) if action}
    assert touched == set(result.plan.phase1_actions)
    return config, result


@pytest.mark.parametrize(("kind", "key", "value"), CONTROL_CHANGES, ids=lambda v: str(v))
def test_each_control_moves_the_zones_exactly_as_core_does(app, kind, key, value):
    messages = load_messages(LONG_SAMPLE)
    go(app, "zones")
    assert_zones_match_core(app, messages)
    getattr(app, kind)(key=key).set_value(value)
    run(app)
    config, _ = assert_zones_match_core(app, messages)
    assert getattr(config, key) == value


def test_trigger_decision_and_first_crossing(app):
    messages = load_messages(LONG_SAMPLE)
    go(app, "zones")
    config = sidebar_config(app)
    compressor = ContextCompressor(config)
    prompt = estimate_messages_tokens_rough(messages)
    if compressor.should_compress(prompt):
        text = app.success[0].value
        assert "would trigger" in text
        assert f"message {first_crossing(messages, config.threshold_tokens)}." in text
    else:
        assert "would not trigger" in app.info[0].value
    # A window large enough puts the conversation under the threshold.
    app.number_input(key="context_length").set_value(2_000_000)
    run(app)
    assert prompt < sidebar_config(app).threshold_tokens
    assert not ContextCompressor(sidebar_config(app)).should_compress(prompt)
    assert "would not trigger" in app.info[0].value
    assert f"{prompt:,}" in app.info[0].value


def test_slider_value_survives_page_switches(app):
    go(app, "zones")
    app.slider(key="protect_first_n").set_value(9)
    run(app)
    for page in ("savings", "compress", "overview", "zones"):
        go(app, page)
        assert app.slider(key="protect_first_n").value == 9


def _user(text):
    return {"role": "user", "content": text}


def _call(call_id, name="terminal", text=None):
    arguments = json.dumps({"command": f"echo {call_id}"})
    return {"role": "assistant", "content": text,
            "tool_calls": [{"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}]}


def _result(call_id, size=4000):
    return {"role": "tool", "tool_call_id": call_id, "content": f"output of {call_id} " + "x" * size}


def test_explains_the_last_user_rule_after_a_long_tool_loop(app):
    messages = [{"role": "system", "content": "You are an agent."}, _user("Start the migration."),
                {"role": "assistant", "content": "On it."}, _user("Which tables?"),
                {"role": "assistant", "content": "All forty."}, _user("Go ahead with every table.")]
    for i in range(40):
        # Long reasoning text that Phase 1 cannot shorten keeps the tail walk inside the loop.
        messages += [_call(f"c{i}", text=f"Table {i}: " + "checking columns " * 500), _result(f"c{i}")]
    messages.append({"role": "assistant", "content": "All tables migrated."})
    upload(app, "loop.json", json.dumps({"messages": messages}).encode())
    go(app, "zones")
    config, result = assert_zones_match_core(app, messages)
    assert "last_user" in result.plan.tail_cut.steps
    explanation = " ".join(m.value for m in app.markdown)
    assert "newest user message must stay in the tail" in explanation
    assert f"message {result.plan.tail_cut.after_last_user}" in explanation


def test_explains_backward_alignment_of_a_tool_group(app):
    messages = [{"role": "system", "content": "You are an agent."}, _user("Clean the logs.")]
    for i in range(30):
        messages += [_user(f"Step {i}"), _call(f"a{i}"), _result(f"a{i}", 1500),
                     {"role": "assistant", "content": f"Done step {i}."}]
    messages += [_call("last"), _result("last", 20), _user("Thanks"), {"role": "assistant", "content": "Bye."}]
    upload(app, "align.json", json.dumps({"messages": messages}).encode())
    go(app, "zones")
    assert_zones_match_core(app, messages)
    result = ContextCompressor(sidebar_config(app)).compress(messages)
    explanation = " ".join(m.value for m in app.markdown)
    if "aligned_backward" in result.plan.tail_cut.steps:
        assert "call-and-results group stays in the tail" in explanation
    # Shrinking the tail budget to its minimum must keep page and core in step as well.
    app.slider(key="summary_target_ratio").set_value(0.1)
    app.number_input(key="context_length").set_value(64_000)
    run(app)
    assert_zones_match_core(app, messages)


def test_a_small_conversation_is_left_alone_and_says_why(app):
    messages = [{"role": "system", "content": "sys"}, _user("hi"), {"role": "assistant", "content": "hello"},
                _user("how are you"), {"role": "assistant", "content": "fine"}]
    upload(app, "small.json", json.dumps({"messages": messages}).encode())
    go(app, "zones")
    assert ContextCompressor(sidebar_config(app)).compress(messages).outcome == "too_small"
    shown = metrics(app)
    assert shown["Head"] == shown["Middle"] == shown["Tail"] == "—"
    explanation = " ".join(m.value for m in app.markdown)
    assert "Only 5 messages" in explanation
    assert "returns the conversation unchanged" in explanation
    assert set(app.dataframe[0].value["zone"]) == {"UNCHANGED"}


@pytest.mark.parametrize("sample", ["anthropic_messages_session.json", "long_coding_session.json"])
def test_the_zone_map_caption_names_only_the_marks_the_chart_draws(app, sample):
    from tests.app.conftest import choose_sample, plain

    choose_sample(app, sample)
    go(app, "zones")
    spec = json.loads(app.get("plotly_chart")[0].proto.spec)
    names = [trace.get("name", "") for trace in spec["data"]]
    caption = next(plain(c.value) for c in app.caption if plain(c.value).startswith("Bars:"))
    assert ("faded part" in caption) == ("cut by Phase 1" in names)
    assert ("cuts nothing" in caption) == ("cut by Phase 1" not in names)
    assert ("grey band" in caption) == any(name.startswith("left alone by Phase 1") for name in names)
