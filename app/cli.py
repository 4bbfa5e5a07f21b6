"""The `hideout` command: serve, migrate, demo, import-catalog, backup, restore."""

from __future__ import annotations

import argparse
import os
import socket
import sqlite3
import sys
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

from app.core.db import make_engine, unit_of_work
from app.core.files import private_file
from app.core.migrate import upgrade
from app.core.settings import get_settings
from app.exports import cli as exports_cli
from app.season import cli as season_cli
from app.versions import audience  # noqa: F401  (a command that writes counts who sees its writes, issue 37)
from app.webhooks import cli as webhooks_cli

# The domains (app.wiring, app.demo, the catalog importer, the server) are imported by the
# commands that run them: `hideout serve --no-demo` runs none of them itself before it execs the
# server (importing this module took 1.3 s with them, 0.6 s without; the suite starts ~45 servers).


def _migrate() -> str:
    url = get_settings().resolved_database_url()
    upgrade(url)
    return url


def _demo() -> bool:
    from app.demo import create_demo

    engine = make_engine(get_settings().resolved_database_url())
    with unit_of_work(engine, write=True) as session:
        created = create_demo(session)
    engine.dispose()
    return created


def cmd_migrate(_args) -> int:
    _migrate()
    print("Database is up to date.")
    return 0


def cmd_demo(_args) -> int:
    _migrate()
    from app.demo import demo_logins

    print("Demo campaign created." if _demo() else "Demo campaign already exists.")
    print(demo_logins())
    return 0


