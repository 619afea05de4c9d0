"""Wrong-typed fields in Gemini CLI, Copilot CLI, OpenCode and Cline files: a field the conversation is
made of gives a FormatError naming the file and the field; optional metadata is set aside with a
warning and the rest loads."""

import copy
import json

import pytest

from core.formats import FormatError, load
from tests.robustness.corpus import generator

SEEDS = {seed.name: seed for seed in generator().SEEDS}


def _load(seed_name, path, value):
    """The seed with the node at ``path`` replaced by ``value``, loaded as bytes."""
    seed = SEEDS[seed_name]
    doc = copy.deepcopy(seed.value)
    node = doc
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    name = "wrong" + seed.suffix
    return load(generator().seed_bytes(seed, doc), filename=name)


@pytest.mark.parametrize(("seed", "path", "value", "field"), [
    # Each of these once escaped as a TypeError.
    ("gemini_cli_session", ("messages", 1, "toolCalls"), True, "messages[1].toolCalls"),
    ("copilot_cli_events", (5, "data", "toolCallId"), ["c1"], "line 6 data.toolCallId"),
    # Each of these was once read as something else without a word.
    ("gemini_cli_session", ("messages", 2, "content", 0, "thought"), "x", "messages[2].content[0].thought"),
    ("copilot_cli_events", (3, "data", "content"), 5, "line 4 data.content"),
    ("copilot_cli_events", (8, "data", "summaryContent"), ["x"], "line 9 data.summaryContent"),
    ("opencode_export", ("messages", 1, "parts", 2, "tool"), None, "messages[1].parts[2].tool"),
    ("opencode_export", ("messages", 1, "parts", 2, "state"), "done", "messages[1].parts[2].state"),
    ("opencode_export", ("messages", 0, "parts", 0, "text"), 3, "messages[0].parts[0].text"),
    ("cline_api_history", (1, "content", 2, "name"), [], "api_conversation_history.json[1].content[2].name"),
    ("cline_ui_messages", (0, "text"), {}, "ui_messages.json[0].text"),
    ("copilot_cli_history", ("chatMessages",), {}, "chatMessages"),
])
def test_a_field_of_the_conversation_is_refused_by_name(seed, path, value, field):
    with pytest.raises(FormatError) as caught:
        _load(seed, path, value)
    message = str(caught.value)
    assert message.startswith("wrong") and f"{field}:" in message and "expected" in message, message


@pytest.mark.parametrize(("seed", "path", "value", "field"), [
    ("gemini_cli_session", ("messages", 1, "tokens"), "12", "tokens"),
    ("gemini_cli_session", ("messages", 1, "thoughts"), 7, "thoughts"),
    ("gemini_cli_session", ("summary",), ["t"], "summary"),
    ("copilot_cli_events", (4, "data", "inputTokens"), "10", "inputTokens"),
    ("copilot_cli_events", (6, "data", "newModel"), {}, "newModel"),
    ("opencode_export", ("messages", 1, "parts", 3, "tokens", "cache"), 5, "cache"),
    ("opencode_export", ("info", "title"), 1, "title"),
    ("cline_api_history", (1, "metrics", "tokens", "prompt"), True, "prompt"),
    ("cline_api_history", (1, "content", 0, "thinking"), None, None),  # null is absent: nothing to say
])
def test_optional_metadata_is_set_aside_with_a_warning(seed, path, value, field):
    conv = _load(seed, path, value)
    said = [w for w in conv.warnings if w.startswith("set aside")]
    if field is None:
        assert not said, said
    else:
        assert any(f"'{field}'" in w and "expected" in w for w in said), conv.warnings
    assert conv.messages


def test_set_aside_values_leave_the_rest_of_the_usage():
    conv = _load("gemini_cli_session", ("messages", 1, "tokens", "output"), 2.5)
    usage = next(u for u in conv.usage if u)
    assert usage["input_tokens"] == 10 and "output_tokens" not in usage
    assert any("'output'" in w and "a whole number of tokens" in w for w in conv.warnings)


def test_a_copilot_usage_count_that_is_true_is_not_one_token():
    conv = _load("copilot_cli_events", (3, "data", "outputTokens"), True)
    assert conv.usage[1] is not None and conv.usage[1].get("output_tokens") == 2  # from assistant.usage
    assert any("'outputTokens'" in w for w in conv.warnings)


def test_a_damaged_record_in_a_gemini_history_update_is_said():
    seed = SEEDS["gemini_cli_log"]
    records = copy.deepcopy(seed.value)
    records[7]["$set"]["messages"].append({"id": 5, "type": "user"})
    conv = load(generator().seed_bytes(seed, records), filename="log.jsonl")
    assert any("'$set.messages[]'" in w and "line 8" in w for w in conv.warnings), conv.warnings


def test_an_opencode_part_without_a_string_type_is_skipped_and_said():
    conv = _load("opencode_export", ("messages", 1, "parts", 1, "type"), 3)
    assert conv.reasoning == [None, None, None, None]
    assert any("'type' is not a string" in w for w in conv.warnings), conv.warnings


def test_the_seeds_load_without_warnings_about_types():
    for name in ("gemini_cli_session", "gemini_cli_log", "copilot_cli_events", "copilot_cli_history",
                 "copilot_cli_timeline", "opencode_export", "cline_api_history", "cline_ui_messages"):
        seed = SEEDS[name]
        conv = load(generator().seed_bytes(seed), filename="seed" + seed.suffix)
        assert not [w for w in conv.warnings if w.startswith("set aside")], (name, conv.warnings)
        json.dumps(conv.messages)
