"""The command line's arguments: the parser, its value types and the settings an invocation gives.

``core.cli`` runs the commands; ``core.live.cli`` reuses the compressor options and types.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, NoReturn

from core.batch import API_KEY_ENV, ENGINES, SUMMARIZERS, AnalysisSettings
from core.budget import DEFAULT_MEMORY_MB, DEFAULT_SECONDS
from core.cli_output import PROG, warn
from core.config import DEFAULTS
from core.formats import DUMP_FORMATS, FORMAT_NAMES
from core.hermes_plugin import settings_cli as hermes_settings
from core.summarizers.llm import DEFAULT_TIMEOUT_S

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2
# With --strict-exit: a summary was empty or oversized (the output is written all the same).
EXIT_SUSPECT_SUMMARY = 3
# A memory provider's context is cut to 5,500 characters by the release anyway: read no more than this.
MAX_MEMORY_CONTEXT_BYTES = 1_000_000


class UsageError(Exception):
    """Bad input or options: printed as one line, exit code 2."""


# --- argument parsing ----------------------------------------------------------------------------


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is a single line (no usage block)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see --help)\n")


def positive_int(text: str) -> int:
    value = integer(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def limit_of(unit: str) -> Callable[[str], float | None]:
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


def count(text: str) -> int:
    value = integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer of 0 or more, got {text!r}")
    return value


def integer(text: str) -> int:
    try:
        return int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None


def fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number such as 0.5, got {text!r}") from None
    if not value > 0 or value != value or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number above 0, got {text!r}")
    return value


def port(text: str) -> int:
    value = integer(text)
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port between 1 and 65535, got {text!r}")
    return value


def max_tokens_value(text: str) -> int | str:
    if text.strip().lower() == "model":
        return "model"
    value = integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number of tokens (0 for none) or 'model', got {text!r}")
    return value


def add_compressor_group(parser: argparse.ArgumentParser) -> None:
    """The compressor's parameters (every command that measures a transcript takes them)."""
    D = DEFAULTS
    from core.config import TOKEN_ESTIMATORS
    from core.profiles import PROFILE_ALIASES, PROFILES

    group = parser.add_argument_group("compressor")
    group.add_argument("--context-length", type=positive_int, metavar="TOKENS",
                       help=f"the main model's context window (default: from --model, else {D.context_length})")
    group.add_argument("--model", default=D.model,
                       help="main model as litellm names it; sets the context length from litellm's table "
                            "and the tiktoken encoding")
    group.add_argument("--max-tokens", type=max_tokens_value, metavar="TOKENS",
                       help="the main model's output reserve (Hermes' model.max_tokens; v0.18.0 takes the "
                            "threshold from the window minus it); 'model' uses --model's output limit from "
                            "litellm's table (default: none, as in Hermes' default config)")
    group.add_argument("--threshold-percent", type=fraction, default=D.threshold_percent, metavar="FRACTION",
                       help=f"compress at this share of the window (default {D.threshold_percent:.2f}; at least "
                            "64K, or from v0.18.0 85%% of a window below that)")
    group.add_argument("--protect-first-n", type=count, default=D.protect_first_n, metavar="N",
                       help=f"messages after the system prompt never summarised (default {D.protect_first_n}; "
                            "from v0.18.0 on the first compaction only)")
    group.add_argument("--protect-last-n", type=count, default=D.protect_last_n, metavar="N",
                       help=f"recent messages Phase 1 leaves untouched (default {D.protect_last_n}; from v0.17.0 "
                            "also the tail floor, up to 8)")
    group.add_argument("--summary-target-ratio", type=fraction, default=D.summary_target_ratio, metavar="FRACTION",
                       help=f"share of the threshold kept verbatim as the tail (clamped to 0.10-0.80; default "
                            f"{D.summary_target_ratio:.2f})")
    group.add_argument("--profile", choices=sorted([*PROFILES, *PROFILE_ALIASES]), default=D.profile,
                       help=f"Hermes release to reproduce (default {D.profile}, the newest; v0.18.2 is v0.18.1)")
    group.add_argument("--token-estimator", choices=TOKEN_ESTIMATORS, default=D.token_estimator,
                       help="decide with Hermes' heuristics (default) or exact tiktoken counts")
    group.add_argument("--format", choices=FORMAT_NAMES, metavar="FORMAT",
                       help=f"input format instead of detecting it: {', '.join(FORMAT_NAMES)}")


