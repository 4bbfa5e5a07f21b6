"""Shapes the map for drawing: SVG coordinates, marker classes, shortened path ends."""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from markupsafe import Markup, escape

from app.maps import rules
from app.maps.reading import MapView

MARKER_RADIUS = 12


@dataclass
class Marker:
    id: int
    name: str
    income: int
    x: float
    y: float
    css: str
    icon: str
    owner: str | None
    events: int = 0
    label: str | None = "below"  # where its name goes (rules.label_layout), None: nowhere it fits


@dataclass
class Line:
    id: int
    x1: float
    y1: float
    x2: float
    y2: float
    one_way: bool


def markers(view: MapView) -> list[Marker]:
    result = []
    for p in view.places:
        classes = ["pl"]
        owner = view.owners.get(p.owner_player_id) if p.owner_player_id else None
        classes.append(f"o{owner[1]}" if owner else "u")
        if p.has_map:
            classes.append("m")
        if p.entry:
            classes.append("e")
        icon = "⌂" if p.id in view.hideouts else ("⚑" if p.hideout_slot and owner is None else ("⇧" if p.entry else ""))
        result.append(
            Marker(
                id=p.id,
                name=p.name,
                income=p.income,
                x=round(p.x * 10, 1),
                y=round(p.y * view.height / 100, 1),
                css=" ".join(classes),
                icon=icon,
                owner=owner[0] if owner else None,
                events=len(view.events.get(p.id, [])),
            )
        )
    spots = rules.label_layout([(m.id, m.x, m.y, label_text(m)) for m in result], 1000, view.height)
    for m in result:
        m.label = spots.get(m.id)
    return result


def label_text(m: Marker) -> str:
    return rules.label_text(m.name, m.income)


# How each spot of rules.LABEL_SPOTS is drawn, in em of the label's own size (so zooming keeps it).
LABEL_ATTRS = {
    "below": 'class="n" dy="2.2em"',
    "above": 'class="n" dy="-1.45em"',
    "right": 'class="n r" dx="1.35em" dy=".35em"',
    "left": 'class="n l" dx="-1.35em" dy=".35em"',
}


def lines(view: MapView, placed: list[Marker]) -> list[Line]:
    """Paths end at the markers' edges, so one-way arrows stay visible."""
    at = {m.id: (m.x, m.y) for m in placed}
    result = []
    for path in view.paths:
        if path.from_place_id not in at or path.to_place_id not in at:
            continue
        (x1, y1), (x2, y2) = at[path.from_place_id], at[path.to_place_id]
        length = math.hypot(x2 - x1, y2 - y1) or 1
        dx, dy = (x2 - x1) / length * (MARKER_RADIUS + 2), (y2 - y1) / length * (MARKER_RADIUS + 2)
        result.append(Line(path.id, round(x1 + dx, 1), round(y1 + dy, 1), round(x2 - dx, 1), round(y2 - dy, 1), path.one_way))
    return result


# The SVG's markers and paths are drawn here rather than in the template (issue 17): a map of
# hundreds of places is one loop over plain values with each text translated once. Whole units
# of the 1000-wide map (a third of a pixel on a phone): tenths were 2 KB of a first load.


def svg_paths(placed_lines: list[Line]) -> Markup:
    return Markup(
        "".join(
            f'<line id="w{w.id}" class="w{" o" if w.one_way else ""}" x1="{w.x1:.0f}" y1="{w.y1:.0f}" x2="{w.x2:.0f}" y2="{w.y2:.0f}"/>'
            for w in placed_lines
        )
    )


