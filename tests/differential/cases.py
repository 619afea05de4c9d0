"""Seeded random cases for the differential check, from the spec's "inputs worth testing" lists.

``generate(release, seed)`` returns one case: a configuration, clocks, and a list of operations
(compress rounds on fresh transcripts or on the previous output, clock advances, session ends and
resets, usage reports) with the summary answers or failures each round gets. Shapes a release
documents as raising ("no defined output") are generated only for releases where the behaviour is
defined. Independent of the project's other test generators on purpose.
"""

from __future__ import annotations

import json
import random
from typing import Any

from tests.differential import catalogue as C
from tests.differential import scenarios as S
from tests.differential.protocol import encode
from tests.differential.spec_strings import END_MARKER, MERGE_DELIMITER, MERGE_HEADER, PREFIXES

RELEASES = ("0.15.1", "0.16.0", "0.17.0", "0.18.0", "0.18.1", "0.19.0")

CONTEXTS = [4_000, 8_000, 16_000, 32_000, 48_000, 64_000, 80_000, 85_334, 85_335, 96_000, 100_000, 100_000,
            100_000, 128_000, 128_000, 131_072, 200_000, 256_000, 511_999, 512_000, 1_000_000]
PERCENTS = [0.5] * 8 + [0.05, 0.3, 0.65, 0.75, 0.85, 0.9, 0.999, 1.0, 1.5]
RATIOS = [0.2] * 6 + [0.05, 0.1, 0.15, 0.3, 0.45, 0.8, 0.95]
ADVANCES = [0, 1, 29, 30, 31, 59, 60, 61, 299, 300, 301, 599, 601, 899, 900, 901]
SIZES = [20, 120, 199, 200, 201, 450, 1_500, 4_000, 6_000, 6_001, 9_000, 16_000, 30_000, 60_000]
SIZE_WEIGHTS = [6, 6, 2, 2, 2, 6, 8, 6, 2, 2, 5, 5, 4, 1]
REPLAY_KEYS = ("reasoning", "reasoning_content", "reasoning_details", "codex_reasoning_items", "codex_message_items")
THINK_FORMS = ["<think>plan</think>", "Before <THINKING>x\ny</THINKING> after", "text\n<reasoning>unterminated and rest",
               "inline <think>not at boundary", "a </think> b <thought>c</thought> d", "x <tool_call>{\"a\":1}</tool_call> y",
               "Intro.<function name=\"f\">body</function> tail", "<REASONING_SCRATCHPAD>e</REASONING_SCRATCHPAD>f"]
# Characters whose repr, whitespace class, UTF-8 form or case mapping is unusual.
ODD = ["\x00", "\x1f", "\x7f", "\x85", "\xa0", "\u200b", "\u2028", "\u3000", "\u1680", "\x1c", "\ud800", "\U0001f600",
       "'", '"', "'\"", "\\", "\r\n", "\t", "\u0130", "ß", "\ufeff", "\u0301"]
ASKS = ["Fix the failing login test in tests/test_login.py", "Now update the docs and run the linter.",
        "Skip the flaky   network tests in part 5;\nthey need VPN.", "What is left?", "Thanks. Tag the release.",
        "stop, undo that change", "Also bump the version in pyproject.toml.", "Use MEDIA:/tmp/voice.ogg as the intro",
        "Waarom faalt de build? 日本語 émoji 🚀", "say \"hi\" to the team", "  \t\n  ", "Please look at\u00a0this\u2003now"]


def since(release: str, first: str) -> bool:
    return RELEASES.index(release) >= RELEASES.index(first)


