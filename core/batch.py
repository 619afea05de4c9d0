"""Corpus analysis: one report row per transcript (or per session), on one machine or a Ray cluster.

The unit of work is :func:`process_file`, a plain top-level function of a path and a settings
dict that returns the rows for that file. Because it is pure and picklable, the same function
runs in-process, in a local process pool, or as Ray tasks, and every engine produces the same
rows (only the ``seconds`` timing column differs). A file that cannot be read or analysed
becomes one row whose ``error`` column says what went wrong; it never stops the batch.

:func:`analyze_messages` is the analysis of one conversation, shared with ``context-lens
analyze``: tokens (exact and the Hermes estimate), zones, the trigger decision, the compression
outcome with per-step savings, fact retention and API validity of the result.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from core.batch_files import BatchError
from core.batch_report import CONTEXT_KEYS, REPORT_COLUMNS, SAVING_STEPS, report_frame
from core.budget import DEFAULT_MEMORY_MB, DEFAULT_SECONDS, Budget, BudgetExceeded, within
from core.bulk_work import collector_paused
from core.compressor import CompressionResult, ContextCompressor
from core.config import DEFAULTS, CompressorConfig, CompressorParameters
from core.safe_text import safe_message
from core.summarizers.llm import DEFAULT_TIMEOUT_S

if TYPE_CHECKING:
    import pandas as pd


SUMMARIZERS: tuple[str, ...] = ("extractive", "litellm", "local", "none")
ENGINES: tuple[str, ...] = ("local", "ray")

#: Environment variable holding an API key for ``--summarizer litellm`` (read where the call runs;
#: litellm's own provider variables such as OPENAI_API_KEY work as well).
API_KEY_ENV = "CONTEXT_LENS_API_KEY"




# --- settings ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AnalysisSettings(CompressorParameters):
    """Everything the analysis of one file depends on; ``as_dict()`` is what travels to workers.

    ``summarizer`` is one of ``SUMMARIZERS``, or ``"server"`` for an OpenAI-compatible server the
    driver started (the local model): ``server_model`` then names it and ``api_base`` points at it.
    No API key is ever part of the settings: workers read it from their own environment.
    """

    summarizer: str = "extractive"
    summary_model: str | None = None
    api_base: str | None = None
    focus_topic: str | None = None
    memory_context: str = ""  # a memory provider's context for the summary prompt (v0.19.0)
    strict_redaction: bool = DEFAULTS.strict_redaction
    format: str | None = None
    all_sessions: bool = True
    # Every message of a log the agent compacted, instead of the context it last sent (the default).
    full_history: bool = False
    server_model: str | None = None
    # Give up on a file after this many seconds of wall time, or once the process grew by this many
    # megabytes while reading and analysing it (None: no limit); see process_file and core.budget.
    timeout_s: float | None = DEFAULT_SECONDS
    memory_mb: float | None = DEFAULT_MEMORY_MB
    # The deadline of one summary call, retries included, and the HTTP client's retries
    # (None: the client's default; a local server gets none).
    llm_timeout_s: float = DEFAULT_TIMEOUT_S
    llm_retries: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> AnalysisSettings:
        known = {name: values[name] for name in cls.__dataclass_fields__ if name in values}
        return cls(**known)

    def config(self) -> CompressorConfig:
        return CompressorConfig.from_settings(self)

    @property
    def budget(self) -> Budget:
        return Budget(self.timeout_s or None, self.memory_mb or None)


def summarizer_for(settings: AnalysisSettings) -> Callable[[str, int], Any] | None:
    """The summarizer ``settings`` asks for (``None`` for ``"none"``: the no-provider fallback).

    The API key of a model is read here, from ``$CONTEXT_LENS_API_KEY``, in the process that calls it.
    """
    from core.summarizers.factory import make_summarizer as build

    if settings.summarizer not in SUMMARIZERS and settings.summarizer != "server":
        raise BatchError(f"unknown summarizer {settings.summarizer!r}; expected one of {', '.join(SUMMARIZERS)}")
    server = settings.summarizer == "server"
    return build(
        settings.summarizer,
        model=settings.server_model if server else settings.model,
        summary_model=None if server else settings.summary_model,
        api_base=settings.api_base,
        api_key=os.environ.get(API_KEY_ENV) or None,
        timeout=settings.llm_timeout_s,
        max_retries=settings.llm_retries,
    )


# --- the analysis of one conversation ------------------------------------------------------------


def validity(messages: Sequence[Any], *, problems: bool = True) -> dict[str, Any]:
    """Would the providers accept ``messages`` as a request (``core.inspections.lint``)?

    Returns ``valid`` (OpenAI chat completions), ``valid_anthropic`` (Anthropic messages, as an
    adapter converts the list) and ``problems``: one line per error, ``"api/rule, message i: detail"``
    (an empty list when ``problems`` is false: a long broken input can have one per message).
    """
    import pandas as pd

    from core.inspections.lint import ERROR, is_valid, lint

    violations = lint(list(messages))
    lines = []
    if problems:
        errors = violations[violations["severity"] == ERROR]
        lines = [
            f"{row.api}/{row.rule}"
            + ("" if pd.isna(row.message_index) else f", message {int(row.message_index)}")
            + f": {row.detail}"
            for row in errors.itertuples(index=False)
        ]
    return {
        "valid": is_valid(violations, "openai"),
        "valid_anthropic": is_valid(violations, "anthropic"),
        "problems": lines,
    }


def analyze_messages(
    messages: Sequence[Any],
    settings: AnalysisSettings,
    *,
    summarizer: Callable[[str, int], Any] | None = None,
    use_summarizer: bool = True,
    log_model: str | None = None,
) -> dict[str, Any]:
    """Everything ``analyze`` and ``batch`` report about one conversation, as plain values.

    Exact tokens are counted with the encoding of ``settings.model``, or of ``log_model`` (the model
    the log names) when no model is set: the unit the whole request is counted in
    (``core.inspections.request.request_report``), so the two figures of a report agree.

    The compression is always run (whatever the trigger says), so the savings describe what
    compressing this conversation now would do; ``would_compress`` says whether Hermes would, on
    the messages alone (callers that have the whole conversation decide on its whole request).
    ``summarizer`` defaults to the one ``settings`` names.
    """
    from core.facts import extract_facts, retention, retention_score
    from core.inspections.summary_check import summary_problem
    from core.plan import prepare
    from core.tokens import encoding_name_for_model, get_counter
    from core.views.savings import phase_savings
    from core.views.zones import analyze_zones

    messages = list(messages)
    config = settings.config()
    encoding = encoding_name_for_model(settings.model or log_model)
    counter = get_counter(encoding)
    # The input's checks come first: their passes over every message then run before the
    # compression's results are held, so the peak of memory is the larger of the two, not their sum.
    input_checked = validity(messages, problems=False)  # only its verdicts are reported
    plan = prepare(messages, config)  # Phase 1 prepared once for the zones and the savings
    zones = analyze_zones(messages, config, plan=plan)
    # What the report takes from the zones, so that their per-message columns are gone before the
    # compression's peak of memory.
    estimator_tokens, threshold_floored = zones.prompt_tokens, zones.threshold_floored
    zone_figures = {
        "would_compress": bool(zones.would_compress),
        "first_trigger_index": zones.first_trigger_index,
        "small_conversation": zones.small_conversation,
        "head": zones.head_count,
        "middle": zones.middle_count,
        "tail": zones.tail_count,
        "compress_start": zones.compress_start,
        "compress_end": zones.compress_end,
        "prune_boundary": zones.prune_boundary,
        "phase1_messages": len(zones.phase1_actions),
    }
    del zones
    if use_summarizer and summarizer is None:
        summarizer = summarizer_for(settings)
    compressor = ContextCompressor(config, summarizer=summarizer)
    result: CompressionResult = compressor.compress(messages, focus_topic=settings.focus_topic or None, prune_plan=plan,
                                                    memory_context=settings.memory_context, on_crash="report")
    savings = phase_savings(messages, config, counter, result, plan=plan)
    steps = {step.key: step for step in savings.steps}
    original, final = steps["original"], steps["final"]
    step_rows = [
        {
            "step": step.key,
            "label": step.label,
            "exact_tokens": step.exact_tokens,
            "exact_change": step.exact_delta,
            "hermes_tokens": step.hermes_tokens,
            "hermes_change": step.hermes_delta,
            "messages_touched": len(step.messages),
            "note": step.note,
        }
        for step in savings.steps
    ]
    # The facts are found last, once the Phase-1 plan and the savings' lists are gone: what they
    # hold then never adds to the peak of the zones or the compression.
    del plan, savings
    facts = extract_facts(messages)
    kept = retention(facts, result.messages)
    del facts
    middle_kept = kept.iloc[0:0]
    if result.compressed and result.plan.compress_start is not None and result.plan.compress_end is not None:
        in_middle = (kept["message_index"] >= result.plan.compress_start) & (kept["message_index"] < result.plan.compress_end)
        middle_kept = kept[in_middle]
    checked = validity(result.messages)
    problem = summary_problem(result, counter)

    def pct(before: int, after: int) -> float:
        return round((before - after) / before * 100, 4) if before > 0 else 0.0

    phase1_saved = -sum(steps[key].exact_delta for key in ("dedup", "one_liners", "args", "tool_images"))
    return {
        "messages": len(messages),
        "encoding": encoding,
        "exact_tokens": original.exact_tokens,
        "hermes_tokens": original.hermes_tokens,
        "estimator_tokens": estimator_tokens,
        "profile": config.profile,
        "context_length": config.context_length,
        "output_reserve": config.output_reserve,
        "threshold_tokens": config.threshold_tokens,
        "threshold_floored": threshold_floored,
        "tail_token_budget": config.tail_token_budget,
        **zone_figures,
        "outcome": result.outcome,
        "fallback_used": result.assembly is not None and result.assembly.fallback_used,
        "abort_reason": result.abort_reason,
        "failure_reason": result.failure_reason,
        "summary_problem": problem.kind if problem else None,
        "summary_warning": problem.message if problem else None,
        "steps": step_rows,
        "saved": {key: -steps[key].exact_delta for key in SAVING_STEPS},
        "saved_phase1": phase1_saved,
        "saved_total": original.exact_tokens - final.exact_tokens,
        "tokens_after": final.exact_tokens,
        "savings_pct": pct(original.exact_tokens, final.exact_tokens),
        "hermes_tokens_after": final.hermes_tokens,
        "hermes_savings_pct": pct(original.hermes_tokens, final.hermes_tokens),
        "messages_after": len(result.messages),
        "facts": len(kept),
        "facts_kept": int(kept["kept"].sum()),
        "fact_retention": round(retention_score(kept), 6),
        "middle_facts": len(middle_kept),
        "middle_facts_kept": int(middle_kept["kept"].sum()),
        "middle_fact_retention": round(retention_score(middle_kept), 6),
        "valid": checked["valid"],
        "valid_anthropic": checked["valid_anthropic"],
        "problems": checked["problems"],
        "input_valid": input_checked["valid"],
        "input_valid_anthropic": input_checked["valid_anthropic"],
        "result": result,
    }


# --- one file ------------------------------------------------------------------------------------


def _empty_row(file: str) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(REPORT_COLUMNS)
    row["file"] = file
    return row


def _failed_rows(file: str, error: str) -> list[dict[str, Any]]:
    """The report row of a file the engine could not process (its worker died, its bytes unreadable)."""
    row = _empty_row(file)
    row["error"] = error
    return [row]


def _row(file: str, conversation: Any, analysis: dict[str, Any], seconds: float) -> dict[str, Any]:
    row = _empty_row(file)
    row.update(
        {
            "session": conversation.session_id,
            "format": conversation.format,
            "model": conversation.model,
            "warnings": len(conversation.warnings),
            "seconds": round(seconds, 6),
        }
    )
    for column in REPORT_COLUMNS:
        if column in analysis and column != "problems":
            row[column] = analysis[column]
    for step in SAVING_STEPS:
        row[f"saved_{step}"] = analysis["saved"][step]
    context = conversation.context_report()
    for key in CONTEXT_KEYS:
        row[f"context_{key}"] = context[key]
    row["problems"] = len(analysis["problems"])
    row["first_problem"] = analysis["problems"][0] if analysis["problems"] else None
    return row


def error_text(exc: BaseException, file: str) -> str:
    """One line naming the file and what went wrong (format errors already name the file)."""
    from core.formats import FormatError

    text = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, FormatError):
        return text  # it quotes file content only through core.safe_text.quoted
    # Any other exception's text may quote whatever it was given: secrets masked, controls escaped.
    return f"{file}: {type(exc).__name__}: {safe_message(text)}"


#: The per-file limit's exception (a ``BaseException``: a reader's ``except Exception`` cannot swallow it).
FileTimeout = BudgetExceeded


def process_file(path: str, settings: dict[str, Any], data: bytes | None = None) -> list[dict[str, Any]]:
    """The report rows of one file: one per session (or only the main one), or one error row.

    Args:
        path: The file, as it is named in the report (and read from disk unless ``data`` is given).
        settings: ``AnalysisSettings.as_dict()``.
        data: The file's bytes, when the caller read them (workers without the file system).

    A file still being read or analysed after ``timeout_s`` seconds, or for which the process grew by
    more than ``memory_mb`` megabytes (``core.budget``), becomes an
    error row saying so, and the batch goes on with the next file.
    """
    started = time.perf_counter()
    try:
        options = AnalysisSettings.from_dict(settings)
        with within(options.budget), collector_paused():
            return _file_rows(path, options, data)
    except (Exception, BudgetExceeded) as exc:  # a bad file is a row with its error, never a crash
        row = _empty_row(path)
        row["error"] = f"{path}: {exc}" if isinstance(exc, BudgetExceeded) else error_text(exc, path)
        row["seconds"] = round(time.perf_counter() - started, 6)
        return [row]


def _file_rows(path: str, options: AnalysisSettings, data: bytes | None) -> list[dict[str, Any]]:
    from core.formats import load

    source: Any = data if data is not None else path
    # Bytes are named by the path, so messages read the same as when the worker opens the file.
    name = path if data is not None else None
    conversation = load(source, filename=name, format=options.format)
    conversations = [conversation]
    if options.all_sessions and len(conversation.sessions) > 1:
        conversations = [
            conversation
            if info.id == conversation.session_id
            else load(source, filename=name, format=options.format, session=info.id)
            for info in conversation.sessions
        ]
    from core.inspections.request import request_report

    rows = []
    for conv in conversations:
        began = time.perf_counter()
        if not options.full_history:  # the context the model last saw, as analyze reads it
            conv = conv.live_context()
        analysis = analyze_messages(conv.messages, options, log_model=conv.model)
        request = request_report(conv, options.config())
        # Hermes' host decides on the whole request, not on the messages alone.
        analysis.update(request_tokens=request["total"], unrecorded_overhead=request["unrecorded_overhead"],
                        recorded_last_prompt=request["recorded_last_prompt"],
                        would_compress=request["trigger"]["would_compress"])
        rows.append(_row(path, conv, analysis, time.perf_counter() - began))
    return rows


#: What an engine runs per file: ``task(path, settings, data=None)`` → that file's rows (never raising).
FileTask = Callable[..., list[dict[str, Any]]]
#: Told each file's rows as they come (in the calling process), before the run ends.
ResultCallback = Callable[[str, list[dict[str, Any]]], None]


def run_batch(
    paths: Sequence[str],
    settings: AnalysisSettings | dict[str, Any],
    *,
    engine: str = "local",
    workers: int | None = None,
    address: str | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Analyse every file and return the report (one row per transcript or session, input order).

    Args:
        paths: The files (see :func:`find_transcripts`).
        settings: The analysis settings.
        engine: ``"local"`` (a process pool; one worker runs in this process) or ``"ray"``.
        workers: Worker processes (local) or CPUs for a local Ray instance; default: all cores.
        address: Ray cluster to join (``"auto"``, ``"ray://host:10001"``); None starts Ray locally.
        progress: Show a progress bar on stderr.
    """
    values = settings.as_dict() if isinstance(settings, AnalysisSettings) else dict(settings)
    paths = list(paths)
    results = map_files(process_file, paths, values, engine=engine, workers=workers, address=address,
                        progress=progress)
    rows = [row for path in paths for row in results[path]]
    return report_frame(rows)


