"""A small builder for agent sessions as OpenAI-chat messages, in the tool shapes of five harnesses.

Each harness names its tools and shapes their arguments and results its own way; a summarizer that
holds on sessions it did not see must read all of them:

* ``hermes``: ``terminal`` / ``read_file`` / ``patch`` / ``write_file`` / ``search_files`` /
  ``web_search`` / ``web_extract``, results as JSON (``{"output": ..., "exit_code": 1}``);
* ``claude``: ``Bash`` / ``Read`` / ``Edit`` / ``Write`` / ``Grep`` / ``Glob`` / ``WebSearch`` /
  ``WebFetch`` / ``TodoWrite``, plain-text results, file contents with ``     1→`` gutters;
* ``codex``: ``shell`` with an argv list (``["bash", "-lc", "..."]``) and ``apply_patch`` envelopes,
  results as JSON with ``metadata.exit_code``;
* ``openhands``: ``execute_bash`` and ``str_replace_editor``, the exit code as a trailing sentence;
* ``sweagent``: ``bash`` and ``str_replace_editor`` with bare text results.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

HARNESSES = ("hermes", "claude", "codex", "openhands", "sweagent")


def _numbered(text: str, start: int = 1, style: str = "arrow") -> str:
    lines = text.split("\n")
    if style == "arrow":
        return "\n".join(f"{number:>6}→{line}" for number, line in enumerate(lines, start))
    return "\n".join(f"{number:>6}\t{line}" for number, line in enumerate(lines, start))


@dataclass
class Session:
    """Messages of one session, written turn by turn through the harness's tool shapes."""

    harness: str
    workdir: str = "/home/dev/project"
    system: str | None = "You are a coding agent. Use the tools to inspect and change the repository."
    messages: list[dict[str, Any]] = field(default_factory=list)
    _calls: int = 0

    def __post_init__(self) -> None:
        if self.harness not in HARNESSES:
            raise ValueError(f"unknown harness {self.harness!r}")
        if self.system:
            self.messages.append({"role": "system", "content": self.system})

    # --- plain turns ---------------------------------------------------------------------------

    def user(self, text: str) -> Session:
        self.messages.append({"role": "user", "content": text})
        return self

    def say(self, text: str) -> Session:
        self.messages.append({"role": "assistant", "content": text})
        return self

    def raw(self, message: dict[str, Any]) -> Session:
        self.messages.append(message)
        return self

    # --- tool calls ----------------------------------------------------------------------------

    def _call(self, name: str, arguments: dict[str, Any], result: str, note: str | None) -> Session:
        self._calls += 1
        call_id = {
            "claude": f"toolu_{self._calls:04d}",
            "codex": f"call_{self._calls:04d}x",
        }.get(self.harness, f"call_{self._calls:04d}")
        self.messages.append(
            {
                "role": "assistant",
                "content": note,
                "tool_calls": [
                    {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
                ],
            }
        )
        self.messages.append({"role": "tool", "tool_call_id": call_id, "content": result})
        return self

    def run(self, command: str, output: str, exit_code: int = 0, note: str | None = None, seconds: float = 0.4) -> Session:
        """A shell command and what it printed."""
        h = self.harness
        if h == "hermes":
            return self._call("terminal", {"command": command, "workdir": self.workdir}, json.dumps(
                {"output": output, "exit_code": exit_code, "error": None}), note)
        if h == "claude":
            text = output if exit_code == 0 else (output + f"\nError: Exit code {exit_code}").lstrip("\n")
            return self._call("Bash", {"command": command, "description": note or "Run a command"}, text, None if note is None else note)
        if h == "codex":
            return self._call("shell", {"command": ["bash", "-lc", command], "workdir": self.workdir}, json.dumps(
                {"output": output, "metadata": {"exit_code": exit_code, "duration_seconds": seconds}}), note)
        if h == "openhands":
            return self._call("execute_bash", {"command": command, "is_input": "false"},
                              f"{output}\n[The command completed with exit code {exit_code}.]", note)
        return self._call("bash", {"command": command}, output if output else "Your command ran successfully and did not produce any output.", note)

    def read(self, path: str, content: str, note: str | None = None, offset: int | None = None) -> Session:
        """A file read."""
        h = self.harness
        start = offset or 1
        if h == "hermes":
            arguments: dict[str, Any] = {"path": path}
            if offset:
                arguments["offset"] = offset
            return self._call("read_file", arguments, json.dumps(
                {"content": _numbered(content, start, "tab"), "total_lines": content.count("\n") + 1}), note)
        if h == "claude":
            arguments = {"file_path": path}
            if offset:
                arguments["offset"] = offset
            return self._call("Read", arguments, _numbered(content, start), note)
        if h == "codex":
            command = f"sed -n '{start},{start + content.count(chr(10)) + 1}p' {path}"
            return self.run(command, content, 0, note)
        return self._call("str_replace_editor", {"command": "view", "path": path},
                          f"Here's the result of running `cat -n` on {path}:\n" + _numbered(content, start, "tab"), note)

    def edit(self, path: str, old: str, new: str, note: str | None = None) -> Session:
        """An in-place change of a file."""
        h = self.harness
        if h == "hermes":
            return self._call("patch", {"path": path, "old_string": old, "new_string": new}, json.dumps(
                {"success": True, "replacements": 1}), note)
        if h == "claude":
            return self._call("Edit", {"file_path": path, "old_string": old, "new_string": new},
                              f"The file {path} has been updated. Here's the result of running `cat -n` on a snippet "
                              "of the edited file:\n" + _numbered(new, 10), note)
        if h == "codex":
            body = "\n".join(["*** Begin Patch", f"*** Update File: {path}", "@@"]
                             + [f"-{line}" for line in old.split("\n")] + [f"+{line}" for line in new.split("\n")]
                             + ["*** End Patch"])
            return self._call("apply_patch", {"input": body}, json.dumps(
                {"output": f"Success. Updated the following files:\nM {path}\n", "metadata": {"exit_code": 0}}), note)
        return self._call("str_replace_editor", {"command": "str_replace", "path": path, "old_str": old, "new_str": new},
                          f"The file {path} has been edited. Review the changes and make sure they are as expected.",
                          note)

    def write(self, path: str, content: str, note: str | None = None) -> Session:
        """A new file."""
        h = self.harness
        if h == "hermes":
            return self._call("write_file", {"path": path, "content": content}, json.dumps(
                {"bytes_written": len(content.encode())}), note)
        if h == "claude":
            return self._call("Write", {"file_path": path, "content": content},
                              f"File created successfully at: {path}", note)
        if h == "codex":
            body = "\n".join(["*** Begin Patch", f"*** Add File: {path}"] + [f"+{line}" for line in content.split("\n")]
                             + ["*** End Patch"])
            return self._call("apply_patch", {"input": body}, json.dumps(
                {"output": f"Success. Updated the following files:\nA {path}\n", "metadata": {"exit_code": 0}}), note)
        return self._call("str_replace_editor", {"command": "create", "path": path, "file_text": content},
                          f"File created successfully at: {path}", note)

    def search(self, pattern: str, hits: list[tuple[str, int, str]], where: str = ".", note: str | None = None) -> Session:
        """A code search and its hits (path, line, text)."""
        h = self.harness
        if h == "hermes":
            return self._call("search_files", {"pattern": pattern, "path": where}, json.dumps(
                {"total_count": len(hits), "matches": [{"path": p, "line": n, "text": t} for p, n, t in hits]}), note)
        if h == "claude":
            files = list(dict.fromkeys(p for p, _n, _t in hits))
            return self._call("Grep", {"pattern": pattern, "path": where, "output_mode": "files_with_matches"},
                              f"Found {len(files)} files\n" + "\n".join(files), note)
        return self.run(f"grep -rn '{pattern}' {where}", "\n".join(f"{p}:{n}:{t}" for p, n, t in hits),
                        0 if hits else 1, note)

    def web_search(self, query: str, results: list[tuple[str, str, str]], note: str | None = None) -> Session:
        """A web search and its results (title, url, snippet)."""
        if self.harness == "claude":
            text = f'Web search results for query: "{query}"\n\nLinks: ' + json.dumps(
                [{"title": t, "url": u} for t, u, _s in results]) + "\n\n" + "\n\n".join(
                f"{t}\n{s}" for t, _u, s in results)
            return self._call("WebSearch", {"query": query}, text, note)
        return self._call("web_search", {"query": query}, json.dumps(
            {"results": [{"title": t, "url": u, "description": s} for t, u, s in results]}), note)

    def fetch(self, url: str, text: str, note: str | None = None) -> Session:
        """A fetched web page (as text)."""
        if self.harness == "claude":
            return self._call("WebFetch", {"url": url, "prompt": "Summarise the relevant parts"}, text, note)
        return self._call("web_extract", {"urls": [url]}, json.dumps({"results": [{"url": url, "content": text}]}), note)

    def todo(self, items: list[tuple[str, str]], note: str | None = None) -> Session:
        """A plan update (Claude Code's TodoWrite, Codex's update_plan)."""
        if self.harness == "claude":
            return self._call("TodoWrite", {"todos": [{"content": c, "status": s} for c, s in items]},
                              "Todos have been modified successfully. Ensure that you continue to use the todo list "
                              "to track your progress.", note)
        return self._call("update_plan", {"plan": [{"step": c, "status": s} for c, s in items]}, "Plan updated", note)

    def pending(self, command: str, note: str | None = None) -> Session:
        """A call still waiting for its result when the session was cut."""
        self._calls += 1
        name = {"hermes": "terminal", "claude": "Bash", "codex": "shell", "openhands": "execute_bash"}.get(self.harness, "bash")
        arguments: dict[str, Any] = {"command": ["bash", "-lc", command] if self.harness == "codex" else command}
        self.messages.append({"role": "assistant", "content": note, "tool_calls": [
            {"id": f"call_{self._calls:04d}", "type": "function",
             "function": {"name": name, "arguments": json.dumps(arguments)}}]})
        return self
