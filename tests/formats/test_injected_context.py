"""What the importers keep of the request besides the messages: injected context and usage."""

from __future__ import annotations

import json

from core.formats import load
from tests.formats.layouts import ClaudeLog, jsonl
from tests.inspections import request_fixtures as F


def test_claude_code_attachments_are_injected_context_where_they_were_sent():
    log = ClaudeLog()
    log.user("Plan the release.", parent=None)
    todos = [{"content": "Tag v1.2", "status": "pending"}]
    log.row("attachment", attachment={"type": "todo_reminder", "content": todos})
    log.row("attachment", attachment={"type": "hook_additional_context", "content": ["Use semver.", "Sign tags."]})
    log.row("attachment", attachment={"type": "hook_success", "content": "", "stdout": "{}"})
    log.response("msg_1", [{"type": "text", "text": "Tagging."}])
    conv = load(jsonl(log.rows), filename="s.jsonl")
    assert [(i.position, i.kind, i.text) for i in conv.injected] == [
        (1, "todo_reminder", json.dumps(todos[0], ensure_ascii=False)),
        (1, "hook_additional_context", "Use semver.\nSign tags."),
    ]  # an attachment with no text (a hook that printed nothing for the model) adds nothing
    assert [i.source for i in conv.injected] == ["line 2", "line 3"]
    assert conv.report.skipped_count == 3  # still not messages: the load report says so


def test_codex_context_messages_are_injected_context_and_metadata():
    conv = load(F.codex_rollout()[1], filename="rollout.jsonl")
    assert [(i.position, i.kind) for i in conv.injected] == [(1, "# AGENTS.md"), (1, "<environment_context>")]
    assert [e["text"] for e in conv.metadata["excluded_messages"]] == [i.text for i in conv.injected]
    assert conv.injected[0].text == F.CODEX_AGENTS


def test_a_responses_object_gives_its_usage_to_the_answer():
    conv = load(F.responses_object()[1], filename="response.json")
    assert [m["role"] for m in conv.messages] == ["system", "user", "assistant"]
    assert conv.usage == [None, None, F.RESPONSES_USAGE]
    # An input list alone (no response object) has no usage to give.
    doc = json.loads(F.responses_object()[1])
    del doc["usage"]
    assert load(json.dumps(doc).encode(), filename="r.json").usage == [None, None, None]
