"""``context-lens watch`` and ``context-lens sessions`` (also ``python -m core.live``): their options and what they print.

``core.cli`` adds them to its parser (``add_commands``) and runs them here (``run``).

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
from typing import Any

from core.config import CompressorConfig

PROG = "context-lens"
EXIT_OK, EXIT_BAD_INPUT, EXIT_INTERRUPTED = 0, 2, 130


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


COMMANDS = ("watch", "sessions")


def add_commands(commands: Any) -> None:
    """Add ``watch`` and ``sessions`` to a parser's subcommands (``context-lens``'s and
    ``python -m core.live``'s): their options live here, the compressor's in ``core.cli_args``."""
    from core import cli_args

    watch = commands.add_parser("watch", help="follow one session file as it grows: a gauge per update",
                                description="Follow one session file and print its status at each change "
                                            "(Ctrl-C ends it).")
    watch.add_argument("path", metavar="PATH", help="the session file (or store, or a tool's folder)")
    watch.add_argument("--json", action="store_true", help="one JSON object per update, one per line")
    watch.add_argument("--session", metavar="ID", help="the session of a multi-session file to follow")
    watch.add_argument("--interval", type=cli_args.positive_seconds, default=0.5, metavar="SECONDS",
                       help="seconds between two looks at the file (default 0.5)")
    watch.add_argument("--once", action="store_true", help="print the current status and exit")
    cli_args.add_compressor_group(watch)

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
    cli_args.add_compressor_group(sessions)


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


def run(args: argparse.Namespace) -> int:
    """Run a parsed ``watch`` or ``sessions``; its exit code. Bad input is one line (exit 2), Ctrl-C
    (or SIGTERM, for ``watch``) ends it quietly (exit 130)."""
    from core import cli_args
    from core.batch import BatchError
    from core.formats import FormatError

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
