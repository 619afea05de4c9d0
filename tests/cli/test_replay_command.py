"""``context-lens replay FILE``: the timeline replay on the command line, the same data the page draws."""

from __future__ import annotations

import json

import pytest

from core.views.replay import replay_document
from tests.views.replay_fixtures import CONTEXT_LENGTH, replay_of, write_session


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    return write_session(tmp_path_factory.mktemp("replay-cli"))


@pytest.fixture(scope="module")
def replayed(session):
    return replay_of(session)


def test_the_command_line_prints_what_the_view_computes(session, replayed, cli):
    run = cli("replay", session, "--json", "--context-length", str(CONTEXT_LENGTH))
    assert run.code == 0, run.err
    printed = json.loads(run.out)
    context = printed.pop("context")
    assert context["shown"] == "full_history" and context["compaction_at"] is None  # nothing compacted here
    assert printed == json.loads(json.dumps(replay_document(replayed)))
    assert printed["threshold_tokens"] == replayed.threshold_tokens
    assert set(printed["compactions"][0]) >= {"message_index", "tokens_before", "tokens_after",
                                              "messages_summarised", "savings_pct", "outcome"}
    assert len(printed["turns"]) == len(replayed.points)


def test_the_text_form_lists_each_compaction(session, replayed, cli):
    run = cli("replay", session, "--context-length", str(CONTEXT_LENGTH))
    assert run.code == 0, run.err
    lines = [line for line in run.out.splitlines() if line.strip().startswith("message")]
    assert len(lines) == len(replayed.compactions)
    first = replayed.compactions[0]
    assert f"{first.tokens_before:,} -> " in lines[0] and f"{first.tokens_after:,} tokens" in lines[0]


def test_a_missing_file_is_one_clear_line(tmp_path, cli):
    run = cli("replay", tmp_path / "nowhere.jsonl", "--json")
    assert run.code != 0 and "Traceback" not in run.err
    assert "nowhere.jsonl" in run.err and len(run.err.strip().splitlines()) == 1


def test_a_compression_that_cannot_shrink_says_why(tmp_path, cli):
    from tests.views.replay_fixtures import short_claude_session

    name, data = short_claude_session()
    path = tmp_path / name
    path.write_bytes(data)
    printed = cli("replay", path, "--json", "--context-length", "20000", "--profile", "v0.18.1").json()
    entries = printed["compactions"]
    assert any(entry["outcome"] == "summarized" for entry in entries)
    for entry in entries:
        if entry["outcome"] in ("summarized", "fallback"):
            assert entry["tokens_after"] < entry["tokens_before"] and entry["why"] is None
        elif entry["outcome"] == "not_smaller":
            assert entry["tokens_after"] == entry["tokens_before"] and entry["savings_pct"] == 0 and entry["why"]
    assert any(entry["outcome"] == "not_smaller" for entry in entries)
    text = cli("replay", path, "--context-length", "20000", "--profile", "v0.18.1").out
    assert "not_smaller): the summary (~" in text
