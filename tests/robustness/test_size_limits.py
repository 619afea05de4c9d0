"""Oversized input: the library refuses it early and cheaply, the dashboard says so clearly.

Streamlit's upload limit (``server.maxUploadSize`` in ``.streamlit/config.toml``) and the
library's ``load(..., max_bytes=...)`` default are the same 200 MB, so anything the upload
widget lets through is also within the importer's limit. Files just over the limit are sparse
(nothing is written), and the library must refuse them without reading them.
"""

from __future__ import annotations

import io
import re
import tomllib
import tracemalloc
from pathlib import Path

import pytest

from core.formats import DEFAULT_MAX_BYTES, FormatError, detect, load
from tests.app.conftest import go, new_app
from tests.robustness.corpus import ROOT, check_error_message, generator

GEN = generator()
MB = 1024 * 1024


def test_streamlit_upload_limit_matches_the_library_limit() -> None:
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    limit_mb = config["server"]["maxUploadSize"]
    assert limit_mb == 200
    # Streamlit counts megabytes of 1024 * 1024 bytes, like the library.
    assert limit_mb * MB == DEFAULT_MAX_BYTES


def _refusal(source: object, name: str, **kwargs: object) -> tuple[str, int]:
    """The FormatError message for ``source`` and the peak memory (bytes) traced while refusing it."""
    tracemalloc.start()
    try:
        with pytest.raises(FormatError) as excinfo:
            load(source, **kwargs)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    message = str(excinfo.value)
    check_error_message(message, name)
    return message, peak


@pytest.mark.timeout(60)
def test_a_file_just_over_200_mb_is_refused_without_being_read(tmp_path: Path) -> None:
    path = GEN.write_oversized(tmp_path / "huge.json", DEFAULT_MAX_BYTES + 1)
    assert path.stat().st_size == DEFAULT_MAX_BYTES + 1
    message, peak = _refusal(path, str(path))
    assert "above the 200.0 MB limit" in message and "max_bytes=" in message
    assert peak < 2 * MB, f"refusing the file used {peak / MB:.1f} MB"
    with pytest.raises(FormatError, match="above the 200.0 MB limit"):
        detect(path)


@pytest.mark.timeout(60)
def test_the_limit_is_exact(tmp_path: Path) -> None:
    body = b'[{"role": "user", "content": "hi"}]'
    path = tmp_path / "chat.json"
    path.write_bytes(body)
    assert len(load(path, max_bytes=len(body)).messages) == 1
    message, _ = _refusal(path, str(path), max_bytes=len(body) - 1)
    assert f"above the {len(body) - 1} bytes limit" in message
    # Bytes and file objects obey the same limit.
    _refusal(body, "chat.json", filename="chat.json", max_bytes=len(body) - 1)
    with path.open("rb") as fh:
        _refusal(fh, "chat.json", filename="chat.json", max_bytes=len(body) - 1)


@pytest.mark.timeout(60)
def test_a_file_object_is_read_no_further_than_the_limit(tmp_path: Path) -> None:
    """An open file of 200 MB with a 1 MB limit: at most the limit plus one byte is read."""
    path = GEN.write_oversized(tmp_path / "huge.jsonl", DEFAULT_MAX_BYTES + 1)
    with path.open("rb") as fh:
        message, peak = _refusal(fh, "huge.jsonl", filename="huge.jsonl", max_bytes=MB)
        assert fh.tell() <= MB + 1
    assert "above the 1.0 MB limit" in message
    assert peak < 4 * MB, f"refusing the file used {peak / MB:.1f} MB"


@pytest.mark.timeout(60)
def test_a_small_limit_on_a_normal_stream() -> None:
    data = b'{"role": "user", "content": "x"}\n' * 1000
    message, _ = _refusal(io.BytesIO(data), "stream.jsonl", filename="stream.jsonl", max_bytes=1000)
    assert re.search(r"the file is \d+(\.\d)? (KB|bytes), above the 1000 bytes limit", message), message


# --------------------------------------------------------------------------------------------
# Through the dashboard
# --------------------------------------------------------------------------------------------


def _upload_errors(name: str, data: bytes) -> list[str]:
    at = new_app()
    go(at, "overview")
    at.file_uploader(key="uploader").set_value((name, data, "application/json"))
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return [re.sub(r"\\(.)", r"\1", e.value) for e in at.error]


@pytest.mark.timeout(120)
def test_dashboard_upload_just_over_a_small_configured_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The dashboard's limit (the library default unless set), lowered here; the upload is read in a
    child process, which must apply it too."""
    import dashboard.loading as loading

    limit = 4096
    monkeypatch.setattr(loading, "UPLOAD_MAX_BYTES", limit)
    line = b'{"role": "user", "content": "hello"}\n'
    data = line * (limit // len(line) + 1)
    assert limit < len(data) < limit + len(line) + 1
    errors = _upload_errors("just_over.jsonl", data)
    assert any("just_over.jsonl" in e and "the file is 4.0 KB, above the 4.0 KB limit" in e for e in errors), errors
    # Just under the limit it is read normally.
    under = line * (limit // len(line))
    assert _upload_errors("just_under.jsonl", under) == []


@pytest.mark.timeout(300)
def test_dashboard_upload_just_over_200_mb() -> None:
    """A real 200 MB + 1 byte upload (the most Streamlit could hand over) gets a clear refusal."""
    data = b"[" + b" " * (DEFAULT_MAX_BYTES - 1) + b"]"
    assert len(data) == DEFAULT_MAX_BYTES + 1
    errors = _upload_errors("big.json", data)
    assert len(errors) == 1 and "big.json" in errors[0]
    assert errors[0].endswith("the file is 200.0 MB, above the 200.0 MB limit (pass a larger max_bytes= to load it anyway)")
