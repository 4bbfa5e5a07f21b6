"""Ports: the few places where a lower domain must ask a higher one (issue 31). A lower module
declares a port with the type of what plugs in; app/wiring.py, the one composition root, plugs
every port in a written order; create_app, every CLI command and the tests call `wire()` first.

A port that was never wired refuses to answer instead of answering "nothing": a process that
skipped the wiring (as `hideout tick` once skipped the alliances module, so that allies fought
each other) fails loudly rather than playing a round by other rules."""

from __future__ import annotations

from typing import Generic, TypeVar

F = TypeVar("F")


class NotWired(RuntimeError):
    """A port was read before app.wiring.wire() ran in this process."""


class Port(Generic[F]):
    """An ordered tuple of implementations of one signature, plugged once by app/wiring.py."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._plugged: tuple[F, ...] | None = None

    def plug(self, *implementations: F) -> None:
        """Replace what is plugged (wiring twice is harmless: the same tuple again)."""
        self._plugged = tuple(implementations)

    def __call__(self) -> tuple[F, ...]:
        if self._plugged is None:
            raise NotWired(f"the port {self.name!r} is not wired: call app.wiring.wire() at the entry point")
        return self._plugged

    @property
    def wired(self) -> bool:
        return self._plugged is not None
