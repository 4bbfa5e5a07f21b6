"""R12.14: the map editor's pasted list of places, one a line: `name; income; ⚑` (income and
the mark optional, in any order after the name). Pure: lines become the bulk route's items."""

from __future__ import annotations

from dataclasses import dataclass, field

# A hideout place's mark: the flag, or what a phone's keyboard has at hand.
MARKS = frozenset({"⚑", "!", "x", "X"})


@dataclass
class Line:
    """One pasted line: its number (from 1, blank lines counted), the place it asks for, and
    the parts that meant nothing (each reported as `place_line_part`)."""

    number: int
    place: dict
    unknown: list[str] = field(default_factory=list)


def parse(text: str) -> list[Line]:
    """The places of a pasted list; blank lines are skipped but keep the numbering."""
    lines = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        name, *rest = (part.strip() for part in raw.split(";"))
        line = Line(number, {"name": name, "hideout_slot": False})
        for part in filter(None, rest):
            if part in MARKS and not line.place["hideout_slot"]:
                line.place["hideout_slot"] = True
            elif part.isascii() and part.isdigit() and "income" not in line.place:
                line.place["income"] = int(part)
            else:
                line.unknown.append(part)
        lines.append(line)
    return lines
