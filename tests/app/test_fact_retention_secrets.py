"""The Fact retention page never scores a secret as a fact to keep, and never shows one."""

from __future__ import annotations

from typing import Any

from core.views.retention import FactIndex
from tests.app.conftest import text_blocks
from tests.app.test_analysis_pages import frame, loaded, open_page
from tests.helpers import asst, call, tool, user
from tests.helpers import sys as system

SECRETS = ("sk-proj-ABCDEFGHIJ0123456789abcd", "S3cr3tPassw0rd", "Zq8xK2pLm9Vt4Rw7Yb3NcD5f",
           "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")


def _session() -> list[dict[str, Any]]:
    messages = [
        system(),
        user("Rotate the staging credentials and fix src/api/client.py."),
        asst(None, [call("s1", "terminal", {"command": "psql postgres://app:S3cr3tPassw0rd@db.internal:5432/app -c 'select 1'"})]),
        tool("s1", "ERROR: password authentication failed for user \"app\""),
        user("Use the key sk-proj-ABCDEFGHIJ0123456789abcd for staging."),
        asst(None, [call("s2", "read_file", {"path": ".env"})]),
        tool("s2", "API_TOKEN=Zq8xK2pLm9Vt4Rw7Yb3NcD5f\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ]
    for j in range(30):  # enough output for the default 128K context to compress
        messages.append(asst(None, [call(f"c{j:02d}", "read_file", {"path": f"src/m{j:02d}.py"})]))
        messages.append(tool(f"c{j:02d}", f"out{j:02d} src/m{j:02d}.py " + "x" * 19_980))
    messages.append(asst("Done."))
    messages.append(user("What is left?"))
    return messages


def _everything_shown(at: Any) -> str:
    shown = [frame_element.value.to_csv() for frame_element in at.dataframe]
    shown += [element.value for element in (*at.markdown, *at.caption, *at.code, *at.info, *at.success)]
    shown += text_blocks(at).values()
    return "\n".join(str(text) for text in shown)


def test_secrets_are_neither_scored_nor_shown() -> None:
    messages = _session()
    at = open_page("fact_retention", messages)
    shown = _everything_shown(at)
    for secret in SECRETS:
        assert secret not in shown
    index = FactIndex(loaded(messages))
    assert not any(secret in value for value in index.facts["value"] for secret in SECRETS)
    summary = frame(at, "retention_summary")
    # the compacted part's facts are scored, and the request that held a key is one, masked
    assert summary["total"].tolist()[0] > 0
    part = index.facts_in(range(1, 7))
    assert "Use the key sk-pro...abcd for staging." in set(part["value"])  # the request, masked as the profile masks
    assert "src/api/client.py" in set(part["value"])
    assert not any("psql" in value for value in part["value"])  # the command that held the password is no fact
