"""Secrecy matrix entries of the installable app (issue 19), merged by tests/secrecy/matrix.py."""

# Defined before the import: when tests/web/test_prg.py imports this module first, matrix.py
# (imported below) imports it back half-built and merges what is here by then.
PRG: set = set()
ENTRIES: dict = {}

from tests.secrecy.matrix import ANYONE, MATRIX, Other, Read  # noqa: E402

ENTRIES.update(
    {
        ("GET", "/sw.js"): Other("the service worker script: the same file for everyone"),
        ("GET", "/offline"): Read(
            "page",
            ANYONE,
            why="the page shown offline; the worker fetches it without cookies, "
            "so it names nobody and shows nothing of a campaign",
        ),
    }
)
# In that order matrix.py merged an empty ENTRIES; this makes the merge whatever the order.
MATRIX.update(ENTRIES)
