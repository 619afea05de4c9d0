"""Format-specific mapping rules, on small inputs written here."""

import io
import json

from core.formats import load
from tests.formats.checks import SAMPLES, assert_canonical, assert_tool_pairs


def load_json(document, **kwargs):
    conv = load(json.dumps(document).encode(), filename="t.json", **kwargs)
    assert_canonical(conv)
    return conv


def load_lines(*records, **kwargs):
    conv = load("".join(json.dumps(r) + "\n" for r in records).encode(), filename="t.jsonl", **kwargs)
    assert_canonical(conv)
    return conv


# --- OpenAI chat ---------------------------------------------------------------------------------


def test_openai_legacy_function_call_becomes_a_tool_pair():
    conv = load_json([
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": None, "function_call": {"name": "get_weather", "arguments": "{\"city\": \"Oslo\"}"}},
        {"role": "function", "name": "get_weather", "content": "-3C"},
    ])
    call = conv.messages[1]["tool_calls"][0]
    assert call["function"] == {"name": "get_weather", "arguments": "{\"city\": \"Oslo\"}"}
    assert conv.messages[2] == {"role": "tool", "content": "-3C", "tool_call_id": call["id"], "name": "get_weather"}
    assert_tool_pairs(conv.messages)


def test_openai_extra_keys_are_dropped_and_counted():
    conv = load_json({"messages": [
        {"role": "user", "content": "x", "timestamp": 1, "id": "m1"},
        {"role": "assistant", "content": "y", "reasoning_content": "think", "refusal": None, "annotations": []},
    ], "tools": [{"type": "function", "function": {"name": "f"}}]})
    assert conv.messages == [{"role": "user", "content": "x"}, {"role": "assistant", "content": "y"}]
    assert conv.reasoning == [None, "think"]
    assert conv.metadata["dropped_keys"] == {"timestamp": 1, "id": 1, "reasoning_content": 1, "refusal": 1, "annotations": 1}
    assert conv.tools == [{"type": "function", "function": {"name": "f"}}]



