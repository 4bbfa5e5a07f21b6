"""A worker's resident memory (issue 37: one worker after a 200-member club night).

glibc's malloc gives each thread that allocates an arena of its own, up to eight per core,
and an arena's freed pages are seldom given back: a worker's forty threadpool threads left
tens of MB resident that no request used any more. Two arenas are enough for one event loop
and its threads (they wait on the database far more than they allocate). Set before the app
starts its threads; elsewhere than glibc (musl, macOS) nothing is done.
"""

from __future__ import annotations

import ctypes
import ctypes.util

M_ARENA_MAX = -8  # glibc's malloc.h
ARENAS = 2


def fewer_malloc_arenas(arenas: int = ARENAS) -> bool:
    """Whether glibc took the limit (False: not glibc, nothing changed)."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(M_ARENA_MAX, arenas))
