"""The readable conversation on a 10,000-message log: one page of HTML, the search texts, one search.

    python -m bench.bench_thread

What a page of the thread costs the server on each run (the HTML of 50 messages), and what the
first search costs once per conversation (a lower-cased text per message), against a target of
0.2 s for a page and 2 s for the search texts.
"""

from __future__ import annotations

import json
from typing import Any

from bench.common import best_of, print_table, save
from core.inspections.overview import message_tool, tool_names_by_call_id
from core.render.conversation import message_search_text, search_matches, thread_html, thread_message

MESSAGES = 10_000
PAGE = 50
PAGE_TARGET_S = 0.2
SEARCH_TARGET_S = 2.0


def long_log() -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Fix the **build** (see `make test`)."}]
    step = 0
    while len(messages) < MESSAGES:
        call = f"c{step}"
        messages += [
            {"role": "assistant", "content": "Running the next step.", "tool_calls": [
                {"id": call, "type": "function",
                 "function": {"name": "run_shell", "arguments": json.dumps({"command": f"make step{step}"})}}]},
            {"role": "tool", "tool_call_id": call, "content": f"step {step}: ok\n" * (200 if step % 7 == 0 else 5)},
            {"role": "assistant", "content": f"Step **{step}** done; next is `step{step + 1}`.\n\n- one\n- two"},
        ]
        step += 1
    return messages[:MESSAGES]


def main() -> None:
    messages = long_log()
    names = tool_names_by_call_id(messages)
    tools = [message_tool(m, names) for m in messages]
    last = range(MESSAGES - PAGE, MESSAGES)

    def page() -> str:
        return thread_html([thread_message(messages[n], n, tool=tools[n], tokens=100) for n in last], "bench")

    def search_texts() -> list[str]:
        return [message_search_text(thread_message(m, i, tool=tools[i])) for i, m in enumerate(messages)]

    page_best, page_median = best_of(page, repeat=5)
    texts_best, texts_median = best_of(search_texts, repeat=3)
    texts = search_texts()
    search_best, search_median = best_of(lambda: search_matches(texts, "step9 ok"), repeat=5)
    rows = [
        {"what": f"one page ({PAGE} messages) of HTML", "best_s": page_best, "median_s": page_median,
         "target_s": PAGE_TARGET_S, "met": page_median <= PAGE_TARGET_S},
        {"what": f"search texts of {MESSAGES:,} messages", "best_s": texts_best, "median_s": texts_median,
         "target_s": SEARCH_TARGET_S, "met": texts_median <= SEARCH_TARGET_S},
        {"what": "one search over them", "best_s": search_best, "median_s": search_median, "target_s": None,
         "met": None},
    ]
    print_table(f"Readable conversation, {MESSAGES:,} messages", rows)
    save("thread", {"messages": MESSAGES, "page": PAGE, "rows": rows, "page_html_chars": len(page())})


if __name__ == "__main__":
    main()
