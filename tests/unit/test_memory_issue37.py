"""Issue 37: a worker asks glibc for fewer malloc arenas before its threads start
(app/core/memory.py); on another C library nothing is done and nothing fails."""

from __future__ import annotations

import platform

from app.core import memory


def test_issue37_glibc_takes_the_arena_limit():
    taken = memory.fewer_malloc_arenas()
    assert taken is (platform.libc_ver()[0] == "glibc")


def test_issue37_without_glibc_nothing_is_done(monkeypatch):
    def missing(_name):
        raise OSError("no such library")

    monkeypatch.setattr(memory.ctypes, "CDLL", missing)
    assert memory.fewer_malloc_arenas() is False


def test_issue37_the_server_app_asks_for_it_before_creating_the_app():
    source = memory.__file__.rsplit("/core/", 1)[0] + "/asgi.py"
    text = open(source).read()
    assert text.index("fewer_malloc_arenas()") < text.index("create_app()")
