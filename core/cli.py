"""``context-lens``: analyse, compress and batch-report transcripts from the command line.

Subcommands:

* ``analyze FILE``: format, messages, tokens (exact and the Hermes estimate), zones, whether Hermes
  would compress, and what each phase would save (a readable table, or ``--json``).
* ``compress FILE -o OUT``: run the compressor and write the result (``--output-format``).
* ``batch DIR_OR_GLOB... -o report.parquet|csv``: one row per transcript or session, in a local
  process pool or on a Ray cluster (``--engine ray --address auto``).
* ``serve``: start the dashboard on 127.0.0.1.

Bad input ends with a non-zero exit code and one line naming the file and the problem.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from core.atomic_files import SameFileError, refuse_overwriting_inputs, write_text_atomically
from core.batch import (
    API_KEY_ENV,
    ENGINES,
    SUMMARIZERS,
    AnalysisSettings,
    BatchError,
    analyze_messages,
    find_transcripts,
    make_summarizer,
    run_batch,
    summary_stats,
    write_report,
)
from core.budget import DEFAULT_MEMORY_MB, DEFAULT_SECONDS, BudgetExceeded, within
from core.bulk_work import collector_paused
from core.cli_output import (
    PROG,
    analysis_report,
    encodable,
    fmt,
    print_analysis,
    print_json,
    say,
    terminal_json,
    warn,
)
from core.config import DEFAULTS
from core.formats import DUMP_FORMATS, FORMAT_NAMES, Conversation, FormatError
from core.hermes_plugin import settings_cli as hermes_settings
from core.interrupts import EXIT_INTERRUPTED, Interrupts
from core.safe_text import safe_message
from core.summarizers.llm import DEFAULT_TIMEOUT_S

__all__ = ["EXIT_SUSPECT_SUMMARY", "analysis_report", "build_parser", "main", "print_analysis"]
EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2
# With --strict-exit: a summary was empty or oversized (the output is written all the same).
EXIT_SUSPECT_SUMMARY = 3
# A memory provider's context is cut to 5,500 characters by the release anyway: read no more than this.
MAX_MEMORY_CONTEXT_BYTES = 1_000_000
DEBUG_ENV = "CONTEXT_LENS_DEBUG"


class UsageError(Exception):
    """Bad input or options: printed as one line, exit code 2."""


# --- argument parsing ----------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is a single line (no usage block)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see --help)\n")


def _positive_int(text: str) -> int:
    value = _int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def _limit(unit: str) -> Callable[[str], float | None]:
    """A per-file limit: a positive number of ``unit``, or 0 for none."""

    def parse(text: str) -> float | None:
        try:
            value = float(text.replace("_", ""))
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number of {unit} (0 for no limit), got {text!r}") from None
        if value < 0 or value != value or value == float("inf"):
            raise argparse.ArgumentTypeError(f"expected a number of {unit} of 0 or more, got {text!r}")
        return value or None

    return parse


def _count(text: str) -> int:
    value = _int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer of 0 or more, got {text!r}")
    return value


def _int(text: str) -> int:
    try:
        return int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number such as 0.5, got {text!r}") from None
    if not value > 0 or value != value or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number above 0, got {text!r}")
    return value


def _port(text: str) -> int:
    value = _int(text)
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port between 1 and 65535, got {text!r}")
    return value


def _max_tokens(text: str) -> int | str:
    if text.strip().lower() == "model":
        return "model"
    value = _int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number of tokens (0 for none) or 'model', got {text!r}")
    return value


def _compressor_options() -> argparse.ArgumentParser:
    D = DEFAULTS
    from core.config import TOKEN_ESTIMATORS
    from core.profiles import PROFILE_ALIASES, PROFILES
    from core.summarizers.llm import CLIENT_DEFAULT_RETRIES, DEFAULT_TIMEOUT_S

    parent = argparse.ArgumentParser(add_help=False)
    group = parent.add_argument_group("compressor")
    group.add_argument("--context-length", type=_positive_int, metavar="TOKENS",
                       help=f"the main model's context window (default: from --model, else {D.context_length})")
    group.add_argument("--model", default=D.model,
                       help="main model as litellm names it; sets the context length from litellm's table "
                            "and the tiktoken encoding")
    group.add_argument("--max-tokens", type=_max_tokens, metavar="TOKENS",
                       help="the main model's output reserve (Hermes' model.max_tokens; v0.18.0 takes the "
                            "threshold from the window minus it); 'model' uses --model's output limit from "
                            "litellm's table (default: none, as in Hermes' default config)")
    group.add_argument("--threshold-percent", type=_fraction, default=D.threshold_percent, metavar="FRACTION",
                       help=f"compress at this share of the window (default {D.threshold_percent:.2f}; at least "
                            "64K, or from v0.18.0 85%% of a window below that)")
    group.add_argument("--protect-first-n", type=_count, default=D.protect_first_n, metavar="N",
                       help=f"messages after the system prompt never summarised (default {D.protect_first_n}; "
                            "from v0.18.0 on the first compaction only)")
    group.add_argument("--protect-last-n", type=_count, default=D.protect_last_n, metavar="N",
                       help=f"recent messages Phase 1 leaves untouched (default {D.protect_last_n}; from v0.17.0 "
                            "also the tail floor, up to 8)")
    group.add_argument("--summary-target-ratio", type=_fraction, default=D.summary_target_ratio, metavar="FRACTION",
                       help=f"share of the threshold kept verbatim as the tail (clamped to 0.10-0.80; default "
                            f"{D.summary_target_ratio:.2f})")
    group.add_argument("--profile", choices=sorted([*PROFILES, *PROFILE_ALIASES]), default=D.profile,
                       help=f"Hermes release to reproduce (default {D.profile}, the newest; v0.18.2 is v0.18.1)")
    group.add_argument("--token-estimator", choices=TOKEN_ESTIMATORS, default=D.token_estimator,
                       help="decide with Hermes' heuristics (default) or exact tiktoken counts")
    group.add_argument("--format", choices=FORMAT_NAMES, metavar="FORMAT",
                       help=f"input format instead of detecting it: {', '.join(FORMAT_NAMES)}")
    summary = parent.add_argument_group("summary")
    summary.add_argument("--summarizer", choices=SUMMARIZERS, default="extractive",
                         help="who writes the summary: the offline extractive one (default), a model through "
                              "litellm, the bundled local model, or none (the fallback summary)")
    summary.add_argument("--summary-model", metavar="MODEL",
                         help="a separate model for summaries (litellm name); falls back to --model on failure")
    summary.add_argument("--api-base", metavar="URL",
                         help=f"OpenAI-compatible endpoint for the model; the API key is read from ${API_KEY_ENV} "
                              "or the provider's own variable (OPENAI_API_KEY, ...)")
    summary.add_argument("--timeout", type=_positive_seconds, metavar="SECONDS",
                         help=f"deadline of one summary call, connecting, reading and retries together "
                              f"(default {DEFAULT_TIMEOUT_S:g}; --summarizer litellm and local)")
    summary.add_argument("--retries", type=_count, metavar="N",
                         help=f"retries of a failed summary request within that deadline (default "
                              f"{CLIENT_DEFAULT_RETRIES} for litellm, 0 for the local model)")
    summary.add_argument("--focus-topic", metavar="TEXT", help="ask the summary to prioritise this topic")
    memory = summary.add_mutually_exclusive_group()
    memory.add_argument("--memory-context", metavar="TEXT",
                        help="a memory provider's context for the summary prompt (v0.19.0; earlier releases ignore it)")
    memory.add_argument("--memory-context-file", metavar="FILE", help="the same, read from a UTF-8 text file")
    summary.add_argument("--strict-exit", action="store_true",
                         help=f"exit {EXIT_SUSPECT_SUMMARY} when a summary is empty or oversized (the releases count "
                              "those as a success; a warning is printed either way)")
    limits = parent.add_argument_group("limits (each file)")
    limits.add_argument("--time-limit", type=_limit("seconds"), default=DEFAULT_SECONDS, metavar="SECONDS",
                        help=f"give up on a file still being read or analysed after SECONDS (default "
                             f"{DEFAULT_SECONDS:g}; 0 for no limit)")
    limits.add_argument("--memory-limit", type=_limit("megabytes"), default=DEFAULT_MEMORY_MB, metavar="MB",
                        help=f"give up on a file once reading and analysing it took more than MB megabytes "
                             f"(default {DEFAULT_MEMORY_MB:,}; 0 for no limit)")
    summary.add_argument("--strict-redaction", action=argparse.BooleanOptionalAction, default=None,
                         help="mask secrets in everything the summarizer reads, so no provider receives one "
                              "and no summary quotes one (default: on)")
    return parent


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="See, tune and run Hermes-style context compression on agent transcripts.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    options = _compressor_options()

    analyze = commands.add_parser("analyze", parents=[options], help="tokens, zones and per-phase savings of one transcript",
                                  description="Tokens, zones, the trigger decision and what each phase would save.")
    analyze.add_argument("file", metavar="FILE")
    analyze.add_argument("--session", metavar="ID", help="the session to read from a multi-session file")
    analyze.add_argument("--json", action="store_true", help="print the analysis as JSON")

    compress = commands.add_parser("compress", parents=[options], help="compress one transcript and write the result",
                                   description="Run the compressor on one transcript and write the result.")
    compress.add_argument("file", metavar="FILE")
    compress.add_argument("-o", "--output", metavar="OUT", help="where to write the result (default: standard output)")
    compress.add_argument("--output-format", choices=DUMP_FORMATS, default="openai-chat",
                          help="format of the written transcript (default openai-chat)")
    compress.add_argument("--force", action="store_true",
                          help="compress even below the threshold (like /compress)")
    compress.add_argument("--session", metavar="ID", help="the session to read from a multi-session file")
    compress.add_argument("--json", action="store_true", help="print a JSON report of what happened")

    batch = commands.add_parser("batch", parents=[options], help="one report row per transcript of a corpus",
                                description="Analyse every transcript under directories or globs into one report.")
    batch.add_argument("sources", nargs="+", metavar="DIR_OR_GLOB")
    batch.add_argument("-o", "--output", required=True, metavar="REPORT", help="report file: .parquet or .csv")
    batch.add_argument("--engine", choices=ENGINES, default="local",
                       help="local process pool (default) or Ray tasks")
    batch.add_argument("--address", metavar="ADDRESS",
                       help="Ray cluster to join: 'auto' or ray://HOST:10001 (default: start Ray locally)")
    batch.add_argument("--workers", type=_positive_int, metavar="N", help="worker processes (default: all cores)")
    batch.add_argument("--main-session-only", action="store_true",
                       help="one row per file (its main session) instead of one per session")
    batch.add_argument("--file-timeout", dest="time_limit", type=_positive_seconds, metavar="SECONDS",
                       help="the same as --time-limit: a file still read or analysed after SECONDS is an error row")
    batch.add_argument("--json", action="store_true", help="print the corpus totals as JSON")

    serve = commands.add_parser("serve", help="start the dashboard on 127.0.0.1",
                                description="Start the Context Lens dashboard on 127.0.0.1.")
    serve.add_argument("--port", type=_port, default=8501, help="port (default 8501)")
    hermes_settings.add_command(commands)  # the settings file of the Hermes plugin (core.hermes_plugin)
    return parser


# --- shared helpers ------------------------------------------------------------------------------


def _memory_context(args: argparse.Namespace) -> str:
    if args.memory_context is not None:
        return args.memory_context
    if args.memory_context_file is None:
        return ""
    try:
        with open(args.memory_context_file, encoding="utf-8") as handle:
            return handle.read(MAX_MEMORY_CONTEXT_BYTES + 1)[:MAX_MEMORY_CONTEXT_BYTES]
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{args.memory_context_file}: cannot read the memory context: "
                         f"{getattr(exc, 'strerror', None) or exc}") from None


def _settings(args: argparse.Namespace) -> AnalysisSettings:
    """The analysis settings from the options (context length from --model when not given)."""
    context_length = args.context_length
    max_tokens = args.max_tokens
    if max_tokens == "model":
        from core.models import ModelTableError, output_limit

        try:
            max_tokens = output_limit(args.model) if args.model else None
        except ModelTableError:
            max_tokens = None
        if max_tokens is None:
            raise UsageError("--max-tokens model needs a --model whose output limit litellm's table knows")
    if context_length is None:
        context_length = DEFAULTS.context_length
        if args.model:
            from core.models import ModelTableError, context_window

            try:
                window = context_window(args.model)
            except ModelTableError as exc:
                window = None
                warn(f"{exc}; using a context length of {context_length}")
            else:
                if window is None:
                    warn(f"model {args.model!r} is not in litellm's table; using a context length of "
                          f"{context_length} (pass --context-length)")
            context_length = window or context_length
    if args.summarizer != "litellm":
        ignored = [flag for flag, value in (("--summary-model", args.summary_model), ("--api-base", args.api_base)) if value]
        if ignored:
            verb = "apply" if len(ignored) > 1 else "applies"
            warn(f"{' and '.join(ignored)} only {verb} to --summarizer litellm; ignored")
    if args.summarizer not in ("litellm", "local"):
        ignored = [flag for flag, value in (("--timeout", args.timeout), ("--retries", args.retries)) if value is not None]
        if ignored:
            verb = "apply" if len(ignored) > 1 else "applies"
            warn(f"{' and '.join(ignored)} only {verb} to a model (--summarizer litellm or local); ignored")
    # On unless turned off: a provider receives the turns, and every summary (offline, local, the
    # fallback) quotes them into the compressed output.
    strict = True if args.strict_redaction is None else args.strict_redaction
    if args.summarizer == "litellm" and not (args.model or args.summary_model):
        raise UsageError("--summarizer litellm needs --model or --summary-model (a litellm model name)")
    settings = AnalysisSettings(
        context_length=context_length,
        threshold_percent=args.threshold_percent,
        protect_first_n=args.protect_first_n,
        protect_last_n=args.protect_last_n,
        summary_target_ratio=args.summary_target_ratio,
        profile=args.profile,
        token_estimator=args.token_estimator,
        model=args.model or "",
        max_tokens=max_tokens or None,
        summarizer=args.summarizer,
        summary_model=args.summary_model,
        api_base=args.api_base,
        focus_topic=args.focus_topic,
        memory_context=_memory_context(args),
        strict_redaction=bool(strict),
        format=args.format,
        llm_timeout_s=args.timeout or DEFAULT_TIMEOUT_S,
        llm_retries=args.retries,
        timeout_s=args.time_limit,
        memory_mb=args.memory_limit,
    )
    try:
        settings.config()
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return settings


class _LocalModel:
    """Starts the bundled local model for ``--summarizer local`` and points the settings at it."""

    def __init__(self) -> None:
        self.server: Any = None

    def attach(self, settings: AnalysisSettings) -> AnalysisSettings:
        if settings.summarizer != "local":
            return settings
        from core.summarizers.local import (
            INSTALL_HINT,
            LOCAL_MAX_TOKENS_CAP,
            LocalModelServer,
            LocalModelStartError,
            LocalModelUnavailable,
            missing_parts,
        )

        missing = missing_parts()
        if missing:
            raise UsageError(f"--summarizer local needs {' and '.join(missing)}; {INSTALL_HINT}")
        print(f"{PROG}: starting the local model (summaries capped at {LOCAL_MAX_TOKENS_CAP} tokens: on a CPU it "
              "takes minutes to write the compressor's full max_tokens) ...", file=sys.stderr)
        try:
            self.server = LocalModelServer().start()
        except (LocalModelUnavailable, LocalModelStartError) as exc:
            raise UsageError(f"--summarizer local: {' '.join(str(exc).split())[:300]}") from None
        return dataclasses.replace(
            settings, summarizer="server", server_model=f"openai/{self.server.alias}", api_base=self.server.base_url
        )

    def close(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None


def _load(args: argparse.Namespace) -> Conversation:
    from core.formats import load

    return load(args.file, format=args.format, session=args.session)


def _refuse_overwriting_inputs(output: str, inputs: list[str]) -> None:
    try:
        refuse_overwriting_inputs(output, inputs)
    except SameFileError as exc:
        raise UsageError(str(exc)) from None


def _summary_verdict(args: argparse.Namespace, file: str | None, warning: str | None) -> int:
    """Warn about an empty or oversized summary; its exit code with --strict-exit."""
    if not warning:
        return EXIT_OK
    warn(f"{file}: {warning}" if file else warning)
    return EXIT_SUSPECT_SUMMARY if args.strict_exit else EXIT_OK


# --- analyze -------------------------------------------------------------------------------------


def cmd_analyze(args: argparse.Namespace) -> int:
    settings = _settings(args)
    local = _LocalModel()
    try:
        settings = local.attach(settings)
        with within(settings.budget):  # reading and analysing the file, not starting the local model
            conversation = _load(args)
            analysis = analyze_messages(conversation.messages, settings)
    finally:
        local.close()
    report = analysis_report(conversation, analysis, args.file, settings.config())
    if args.json:
        print_json(report)
    else:
        print_analysis(report)
    return _summary_verdict(args, args.file, analysis["summary_warning"])


# --- compress ------------------------------------------------------------------------------------


def cmd_compress(args: argparse.Namespace) -> int:
    from core.compressor import ContextCompressor
    from core.formats import dump
    from core.inspections.summary_check import summary_problem
    from core.tokens import (
        encoding_name_for_model,
        estimate_messages_tokens_rough,
        get_counter,
        make_estimator,
    )

    if args.json and not args.output:
        raise UsageError("--json prints a report on standard output, so it needs -o/--output for the transcript")
    writes_file = bool(args.output) and args.output != "-"
    if writes_file:
        _refuse_overwriting_inputs(args.output, [args.file])
    settings = _settings(args)
    with within(settings.budget):
        conversation = _load(args)
    for warning in conversation.warnings:  # what the import could not place, before the result is written
        warn(f"{args.file}: {warning}")
    if conversation.format != args.output_format:
        say(f"{PROG}: {args.file}: read as {conversation.format}, written as {args.output_format}", err=True)
    messages = conversation.messages
    local = _LocalModel()
    try:
        settings = local.attach(settings)
        compressor = ContextCompressor(settings.config(), summarizer=make_summarizer(settings))
        problem = None
        with within(settings.budget):
            prompt_tokens = make_estimator(settings.token_estimator, settings.model).messages_tokens(messages)
            if compressor.should_compress(prompt_tokens) or args.force:
                result = compressor.compress(messages, focus_topic=settings.focus_topic or None, force=args.force,
                                             memory_context=settings.memory_context, on_crash="report")
                if result.crash is not None:  # the release raises here: there is no result to write
                    raise UsageError(f"{args.file}: {result.crash.describe()}; nothing was written")
                output, outcome = result.messages, result.outcome
                failure = result.failure_reason
                problem = summary_problem(result, get_counter(encoding_name_for_model(settings.model)))
            else:
                output, outcome, failure = messages, "below_threshold", None
    finally:
        local.close()

    written = dataclasses.replace(
        conversation,
        messages=output,
        sources=[f"[{i}]" for i in range(len(output))],
        usage=[None] * len(output),
        reasoning=[None] * len(output),
        compaction_events=[],
    )
    text = encodable(dump(written, args.output_format))
    if writes_file:
        try:
            write_text_atomically(args.output, text + "\n")
        except OSError as exc:
            raise UsageError(f"{args.output}: cannot write the result (nothing was changed): "
                             f"{exc.strerror or exc}") from None
    else:
        sys.stdout.write(terminal_json(text) + "\n")  # the same JSON, safe on a terminal

    before, after = estimate_messages_tokens_rough(messages), estimate_messages_tokens_rough(output)
    report = {
        "file": args.file,
        "output": args.output or "-",
        "output_format": args.output_format,
        "outcome": outcome,
        "failure_reason": failure,
        "messages_before": len(messages),
        "messages_after": len(output),
        "hermes_tokens_before": before,
        "hermes_tokens_after": after,
        "prompt_tokens": prompt_tokens,
        "threshold_tokens": compressor.threshold_tokens,
        "summarizer": args.summarizer,
        "strict_redaction": settings.strict_redaction,
        "summary_problem": problem.kind if problem else None,
        "summary_warning": problem.message if problem else None,
    }
    if args.json:
        print_json(report)
    if outcome == "below_threshold":
        say(f"{PROG}: {args.file}: {fmt(prompt_tokens)} tokens is below the {fmt(compressor.threshold_tokens)} "
             "threshold: written unchanged (pass --force to compress anyway)", err=True)
    else:
        note = f"; summary failed: {failure}" if failure else ""
        say(f"{PROG}: {args.file}: {outcome}: {len(messages)} → {len(output)} messages, "
             f"{fmt(before)} → {fmt(after)} tokens (Hermes estimate){note}", err=True)
    return _summary_verdict(args, args.file, problem.message if problem else None)


# --- batch ---------------------------------------------------------------------------------------


def cmd_batch(args: argparse.Namespace) -> int:
    if not args.output.lower().endswith((".parquet", ".csv")):
        raise UsageError(f"{args.output}: the report must end in .parquet or .csv")
    if args.address and args.engine != "ray":
        raise UsageError("--address only applies to --engine ray")
    settings = _settings(args)
    settings = dataclasses.replace(settings, all_sessions=not args.main_session_only)
    paths = find_transcripts(args.sources)
    _refuse_overwriting_inputs(args.output, paths)
    local = _LocalModel()
    try:
        settings = local.attach(settings)
        if settings.summarizer == "server" and args.address:
            warn("the local model listens on 127.0.0.1 only: workers on other machines cannot reach it")
        frame = run_batch(
            paths, settings, engine=args.engine, workers=args.workers, address=args.address,
            progress=sys.stderr.isatty(),
        )
    finally:
        local.close()
    try:
        with _INTERRUPTS[0].deferred_while() if _INTERRUPTS else contextlib.nullcontext():
            write_report(frame, args.output)  # whole or not at all, even when Ctrl-C comes now
    except OSError as exc:
        raise UsageError(f"{args.output}: cannot write the report (nothing was changed): "
                         f"{exc.strerror or exc}") from None
    stats = summary_stats(frame)
    if args.json:
        print_json({"output": args.output, **stats})
    else:
        mean = stats["mean_savings_pct"]
        say(f"{stats['files']} files, {stats['rows']} rows, {stats['failed_files']} failed · "
              f"{stats['would_compress']} would compress · mean savings "
              f"{'-' if mean is None else f'{mean:.1f} %'} · report: {args.output}")
    if stats["failed_files"]:
        first = frame["error"].dropna().iloc[0]
        warn(f"{stats['failed_files']} file(s) could not be analysed (see the error column), e.g. {first}")
    suspect = None
    if stats["suspect_summaries"]:
        flagged = frame[frame["summary_problem"].notna()].iloc[0]
        suspect = (f"{stats['suspect_summaries']} row(s) have an empty or oversized summary that counts as a "
                   f"success (see the summary_problem column), e.g. {flagged['file']}: {flagged['summary_problem']}")
    return _summary_verdict(args, None, suspect)


# --- serve ---------------------------------------------------------------------------------------


def app_path() -> Path:
    return Path(__file__).resolve().parent.parent / "app.py"


def serve_command(port: int) -> list[str]:
    """The streamlit command ``serve`` runs (loopback only, no usage statistics, no browser)."""
    return [
        sys.executable, "-m", "streamlit", "run", str(app_path()),
        "--server.address", "127.0.0.1",
        "--server.port", str(port),
        "--browser.gatherUsageStats", "false",
        "--server.headless", "true",
    ]


def cmd_serve(args: argparse.Namespace) -> int:
    app = app_path()
    if not app.is_file():
        raise UsageError(f"{app}: the dashboard script is missing (serve runs from a source checkout)")
    command = serve_command(args.port)
    print(f"{PROG}: dashboard on http://127.0.0.1:{args.port}", file=sys.stderr, flush=True)
    sys.stdout.flush()
    os.chdir(app.parent)
    # Replace this process, so stopping it stops the dashboard with nothing left behind.
    os.execv(sys.executable, command)
    return EXIT_FAILED  # not reached


# --- entry point ---------------------------------------------------------------------------------


_INTERRUPTS: list[Interrupts] = []
_COMMANDS = {"analyze": cmd_analyze, "compress": cmd_compress, "batch": cmd_batch, "serve": cmd_serve,
             hermes_settings.COMMAND: hermes_settings.run}


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (the console script exits with it)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0) if not isinstance(exc.code, str) else EXIT_BAD_INPUT
    if not args.command:
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    interrupts = Interrupts()
    interrupts.install()
    _INTERRUPTS[:] = [interrupts]
    try:
        if args.command in ("analyze", "compress"):
            with collector_paused():  # one transcript in, one job: see core.bulk_work
                return _COMMANDS[args.command](args)
        return _COMMANDS[args.command](args)
    except (UsageError, FormatError, BatchError) as exc:
        say(f"{PROG}: error: {' '.join(str(exc).split())}", err=True)
        return EXIT_BAD_INPUT
    except BudgetExceeded as exc:
        where = getattr(args, "file", None)
        say(f"{PROG}: error: {f'{where}: ' if where else ''}{exc or 'went past its per-file limit'}; "
             "--time-limit and --memory-limit change the limits (0 for none)", err=True)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        # The handler stays: a press while the process winds down ends it at once, without a traceback.
        interrupts.stopping()
        interrupts.keep = True
        what = "no report was written" if args.command == "batch" else "nothing was written"
        say(f"{PROG}: interrupted; {what}", err=True)
        return EXIT_INTERRUPTED
    except Exception as exc:
        if os.environ.get(DEBUG_ENV):
            raise
        where = getattr(args, "file", None) or ", ".join(getattr(args, "sources", []) or [])
        prefix = f"{where}: " if where else ""
        # An unexpected error's text may quote anything it was given: masked and escaped.
        say(f"{PROG}: error: {prefix}{type(exc).__name__}: {safe_message(' '.join(str(exc).split())[:400])} "
             f"(set {DEBUG_ENV}=1 for details)", err=True)
        return EXIT_FAILED
    finally:
        interrupts.uninstall()
