"""Every file of the hostile corpus through ``core.formats.load`` and ``detect``.

Each file either gives a ``FormatError`` whose message names the file and says what was wrong
and what was expected, or loads into a clean conversation (with warnings where the manifest
asks for them) that the compressor accepts. Nothing else may escape, nothing may hang, and
the big inputs (written at test time) are loaded in a child process whose peak memory is
measured against the file size.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from core import CompressorConfig, ContextCompressor
from core.formats import FORMAT_NAMES, Conversation, FormatError, detect
from tests.helpers import pairs_valid
from tests.robustness.corpus import (
    HOSTILE,
    ROOT,
    check_error_message,
    corpus_files,
    generator,
    load_outcome,
    manifest,
)

GEN = generator()
MANIFEST = manifest()
FILES = corpus_files()


# --------------------------------------------------------------------------------------------
# The corpus itself
# --------------------------------------------------------------------------------------------


def test_corpus_is_large_listed_and_reproducible() -> None:
    on_disk = {p.name for p in HOSTILE.iterdir() if p.is_file()} - {"generate.py", "manifest.json"}
    assert on_disk == set(MANIFEST), "the manifest and the files on disk differ; rerun generate.py"
    assert len(on_disk) >= 50
    assert sum((HOSTILE / name).stat().st_size for name in on_disk) < 1024 * 1024, "committed files stay small"
    cases = {case.name: case for case in GEN.corpus_cases()}
    assert set(cases) == set(MANIFEST)
    for name, case in cases.items():
        assert case.manifest_entry() == MANIFEST[name], name
        if not name.endswith(".db"):  # SQLite bytes may differ between library versions
            assert (HOSTILE / name).read_bytes() == case.data, f"{name} differs from what generate.py writes"
    expectations = {entry["expect"] for entry in MANIFEST.values()}
    assert expectations == {"error", "load", "either"}
    # Every supported format is among the seeds, and every seed has wrong-type variants on disk.
    assert {seed.format for seed in GEN.SEEDS} == set(FORMAT_NAMES)
    for seed in GEN.SEEDS:
        assert any(name.startswith(f"types_{seed.name}_level") for name in MANIFEST), seed.name


# --------------------------------------------------------------------------------------------
# Each committed file
# --------------------------------------------------------------------------------------------


def _check_expected(outcome: Conversation | str, entry: dict[str, Any], name: str) -> None:
    if entry["expect"] == "error":
        assert isinstance(outcome, str), f"{name} should be refused ({entry['why']}), it loaded"
    elif entry["expect"] == "load":
        assert isinstance(outcome, Conversation), f"{name} should load ({entry['why']}): {outcome}"
    if isinstance(outcome, str):
        for mention in entry.get("mentions", []):
            assert mention in outcome, (mention, outcome)
    else:
        if entry.get("format"):
            assert outcome.format == entry["format"]
        joined = "\n".join(outcome.warnings)
        for mention in entry.get("warnings", []):
            assert mention in joined, (mention, outcome.warnings)


def _compress_cleanly(conv: Conversation) -> None:
    messages = conv.messages
    snapshot = copy.deepcopy(messages)
    for config in (CompressorConfig(protect_first_n=1, protect_last_n=2), CompressorConfig(strict_redaction=True)):
        result = ContextCompressor(config, summarizer=lambda prompt, max_tokens: "## Active Task\nNone.").compress(messages)
        assert messages == snapshot
        if result.compressed:
            assert pairs_valid(result.messages)
        json.dumps(result.messages)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", FILES)
def test_corpus_file_loads_or_fails_clearly(name: str) -> None:
    entry = MANIFEST[name]
    path = HOSTILE / name
    # From disk: messages name the path as given.
    by_path = load_outcome(path, str(path))
    _check_expected(by_path, entry, name)
    # As an upload: bytes plus the file name.
    data = path.read_bytes()
    by_bytes = load_outcome(data, name, filename=name)
    _check_expected(by_bytes, entry, name)
    assert isinstance(by_bytes, str) == isinstance(by_path, str)
    # detect agrees with load.
    try:
        found = detect(data, filename=name)
    except FormatError as exc:
        check_error_message(str(exc), name)
        assert isinstance(by_bytes, str), f"detect refused {name}, load read it"
    else:
        assert found in FORMAT_NAMES
        if isinstance(by_bytes, Conversation):
            assert found == by_bytes.format
    if isinstance(by_bytes, Conversation):
        assert by_bytes.messages == by_path.messages  # type: ignore[union-attr]
        _compress_cleanly(by_bytes)
        # Every session of a multi-session source loads too (or is refused clearly).
        for info in by_bytes.sessions:
            other = load_outcome(data, name, filename=name, session=info.id)
            if isinstance(other, Conversation):
                assert other.session_id == info.id
                _compress_cleanly(other)
        # A format forced on the file never breaks anything either.
        for fmt in FORMAT_NAMES:
            load_outcome(data, name, filename=name, format=fmt)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("seed", GEN.SEEDS, ids=lambda seed: seed.name)
def test_every_node_of_every_format_with_every_wrong_type(seed: Any) -> None:
    """Each node of a valid transcript replaced by a value of each other JSON type, in memory."""
    name = "mutated" + seed.suffix
    outcomes = {"error": 0, "load": 0}
    for label, data in GEN.type_mutations(seed):
        try:
            outcome = load_outcome(data, name, filename=name)
        except Exception as exc:  # report which mutation broke it
            raise AssertionError(f"{label}: {type(exc).__name__}: {exc}") from exc
        outcomes["error" if isinstance(outcome, str) else "load"] += 1
    # Both outcomes occur: damage to structural fields is refused, damage to optional ones tolerated.
    assert outcomes["error"] > 0 and outcomes["load"] > 0, outcomes


def test_the_corpus_covers_the_required_kinds() -> None:
    """The families the robustness issue lists are all present."""
    names = set(MANIFEST)
    required = {
        "truncated JSON": "truncated_document.json",
        "truncated JSONL": "truncated_last_line.jsonl",
        "binary junk": "binary_junk.json",
        "PNG": "png_image.json",
        "ZIP": "transcript.zip",
        "PDF": "pdf_document.json",
        "ELF": "elf_binary.json",
        "invalid UTF-8": "latin1.json",
        "UTF-16 without BOM": "utf16le_no_bom.json",
        "BOM": "utf8_bom.json",
        "NUL bytes": "nul_bytes.json",
        "gzip bomb": "gzip_bomb.json.gz",
        "zip bomb": "zip_bomb.json",
        "browser history DB": "sqlite_browser_history.db",
        "empty DB": "sqlite_empty.db",
        "wrong column types": "sqlite_hermes_wrong_types.db",
        "missing tables": "sqlite_hermes_no_messages_table.db",
        "corrupt pages": "sqlite_hermes_corrupt_pages.db",
        "Claude Code cycle": "claude_code_parent_cycle.jsonl",
        "Hermes self parent": "hermes_export_self_parent.jsonl",
        "duplicate ids": "duplicate_tool_call_ids.json",
    }
    missing = {kind: name for kind, name in required.items() if name not in names}
    assert not missing


# --------------------------------------------------------------------------------------------
# Big inputs, written at test time and loaded in a child process
# --------------------------------------------------------------------------------------------

_CHILD = r"""
import json, resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[2]), int(sys.argv[2])))
from core.formats import FormatError, load
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
try:
    conv = load(sys.argv[1])
    out = {"outcome": "load", "format": conv.format, "messages": len(conv.messages), "warnings": conv.warnings[:5],
           "sizes": [len(m["content"]) if isinstance(m.get("content"), str) else None for m in conv.messages]}