def map_files(
    task: FileTask,
    paths: Sequence[str],
    settings: dict[str, Any],
    *,
    engine: str = "local",
    workers: int | None = None,
    address: str | None = None,
    progress: bool = False,
    on_result: ResultCallback | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """Run ``task(path, settings)`` for every path on an engine; its rows by path.

    The engines of :func:`run_batch`, for any per-file task: a top-level (picklable) function that
    turns its own failures into rows, as :func:`process_file` does. With Ray on a cluster the task
    gets the file's bytes as ``data``. ``on_result(path, rows)`` is called in this process as each
    file is done (a caller can keep the rows before the last file is read).
    """
    if engine not in ENGINES:
        raise BatchError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINES)}")
    if workers is not None and workers < 1:
        raise BatchError(f"--workers must be at least 1, got {workers}")
    if address and engine != "ray":
        raise BatchError("--address only applies to --engine ray")
    from core import batch_engines

    paths = list(paths)
    with batch_engines.progress_bar(len(paths), progress) as bar:
        if engine == "ray":
            return batch_engines.run_ray(paths, settings, workers, address, bar, BatchError, task, on_result,
                                          _failed_rows)
        count = min(workers or os.cpu_count() or 1, max(1, len(paths)))
        if count == 1:
            return batch_engines.run_inline(paths, settings, bar, task, on_result)
        return batch_engines.run_local(paths, settings, count, bar, task, on_result, _failed_rows)
