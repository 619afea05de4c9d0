"""``python -m core.live``: what ``context-lens watch`` and ``context-lens sessions`` print.

* ``watch PATH``: follow one session file as its agent appends to it; a one-line gauge per update
  (``[#######---] 71% of threshold · 182 msgs · ~6 turns to compaction``), or with ``--json`` one
  JSON object per update (one per line). Ctrl-C ends it (exit 130, no traceback).
* ``sessions [FOLDER ...]``: the sessions index of the agents' folders (the defaults when none is
  given): one row per session, sortable, with ``--search TEXT`` across the sessions' text.

The compressor options are ``analyze``'s, and the figures are computed as ``analyze --json``
computes them (``request.total``, its trigger, the plan's zones).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from collections.abc import Sequence
from typing import Any

from core.config import DEFAULTS, CompressorConfig

PROG = "context-lens"
EXIT_OK, EXIT_BAD_INPUT, EXIT_INTERRUPTED = 0, 2, 130


def _compressor_arguments(parser: argparse.ArgumentParser) -> None:
    """``analyze``'s compressor options (the figures depend on them; nothing is summarised)."""
    from core import cli_args
    from core.config import TOKEN_ESTIMATORS
    from core.formats import FORMAT_NAMES
    from core.profiles import PROFILE_ALIASES, PROFILES

    group = parser.add_argument_group("compressor")
    group.add_argument("--context-length", type=cli_args.positive_int, metavar="TOKENS",
                       help=f"the main model's context window (default: from --model, else {DEFAULTS.context_length})")
    group.add_argument("--model", default=DEFAULTS.model, help="main model as litellm names it")
    group.add_argument("--max-tokens", type=cli_args.max_tokens_value, metavar="TOKENS",
                       help="the main model's output reserve (or 'model')")
    group.add_argument("--threshold-percent", type=cli_args.fraction, default=DEFAULTS.threshold_percent,
                       metavar="FRACTION", help=f"compress at this share of the window (default {DEFAULTS.threshold_percent})")
    group.add_argument("--protect-first-n", type=cli_args.count, default=DEFAULTS.protect_first_n, metavar="N")
    group.add_argument("--protect-last-n", type=cli_args.count, default=DEFAULTS.protect_last_n, metavar="N")
    group.add_argument("--summary-target-ratio", type=cli_args.fraction, default=DEFAULTS.summary_target_ratio,
                       metavar="FRACTION")
    group.add_argument("--profile", choices=sorted([*PROFILES, *PROFILE_ALIASES]), default=DEFAULTS.profile,
                       help=f"Hermes release (default {DEFAULTS.profile})")
    group.add_argument("--token-estimator", choices=TOKEN_ESTIMATORS, default=DEFAULTS.token_estimator)
    group.add_argument("--format", choices=FORMAT_NAMES, metavar="FORMAT", help="input format instead of detecting it")


def config_from_args(args: argparse.Namespace) -> CompressorConfig:
    """The config ``analyze`` would use with the same options (context length from --model ...)."""
    from core import cli_args

    values = vars(args).copy()
    # analyze's summary options, left at their defaults: nothing is summarised here.
    for name, value in (("summarizer", "none"), ("summary_model", None), ("api_base", None), ("timeout", None),
                        ("retries", None), ("focus_topic", None), ("memory_context", None),
                        ("memory_context_file", None), ("strict_redaction", None), ("time_limit", None),
                        ("memory_limit", None)):
        values.setdefault(name, value)
    return cli_args.settings_from_args(argparse.Namespace(**values)).config()