def test_openai_ids_and_tool_names_are_one_string_each():
    # A long log repeats each call id (in its call and its result) and a few tool names thousands
    # of times: the loaded messages hold one string object for each.
    calls = [{"id": f"call_{i}", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
             for i in range(3)]
    conv = load_json([{"role": "user", "content": "read them"},
                      {"role": "assistant", "content": None, "tool_calls": calls},
                      *({"role": "tool", "tool_call_id": f"call_{i}", "content": "text"} for i in range(3))])
    loaded_calls = conv.messages[1]["tool_calls"]
    assert [m["tool_call_id"] for m in conv.messages[2:]] == ["call_0", "call_1", "call_2"]
    assert all(m["tool_call_id"] is call["id"] for m, call in zip(conv.messages[2:], loaded_calls, strict=True))
    assert len({id(call["function"]["name"]) for call in loaded_calls}) == 1


def test_openai_content_parts_are_normalised():
    conv = load_json([{"role": "user", "content": [
        "plain string part",
        {"type": "text", "text": "a"},
        {"type": "image_url", "image_url": "https://example.org/a.png"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA", "detail": "low"}},
        {"type": "input_audio", "input_audio": {"data": "UklG", "format": "wav"}},
    ]}])
    assert conv.messages[0]["content"] == [
        {"type": "text", "text": "plain string part"},
        {"type": "text", "text": "a"},
        {"type": "image_url", "image_url": {"url": "https://example.org/a.png"}},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA", "detail": "low"}},
        {"type": "input_audio", "input_audio": {"data": "UklG", "format": "wav"}},
    ]


def test_openai_tool_call_arguments_given_as_objects_and_missing_ids():
    conv = load_json([
        {"role": "assistant", "content": None, "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {"a": 1}}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "ok"},
    ])
    call = conv.messages[0]["tool_calls"][0]
    assert call == {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{\"a\": 1}"}}
    assert any("without an id; gave it 'call_1'" in w for w in conv.warnings)


def test_openai_orphans_are_reported_not_repaired():
    conv = load_json([{"role": "assistant", "content": None, "tool_calls": [
        {"id": "lost", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}])
    assert conv.messages[0]["tool_calls"][0]["id"] == "lost"
    assert any("tool call 'lost' has no result" in w for w in conv.warnings)


def test_tool_call_ids_used_by_more_than_one_call_are_reported():
    # As in a real SWE-agent trajectory: a replayed action keeps the id of the first call.
    def call(call_id: str) -> dict:
        return {"role": "assistant", "content": None,
                "tool_calls": [{"id": call_id, "type": "function", "function": {"name": "bash", "arguments": "{}"}}]}

    def result(call_id: str) -> dict:
        return {"role": "tool", "tool_call_id": call_id, "content": "ok"}

    conv = load_json([{"role": "user", "content": "go"}, call("a"), result("a"), call("b"), result("b"),
                      call("a"), result("a")])
    reused = [w for w in conv.warnings if "used by more than one call" in w]
    assert reused == ["1 tool-call id(s) used by more than one call: 'a' by messages 1, 5; a result names its call "
                      "only by id, so which of those calls it answers is ambiguous"]
    assert len(conv.messages) == 7  # nothing dropped or renamed: the log as written
    clean = load_json([{"role": "user", "content": "go"}, call("a"), result("a"), call("b"), result("b")])
    assert not any("used by more than one call" in w for w in clean.warnings)


def test_openai_jsonl_of_conversations_gives_sessions():
    conv = load_lines({"id": "a", "messages": [{"role": "user", "content": "first"}]},
                      {"id": "b", "messages": [{"role": "user", "content": "second"}, {"role": "assistant", "content": "ok"}]})
    assert [s.id for s in conv.sessions] == ["a", "b"] and conv.session_id == "b"
    assert conv.sources == ["line 2 messages[0]", "line 2 messages[1]"]
    assert load_lines({"id": "a", "messages": [{"role": "user", "content": "first"}]},
                      {"id": "b", "messages": []}, session="a").messages == [{"role": "user", "content": "first"}]


def test_file_objects_are_accepted_like_uploads():
    data = (SAMPLES / "anthropic_messages_session.json").read_bytes()
    upload = io.BytesIO(data)
    upload.name = "upload.json"
    conv = load(upload)
    assert conv.filename == "upload.json" and conv.format == "anthropic"


# --- OpenAI Responses ----------------------------------------------------------------------------


def test_responses_hosted_tools_and_compaction_items():
    conv = load_json({"input": [
        {"type": "message", "role": "user", "content": "find news"},
        {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "news"}},
        {"type": "compaction", "id": "cmp_1", "encrypted_content": "gAAAA"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Here."}]},
        {"type": "item_reference", "id": "x"},
    ]})
    assert conv.messages[1]["tool_calls"][0]["function"]["name"] == "web_search"
    assert conv.messages[2] == {"role": "tool", "content": "{\"status\": \"completed\"}", "tool_call_id": "ws_1"}
    assert conv.compaction_events[0].position == 3 and conv.compaction_events[0].kind == "responses-compaction"
    assert any("item_reference (1)" in w for w in conv.warnings)
    assert_tool_pairs(conv.messages)


# --- Anthropic -----------------------------------------------------------------------------------


def test_anthropic_server_tools_and_url_images():
    conv = load_json({"system": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], "messages": [
        {"role": "user", "content": [{"type": "image", "source": {"type": "url", "url": "https://example.org/x.png"}}]},
        {"role": "assistant", "content": [
            {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {"query": "q"}},
            {"type": "web_search_tool_result", "tool_use_id": "srv_1", "content": [{"type": "web_search_result", "url": "u"}]},
            {"type": "text", "text": "found"}]},
    ]})
    assert conv.messages[0]["content"] == [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    assert conv.messages[1]["content"] == [{"type": "image_url", "image_url": {"url": "https://example.org/x.png"}}]
    assert conv.messages[2]["content"] == "found" and conv.messages[2]["tool_calls"][0]["id"] == "srv_1"
    assert conv.messages[3]["role"] == "tool" and json.loads(conv.messages[3]["content"])[0]["url"] == "u"
    assert_tool_pairs(conv.messages)


def test_anthropic_tool_result_text_blocks_join_into_a_string():
    conv = load_json({"messages": [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "bash", "input": {"command": "ls"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [
            {"type": "text", "text": "a.py"}, {"type": "text", "text": "b.py"}]}]},
    ]})
    assert conv.messages[1] == {"role": "tool", "content": "a.py\nb.py", "tool_call_id": "t1"}


# --- ShareGPT ------------------------------------------------------------------------------------


def test_sharegpt_llama_factory_function_call_and_observation():
    conv = load_json({"conversations": [
        {"from": "human", "value": "2+2?"},
        {"from": "function_call", "value": json.dumps({"name": "calc", "arguments": {"expr": "2+2"}})},
        {"from": "observation", "value": "4"},
        {"from": "gpt", "value": "It is 4."},
    ], "system": "You can calculate.", "tools": json.dumps([{"name": "calc"}])})
    assert conv.messages[0] == {"role": "system", "content": "You can calculate."}
    call = conv.messages[2]["tool_calls"][0]
    assert call == {"id": "call_1", "type": "function", "function": {"name": "calc", "arguments": "{\"expr\": \"2+2\"}"}}
    assert conv.messages[3] == {"role": "tool", "content": "4", "tool_call_id": "call_1"}
    assert conv.tools == [{"name": "calc"}]


def test_sharegpt_responses_pair_by_name_and_order():
    gpt = ("<tool_call>\n{\"name\": \"read\", \"arguments\": {\"p\": 1}}\n</tool_call>\n"
           "<tool_call>\n{\"name\": \"grep\", \"arguments\": {\"q\": 2}}\n</tool_call>")
    tool = ("<tool_response>\n{\"name\": \"grep\", \"content\": {\"hits\": 3}}\n</tool_response>\n"
            "<tool_response>\n{\"name\": \"read\", \"content\": \"text\"}\n</tool_response>")
    conv = load_json({"conversations": [{"from": "human", "value": "go"}, {"from": "gpt", "value": gpt},
                                        {"from": "tool", "value": tool}, {"from": "tool", "value": "<tool_response>\nextra\n</tool_response>"}]})
    calls = {c["function"]["name"]: c["id"] for c in conv.messages[1]["tool_calls"]}
    assert conv.messages[2] == {"role": "tool", "content": "{\"hits\": 3}", "tool_call_id": calls["grep"]}
    assert conv.messages[3] == {"role": "tool", "content": "text", "tool_call_id": calls["read"]}
    # a response with nothing pending is kept as text, not as an orphan tool message
    assert conv.messages[4] == {"role": "user", "content": "extra"}
    assert any("without a pending tool call" in w for w in conv.warnings)


def test_sharegpt_dataset_list_gives_sessions():
    conv = load_json([{"conversations": [{"from": "human", "value": "a"}]}, {"conversations": [{"from": "human", "value": "b"}]}])
    assert [s.id for s in conv.sessions] == ["0", "1"] and conv.messages == [{"role": "user", "content": "b"}]


# --- Claude Code ---------------------------------------------------------------------------------


def test_claude_code_subagent_file_is_its_own_main_session():
    records = [json.loads(line) for line in (SAMPLES / "claude_code_session.jsonl").read_text(encoding="utf-8").splitlines()]
    sidechain = [r for r in records if r.get("isSidechain")]
    conv = load_lines(*sidechain)
    assert conv.format == "claude-code" and len(conv.sessions) == 1 and conv.sessions[0].id == conv.session_id
    assert len(conv.messages) == 4
    assert_tool_pairs(conv.messages)


def test_claude_code_timestamps_out_of_order_do_not_matter():
    records = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "timestamp": "2026-01-01T10:00:05Z",
         "message": {"role": "user", "content": "first"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s", "timestamp": "2026-01-01T10:00:01Z",
         "message": {"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "second"}],
                     "usage": {"input_tokens": 3, "output_tokens": 5}}},
    ]
    conv = load_lines(*records)
    assert [m["content"] for m in conv.messages] == ["first", "second"]
    assert conv.usage == [None, {"input_tokens": 3, "output_tokens": 5}]


# --- Codex ---------------------------------------------------------------------------------------


def test_codex_instructions_become_the_system_prompt():
    conv = load_lines(
        {"type": "session_meta", "payload": {"id": "abc", "instructions": "Be careful."}},
        {"type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}},
        {"type": "event_msg", "payload": {"type": "token_count", "info": None}},
        {"type": "response_item", "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "yo"}]}},
        {"type": "event_msg", "payload": {"type": "token_count", "info": {"last_token_usage": {"input_tokens": 7}}}},
    )
    assert conv.messages == [{"role": "system", "content": "Be careful."}, {"role": "user", "content": "hi"},
                             {"role": "assistant", "content": "yo"}]
    assert conv.system_prompt == "Be careful." and conv.session_id == "abc"
    assert conv.usage == [None, None, {"input_tokens": 7}]


def test_codex_counts_written_before_their_response_go_to_that_response():
    """Codex writes a request's token_count before the response's items, then the same count again:
    each assistant message gets its own request's usage, and a count whose response the log does not
    hold (a log cut short) is kept aside with a warning, not added to another request's."""
    def count(total: int, last: int) -> dict:
        return {"type": "event_msg", "payload": {"type": "token_count", "info": {
            "total_token_usage": {"input_tokens": total}, "last_token_usage": {"input_tokens": last}}}}

    def said(text: str) -> dict:
        return {"type": "response_item", "payload": {"type": "message", "role": "assistant",
                                                      "content": [{"type": "output_text", "text": text}]}}

    user = {"type": "response_item", "payload": {"type": "message", "role": "user",
                                                 "content": [{"type": "input_text", "text": "go"}]}}
    conv = load_lines(user, count(100, 100), said("one"), count(100, 100), user, count(250, 150), said("two"),
                      count(250, 150), count(600, 350))
    assert conv.usage == [None, {"input_tokens": 100}, None, {"input_tokens": 150}]
    assert conv.metadata["usage_without_response"] == {"input_tokens": 350}
    assert any("usage_without_response" in warning for warning in conv.warnings)


# --- OpenHands -----------------------------------------------------------------------------------


def test_openhands_eval_output_jsonl_gives_one_session_per_instance():
    history = json.loads((SAMPLES / "openhands_trajectory.json").read_text(encoding="utf-8"))
    conv = load_lines({"instance_id": "ledgerline__41", "history": history, "metrics": {}},
                      {"instance_id": "ledgerline__52", "history": history[:2], "metrics": {}}, session="ledgerline__41")
    assert [s.id for s in conv.sessions] == ["ledgerline__41", "ledgerline__52"]
    assert conv.messages == load(SAMPLES / "openhands_trajectory.json").messages
    assert conv.sources[0] == "line 1 event 0"


def test_openhands_user_images_and_history_wrapper():
    conv = load_json({"instance_id": "x", "history": [
        {"id": 0, "source": "user", "action": "message", "args": {"content": "look", "image_urls": ["data:image/png;base64,AAAA"]}},
        {"id": 1, "source": "agent", "observation": "agent_condensation", "content": "summary text"},
    ]})
    assert conv.messages[0]["content"] == [{"type": "text", "text": "look"},
                                           {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]
    assert conv.compaction_events[0].summary == "summary text" and conv.metadata["instance_id"] == "x"


# --- LangChain -----------------------------------------------------------------------------------


def test_langchain_flat_and_serialized_forms():
    flat = [{"type": "human", "content": "hi"},
            {"type": "ai", "content": "", "tool_calls": [{"name": "f", "args": {"x": 1}, "id": "c1"}]},
            {"type": "tool", "content": "done", "tool_call_id": "c1"}]
    serialized = [
        {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "HumanMessage"], "kwargs": {"content": "hi"}},
        {"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "AIMessageChunk"],
         "kwargs": {"content": "", "tool_calls": [{"name": "f", "args": {"x": 1}, "id": "c1"}]}},
        {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "ToolMessage"],
         "kwargs": {"content": "done", "tool_call_id": "c1"}},
    ]
    expected = [{"role": "user", "content": "hi"},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\"x\": 1}"}}]},
                {"role": "tool", "content": "done", "tool_call_id": "c1"}]
    assert load_json(flat).messages == expected
    assert load_json({"messages": serialized}).messages == expected