except FormatError as exc:
    out = {"outcome": "error", "message": str(exc)}
except BaseException as exc:
    out = {"outcome": "crash", "message": f"{type(exc).__name__}: {exc}"[:500]}
out["seconds"] = time.perf_counter() - start
out["base_kb"] = base
out["peak_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps(out))
"""

# The child may never use more than this much address space: a runaway becomes a MemoryError.
ADDRESS_SPACE_LIMIT = 4 * 1024**3
FIXED_ALLOWANCE_MB = 64


def run_child_load(path: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(path), str(ADDRESS_SPACE_LIMIT)],
        cwd=ROOT, capture_output=True, text=True, timeout=150,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.timeout(180)
@pytest.mark.parametrize("case", GEN.big_cases(), ids=lambda case: case.name)
def test_big_input_loads_or_fails_in_bounded_memory(case: Any, tmp_path: Path) -> None:
    path = GEN.write_big_case(case.name, tmp_path)
    size_mb = path.stat().st_size / 1024**2
    report = run_child_load(path)
    assert report["outcome"] != "crash", report
    assert report["outcome"] == case.expect, report
    if case.expect == "error":
        check_error_message(report["message"], str(path))
        for mention in case.mentions:
            assert mention in report["message"], report
    else:
        assert report["format"] == case.format and report["messages"] >= 2, report
    used_mb = (report["peak_kb"] - report["base_kb"]) / 1024
    print(f"{case.name}: {size_mb:.1f} MB file, {report['outcome']} in {report['seconds']:.2f} s, "
          f"peak +{used_mb:.0f} MB ({used_mb / max(size_mb, 0.001):.1f}x the file)")
    assert used_mb <= case.memory_factor * size_mb + FIXED_ALLOWANCE_MB, report


@pytest.mark.timeout(180)
def test_50mb_line_keeps_the_whole_message(tmp_path: Path) -> None:
    path = GEN.write_big_case("jsonl_one_50mb_line.jsonl", tmp_path)
    report = run_child_load(path)
    assert report["outcome"] == "load", report
    assert report["sizes"] == [5, 50 * 1024 * 1024, 3]


@pytest.mark.timeout(180)
def test_50mb_garbage_line_is_skipped_with_a_warning(tmp_path: Path) -> None:
    path = GEN.write_big_case("jsonl_50mb_garbage_line.jsonl", tmp_path)
    report = run_child_load(path)
    assert report["outcome"] == "load" and report["messages"] == 2, report
    assert any(w.startswith("line 2") for w in report["warnings"]), report
    assert all(len(w) < 1000 for w in report["warnings"]), "a warning must not quote the whole line"
