"""A database schema as plain data, to compare two schemas (migrations against models,
a database before and after a downgrade): tables, columns with their types, nullability and
server defaults, primary keys, foreign keys, unique constraints, indexes and CHECK
constraints."""

from __future__ import annotations

import re
import uuid
from contextlib import contextmanager

from sqlalchemy import MetaData, create_engine, inspect, text
from sqlalchemy.engine import Connection, Engine


def _sql(value) -> str | None:
    """SQL text without the spelling differences that mean nothing: spaces, brackets,
    quotes around identifiers, and case."""
    if value is None:
        return None
    value = re.sub(r"\s+", " ", str(value)).strip().lower()
    return value.replace('"', "").replace("(", "").replace(")", "").replace(" ", "")


def snapshot(conn: Connection, *, defaults: bool = True) -> dict:
    """Every table of the connection's default schema except Alembic's own."""
    insp = inspect(conn)
    tables = {}
    for name in sorted(insp.get_table_names()):
        if name == "alembic_version":
            continue
        columns = {
            c["name"]: {
                "type": str(c["type"]),
                "nullable": bool(c["nullable"]),
                **({"default": _sql(c.get("default"))} if defaults else {}),
            }
            for c in insp.get_columns(name)
        }
        pk = insp.get_pk_constraint(name)
        uniques = {u["name"]: tuple(u["column_names"]) for u in insp.get_unique_constraints(name)}
        indexes = {
            i["name"]: (tuple(i["column_names"]), bool(i["unique"]))
            for i in insp.get_indexes(name)
            # PostgreSQL reports the index behind each unique constraint as well.
            if not i.get("duplicates_constraint")
        }
        foreign_keys = {
            fk["name"]: (
                tuple(fk["constrained_columns"]),
                fk["referred_table"],
                tuple(fk["referred_columns"]),
                (fk.get("options") or {}).get("ondelete"),
            )
            for fk in insp.get_foreign_keys(name)
        }
        checks = {ck["name"]: _sql(ck["sqltext"]) for ck in insp.get_check_constraints(name)}
        tables[name] = {
            "columns": columns,
            "primary_key": (pk.get("name"), tuple(pk.get("constrained_columns") or ())),
            "unique": uniques,
            "indexes": indexes,
            "foreign_keys": foreign_keys,
            "checks": checks,
        }
    return tables


def differences(before: dict, after: dict) -> list[str]:
    """What differs between two snapshots, one readable line each ([] when equal)."""
    lines = []
    for table in sorted(set(before) | set(after)):
        if table not in after:
            lines.append(f"table {table}: missing on the right")
            continue
        if table not in before:
            lines.append(f"table {table}: missing on the left")
            continue
        for part in ("columns", "unique", "indexes", "foreign_keys", "checks"):
            left, right = before[table][part], after[table][part]
            for key in sorted(set(left) | set(right), key=str):
                if left.get(key) != right.get(key):
                    lines.append(f"{table}.{part}[{key}]: {left.get(key)!r} != {right.get(key)!r}")
        if before[table]["primary_key"] != after[table]["primary_key"]:
            lines.append(f"{table}.primary_key: {before[table]['primary_key']!r} != {after[table]['primary_key']!r}")
    return lines


@contextmanager
def scratch_database(url: str):
    """A database of the same kind as `url` that nothing else uses, dropped afterwards:
    a fresh SQLite file's URL next to nothing shared, or a PostgreSQL schema of its own
    (the URL sets search_path, so unqualified names land there)."""
    if url.startswith("postgresql"):
        schema = f"scratch_{uuid.uuid4().hex[:12]}"
        admin = _engine(url)
        with admin.begin() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        sep = "&" if "?" in url else "?"
        try:
            yield f"{url}{sep}options=-csearch_path%3D{schema}"
        finally:
            with admin.begin() as conn:
                conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
            admin.dispose()
    else:
        import tempfile
        from pathlib import Path

        with tempfile.TemporaryDirectory() as folder:
            yield f"sqlite:///{Path(folder) / 'scratch.sqlite3'}"


def _engine(url: str) -> Engine:
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://") :]
    return create_engine(url)


def snapshot_of_url(url: str, *, defaults: bool = True) -> dict:
    engine = _engine(url)
    try:
        with engine.connect() as conn:
            return snapshot(conn, defaults=defaults)
    finally:
        engine.dispose()


def snapshot_of_models(url: str, metadata: MetaData) -> dict:
    """The schema `metadata.create_all` builds on a scratch database like `url` (only here,
    in tests of the migrations, is create_all used)."""
    with scratch_database(url) as scratch:
        engine = _engine(scratch)
        try:
            with engine.begin() as conn:
                metadata.create_all(conn)
            with engine.connect() as conn:
                return snapshot(conn, defaults=False)
        finally:
            engine.dispose()