class _Gen:
    def __init__(self, release: str, seed: int) -> None:
        self.rng = random.Random(f"context-lens-differential:{release}:{seed}")
        self.release = release
        self.ids = 0
        self.pool: list[str] = []  # earlier tool outputs, for duplicates

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def new_id(self) -> str:
        self.ids += 1
        return f"call_{self.ids}" if self.chance(0.9) else f"toolu_{C.token(self.rng, 20)}"

    # --- text ------------------------------------------------------------------------------------
    def prose(self, size: int) -> str:
        r = self.rng
        pieces = [r.choice(["ok ", "FAILED tests/test_x.py::t - AssertionError ", "Traceback (most recent call last):\n",
                            "x = 1\n", "é日本🚀 ", "line\r\n", "see /srv/app/main.py:12 ", "\t", "MEDIA:/tmp/a.png "])
                  for _ in range(r.randint(1, 6))]
        if self.chance(0.3):
            pieces.append(C.secret(r) + r.choice([" ", "\n", ""]))
        if self.chance(0.2):
            pieces.insert(r.randint(0, len(pieces)), "".join(r.choice(ODD) for _ in range(r.randint(1, 4))))
        chunk = "".join(pieces) or "x"
        return (chunk * (size // len(chunk) + 1))[:size] if size > len(chunk) else chunk

    def ask(self) -> str:
        text = self.rng.choice(ASKS)
        if self.chance(0.2):
            text += " " + C.secret(self.rng)
        if self.chance(0.1):
            text += " " + "detail " * self.rng.randint(40, 80)
        if self.chance(0.1):
            text = self.rng.choice(ODD) + text + "".join(self.rng.choice(ODD) for _ in range(3))
        return text

    def think(self, text: str) -> str:
        return self.rng.choice(THINK_FORMS) + text if self.chance(0.5) else text + "\n" + self.rng.choice(THINK_FORMS)

    # --- content shapes --------------------------------------------------------------------------
    def parts(self, text: str, role: str) -> list[Any]:
        r = self.rng
        menu: list[Any] = [
            {"type": "image_url", "image_url": {"url": "https://files.example.com/chart.png"}},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
            {"type": "image_url", "image_url": "http://h/x.jpg"}, {"type": "input_image", "image_url": "https://h/y.jpg"},
            {"type": "input_image", "url": "https://h/z.jpg"}, {"type": "image", "url": "ftp://h/i.png"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBOR"}},
            {"type": "image_url", "image_url": {"url": None}}, {"type": "input_text", "text": "hidden?"},
            {"type": "file", "file_id": "f_1"}, {"text": "no type"}, {"type": None}, {"type": ""},
            {"type": "TEXT", "text": "upper"}, "bare string", 42, None, ["nested"], {"type": "thinking", "thinking": "deep"},
            {"type": "output_text", "content": "from content"}, {"type": "text", "text": "  "}, {"type": "text"},
            {"type": "text", "text": "see MEDIA:/x.png"},
        ]
        chosen = [{"type": "text", "text": text}] + r.sample(menu, r.randint(0, 4))
        if self.chance(0.015):  # a text part that is not a str (v0.19.0 raises TypeError when it is serialised)
            chosen.insert(r.randint(0, len(chosen)), {"type": "text", "text": r.choice([None, {"k": 1}] if since(self.release, "0.19.0") else [None])})
        if self.chance(0.2):
            r.shuffle(chosen)
        return chosen

    def content(self, text: str, role: str) -> Any:
        pick = self.rng.random()
        if pick < 0.1:
            return self.parts(text, role)
        if pick < 0.13 and role == "assistant":
            return self.rng.choice([None, "", "   ", "\u200b"])
        return text

    def extras(self, message: dict[str, Any]) -> dict[str, Any]:
        r = self.rng
        if self.chance(0.08):
            message["_db_persisted"] = r.choice([True, False, 1])
        if self.chance(0.05):
            message["api_content"] = "sent bytes"
        if self.chance(0.04):
            message["timestamp"] = 1780019702.5
        if self.chance(0.05):
            message["_compressed_summary"] = r.choice([True, False])
        if message.get("role") == "assistant" and self.chance(0.12) or self.chance(0.02):
            key = r.choice(REPLAY_KEYS)
            message[key] = r.choice([
                "R" * r.randint(0, 9000), "", None, 0, False, [], {}, float("nan"), {"k": {1, 2}}, {1: "a", "b": 2},
                {"b": 1, "a": "x"}, [{"type": "reasoning.text", "text": "héllo"}],
                [{"id": "rs_1", "type": "reasoning", "encrypted_content": "Z" * r.randint(100, 9000)}],
            ])
        if self.chance(0.02):
            message["_anthropic_content_blocks"] = [{"type": "image", "source": {}}, {"type": "text", "text": "t"}]
        return message

    # --- messages --------------------------------------------------------------------------------
    def system(self) -> dict[str, Any]:
        text = self.rng.choice(["You are a coding agent.", "You are Hermes.", "sys " + C.secret(self.rng)])
        if self.chance(0.04):  # a handoff as the system message itself (never a rehydration source)
            text = self.rng.choice(list(PREFIXES.values())) + "\n## Goal\nOld."
        pick = self.rng.random()
        content: Any = text if pick < 0.85 else [{"type": "text", "text": text}] if pick < 0.95 else self.rng.choice([None, ""])
        return self.extras({"role": "system", "content": content})

    def user(self) -> dict[str, Any]:
        return self.extras({"role": "user", "content": self.content(self.ask(), "user")})

    def assistant(self) -> dict[str, Any]:
        text = self.rng.choice(["Done.", "Will do.", "Version bumped to 2.0.0.", "The y-axis is truncated; see MEDIA:charts/b.png",
                                "Here is the plan:\n1. read\n2. patch", self.prose(self.rng.choice([50, 400, 3000]))])
        if self.chance(0.15):
            text = self.think(text)
        return self.extras({"role": "assistant", "content": self.content(text, "assistant")})

    def arguments(self, name: str) -> Any:
        r = self.rng
        known: dict[str, dict[str, Any]] = {
            "terminal": {"command": r.choice(["pytest -q", "make build", "x" * 90, "echo hi\npassword: hunter2hunter2hunter2"])},
            "read_file": {"path": r.choice(["/srv/app/auth.py", "src/app.py"]), "offset": r.choice([1, 40, "7"])},
            "write_file": {"path": "docs/a.md", "content": self.prose(r.choice([30, 300, 2000]))},
            "search_files": {"pattern": "compress", "path": "agent/", "target": "content"},
            "patch": {"path": "api.py", "mode": "replace", "old_string": self.prose(r.choice([10, 700])), "new_string": "y"},
            "browser_navigate": {"url": "https://example.com/a"}, "browser_click": {"ref": "e12"},
            "web_search": {"query": "hermes compressor"}, "web_extract": {"urls": ["https://a.com", "https://b.com"]},
            "delegate_task": {"goal": "Investigate " + "the flaky tests " * r.randint(1, 6)},
            "execute_code": {"code": "import os\nprint(os.getcwd())\n" * r.randint(1, 4)},
            "skill_view": {"name": "release"}, "vision_analyze": {"question": "What is wrong with this chart? " * 2},
            "memory": {"action": "add", "target": "user"}, "todo": {"todos": [{"id": 1, "content": "x"}]},
            "clarify": {"question": "Which branch?"}, "text_to_speech": {"text": "hello"}, "cronjob": {"action": "list"},
            "process": {"action": "poll", "session_id": "s1"}, "image_generate": {"prompt": "v2.0 banner"},
            "mystery_tool": {"alpha": "A" * 60, "beta": 2, "gamma": True, "delta": None},
        }
        args: Any = known.get(name, {})
        if self.chance(0.05):
            args = {**args, "api_key": C.secret(r)} if isinstance(args, dict) else args
        if since(self.release, "0.19.0") and self.chance(0.12):
            # Malformed arguments: v0.19.0 never raises on them; earlier releases do (no defined output).
            return r.choice(["[1,2]", '"x"', "7", "null", "true", json.dumps({"command": 7}), json.dumps({"command": None}),
                             json.dumps({"code": 42}), json.dumps({"goal": 12345}), json.dumps({"question": 3.5}),
                             json.dumps({"urls": [{"url": "https://a.com"}, "https://b.com"]}), json.dumps({"urls": [5, "x"]}),
                             json.dumps({"content": 12, "path": "a.txt"})])
        if self.chance(0.04):
            return r.choice(["not json {", "", {"command": "ls /srv/x"}])
        if self.chance(0.06):  # literals json.loads accepts and json.dumps rewrites (pass 3 re-serialises)
            leaf = self.prose(r.choice([150, 250, 700]))
            return ('{"a":1e5,"b":NaN,"c":-Infinity,"d":1.10,"a":2,"e":"\\u00e9\\ud83d\\ude80\\/","n":{"deep":["' +
                    json.dumps(leaf)[1:-1] + '", 3, null, true]},"f":' + json.dumps(leaf, ensure_ascii=False) + '}')
        separators = (",", ":") if self.chance(0.2) else (", ", ": ")
        return json.dumps(args, separators=separators, ensure_ascii=self.chance(0.5))

    def result_text(self, name: str) -> str:
        r = self.rng
        if self.pool and self.chance(0.15):
            return r.choice(self.pool)
        size = r.choices(SIZES, SIZE_WEIGHTS)[0]
        if name == "terminal" and self.chance(0.6):
            text = json.dumps({"output": self.prose(size), "exit_code": r.choice([0, 1, 2, -1])})
        elif name == "search_files":
            text = json.dumps({"matches": self.prose(size), "total_count": r.randint(0, 40)})
        else:
            text = self.prose(size)
        if self.chance(0.02):  # two outputs that differ only in a lone surrogate hash alike (MD5 of "replace"-encoded UTF-8)
            text = text + "\ud800 tail"
            self.pool.append(text.replace("\ud800", "\udfff"))
        if len(text) >= 200:
            self.pool.append(text)
        return text

    def tool_group(self) -> list[dict[str, Any]]:
        r = self.rng
        names = ["terminal", "read_file", "write_file", "search_files", "patch", "browser_navigate", "browser_click", "web_search",
                 "web_extract", "delegate_task", "execute_code", "skill_view", "vision_analyze", "memory", "todo", "clarify",
                 "text_to_speech", "cronjob", "process", "image_generate", "mystery_tool"]
        calls = []
        for _ in range(r.choice([1, 1, 1, 2, 3, 4])):
            name = r.choice(names) if self.chance(0.97) else r.choice(["", "Terminal"])
            call: dict[str, Any] = {"id": self.new_id(), "type": "function", "function": {"name": name, "arguments": self.arguments(name)}}
            if self.chance(0.08):
                call["call_id"] = call["id"] if self.chance(0.5) else f"fc_{C.token(r, 8)}"
            if self.chance(0.05):
                call.update(index=0, extra_content={"google": {"thought_signature": "sig"}})
            if self.chance(0.03):
                call = r.choice([{"id": call["id"], "type": "function"}, {"type": "function", "function": call["function"]},
                                 {"id": call["id"], "function": {"arguments": call["function"]["arguments"]}}])
            calls.append(call)
        if calls and self.chance(0.04):
            calls.append(dict(calls[0]))  # the same id twice in one message
        text = r.choice([None, None, "", "Running it.", "Let me check.", "   "])
        if text and self.chance(0.2):
            text = self.think(text)
        head = self.extras({"role": "assistant", "content": text, "tool_calls": calls})
        results = []
        for call in calls:
            if self.chance(0.06) or "id" not in call:
                continue  # a call whose result never came (an orphaned call)
            name = call.get("function", {}).get("name", "unknown")
            content: Any = self.result_text(name)
            if self.chance(0.06):
                content = self.parts(content[:300], "tool")
            elif self.chance(0.03):
                content = {"_multimodal": True, "text_summary": r.choice(["A chart", None]),
                           "content": [{"type": "image_url", "image_url": {"url": "https://x/y.png"}}]}
            elif self.chance(0.03):
                content = r.choice([None, 0, 17, {"type": "text", "text": "dict"}, ""])
            result: dict[str, Any] = {"role": "tool", "tool_call_id": call["id"], "content": content}
            if self.chance(0.3):
                result["name"] = name
            results.append(self.extras(result))
        if len(results) > 1 and self.chance(0.1):
            r.shuffle(results)
        if results and self.chance(0.03):
            return [results.pop(), head, *results]  # a result before its call
        return [head, *results]

    def handoff(self) -> dict[str, Any]:
        r = self.rng
        prefix = r.choice(list(PREFIXES.values()))
        body = C.summary_text(r) if self.chance(0.8) else ""
        body = body if isinstance(body, str) else "## Goal\nG"
        shape = r.random()
        if shape < 0.45:
            ending = r.choice(["", f"\n\n{END_MARKER}", f"\n\n{END_MARKER}", f"\n\n{END_MARKER}  \n", f"\n\n{END_MARKER}\n\n{END_MARKER}"])
            text = f"{prefix}\n{body}{ending}"
        elif shape < 0.55:
            text = prefix + (f"\n\n{END_MARKER}" if self.chance(0.5) else "")
        elif shape < 0.75:
            text = f"{MERGE_HEADER}\n{self.ask()}\n\n{MERGE_DELIMITER}\n\n{prefix}\n{body}\n\n{END_MARKER}"
        elif shape < 0.85:
            text = f"{prefix}\n{body}\n\n{END_MARKER}\n\n{self.ask()}"
        elif shape < 0.92:
            text = r.choice([f"  \n{prefix}\n{body}", f"hello {MERGE_DELIMITER} world", "[CONTEXT COMPACTION — REFERENCE ONLY] not one",
                             f"a {MERGE_DELIMITER} b {MERGE_DELIMITER} {prefix}\n{body}", f"{MERGE_HEADER}\n\n\n{MERGE_DELIMITER}\n\n{prefix}"])
        else:
            text = f"x{MERGE_DELIMITER}  [CONTEXT SUMMARY]: LEG"
        content: Any = [{"type": "text", "text": text}] if self.chance(0.1) else text
        message: dict[str, Any] = {"role": r.choice(["user", "user", "assistant"]), "content": content}
        if self.chance(0.5):
            message["_compressed_summary"] = True
        return self.extras(message)

    # --- transcripts -----------------------------------------------------------------------------
    def transcript(self, short: bool = False) -> list[dict[str, Any]]:
        r = self.rng
        worker = self.chance(0.08)
        messages: list[dict[str, Any]] = [] if (worker and self.chance(0.5)) or self.chance(0.2) else [self.system()]
        messages.append(self.user())
        steps = r.randint(1, 5) if short else r.randint(3, 28) if self.chance(0.95) else r.randint(120, 400)
        for _ in range(steps):
            pick = r.random()
            if worker or pick < 0.5:
                messages.extend(self.tool_group())
            elif pick < 0.68:
                messages.append(self.user())
            elif pick < 0.86:
                messages.append(self.assistant())
            elif pick < 0.93:
                messages.append(self.handoff())
            elif pick < 0.96:
                orphan = {"role": "tool", "tool_call_id": f"gone_{C.token(r, 6)}", "content": self.prose(r.choice([40, 600]))}
                messages.append(self.extras(orphan))
            elif pick < 0.98:
                messages.append(self.extras({"role": r.choice(["developer", "system"]), "content": "extra instructions"}))
            else:
                odd = r.choice([{"content": "a message without a role"}, {"role": "tool", "tool_call_id": None, "content": "x" * 300},
                                {"role": "assistant", "content": "calls: none", "tool_calls": r.choice([[], None])},
                                {"role": "assistant", "content": "calls, not a list", "tool_calls": r.choice(["ab", {"id": "c1"}])},
                                {"role": "user", "content": {"type": "text", "text": "dict content"}}])
                messages.append(self.extras(odd))
        messages.append(self.assistant() if worker or self.chance(0.4) else self.user())
        if self.chance(0.04):  # ends in two messages that are neither user nor assistant (v0.17.0 §5.1)
            messages += [{"role": "developer", "content": "late note"}, {"role": "tool", "tool_call_id": "late_1", "content": "x" * 250}]
        return messages

    def tiny(self) -> list[dict[str, Any]]:
        """Few enough messages for the too-small early return (v0.19.0 counts it as ineffective)."""
        messages = [self.system()] if self.chance(0.6) else []
        for index in range(self.rng.randint(1, 4)):
            messages.append(self.user() if index % 2 == 0 else self.assistant())
        return messages

    def continuation(self) -> list[dict[str, Any]]:
        added: list[dict[str, Any]] = []
        for _ in range(self.rng.randint(0, 6)):
            added.extend(self.tool_group() if self.chance(0.5) else [self.user() if self.chance(0.5) else self.assistant()])
        added.append(self.user() if self.chance(0.6) else self.assistant())
        return added


def _config(g: _Gen) -> dict[str, Any]:
    r = g.rng
    context = r.choice(CONTEXTS) if g.chance(0.98) else r.choice([0, 500, 64_001])
    max_tokens = None
    if g.chance(0.35):
        max_tokens = r.choice([4_096, 32_000, 65_536, context // 2, context - 1, context, context + 1_000, 0, -1, True,
                               "16384", "4096.0", 8192.7, "n/a", " 77 "])
    return {
        "context_length": context,
        "threshold_percent": r.choice(PERCENTS) if g.chance(0.98) else r.choice([0, -0.5, 0.0001]),
        # Negative values are what the constructor accepts as given (only Hermes' config loader clamps them).
        "protect_first_n": r.choice([0, 0, 1, 2, 3, 3, 3, 4, 5, 8]) if g.chance(0.96) else r.choice([-1, -3, 12, 50]),
        "protect_last_n": r.choice([0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 20, 20, 20, 20, 100]),
        "summary_target_ratio": r.choice(RATIOS) if g.chance(0.97) else r.choice([0, -1, 1.5]),
        "abort_on_summary_failure": g.chance(0.2),
        "model": r.choice(["test-model"] * 9 + ["forbidden-model"]),
        "max_tokens": max_tokens,
        "summary_model": r.choice(["aux-model"] * 5 + ["test-model"]) if g.chance(0.15) else "",
    }


def _probes(config: dict[str, Any]) -> list[int]:
    """Token counts around every threshold a release could compute for this configuration."""
    context = config["context_length"]
    values = {0, 63_999, 64_000, 10**9}
    try:  # the reserve as v0.18.0+ reads it: a positive int() of the value
        reserve = int(config["max_tokens"]) if config["max_tokens"] is not None else 0
    except (TypeError, ValueError):
        reserve = 0
    windows = {context}
    if 0 < reserve < context:
        windows.add(context - reserve)
    for window in windows:
        for percent in {config["threshold_percent"], max(config["threshold_percent"], 0.75)}:
            for threshold in (max(int(window * percent), 64_000), int(window * 0.85)):
                values.update({threshold - 1, threshold})
    return sorted(values)


def _responses(g: _Gen, config: dict[str, Any], timeouts: bool) -> list[dict[str, Any]]:
    r = g.rng
    if timeouts:
        return [r.choice(C.TIMEOUTS)] if g.chance(0.8) else [{"text": C.summary_text(r)}]
    success = {"text": C.summary_text(r)}
    if config["summary_model"]:
        return r.choice([[C.failure(r), success], [C.failure(r), C.failure(r)], [success], [{"text": ""}, success]])
    return [success] if g.chance(0.6) else [C.failure(r)]


def generate(release: str, seed: int) -> dict[str, Any]:
    """One seeded case for ``release`` (the same seed gives the same case)."""
    g = _Gen(release, seed)
    r = g.rng
    config = _config(g)
    timeouts = g.chance(0.08)  # a session of repeated timeouts across the 60/300/900 s ladder
    sticky = not timeouts and g.chance(0.1)  # sticky auth/network flags, forced retries, a clearing success
    features = {name for name, p in (("calibrate", 0.3), ("odd_tail", 0.3), ("strip", 0.15), ("tiny", 0.08)) if g.chance(p)}
    rounds = r.choice([1, 1, 1, 2, 2, 3, 4]) if not (timeouts or sticky) else r.randint(3, 7)
    answers = S.failure_sequence(r, rounds) if sticky else None
    offset = r.choice(["+00:00", "+02:00", "-07:00", "+14:00"])
    wall = {"raises": True} if g.chance(0.03) else {"iso": f"2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}T{r.choice(['00:30', '12:00', '23:59'])}:00{offset}"}

    def shaped(messages: list[dict[str, Any]], whole: bool) -> list[dict[str, Any]]:
        if "strip" in features:
            messages = S.strip_results(r, messages)
        if "calibrate" in features and whole:
            S.calibrate(r, messages, config)
        if "odd_tail" in features:
            S.odd_tail(r, messages)
        return messages

    ops: list[dict[str, Any]] = []
    for number in range(rounds):
        if number:
            if timeouts:
                ops.append({"op": "advance", "seconds": r.choice([59, 60, 61, 299, 300, 301, 899, 900, 901])})
            elif g.chance(0.6):
                ops.append({"op": "advance", "seconds": r.choice(ADVANCES)})
            if g.chance(0.2):
                ops.append({"op": r.choice(["session_end", "session_end", "session_reset"])})
            if g.chance(0.15):
                prompt = r.choice([-1, 0, 1_000, 50_000, 64_000, 90_000, 10**6])
                usage: dict[str, Any] = {"prompt_tokens": prompt, "completion_tokens": 200}
                if g.chance(0.5):
                    usage["total_tokens"] = prompt + 300
                if g.chance(0.1):
                    usage = {}
                ops.append({"op": "usage", "usage": usage})
            if g.chance(0.08):  # a model switch: a new window (and from v0.18.0 an output reserve)
                ops.append({"op": "update_model", "model": r.choice(["test-model", "other-model"]),
                            "context_length": r.choice(CONTEXTS), "max_tokens": r.choice([None, None, 4_096, 65_536, "8192"])})
        op: dict[str, Any] = {"op": "compress"}
        if number and g.chance(0.75):
            op["base"] = "previous"
            op["append"] = encode(shaped(g.continuation(), False) if g.chance(0.85) else [])
        elif "tiny" in features and g.chance(0.7):
            op["messages"] = encode(g.tiny())
        else:
            op["messages"] = encode(shaped(g.transcript(short=g.chance(0.12)), True))
        op["responses"] = answers[number] if answers else _responses(g, config, timeouts)
        op["current_tokens"] = r.choice([None, None, None, 0, -5, r.randint(1, 200_000), 10**7])
        op["focus_topic"] = r.choice([None] * 6 + ["", "   ", "database migration", 'the "auth" bug\nand tests', C.secret(r)])
        op["force"] = g.chance(0.25) or ((timeouts or sticky) and g.chance(0.3))
        if since(release, "0.19.0") and g.chance(0.4):
            op["memory_context"] = C.memory_context(r)
        ops.append(op)
    return {"seed": seed, "release": release, "config": config, "clock": 1000.0, "wall": wall,
            "probes": _probes(config), "ops": ops}