def svg_places(placed: list[Marker], stands: dict[int, list], campaign_id: int, ngettext) -> Markup:
    parts = []
    for m in placed:
        parts.append(
            f'<a id="p{m.id}" href="/campaigns/{campaign_id}/map/places/{m.id}" class="{m.css}" '
            f'transform="translate({m.x:.0f} {m.y:.0f})"><circle r="12"/>'
        )
        if m.icon:
            parts.append(f'<text class="i" dy=".35em">{m.icon}</text>')
        if m.label in LABEL_ATTRS:
            parts.append(f"<text {LABEL_ATTRS[m.label]}>{escape(label_text(m))}</text>")
        else:  # no room for the name on the map: it is the marker's title (and in the places list)
            parts.append(f"<title>{escape(label_text(m))}</title>")
        if m.events:
            parts.append(f'<g class="ev"><circle/><text dy=".35em">{m.events}</text></g>')
        standing = len(stands.get(m.id) or ())
        if standing:
            title = escape(ngettext("%(num)d warband stands here", "%(num)d warbands stand here", standing) % {"num": standing})
            parts.append(f'<g class="wb"><title>{title}</title><circle/><text dy=".35em">{standing}</text></g>')
        parts.append("</a>")
    return Markup("".join(parts))


def place_list(view: MapView, stands: dict[int, list], campaign_id: int, of: int | None, translations) -> Markup:
    """The "Places on this map" list items."""
    gettext, ngettext = translations.gettext, translations.ngettext
    income, enter = gettext("income %(n)s"), escape(gettext("Enter inside"))
    query = f"of={of}&" if of else ""
    parts = []
    for p in view.places:
        icon = "⌂ " if p.id in view.hideouts else ("⚑ " if p.hideout_slot and not p.owner_player_id else "")
        parts.append(f'<li class="row between">\n      <a href="?{query}place={p.id}#sheet">{icon}{escape(p.name)}</a>')
        # (Texts stay outside f-strings, where the message extractor would not find them.)
        events = len(view.events.get(p.id) or ())
        if events:
            text = escape(ngettext("%(num)d event", "%(num)d events", events) % {"num": events})
            parts.append(f' <span class="badge accent">{text}</span>')
        standing = len(stands.get(p.id) or ())
        if standing:
            text = escape(ngettext("%(num)d warband", "%(num)d warbands", standing) % {"num": standing})
            parts.append(f' <span class="badge wb">{text}</span>')
        parts.append(f'\n      <span class="small muted">{escape(income % {"n": p.income})}')
        if p.owner_player_id and p.owner_player_id in view.owners:
            nickname, colour = view.owners[p.owner_player_id]
            parts.append(f' · <span class="dot o{colour}"></span>{escape(nickname)}')
        if p.has_map:
            parts.append(f' · <a href="/campaigns/{campaign_id}/map?of={p.id}">{enter}</a>')
        parts.append("</span>\n    </li>\n")
    return Markup("".join(parts))


# --- drawn maps, kept per campaign version (issue 17) ----------------------------------------


@dataclass(frozen=True)
class Drawing:
    """What the map page draws from the map's contents: the same for every viewer (places,
    paths, owners, hideouts, events and where warbands stand are public, R9.8)."""

    paths: Markup
    places: Markup
    items: Markup
    empty: bool
    timeline: str = ""  # R12.6: the kept rounds for the slider (app/archive/history.py)


class Drawings:
    """Drawn maps of one app (its own database), the most recently used kept."""

    KEPT = 64

    def __init__(self) -> None:
        self._kept: OrderedDict[tuple, Drawing] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple | None, draw: Callable[[], Drawing]) -> Drawing:
        """The drawing under `key` (campaign, map, the campaign's and the everywhere change
        counters, language), drawn by `draw` when missing. Any change in the campaign moves its
        counter, so a kept drawing is never stale; `key=None` (no counters read) always draws.
        Drawing happens outside the lock: two requests may both draw a new version, and the
        second simply wins."""
        if key is None:
            return draw()
        with self._lock:
            found = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
                return found
        made = draw()
        with self._lock:
            self._kept[key] = made
            while len(self._kept) > self.KEPT:
                self._kept.popitem(last=False)
        return made
