"""Worlds built once per worker (issue 31: the suite's time).

Most tests begin the same way: a running campaign with two players, their models bought, a
warband built… Built over the API, that setup was half of a database test's time. Here each
builder call a test makes *before anything else touched the database* is remembered by the
chain of calls that led to it: the first test to make the chain builds it over the API as
before (so every builder still runs through the real API in each worker), and the database's
rows, its id sequences and the call's answer are kept. A later test making the same chain
gets the rows written back (one INSERT per table) and a copy of the same answer.

The chain ends for the rest of the test at the first statement run outside a builder (the
test's own requests, a service called directly, on any engine), or at a builder call whose
effect is not all in the database (a cookie it left in the client). Nothing is remembered
across workers or runs. The suite empties the database after each test here too (`empty`).
"""

from __future__ import annotations

import copy
import functools
import inspect
import time
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import event, text
from sqlalchemy.engine import Engine

from app.models import metadata

TABLES = metadata.sorted_tables  # parents first; sorted once (the sort is computed on each access)

_engine: Any = None
_chain: tuple | None = None  # the calls that made the database what it is, or None: unknown
_depth = 0  # > 0 while a builder (or this module) runs: its statements keep the chain
# A world's rows carry the times it was built at: older than this, it is built again, so that no
# test meets a world older than the app's shortest window (a session is touched after 5 minutes).
MAX_AGE_SECONDS = 90
_stats = {"built": 0, "restored": 0}


@dataclass
class _Kept:
    """A world as it was built: its rows, its id sequences, the answer (clients as slots) and,
    for a world holding browsers, each browser's cookies."""

    rows: dict
    sequences: dict
    answer: Any
    jars: dict = field(default_factory=dict)
    built_at: float = field(default_factory=time.monotonic)

    def fresh(self) -> bool:
        return time.monotonic() - self.built_at <= MAX_AGE_SECONDS


_worlds: dict[tuple, _Kept | None] = {}  # chain -> its world; None: not memorable
_browsers: dict[str, _Kept] = {}  # kept_with_browsers' worlds, by name


def _on_statement(*_args) -> None:
    global _chain
    if _depth == 0:
        _chain = None


def begin_test(engine) -> None:
    """A test starts on an emptied database: the chain is empty and known."""
    global _engine, _chain
    if not event.contains(Engine, "before_cursor_execute", _on_statement):
        # Every engine of the process: a test's own engine writing first ends the chain too.
        event.listen(Engine, "before_cursor_execute", _on_statement)
    _engine = engine
    _chain = ()


def end_test() -> None:
    global _chain
    _chain = None


class _Slot:
    """Where a remembered answer held the i-th client of the call that built it."""

    def __init__(self, index: int) -> None:
        self.index = index

    def __deepcopy__(self, _memo):
        return self  # a slot with no client for it stays a slot


_SLOTS: dict[int, _Slot] = {}


def _slot(index: int) -> _Slot:
    return _SLOTS.setdefault(index, _Slot(index))


_UNCOPIED = object()


def _key_part(value: Any) -> Any:
    """What of an argument decides what the builder does: a client by its address and
    cookies (its identity differs from test to test), anything else by its repr."""
    if hasattr(value, "cookies") and hasattr(value, "base_url"):
        return ("client", getattr(value, "_memo_address", None), tuple(sorted(value.cookies.items())))
    return repr(value)


_SEQUENCE_NAMES: dict[str, list[str]] = {}
_EMPTY_SCRIPTS: dict[str, str] = {}


def _sequence_names(conn) -> list[str]:
    """The id sequences of a PostgreSQL database (none on SQLite), read once a database."""
    if conn.dialect.name != "postgresql":
        return []
    url = str(conn.engine.url)
    if url not in _SEQUENCE_NAMES:
        _SEQUENCE_NAMES[url] = list(
            conn.execute(
                text(
                    "SELECT quote_ident(schemaname) || '.' || quote_ident(sequencename) "
                    "FROM pg_sequences WHERE schemaname = 'public'"
                )
            ).scalars()
        )
    return _SEQUENCE_NAMES[url]


def _sequences(conn) -> dict[str, Any]:
    """Each id sequence's position, in one round trip (one a sequence took 20 ms a world)."""
    names = _sequence_names(conn)
    if not names:
        return {}
    query = " UNION ALL ".join(f"SELECT {i}, last_value, is_called FROM {n}" for i, n in enumerate(names))
    return {names[i]: (value, called) for i, value, called in conn.execute(text(query))}


def _set_sequences(conn, sequences: dict[str, Any]) -> None:
    if not sequences:
        return
    calls, params = [], {}
    for i, (name, (value, called)) in enumerate(sequences.items()):
        calls.append(f"setval(:n{i}, :v{i}, :c{i})")
        params |= {f"n{i}": name, f"v{i}": value, f"c{i}": called}
    conn.execute(text("SELECT " + ", ".join(calls)), params)


def _filled_tables(conn) -> list:
    """The tables with rows, asked in one round trip: a world fills a few of fifty."""
    query = " UNION ALL ".join(f'SELECT {i} WHERE EXISTS (SELECT 1 FROM "{t.name}")' for i, t in enumerate(TABLES))
    filled = {i for (i,) in conn.execute(text(query))}
    return [t for i, t in enumerate(TABLES) if i in filled]