def build_parser() -> argparse.ArgumentParser:
    from core import cli_args

    parser = cli_args.Parser(prog=f"{PROG}", description="Follow live agent sessions.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=cli_args.Parser)
    watch = commands.add_parser("watch", help="follow one session file as it grows",
                                description="Follow one session file and print its status at each change.")
    watch.add_argument("path", metavar="PATH", help="the session file (or store, or a tool's folder)")
    watch.add_argument("--json", action="store_true", help="one JSON object per update, one per line")
    watch.add_argument("--session", metavar="ID", help="the session of a multi-session file to follow")
    watch.add_argument("--interval", type=cli_args.positive_seconds, default=0.5, metavar="SECONDS",
                       help="seconds between two looks at the file (default 0.5)")
    watch.add_argument("--once", action="store_true", help="print the current status and exit")
    _compressor_arguments(watch)

    sessions = commands.add_parser("sessions", help="the sessions index of the agents' folders",
                                   description="Index the sessions under the agents' folders and list them.")
    sessions.add_argument("folders", nargs="*", metavar="FOLDER",
                          help="folders to index (default: ~/.claude/projects ~/.codex/sessions ~/.gemini/tmp ~/.hermes)")
    sessions.add_argument("--search", metavar="TEXT", help="only sessions whose text holds TEXT (all its words)")
    sessions.add_argument("--sort", default="last_activity", metavar="COLUMN",
                          help="column to sort by (default last_activity, newest first)")
    sessions.add_argument("--ascending", action="store_true", help="sort ascending")
    sessions.add_argument("--limit", type=cli_args.positive_int, default=50, metavar="N", help="rows to print (default 50)")
    sessions.add_argument("--json", action="store_true", help="print the rows as JSON")
    sessions.add_argument("--cache-dir", metavar="DIR", help="where the index is kept (default ~/.cache/context-lens)")
    sessions.add_argument("--engine", choices=("local", "ray"), default="local",
                          help="engine of a large first scan: local process pool (default) or Ray")
    sessions.add_argument("--workers", type=cli_args.positive_int, metavar="N", help="worker processes for a large scan")
    sessions.add_argument("--address", metavar="ADDRESS", help="Ray cluster to join (with --engine ray)")
    _compressor_arguments(sessions)
    return parser


# --- watch ---------------------------------------------------------------------------------------


class _Printer:
    """The terminal form: the gauge rewritten in place on a terminal, one line per update otherwise;
    events (compactions, resets, a missing file) on lines of their own."""

    def __init__(self, json_lines: bool, stream: Any = None) -> None:
        self.json_lines = json_lines
        self.stream = stream or sys.stdout
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.open_line = False
        self.headed = False

    def show(self, status: Any) -> None:
        if self.json_lines:
            self.stream.write(json.dumps(status.to_dict(), ensure_ascii=False) + "\n")
            self.stream.flush()
            return
        notes = [f"compaction ({item['kind']}) at message {item['position']}"
                 + (f", {item['pre_tokens']:,} tokens before" if item.get("pre_tokens") else "")
                 + (f": {item['summary']}" if item.get("summary") else "")
                 for item in status.new_compactions]
        if status.event not in ("appended", "start") and status.note and status.live:
            notes.insert(0, f"{status.event}: {status.note}")
        if status.live and (status.event in ("start", "reset", "reappeared", "session") or not self.headed):
            # Which file, read as which format and session: said again when that may have changed.
            session = f" · session {status.session}" if status.session else ""
            notes.insert(0, f"{status.path} · {status.format}{session}")
            self.headed = True
        for note in notes:
            self._line(note, final=True)
        self._line(status.gauge(), final=not self.tty)

    def _line(self, text: str, final: bool) -> None:
        if self.tty:
            self.stream.write("\r\x1b[2K" + text + ("\n" if final else ""))
        else:
            self.stream.write(text + "\n")
        self.open_line = self.tty and not final
        self.stream.flush()

    def close(self) -> None:
        if self.open_line:
            self.stream.write("\n")
            self.stream.flush()


def cmd_watch(args: argparse.Namespace) -> int:
    from core.bulk_work import collector_paused
    from core.live.follower import SessionFollower, follow

    config = config_from_args(args)
    follower = SessionFollower(args.path, config, format=args.format, session=args.session)
    printer = _Printer(args.json)
    try:
        if args.once:
            with collector_paused():
                status = follower.poll()
            if status is not None:
                printer.show(status)
            return EXIT_OK
        for status in follow(args.path, config, interval=args.interval, follower=follower, pause_collector=True):
            printer.show(status)
    finally:
        printer.close()
    return EXIT_OK


# --- sessions ------------------------------------------------------------------------------------


def cmd_sessions(args: argparse.Namespace) -> int:
    from core.live.index import SessionIndex, default_roots

    config = config_from_args(args)
    index = SessionIndex(args.folders or default_roots(), config=config, cache_dir=args.cache_dir,
                         engine=args.engine, workers=args.workers, address=args.address)
    summary = index.refresh(progress=sys.stderr.isatty())
    rows = index.rows(args.search, sort_by=args.sort, descending=not args.ascending, snippets=args.limit)
    if args.json:
        payload = {"refresh": summary.to_dict(), "rows": [row.to_dict() for row in rows[: args.limit]],
                   "total": len(rows)}
        print(json.dumps(payload, ensure_ascii=False, indent=2))
        return EXIT_OK
    print(index.render(rows[: args.limit]))
    print(f"{len(rows):,} session(s) · {summary.describe()}", file=sys.stderr)
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    from core import cli_args
    from core.batch import BatchError
    from core.formats import FormatError

    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0) if not isinstance(exc.code, str) else EXIT_BAD_INPUT
    if not args.command:
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    # SIGTERM ends a watch as Ctrl-C does.
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler) if args.command == "watch" else None
    try:
        return {"watch": cmd_watch, "sessions": cmd_sessions}[args.command](args)
    except (cli_args.UsageError, FormatError, BatchError, ValueError) as exc:
        print(f"{PROG}: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (``watch ... | head``): nothing more to say to it.
        sys.stderr.close()
        return EXIT_OK
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
