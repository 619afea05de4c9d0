"""The whole request: exact figures per part on a hand-written transcript of every format that
records usage, tool schemas or injected context, and the replay's trigger on recorded sizes."""

from __future__ import annotations

import json

import pytest

from core import CompressorConfig
from core.formats import Conversation, load
from core.inspections.request import (
    PARTS,
    ExactWeigher,
    RoughWeigher,
    recorded_prompt,
    request_breakdown,
    request_report,
    weigher_for,
)
from core.tokens import estimate_messages_tokens_rough, get_counter
from core.views.replay import ESTIMATED, RECORDED, replay
from tests.helpers import Recorder
from tests.inspections import request_fixtures as F

COUNTER = get_counter("cl100k_base")


def msg_tokens(*messages: dict) -> int:
    return sum(COUNTER.count_message(m) for m in messages)


def loaded(build) -> Conversation:
    name, data = build()
    return load(data, filename=name)


def test_claude_code_usage_cache_attachments_and_its_own_compaction():
    conv = loaded(F.claude_code_session)
    request = request_breakdown(conv, ExactWeigher("cl100k_base"))
    # Claude Code counts its cache apart: the prompt is input + cache reads + cache writes.
    assert [t.recorded.prompt_tokens if t.recorded else None for t in request.turns] == [15_203, 15_285, 14_900]
    assert request.recorded_last_prompt == 14_900 and request.recorded_at == 5
    last = request.last_recorded
    assert (last.cache_read, last.cache_write, last.uncached) == (14_000, 0, 900)

    first, second, third = request.turns
    skills, hook = COUNTER.count_text(F.CC_SKILLS), COUNTER.count_text(F.CC_HOOK)
    # Before the compaction every request carries the messages so far and the attachments before it.
    assert (first.messages, first.injected) == (msg_tokens(conv.messages[0]), skills)
    assert (second.messages, second.injected) == (msg_tokens(*conv.messages[:3]), skills + hook)
    # After it (message 4 is the summary) only the summary and what follows are sent.
    assert third.context_start == 4 and third.messages == msg_tokens(conv.messages[4]) and third.injected == 0
    assert request.system == request.tools == request.injected == 0
    assert request.messages == msg_tokens(*conv.messages[4:])
    # What Claude Code adds itself (its system prompt, tool schemas) is the gap at the last recorded turn.
    assert request.unrecorded_overhead == 14_900 - msg_tokens(conv.messages[4])
    assert request.total == 14_900 + msg_tokens(conv.messages[5])
    assert request.compacted_messages == 4
    assert sum(request.parts.values()) == request.total
    sources = request.sources()
    assert "the 4 before the agent's own compaction at message 4 are no longer sent" in sources["messages"]
    assert "message 5 (14,900)" in sources["unrecorded_overhead"]


def test_codex_rollout_system_prompt_once_injected_blocks_and_resent_reasoning():
    conv = loaded(F.codex_rollout)
    assert conv.metadata["model_context_window"] == F.CODEX_WINDOW
    request = request_breakdown(conv, ExactWeigher("cl100k_base"))
    system_message = {"role": "system", "content": F.CODEX_INSTRUCTIONS}
    assert conv.messages[0] == system_message
    assert request.system == msg_tokens(system_message)
    # The AGENTS.md block holds the instructions the system message already counts: they count once.
    agents_rest = F.CODEX_AGENTS.replace(F.CODEX_INSTRUCTIONS, "", 1)
    assert request.injected == COUNTER.count_text(agents_rest) + COUNTER.count_text(F.CODEX_ENVIRONMENT)
    assert sorted(request.injected_kinds) == ["# AGENTS.md", "<environment_context>"]
    # Codex sends the first response's reasoning (128 tokens as recorded) back with the second request.
    first, second = request.turns
    assert (first.reasoning, second.reasoning) == (0, 128)
    assert first.messages == msg_tokens(conv.messages[1])
    assert second.messages == msg_tokens(*conv.messages[1:4])
    assert request.reasoning == 128 and request.messages == msg_tokens(*conv.messages[1:]) + 128
    # Codex's input_tokens already holds the cached part.
    assert request.recorded_last_prompt == 4_300
    assert (request.last_recorded.cache_read, request.last_recorded.uncached) == (4_000, 300)
    assert request.unrecorded_overhead == 4_300 - second.counted
    assert second.counted == request.system + request.injected + second.messages + 128


