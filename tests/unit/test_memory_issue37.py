"""Issue 37: a worker asks glibc for fewer malloc arenas before its threads start
(app/core/memory.py); on another C library nothing is done and nothing fails. Once its app is
built, the app's objects are set aside from the garbage collector's walks."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

from app.core import memory

REPO = Path(__file__).resolve().parents[2]


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


def test_issue37_the_server_app_is_set_aside_from_the_collectors_walks_once_built(tmp_path):
    """app/asgi.py settles the heap after create_app: a full garbage collector pass then walks
    none of the app's own objects, and garbage made afterwards is still collected."""
    probe = (
        "import gc, app.asgi\n"
        "frozen = gc.get_freeze_count()\n"
        "a = []; a.append(a); del a\n"  # a cycle made after: still garbage to the collector
        "print(frozen, gc.collect())"
    )
    env = {**os.environ, "HIDEOUT_VAR_DIR": str(tmp_path), "HIDEOUT_SECRET_KEY": "probe-secret-key-that-is-long-enough"}
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    frozen, collected = map(int, done.stdout.split()[-2:])
    assert frozen > 50_000 and collected >= 1