def port_taken(host: str, port: int) -> str | None:
    """Why host:port cannot be listened on now (another server has it, the address is not
    this machine's…), or None when it can. SO_REUSEADDR as uvicorn sets it: a port left in
    TIME_WAIT by a server just stopped is free."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        return exc.strerror
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            return exc.strerror or str(exc)
    return None


def cmd_serve(args) -> int:
    # Issue 30: a busy port is said at once, before "Hideout runs at …" could be printed.
    busy = port_taken(args.host, args.port)
    if busy:
        print(
            f"Hideout cannot listen on {args.host}:{args.port}: {busy}. Another program (perhaps Hideout "
            f"already running) uses it: stop it, or choose another port, e.g. `make run PORT={args.port + 1}`.",
            file=sys.stderr,
        )
        return 1
    get_settings().resolved_secret_key()  # refuse a known key before anything else
    _migrate()
    if not args.no_demo:
        from app.demo import demo_logins

        _demo()
        print("Demo logins:\n" + demo_logins())
    if args.workers > 1 and get_settings().resolved_database_url().startswith("sqlite"):
        print(
            "Note: on SQLite, live updates reach pages served by another worker only at its next heartbeat "
            "(up to 15 s); use one worker, or PostgreSQL (docs/deploy.md)."
        )
    print(f"Hideout runs at http://{args.host}:{args.port}", flush=True)
    _serve(args.host, args.port, args.workers)
    return 0


def _serve(host: str, port: int, workers: int) -> None:
    """Serve in a fresh interpreter that replaces this one (app/server.py says why); where exec
    starts another process instead of replacing this one (Windows), in this one."""
    from app import server

    if os.name == "posix":
        sys.stderr.flush()
        os.execv(sys.executable, server.command(host, port, workers))
    server.run(host, port, workers)


def cmd_import_catalog(args) -> int:
    from app.catalog.battlescribe import BattleScribeError, import_catalog
    from app.catalog.catalog import STARTER_DIR, CatalogError, load

    out_dir = get_settings().var_dir / "catalog"
    try:
        report = import_catalog([Path(p) for p in args.paths], out_dir)
        load([STARTER_DIR, out_dir])  # the result must load next to the starter catalog
    except (BattleScribeError, CatalogError, OSError) as exc:
        print(f"Import failed: {exc}", file=sys.stderr)
        return 1
    for line in report.detail_lines() if args.verbose else report.summary_lines():
        print(line)
    print(f"Catalog files are in {out_dir}; running servers pick them up without a restart.")
    return 0


def cmd_backup(args) -> int:
    url = get_settings().resolved_database_url()
    if not url.startswith("sqlite"):
        print("This database is PostgreSQL: back it up with pg_dump, e.g. `pg_dump -Fc hideout > hideout.dump`.")
        return 2
    source_path = url.split("sqlite:///", 1)[1]
    target = private_file(Path(args.path))
    # The online backup API copies a consistent snapshot while the server keeps running.
    # closing(): a sqlite3 connection's own `with` commits but leaves the file open.
    with closing(sqlite3.connect(source_path)) as source, closing(sqlite3.connect(target)) as dest:
        source.backup(dest)
    print(f"Backed up {source_path} to {target}")
    return 0


# Exit codes of `hideout restore` (docs/deploy.md): the file is refused; the database is
# PostgreSQL (pg_restore does it); the database is open in a running server.
RESTORE_REFUSED, RESTORE_POSTGRESQL, RESTORE_IN_USE = 1, 2, 3


def known_revisions() -> list[str]:
    from alembic.script import ScriptDirectory

    from app.core.migrate import alembic_config

    return [r.revision for r in ScriptDirectory.from_config(alembic_config("")).walk_revisions()]


def backup_revision(path: Path) -> str:
    """The migration a backup file is at; ValueError with the reason it is no Hideout database
    this code can restore. The file is opened read-only and left as it was."""
    if not path.is_file():
        raise ValueError(f"{path} does not exist or is not a file.")
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as db:
            if db.execute("PRAGMA quick_check").fetchone() != ("ok",):
                raise ValueError(f"{path} is a damaged SQLite database.")
            rows = db.execute("SELECT version_num FROM alembic_version").fetchall()
            db.execute("SELECT count(*) FROM player").fetchone()
    except sqlite3.DatabaseError as exc:
        raise ValueError(f"{path} is not a Hideout SQLite database ({exc}).") from None
    if len(rows) != 1:
        raise ValueError(f"{path} has no single migration recorded, so it is not a Hideout database.")
    (revision,) = rows[0]
    if revision not in known_revisions():
        raise ValueError(
            f"{path} is at migration {revision}, which this version of Hideout does not know (a backup from a newer version?)."
        )
    return revision


def cmd_restore(args) -> int:
    url = get_settings().resolved_database_url()
    if not url.startswith("sqlite"):
        print("This database is PostgreSQL: restore a dump with pg_restore (docs/deploy.md, section 7).", file=sys.stderr)
        return RESTORE_POSTGRESQL
    source = Path(args.path)
    try:
        revision = backup_revision(source)
    except ValueError as exc:
        print(f"Not restored: {exc} The database was not changed.", file=sys.stderr)
        return RESTORE_REFUSED
    target = Path(url.split("sqlite:///", 1)[1])
    if source.resolve() == target.resolve():
        print("Not restored: that file is the database itself.", file=sys.stderr)
        return RESTORE_REFUSED
    with closing(sqlite3.connect(target, timeout=2)) as live:
        # Leaving WAL mode needs the only connection to the database: a running server (which keeps
        # its connections open) makes it fail, and nothing has changed then. The two seconds ride
        # out a lock held only for a moment (a process that has just exited, a checkpoint).
        try:
            live.execute("PRAGMA journal_mode=DELETE").fetchone()
        except sqlite3.OperationalError:
            print(
                "Not restored: the database is in use. Stop the server first (systemctl stop hideout). "
                "The database was not changed.",
                file=sys.stderr,
            )
            return RESTORE_IN_USE
        kept = None
        if live.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
            kept = private_file(target.with_name(f"{target.name}.before-restore-{datetime.now(UTC):%Y%m%dT%H%M%SZ}"))
            with closing(sqlite3.connect(kept)) as copy:
                live.backup(copy)
        # Through SQLite rather than a file copy: no stale write-ahead log can outlive the old data.
        with closing(sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True)) as backup:
            backup.backup(live)
    print(f"Restored {source} (migration {revision}) to {target}.")
    if kept:
        print(f"The database it replaced is kept in {kept}.")
    if revision != known_revisions()[0]:
        print("The backup is from an older version: `hideout migrate` (or the next `hideout serve`) upgrades it.")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hideout", description="Hideout campaign server")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="apply migrations and serve")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--workers", type=int, default=1)
    serve.add_argument("--no-demo", action="store_true", help="do not create the demo campaign")
    # Without the demo, serve runs no domain code itself: the server it execs composes its own.
    serve.set_defaults(func=cmd_serve, composed=lambda a: not a.no_demo)
    sub.add_parser("migrate", help="apply migrations").set_defaults(func=cmd_migrate)
    sub.add_parser("demo", help="create the demo campaign when absent").set_defaults(func=cmd_demo)
    importer = sub.add_parser("import-catalog", help="import BattleScribe Vanguard data (.gst and .cat files)")
    importer.add_argument("paths", nargs="+", help=".gst and .cat files, or a folder holding them")
    importer.add_argument("-v", "--verbose", action="store_true", help="list every entry")
    importer.set_defaults(func=cmd_import_catalog)
    backup = sub.add_parser("backup", help="copy the SQLite database")
    backup.add_argument("path")
    backup.set_defaults(func=cmd_backup)
    restore = sub.add_parser("restore", help="put a SQLite backup back (the server stopped)")
    restore.add_argument("path")
    restore.set_defaults(func=cmd_restore)
    for module in (season_cli, webhooks_cli, exports_cli):
        module.add_commands(sub)
    args = parser.parse_args(argv)
    if getattr(args, "composed", lambda _a: True)(args):
        from app.wiring import wire

        wire()  # every command runs the same composition as the server (issue 31: `tick` once missed the alliances)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