def test_codex_rollout_with_only_running_totals_gives_the_same_per_call_usage():
    with_last, only_totals = loaded(F.codex_rollout), loaded(lambda: F.codex_rollout(only_totals=True))
    prompts = [t.recorded.prompt_tokens for t in request_breakdown(only_totals).turns]
    assert prompts == [t.recorded.prompt_tokens for t in request_breakdown(with_last).turns] == [4_000, 4_300]
    assert only_totals.usage[4]["reasoning_output_tokens"] == 0  # the repeated count changed nothing


def test_responses_object_tools_instructions_and_usage():
    conv = loaded(F.responses_object)
    request = request_breakdown(conv, ExactWeigher("cl100k_base"))
    assert request.system == msg_tokens({"role": "system", "content": F.RESPONSES_INSTRUCTIONS})
    assert request.tools == COUNTER.count_text(json.dumps([F.SHELL_TOOL], ensure_ascii=False))
    assert request.tool_count == 1 and "1 tool schema the log records" in request.sources()["tools"]
    assert request.recorded_last_prompt == 812 and request.recorded_at == 2
    assert request.last_recorded.cache_read == 512
    assert request.unrecorded_overhead == 812 - request.system - request.tools - msg_tokens(conv.messages[1])


@pytest.mark.parametrize(("build", "prompt", "cached"), [
    (F.langchain_messages, 25, 16),
    (F.mini_swe_agent_run, 1_500, 1_024),
], ids=["langchain", "mini-swe-agent"])
def test_framework_usage_is_the_prompt_size(build, prompt, cached):
    conv = loaded(build)
    request = request_breakdown(conv, ExactWeigher("cl100k_base"))
    assert request.recorded_last_prompt == prompt and request.last_recorded.cache_read == cached
    assert request.system == msg_tokens(conv.messages[0])
    assert request.unrecorded_overhead == prompt - msg_tokens(*conv.messages[:2])


def test_turn_totals_and_logs_without_usage_record_no_prompt_size():
    exec_run = loaded(F.codex_exec_run)
    assert exec_run.metadata["usage_scope"] == "turn" and exec_run.usage[0]["input_tokens"] == 5_000
    request = request_breakdown(exec_run)
    assert request.recorded_last_prompt is None and request.unrecorded_overhead == 0
    assert request.to_dict()["recorded_last_prompt"] is None
    assert "records no prompt sizes" in request.sources()["unrecorded_overhead"]

    gateway = loaded(F.hermes_gateway)
    request = request_breakdown(gateway, ExactWeigher("cl100k_base"))
    assert request.tools == COUNTER.count_text(json.dumps(gateway.tools, ensure_ascii=False)) > 0
    assert request.total == request.tools + msg_tokens(*gateway.messages)
    errors = request.estimate_errors()
    assert (errors["turns"], errors["messages_only"], errors["estimate"], errors["estimate_max"]) == (0, None, None, None)


def test_rough_unit_is_the_hosts_request_estimate():
    conv = loaded(F.responses_object)
    rough = request_breakdown(conv, RoughWeigher())
    assert rough.unit == "hermes"
    assert rough.tools == (len(str(conv.tools)) + 3) // 4
    assert weigher_for(CompressorConfig()).unit == "hermes"
    assert weigher_for(CompressorConfig(token_estimator="tiktoken", model="gpt-4o")).unit == "o200k_base"


def test_recorded_prompt_reads_each_providers_usage():
    assert recorded_prompt({"prompt_tokens": 90, "prompt_tokens_details": {"cached_tokens": 40}}).cache_read == 40
    anthropic = recorded_prompt({"input_tokens": 2, "cache_read_input_tokens": 10, "cache_creation_input_tokens": 5})
    assert (anthropic.prompt_tokens, anthropic.uncached) == (17, 2)
    assert recorded_prompt({"input_tokens": 30, "cached_input_tokens": 20}).uncached == 10
    assert recorded_prompt({"token_count": 12}) is None and recorded_prompt(None) is None


