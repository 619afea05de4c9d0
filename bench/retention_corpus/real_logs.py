"""Real agent logs from public repositories, kept as fixtures (sources and licences: ``real/SOURCES.md``).

Each file is read with the project's own loader, and every session it holds (an evaluation
``output.jsonl`` holds several runs, a Claude Code log its subagent runs) is one corpus session.
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

REAL_DIR = Path(__file__).resolve().parent / "real"

# file -> (harness, split). The split was fixed before the summarizer was tuned: the held-out logs
# are measured, never looked at while changing it.
REAL_LOGS: dict[str, tuple[str, str]] = {
    "swea_pydicom.traj.gz": ("swe-agent", "tuning"),
    "swea_ctf_katy.traj.gz": ("swe-agent", "tuning"),
    "swea_marsh_fc.traj.gz": ("swe-agent", "tuning"),
    "codex_moonmind_1112.jsonl.gz": ("codex", "tuning"),
    "cc_viewer_1af7fc5e.jsonl.gz": ("claude-code", "tuning"),
    "oh_gui.json.gz": ("openhands", "tuning"),
    "mini_github_issue.traj.json.gz": ("mini-swe-agent", "tuning"),
    "oh_multiswe_output.jsonl.gz": ("openhands", "tuning"),
    "swea_ctf_web.traj.gz": ("swe-agent", "held-out"),
    "swea_ctf_rock.traj.gz": ("swe-agent", "held-out"),
    "swea_testrepo.traj.gz": ("swe-agent", "held-out"),
    "swea_humaneval.traj.gz": ("swe-agent", "held-out"),
    "codex_moonmind_1113a.jsonl.gz": ("codex", "held-out"),
    "cc_viewer_fe5e1c67.jsonl.gz": ("claude-code", "held-out"),
    "oh_wrong_state.json.gz": ("openhands", "held-out"),
    "oh_resolver_output.jsonl.gz": ("openhands", "held-out"),
}
# A session this short leaves nothing in the middle to summarise.
MIN_MESSAGES = 8


def real_sessions(split: str | None = None) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """(name, harness, messages) of every session of the real logs (of one split when given)."""
    from core.formats import load

    found: list[tuple[str, str, list[dict[str, Any]]]] = []
    for file_name, (harness, file_split) in REAL_LOGS.items():
        if split is not None and file_split != split:
            continue
        data = gzip.decompress((REAL_DIR / file_name).read_bytes())
        original = file_name[: -len(".gz")]
        stem = original.split(".", 1)[0]
        conversation = load(data, filename=original)
        ids = [session.id for session in conversation.sessions] or [None]
        for session_id in ids:
            if session_id is None or session_id == conversation.session_id:
                messages = conversation.messages
            else:
                messages = load(data, filename=original, session=session_id).messages
            messages = [dict(message) for message in messages if isinstance(message, dict)]
            if len(messages) < MIN_MESSAGES:
                continue
            suffix = "" if session_id is None or session_id == conversation.session_id or len(ids) == 1 else f"#{session_id}"
            found.append((f"real:{stem}{suffix}", harness, messages))
    return found