def empty(conn) -> None:
    """Every table emptied (children first) and, on PostgreSQL, every id sequence back at 1, in
    one round trip there: TRUNCATE did the same in ~200 ms a test (new files for 42 tables);
    DELETE on a test's few rows takes ~4."""
    if conn.dialect.name != "postgresql":
        for table in reversed(TABLES):
            conn.exec_driver_sql(f'DELETE FROM "{table.name}"')
        return
    url = str(conn.engine.url)
    if url not in _EMPTY_SCRIPTS:
        script = "; ".join(f'DELETE FROM "{t.name}"' for t in reversed(TABLES))
        if sequences := _sequence_names(conn):
            script += "; SELECT " + ", ".join(f"setval('{s}', 1, false)" for s in sequences)
        _EMPTY_SCRIPTS[url] = script
    conn.exec_driver_sql(_EMPTY_SCRIPTS[url])


def empty_database(engine) -> None:
    with engine.begin() as conn:
        empty(conn)


def _snapshot() -> tuple[dict, dict]:
    rows = {}
    with _engine.connect() as conn:
        for table in _filled_tables(conn):
            rows[table.name] = [dict(r._mapping) for r in conn.execute(table.select())]
        sequences = _sequences(conn)
    return rows, sequences


def _restore(world: _Kept) -> None:
    with _engine.begin() as conn:
        if _chain:  # at a test's start the database is empty already
            empty(conn)
        for table in TABLES:
            if table.name in world.rows:
                conn.execute(table.insert(), world.rows[table.name])
        _set_sequences(conn, world.sequences)


def remembered(builder):
    """`builder(client, …)`, built once per chain and restored after (see the module)."""

    @functools.wraps(builder)
    def run(*args, **kwargs):
        global _chain, _depth
        if _depth or _chain is None or _engine is None:
            return builder(*args, **kwargs)
        key = (
            *_chain,
            (
                builder.__module__,
                builder.__qualname__,
                tuple(map(_key_part, args)),
                tuple(sorted((k, _key_part(v)) for k, v in kwargs.items())),
            ),
        )
        clients = [a for a in (*args, *kwargs.values()) if hasattr(a, "cookies") and hasattr(a, "base_url")]
        _depth += 1
        try:
            world = _worlds.get(key)
            if world is None and key in _worlds:  # known not to be memorable
                answer, return_chain = builder(*args, **kwargs), None
            elif world is not None and world.fresh():
                _restore(world)
                _stats["restored"] += 1
                _chain = key
                return copy.deepcopy(world.answer, {id(_slot(i)): c for i, c in enumerate(clients)})
            else:
                # Built anew (first made, or grown old): the worlds kept after it grew from the
                # old one (its tokens, its ids) and would not fit this one's answer.
                for later in [k for k in _worlds if len(k) > len(key) and k[: len(key)] == key]:
                    del _worlds[later]
                cookies = [dict(c.cookies) for c in clients]
                answer = builder(*args, **kwargs)
                try:  # the test's clients stand in the copy as slots, filled with the next test's
                    kept = copy.deepcopy(answer, {id(c): _slot(i) for i, c in enumerate(clients)})
                except Exception:  # an answer that cannot be copied is not remembered
                    kept = _UNCOPIED
                if [dict(c.cookies) for c in clients] != cookies or kept is _UNCOPIED:
                    _worlds[key] = None
                    return_chain = None
                else:
                    _worlds[key] = _Kept(*_snapshot(), kept)
                    _stats["built"] += 1
                    return_chain = key
            _chain = return_chain
            return answer
        except BaseException:
            _chain = None  # a builder that failed left the database in a state no chain names
            raise
        finally:
            _depth -= 1

    return run


def remember_builders(*modules) -> None:
    """Every public builder of `modules` (a function taking a client first) remembered, under
    every name a module binds it to (builders import one another)."""
    wrapped = {}
    for module in modules:
        for name, value in vars(module).items():
            if (
                inspect.isfunction(value)
                and value.__module__ == module.__name__
                and not name.startswith("_")
                and next(iter(inspect.signature(value).parameters), None) == "client"
            ):
                wrapped[value] = remembered(value)
    for module in modules:
        for name, value in list(vars(module).items()):
            if inspect.isfunction(value) and value in wrapped:
                setattr(module, name, wrapped[value])


def forget() -> None:
    """No world remembered (a test of this module starts from nothing)."""
    _worlds.clear()
    _browsers.clear()


def stats() -> dict[str, int]:
    return dict(_stats)


def kept_with_browsers(name: str, build, make_client, browsers_of):
    """`build()` at a test's start, kept like a builder's world under `name`, for a world that
    holds logged-in browsers: `browsers_of(answer)` is its dict of browsers (clients), which a
    later test gets made anew by `make_client` with the cookies the first ones had (their
    sessions are rows of the kept database). Elsewhere in a test, simply `build()`."""
    global _chain, _depth
    if _depth or _chain != () or _engine is None:
        return build()
    _depth += 1
    try:
        found = _browsers.get(name)
        if found is not None and found.fresh():
            _restore(found)
            answer = copy.deepcopy(found.answer)
            browsers = browsers_of(answer)
            for role, jar in found.jars.items():
                browsers[role] = make_client()
                for cookie in jar:
                    browsers[role].cookies.jar.set_cookie(copy.copy(cookie))
            _stats["restored"] += 1
        else:
            answer = build()
            browsers = browsers_of(answer)
            jars = {role: [copy.copy(c) for c in b.cookies.jar] for role, b in browsers.items()}
            held = dict(browsers)
            browsers.clear()  # the copy keeps no browser: a later test's are made anew
            kept = copy.deepcopy(answer)
            browsers.update(held)
            _browsers[name] = _Kept(*_snapshot(), kept, jars)
            _stats["built"] += 1
    except BaseException:
        _chain = None
        raise
    finally:
        _depth -= 1
    _chain = None  # what the test does next is its own
    return answer