def compressor_options() -> argparse.ArgumentParser:
    from core.summarizers.llm import CLIENT_DEFAULT_RETRIES, DEFAULT_TIMEOUT_S

    parent = argparse.ArgumentParser(add_help=False)
    add_compressor_group(parent)
    summary = parent.add_argument_group("summary")
    summary.add_argument("--summarizer", choices=SUMMARIZERS, default="extractive",
                         help="who writes the summary: the offline extractive one (default), a model through "
                              "litellm, the bundled local model, or none (the fallback summary)")
    summary.add_argument("--summary-model", metavar="MODEL",
                         help="a separate model for summaries (litellm name); falls back to --model on failure")
    summary.add_argument("--api-base", metavar="URL",
                         help=f"OpenAI-compatible endpoint for the model; the API key is read from ${API_KEY_ENV} "
                              "or the provider's own variable (OPENAI_API_KEY, ...)")
    summary.add_argument("--timeout", type=positive_seconds, metavar="SECONDS",
                         help=f"deadline of one summary call, connecting, reading and retries together "
                              f"(default {DEFAULT_TIMEOUT_S:g}; --summarizer litellm and local)")
    summary.add_argument("--retries", type=count, metavar="N",
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
    limits.add_argument("--time-limit", type=limit_of("seconds"), default=DEFAULT_SECONDS, metavar="SECONDS",
                        help=f"give up on a file still being read or analysed after SECONDS (default "
                             f"{DEFAULT_SECONDS:g}; 0 for no limit)")
    limits.add_argument("--memory-limit", type=limit_of("megabytes"), default=DEFAULT_MEMORY_MB, metavar="MB",
                        help=f"give up on a file once reading and analysing it took more than MB megabytes "
                             f"(default {DEFAULT_MEMORY_MB:,}; 0 for no limit)")
    summary.add_argument("--strict-redaction", action=argparse.BooleanOptionalAction, default=None,
                         help="mask secrets in everything the summarizer reads, so no provider receives one "
                              "and no summary quotes one (default: on)")
    return parent


def history_options() -> argparse.ArgumentParser:
    """Which part of a log the agent compacted is read (``analyze``, ``compress``, ``replay`` and ``batch``)."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--full-history", action="store_true",
                        help="read every message of a log the agent compacted, not only the context it last sent "
                             "(its last summary and what followed)")
    return parent


def build_parser(more_commands: Callable[[Any], None] | None = None) -> argparse.ArgumentParser:
    """The ``context-lens`` parser; ``more_commands(subparsers)`` adds the commands that live elsewhere
    (``core.live.cli``'s ``watch`` and ``sessions``: each option has one home)."""
    parser = Parser(prog=PROG, description="See, tune and run Hermes-style context compression on agent transcripts.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    options = compressor_options()
    history = history_options()

    analyze = commands.add_parser("analyze", parents=[options, history], help="tokens, zones and per-phase savings of one transcript",
                                  description="Tokens, zones, the trigger decision and what each phase would save.")
    analyze.add_argument("file", metavar="FILE")
    analyze.add_argument("--session", metavar="ID", help="the session to read from a multi-session file")
    analyze.add_argument("--json", action="store_true", help="print the analysis as JSON")

    compress = commands.add_parser("compress", parents=[options, history], help="compress one transcript and write the result",
                                   description="Run the compressor on one transcript and write the result.")
    compress.add_argument("file", metavar="FILE")
    compress.add_argument("-o", "--output", metavar="OUT", help="where to write the result (default: standard output)")
    compress.add_argument("--output-format", choices=DUMP_FORMATS, default="openai-chat",
                          help="format of the written transcript (default openai-chat)")
    compress.add_argument("--force", action="store_true",
                          help="compress even below the threshold (like /compress)")
    compress.add_argument("--session", metavar="ID", help="the session to read from a multi-session file")
    compress.add_argument("--json", action="store_true", help="print a JSON report of what happened")

    batch = commands.add_parser("batch", parents=[options, history], help="one report row per transcript of a corpus",
                                description="Analyse every transcript under directories or globs into one report.")
    batch.add_argument("sources", nargs="+", metavar="DIR_OR_GLOB")
    batch.add_argument("-o", "--output", required=True, metavar="REPORT", help="report file: .parquet or .csv")
    batch.add_argument("--engine", choices=ENGINES, default="local",
                       help="local process pool (default) or Ray tasks")
    batch.add_argument("--address", metavar="ADDRESS",
                       help="Ray cluster to join: 'auto' or ray://HOST:10001 (default: start Ray locally)")
    batch.add_argument("--workers", type=positive_int, metavar="N", help="worker processes (default: all cores)")
    batch.add_argument("--main-session-only", action="store_true",
                       help="one row per file (its main session) instead of one per session")
    batch.add_argument("--file-timeout", dest="time_limit", type=positive_seconds, metavar="SECONDS",
                       help="the same as --time-limit: a file still read or analysed after SECONDS is an error row")
    batch.add_argument("--json", action="store_true", help="print the corpus totals as JSON")

    replay = commands.add_parser("replay", parents=[options, history], help="replay one transcript turn by turn with compression",
                                 description="Replay the conversation message by message: the prompt before each "
                                             "assistant message, and every compaction Hermes would make on the way.")
    replay.add_argument("file", metavar="FILE")
    replay.add_argument("--session", metavar="ID", help="the session to read from a multi-session file")
    replay.add_argument("--json", action="store_true", help="print the replay as JSON")

    serve = commands.add_parser("serve", help="start the dashboard on 127.0.0.1",
                                description="Start the Context Lens dashboard on 127.0.0.1.")
    serve.add_argument("--port", type=port, default=8501, help="port (default 8501)")
    hermes_settings.add_command(commands)  # the settings file of the Hermes plugin (core.hermes_plugin)
    if more_commands is not None:
        more_commands(commands)
    return parser


# --- shared helpers ------------------------------------------------------------------------------


def memory_context_of(args: argparse.Namespace) -> str:
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


def settings_from_args(args: argparse.Namespace) -> AnalysisSettings:
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
        memory_context=memory_context_of(args),
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
