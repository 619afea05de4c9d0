"""A growing file followed line by line: appends, half-written lines, and every way it can change under us."""

from __future__ import annotations

import os
import time

from core.live.tail import APPENDED, MISSING, RESET, UNCHANGED, UNREADABLE, FileTail


def _touch_later(path: os.PathLike[str]) -> None:
    """Move the modification time on, so a rewrite of the same size is not hidden by a coarse clock."""
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def test_appended_lines_and_a_half_written_last_line(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": ')
    tail = FileTail(path)
    change = tail.poll()
    assert change.kind == APPENDED
    assert change.lines == [(1, b'{"a": 1}\n')] and change.partial == b'{"b": '
    assert tail.poll().kind == UNCHANGED  # one stat, nothing opened
    with open(path, "ab") as handle:
        handle.write(b'2}\n{"c": 3}\n')
    change = tail.poll()
    assert change.lines == [(2, b'{"b": 2}\n'), (3, b'{"c": 3}\n')] and change.partial == b""
    assert tail.position == path.stat().st_size and tail.lines_read == 3


def test_an_empty_file_then_its_first_line(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"")
    tail = FileTail(path)
    assert tail.poll().kind == UNCHANGED
    path.write_bytes(b'{"a": 1}\n')
    assert tail.poll().lines == [(1, b'{"a": 1}\n')]


def test_truncation_reads_the_file_again(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": 2}\n')
    tail = FileTail(path)
    tail.poll()
    path.write_bytes(b'{"z": 0}\n')
    change = tail.poll()
    assert change.kind == RESET and "shrank" in change.reason
    assert change.lines == [(1, b'{"z": 0}\n')]


def test_a_rewrite_in_place_of_the_same_size(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": 2}\n')
    tail = FileTail(path)
    tail.poll()
    with open(path, "r+b") as handle:  # same inode, same size, other bytes
        handle.write(b'{"x": 9}\n{"y": 8}\n')
    _touch_later(path)
    change = tail.poll()
    assert change.kind == RESET and "rewritten in place" in change.reason
    assert [line for _, line in change.lines] == [b'{"x": 9}\n', b'{"y": 8}\n']


def test_a_longer_rewrite_with_another_start(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"a": 1}\n')
    tail = FileTail(path)
    tail.poll()
    with open(path, "r+b") as handle:
        handle.write(b'{"q": 1}\n{"r": 2}\n')
    change = tail.poll()
    assert change.kind == RESET and len(change.lines) == 2


def test_rotation_and_deletion(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"a": 1}\n')
    tail = FileTail(path)
    tail.poll()
    os.rename(path, tmp_path / "log.jsonl.1")  # rotated away ...
    assert tail.poll().kind == MISSING
    path.write_bytes(b'{"new": 1}\n{"new": 2}\n')  # ... and a new file in its place
    change = tail.poll()
    assert change.kind == RESET and "replaced" in change.reason
    assert len(change.lines) == 2
    os.remove(path)
    change = tail.poll()
    assert change.kind == MISSING and "no such file" in change.reason


def test_replaced_through_a_rename_while_present(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"a": 1}\n')
    tail = FileTail(path)
    tail.poll()
    fresh = tmp_path / "tmp.jsonl"
    fresh.write_bytes(b'{"a": 1}\n{"b": 2}\n')
    os.replace(fresh, path)  # an atomic rewrite: the same start, another inode
    change = tail.poll()
    assert change.kind == RESET and "replaced" in change.reason and len(change.lines) == 2


def test_permission_errors_are_states(tmp_path, monkeypatch):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"a": 1}\n')
    tail = FileTail(path)
    real_open = open

    def refuse(file, *args, **kwargs):
        if os.fspath(file) == os.fspath(path):
            raise PermissionError(13, "Permission denied")
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr("builtins.open", refuse)
    change = tail.poll()
    assert change.kind == UNREADABLE and "permission denied" in change.reason
    monkeypatch.setattr("builtins.open", real_open)
    assert tail.poll().lines == [(1, b'{"a": 1}\n')]

    def stat_refused(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "stat", stat_refused)
    assert tail.poll().kind == UNREADABLE


def test_a_file_without_read_permission(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"a": 1}\n')
    path.chmod(0)
    try:
        if os.geteuid() != 0:
            assert FileTail(path).poll().kind == UNREADABLE
        else:  # root reads any file: the follower polls in a forked child that dropped to "nobody"
            tmp_path.chmod(0o755)
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: never returns into pytest
                try:
                    os.setgid(65534)
                    os.setuid(65534)
                    change = FileTail(path).poll()
                    os.write(write, f"{change.kind}|{change.reason}".encode())
                finally:
                    os._exit(0)
            os.close(write)
            with os.fdopen(read, "rb") as pipe:
                said = pipe.read().decode()
            os.waitpid(pid, 0)
            assert said.startswith(f"{UNREADABLE}|") and "permission denied" in said, said
    finally:
        path.chmod(0o644)


def test_a_folder_is_not_followed_as_a_file(tmp_path):
    assert FileTail(tmp_path).poll().kind == UNREADABLE


def test_following_writes_nothing(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"a": 1}\n')
    before = {entry.name: entry.stat().st_mtime_ns for entry in os.scandir(tmp_path)}
    tail = FileTail(path)
    for _ in range(3):
        tail.poll()
        time.sleep(0.01)
    assert {entry.name: entry.stat().st_mtime_ns for entry in os.scandir(tmp_path)} == before


def test_a_large_backlog_is_read_in_pieces(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"".join(b'{"n": %d}\n' % n for n in range(1000)))
    tail = FileTail(path, read_limit=1000)
    lines, polls = [], 0
    while True:
        change = tail.poll()
        polls += 1
        lines += change.lines
        if not change.more:
            break
    assert polls > 5 and [n for n, _ in lines] == list(range(1, 1001))
