"""A run's retention reads the messages it carried over (the very objects the index was made of) from
the index, and every other message afresh: the result is that of reading the whole output afresh."""

from __future__ import annotations

import copy

import pytest

from core.facts import retention, searchable_text
from core.views.retention import FactIndex

MESSAGES = [
    {"role": "user", "content": "Fix the failing test in src/app/models.py, see issue #42"},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
        "name": "terminal", "arguments": '{"command": "pytest tests/test_models.py -q"}'}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "FAILED tests/test_models.py::test_total - KeyError: 'sku'\n"
                                                     "1 failed, 12 passed in 0.84s"},
    {"role": "assistant", "content": "The KeyError comes from OrderLine.total(); I will patch it."},
    {"role": "user", "content": "Also bump the timeout to 30s in config/settings.yaml"},
]


def _outputs() -> list[list[dict]]:
    changed = copy.deepcopy(MESSAGES[2])
    changed["content"] = "[output cleared]"
    return [
        list(MESSAGES),  # every message carried over
        [MESSAGES[0], changed, MESSAGES[4]],  # one changed
        [copy.deepcopy(message) for message in MESSAGES],  # equal copies, none the same object
        [MESSAGES[4], {"role": "user", "content": "summary: src/app/models.py and 30s"}],
        [],
    ]


@pytest.mark.parametrize("output", _outputs())
def test_retention_of_an_output_is_that_of_its_whole_text(output):
    index = FactIndex(MESSAGES)
    for indices in (range(len(MESSAGES)), [2, 3]):
        expected = retention(index.facts_in(indices), searchable_text(output))
        assert index.retention_of(indices, output).equals(expected)


def test_an_output_that_is_not_messages_is_refused():
    with pytest.raises(TypeError, match="message 1 must be a dict"):
        FactIndex(MESSAGES).retention_all([MESSAGES[0], "not a message"])
