"""Facts: the exact values a continuing agent needs, read out of messages, and whether a text keeps them.

Below both the summarizers (the extractive one ranks its lines by the facts they keep) and the
analyses (fact retention, the summary comparison, the batch report), so neither imports the other.

* :mod:`core.facts.extract`: paths, commands, error lines, URLs, numbers with units, names, issue
  numbers and the latest user request, per message or for a conversation;
* :mod:`core.facts.noise`: the lines of tool output that are counted, not read (passing tests,
  progress bars, directory listings, repeated log lines);
* :mod:`core.facts.credentials`: values a redaction would mask, which are not facts;
* :mod:`core.facts.retention`: the share of facts a text keeps verbatim.
"""

from core.facts.credentials import redact_all
from core.facts.extract import (
    FACT_COLUMNS,
    FACT_KINDS,
    KEY_FACT_KINDS,
    MAX_FACT_CHARS,
    MAX_REQUEST_CHARS,
    cap_value,
    command_text,
    error_lines,
    extract_facts,
    fact_rows,
    facts_frame,
    find_paths,
    is_user_words,
    latest_request,
    latest_user_request,
    merge_fact_rows,
    message_facts,
    parts_facts,
)
from core.facts.noise import NOISE_KINDS, Sifted, sift
from core.facts.retention import retention, retention_by_kind, retention_score
from core.facts.text import is_summary_text, message_text, searchable_text, text_pieces

__all__ = [
    "FACT_COLUMNS",
    "FACT_KINDS",
    "KEY_FACT_KINDS",
    "MAX_FACT_CHARS",
    "MAX_REQUEST_CHARS",
    "NOISE_KINDS",
    "Sifted",
    "cap_value",
    "command_text",
    "error_lines",
    "extract_facts",
    "fact_rows",
    "facts_frame",
    "find_paths",
    "is_summary_text",
    "is_user_words",
    "latest_request",
    "latest_user_request",
    "merge_fact_rows",
    "message_facts",
    "message_text",
    "parts_facts",
    "redact_all",
    "retention",
    "retention_by_kind",
    "retention_score",
    "searchable_text",
    "sift",
    "text_pieces",
]