def test_json_object_has_one_entry_per_part():
    conv = loaded(F.claude_code_session)
    report = request_report(conv, CompressorConfig(model="gpt-4o"))
    exact = request_breakdown(conv, ExactWeigher("o200k_base"))
    assert {name: report[name] for name in PARTS} == exact.parts
    assert report["total"] == exact.total and report["unit"] == "o200k_base"
    assert report["recorded_last_prompt"] == 14_900
    assert report["cache"] == {"read": 14_000, "write": 0, "uncached": 900}
    # The host decides on the recorded prompt when there is one.
    # gpt-4o's 128,000-token window: v0.19.0 raises 50 % to 75 %.
    assert report["trigger"] == {"tokens": 14_900, "source": "recorded", "threshold_tokens": 96_000,
                                 "would_compress": False}
    hermes = request_report(loaded(F.hermes_gateway), CompressorConfig())
    assert hermes["trigger"]["source"] == "estimate (hermes)"
    assert hermes["trigger"]["tokens"] == request_breakdown(loaded(F.hermes_gateway), RoughWeigher()).total



@pytest.mark.parametrize("build", [F.claude_code_session, F.hermes_gateway])
def test_without_every_turn_only_recorded_turns_are_kept_and_every_figure_is_the_same(build):
    conv = loaded(build)
    full = request_breakdown(conv, ExactWeigher("cl100k_base"))
    lean = request_breakdown(conv, ExactWeigher("cl100k_base"), every_turn=False)
    assert lean.turns == [turn for turn in full.turns if turn.recorded is not None]
    assert len(lean.turns) < len(full.turns) or all(turn.recorded for turn in full.turns)
    assert lean.to_dict() == full.to_dict()
    assert lean.estimate_errors() == full.estimate_errors()


# --- the replay on recorded sizes ---------------------------------------------------------------


def test_replay_triggers_on_recorded_sizes_and_moves_them_after_its_own_compaction():
    # Reads long enough that a summary of two of them is smaller than they are.
    messages = F.coding_session(30, 150)
    # The agent's provider reported prompts far above the message estimate (an unrecorded system prompt
    # and tool schemas of about 70,000 tokens): the trigger fires on those sizes, as Hermes' loop would.
    usage = [None] * len(messages)
    for index in range(2, len(messages), 2):
        usage[index] = {"prompt_tokens": 70_000 + 120 * index}
    conv = Conversation(format="openai-chat", messages=messages, usage=usage)
    config = CompressorConfig(profile="v0.18.1")  # the 64,000-token threshold these sizes are built around
    request = request_breakdown(conv, weigher_for(config))
    estimate_only = replay(messages, config, Recorder())
    assert not estimate_only.compactions  # the messages alone (about 17,500 tokens) never reach 64,000

    result = replay(messages, config, Recorder(), request=request)
    first = result.compactions[0]
    assert first.message_index == 2 and first.tokens_before == 70_240
    # The recorded sizes are the real agent's, never compressed by Hermes: they hold until the
    # replay's own first compaction, and from then on the replay sizes its own conversation.
    compacted_at = int(result.points.index[result.points["compacted"]][0])
    assert result.points["sized_by"].iloc[:compacted_at + 1].eq(RECORDED).all()
    assert result.points["sized_by"].iloc[compacted_at + 1:].eq(ESTIMATED).all()
    assert result.sized_by_recorded == compacted_at + 1 < len(result.points) // 2
    assert result.points["recorded"].tolist() == [70_000 + 120 * i for i in range(2, len(messages), 2)]
    # Between compactions each request grows by the messages appended since, scaled by the log's factor.
    points = result.points.reset_index(drop=True)
    for k in range(1, len(points)):
        if points["outcome"].iloc[k] or points["outcome"].iloc[k - 1]:
            continue
        grown = estimate_messages_tokens_rough(messages[:points["message_index"].iloc[k]]) - \
            estimate_messages_tokens_rough(messages[:points["message_index"].iloc[k - 1]])
        step = points["prompt_before"].iloc[k] - points["prompt_after"].iloc[k - 1]
        assert abs(step - request.factor * grown) <= 2
    # The overhead beyond the messages (about 70,000 tokens, above the threshold) is carried on:
    # every compaction leaves the prompt over the threshold, and each row says what it saved of it.
    assert all(record.tokens_after >= config.threshold_tokens for record in result.compactions)
    assert all(record.savings_pct < 10 < record.compressor_savings_pct for record in result.compressed)

    by_estimate = replay(messages, config, Recorder(), request=request, use_recorded=False)
    assert by_estimate.sized_by_recorded == 0
    # The estimate carries the overhead calibrated at the last recorded turn.
    row = by_estimate.points.iloc[0]
    assert row["prompt_before"] == row["estimate"] == request.turn(2).in_messages + request.unrecorded_overhead