# --- SWE-agent -----------------------------------------------------------------------------------


def test_swe_agent_old_style_history_without_tools():
    conv = load_json({"trajectory": [{"action": "ls", "observation": "a.py", "response": "ls", "thought": "look"}],
                      "history": [{"role": "system", "content": "sys", "agent": "primary"},
                                  {"role": "user", "content": "task", "agent": "primary"},
                                  {"role": "assistant", "content": "DISCUSSION\nlook\n\n```\nls\n```", "agent": "primary"},
                                  {"role": "user", "content": "a.py\n(Open file: n/a)", "agent": "primary"}],
                      "info": {"exit_status": "submitted"}})
    assert conv.format == "swe-agent" and [m["role"] for m in conv.messages] == ["system", "user", "assistant", "user"]
    assert conv.system_prompt == "sys"


# --- Layout sniffing -------------------------------------------------------------------------------


def test_compact_single_line_document_longer_than_the_sniffing_window():
    big = "x" * (1024 * 1024 + 10)
    document = {"messages": [{"role": "user", "content": big}, {"role": "assistant", "content": "ok"}]}
    conv = load(json.dumps(document).encode(), filename="compact.json")
    assert conv.messages[0]["content"] == big and len(conv.messages) == 2


def test_jsonl_whose_first_line_is_longer_than_the_sniffing_window(tmp_path):
    big = "y" * (1024 * 1024 + 10)
    path = tmp_path / "log.txt"
    path.write_text(json.dumps({"role": "user", "content": big}) + "\n" + json.dumps({"role": "assistant", "content": "ok"}) + "\n")
    conv = load(path)
    assert [len(m["content"]) for m in conv.messages] == [len(big), 2]
    assert conv.sources == ["line 1", "line 2"]


def test_pretty_printed_document_with_one_line_items_is_not_jsonl():
    text = "[\n" + ",\n".join(json.dumps({"role": r, "content": r}) for r in ("user", "assistant")) + "\n]\n"
    assert len(load(text.encode(), filename="x.json").messages) == 2
    text = '{\n  "messages": [\n' + ",\n".join("    " + json.dumps({"role": r, "content": r}) for r in ("user", "assistant")) + "\n  ]\n}\n"
    assert len(load(text.encode(), filename="x.json").messages) == 2
