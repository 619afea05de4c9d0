"""``context-lens``: analyse, compress and batch-report transcripts from the command line.

Subcommands:

* ``analyze FILE``: format, messages, tokens (exact and the Hermes estimate), zones, whether Hermes
  would compress, and what each phase would save (a readable table, or ``--json``).
* ``compress FILE -o OUT``: run the compressor and write the result (``--output-format``).
* ``replay FILE``: the conversation replayed turn by turn, with every compaction on the way (``--json``).
* ``batch DIR_OR_GLOB... -o report.parquet|csv``: one row per transcript or session, in a local
  process pool or on a Ray cluster (``--engine ray --address auto``).
* ``serve``: start the dashboard on 127.0.0.1.
* ``watch PATH`` / ``sessions``: follow a live session, list the agents' sessions (``core.live.cli``).

Bad input ends with a non-zero exit code and one line naming the file and the problem.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import sys
from pathlib import Path
from typing import Any

from core.atomic_files import SameFileError, refuse_overwriting_inputs, write_text_atomically
from core.batch import AnalysisSettings, analyze_messages, run_batch, summarizer_for
from core.batch_files import BatchError, find_transcripts
from core.batch_report import summary_stats, write_report
from core.budget import BudgetExceeded, within
from core.bulk_work import collector_paused
from core.cli_args import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_SUSPECT_SUMMARY,
    UsageError,
    build_parser,
    settings_from_args,
)
from core.cli_output import (
    PROG,
    analysis_report,
    context_note,
    encodable,
    fmt,
    print_analysis,
    print_json,
    say,
    terminal_json,
    warn,
)
from core.formats import Conversation, FormatError
from core.hermes_plugin import settings_cli as hermes_settings
from core.interrupts import EXIT_INTERRUPTED, Interrupts
from core.live import cli as live_cli
from core.safe_text import safe_message

__all__ = ["EXIT_SUSPECT_SUMMARY", "analysis_report", "build_parser", "main", "print_analysis"]
DEBUG_ENV = "CONTEXT_LENS_DEBUG"


class _LocalModel:
    """Starts the bundled local model for ``--summarizer local`` and points the settings at it."""

    def __init__(self) -> None:
        self.server: Any = None

    def attach(self, settings: AnalysisSettings) -> AnalysisSettings:
        if settings.summarizer != "local":
            return settings
        from core.summarizers.factory import LOCAL_MAX_TOKENS_CAP
        from core.summarizers.local import (
            INSTALL_HINT,
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
    settings = settings_from_args(args)
    local = _LocalModel()
    try:
        settings = local.attach(settings)
        with within(settings.budget):  # reading and analysing the file, not starting the local model
            conversation = _load(args)
            if not args.full_history:  # the context the model last saw: savings and costs start there
                conversation = conversation.live_context()
            analysis = analyze_messages(conversation.messages, settings, log_model=conversation.model)
    finally:
        local.close()
    report = analysis_report(conversation, analysis, args.file, settings.config())
    if args.json:
        print_json(report)
    else:
        print_analysis(report)
    return _summary_verdict(args, args.file, analysis["summary_warning"])


# --- replay --------------------------------------------------------------------------------------


def cmd_replay(args: argparse.Namespace) -> int:
    from core.inspections.request import request_breakdown, weigher_for
    from core.views.replay import replay, replay_document

    settings = settings_from_args(args)
    local = _LocalModel()
    try:
        settings = local.attach(settings)
        with within(settings.budget):
            conversation = _load(args)
            if not args.full_history:  # as analyze and the Timeline page: from the agent's last compaction on
                conversation = conversation.live_context()
            config = settings.config()
            result = replay(conversation.messages, config, summarizer_for(settings),
                            request=request_breakdown(conversation, weigher_for(config)))
    finally:
        local.close()
    document = {**replay_document(result), "context": conversation.context_report()}
    if args.json:
        print_json(document)
        return EXIT_OK
    say(f"{args.file}: {len(document['turns']):,} assistant turns, threshold {document['threshold_tokens']:,} tokens, "
        f"{len(document['compactions'])} compress() call(s); {document['context']['description']}")
    for entry in document["compactions"]:
        say(f"  message {entry['message_index']:>6}: {entry['tokens_before']:>9,} -> {entry['tokens_after']:>9,} tokens "
            f"({entry['savings_pct']:.1f} % saved, {entry['messages_summarised']} messages summarised, {entry['outcome']})"
            + (f": {entry['why']}" if entry["why"] else ""))
    for warning in document["warnings"]:
        warn(warning)
    return EXIT_OK


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
    settings = settings_from_args(args)
    with within(settings.budget):
        conversation = _load(args)
        if not args.full_history:  # what the agent last sent is what it would compress next
            conversation = conversation.live_context()
    context = conversation.context_report()
    for warning in conversation.warnings:  # what the import could not place, before the result is written
        warn(f"{args.file}: {warning}")
    if conversation.format != args.output_format:
        say(f"{PROG}: {args.file}: read as {conversation.format}, written as {args.output_format}", err=True)
    messages = conversation.messages
    local = _LocalModel()
    try:
        settings = local.attach(settings)
        compressor = ContextCompressor(settings.config(), summarizer=summarizer_for(settings))
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
        shown_cut=None,
        full_history=None,
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
        "context": context,
    }
    if args.json:
        print_json(report)
    read = context_note(context)
    if outcome == "below_threshold":
        say(f"{PROG}: {args.file}: {fmt(prompt_tokens)} tokens is below the {fmt(compressor.threshold_tokens)} "
             f"threshold: written unchanged (pass --force to compress anyway){read}", err=True)
    else:
        note = f"; summary failed: {failure}" if failure else ""
        say(f"{PROG}: {args.file}: {outcome}: {len(messages)} → {len(output)} messages, "
             f"{fmt(before)} → {fmt(after)} tokens (Hermes estimate){note}{read}", err=True)
    return _summary_verdict(args, args.file, problem.message if problem else None)


# --- batch ---------------------------------------------------------------------------------------


def cmd_batch(args: argparse.Namespace) -> int:
    if not args.output.lower().endswith((".parquet", ".csv")):
        raise UsageError(f"{args.output}: the report must end in .parquet or .csv")
    if args.address and args.engine != "ray":
        raise UsageError("--address only applies to --engine ray")
    settings = settings_from_args(args)
    settings = dataclasses.replace(settings, all_sessions=not args.main_session_only, full_history=args.full_history)
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
        cut = stats["after_compaction"]
        read = (f" · {cut} row(s) read after the agent's last compaction (--full-history for every message)"
                if cut else "")
        say(f"{stats['files']} files, {stats['rows']} rows, {stats['failed_files']} failed · "
              f"{stats['would_compress']} would compress · mean savings "
              f"{'-' if mean is None else f'{mean:.1f} %'}{read} · report: {args.output}")
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
_COMMANDS = {"analyze": cmd_analyze, "compress": cmd_compress, "replay": cmd_replay, "batch": cmd_batch, "serve": cmd_serve,
             hermes_settings.COMMAND: hermes_settings.run}


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (the console script exits with it)."""
    parser = build_parser(live_cli.add_commands)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0) if not isinstance(exc.code, str) else EXIT_BAD_INPUT
    if not args.command:
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    if args.command in live_cli.COMMANDS:
        return live_cli.run(args)  # a watch writes nothing: Ctrl-C simply ends it
    interrupts = Interrupts()
    interrupts.install()
    _INTERRUPTS[:] = [interrupts]
    try:
        if args.command in ("analyze", "compress", "replay"):
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