def test_replay_refuses_a_request_of_other_messages_or_units():
    conv = loaded(F.responses_object)
    with pytest.raises(ValueError, match="counted in"):
        replay(conv.messages, CompressorConfig(), Recorder(), request=request_breakdown(conv, ExactWeigher()))
    with pytest.raises(ValueError, match="describes 3 messages"):
        replay(conv.messages[:2], CompressorConfig(), Recorder(), request=request_breakdown(conv, RoughWeigher()))


def test_replay_drops_the_resent_reasoning_of_what_it_compacts():
    messages = F.coding_session(30, 30)
    # A Codex-like log: the third response reasoned 5,000 tokens, which every later request carries.
    usage: list = [None] * len(messages)
    for index in range(2, len(messages), 2):
        usage[index] = {"input_tokens": 30_000 + 1_500 * index + (5_000 if index > 6 else 0),
                        "reasoning_output_tokens": 5_000 if index == 6 else 0}
    conv = Conversation(format="codex", messages=messages, usage=usage)
    request = request_breakdown(conv, RoughWeigher())
    assert request.reasoning_by_message[6] == 5_000
    assert (request.turn(6).reasoning, request.turn(8).reasoning) == (0, 5_000)
    result = replay(messages, CompressorConfig(profile="v0.18.1"), Recorder(), request=request)
    first = result.compactions[0]
    assert first.message_index == 20 and 6 in first.compacted_indices
    turn = request.turn(first.message_index)
    after = int(result.points.loc[result.points["message_index"] == first.message_index, "prompt_after"].item())
    # What is left of the recorded size: the compacted context as estimated, and no resent reasoning.
    # The overhead beyond the messages at that request, carried on, plus the compacted context (scaled by
    # the log's factor), with no resent reasoning: what reasoned it was folded into the summary.
    carried = turn.recorded.prompt_tokens - request.factor * turn.in_messages
    assert abs(after - (carried + request.factor * estimate_messages_tokens_rough(first.messages))) <= 2


@pytest.mark.parametrize("seed", range(40))
def test_each_turn_counts_the_blocks_sent_with_its_context(seed):
    """Random logs (leading system messages, injected blocks anywhere, the agent's own compactions):
    every assistant turn's context start and injected tokens follow the rule read directly: blocks at
    positions <= the turn, and only those of the standing context (<= the leading system messages)
    or after the turn's context start."""
    import random

    from core.formats.model import CompactionEvent, InjectedContext

    rng = random.Random(seed)
    n_sys = rng.randint(0, 2)
    messages = [{"role": "system", "content": f"rules {k}"} for k in range(n_sys)]
    for k in range(rng.randint(1, 60)):
        messages.append({"role": rng.choice(["user", "assistant", "assistant", "tool"]), "content": f"m{k} " * rng.randint(1, 9)})
    n = len(messages)
    injected = [InjectedContext(position=rng.randint(0, n), kind="reminder", text="note " * rng.randint(1, 30))
                for _ in range(rng.randint(0, 25))]
    rng.shuffle(injected)
    events = [CompactionEvent(position=rng.randint(0, n + 2), kind=rng.choice(["compact_boundary", "compacted", "other"]))
              for _ in range(rng.randint(0, 4))]
    conversation = Conversation(format="claude-code", messages=messages, sources=[""] * n, usage=[None] * n,
                                reasoning=[None] * n, injected=injected, compaction_events=events)
    weigher = RoughWeigher()
    request = request_breakdown(conversation, weigher)

    starts = sorted({e.position for e in events if e.kind in ("compact_boundary", "compacted") and 0 < e.position <= n})
    tokens = [(item.position, weigher.text(item.text)) for item in injected]
    assistant_indices = [i for i, m in enumerate(messages) if m["role"] == "assistant"]
    assert [turn.message_index for turn in request.turns] == assistant_indices
    for turn in request.turns:
        index = turn.message_index
        start = max([s for s in starts if s <= index], default=0)
        assert turn.context_start == start
        assert turn.injected == sum(t for p, t in tokens if p <= index and (p <= n_sys or p >= start))
    now_start = max([s for s in starts if s <= n], default=0)
    assert request.injected == sum(t for p, t in tokens if p <= n and (p <= n_sys or p >= now_start))
