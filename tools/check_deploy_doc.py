"""Checks docs/deploy.md against this checkout: runs its commands, verifies its systemd units.

A fenced block is checked when the line before it is a marker:

  <!-- ci: run TARGET... [restore] -->  run by `bash -euo pipefail`, once per target:
      sqlite      HIDEOUT_VAR_DIR is a scratch folder, HIDEOUT_DATABASE_URL unset
      postgresql  HIDEOUT_DATABASE_URL is a scratch role's own scratch database
      superuser   as PostgreSQL's superuser (libpq's PG* variables, from --postgres); the name
                  `hideout` becomes the scratch role's and database's, and `createuser --pwprompt`
                  reads the password from standard input
    restore: the database loses data first (alembic_version is emptied) and must have it back after.
  <!-- ci: env -->                 every NAME=value names a setting of app/core/settings.py
  <!-- ci: unit NAME [postgresql] --> written to NAME with /srv/hideout meaning this checkout, for
      `systemd-analyze verify`, which must print nothing; with `postgresql` its ExecStart lines also
      run (systemd's `$$` and `%%` undone, /var/backups/hideout meaning the scratch folder)

Besides, every HIDEOUT_* name in the doc is a setting, a default quoted as "`HIDEOUT_X` (value)"
is the setting's default, and "uvicorn X.Y" is the installed uvicorn.

Blocks run in the doc's order in one scratch folder (the admin's backup folder), with the
running Python's bin folder (this checkout's .venv/bin) first on PATH:

    .venv/bin/python tools/check_deploy_doc.py [--only env,units,sqlite,postgresql] [--postgres URL]

--postgres is a superuser's URL (TEST_DATABASE_URL in the test suite); the postgresql part needs it.
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "deploy.md"
PARTS = ("env", "units", "sqlite", "postgresql")
BLOCK = re.compile(r"^<!-- ci: (.+?) -->\n```[\w-]*\n(.*?)^```", re.S | re.M)
BACKUPS = "/var/backups/hideout"
TIMEOUT = 120

sys.path.insert(0, str(REPO))


@dataclass
class Block:
    words: list[str]
    text: str
    line: int

    @property
    def kind(self) -> str:
        return self.words[0]

    def where(self) -> str:
        return f"{DOC.name}:{self.line}"


def read_blocks(doc: str) -> list[Block]:
    return [Block(m.group(1).split(), m.group(2), doc.count("\n", 0, m.start()) + 2) for m in BLOCK.finditer(doc)]


def settings_fields() -> dict:
    from app.core.settings import Settings

    return {f"HIDEOUT_{name.upper()}": field for name, field in Settings.model_fields.items()}


# --- env -----------------------------------------------------------------------------------


def value_problem(name: str, value: str) -> str | None:
    """What the server would say of `value` for the setting `name` at its start, or None."""
    from pydantic import ValidationError

    from app.core.settings import Settings

    try:
        Settings(**{name.removeprefix("HIDEOUT_").lower(): value})
    except ValidationError as exc:
        return exc.errors()[0]["msg"]
    return None


def check_env(doc: str, blocks: list[Block]) -> list[str]:
    import uvicorn

    fields, errors = settings_fields(), []
    for block in blocks:
        if block.kind != "env":
            continue
        for line in block.text.splitlines():
            name, _, value = (part.strip() for part in line.partition("="))
            if line.strip() and not line.startswith("#") and name not in fields:
                errors.append(f"{block.where()}: {name} is not a setting")
            elif line.strip() and not line.startswith("#") and (problem := value_problem(name, value)):
                errors.append(f"{block.where()}: {name}={value} is refused: {problem}")
    for name in sorted(set(re.findall(r"HIDEOUT_[A-Z_]+", doc)) - set(fields)):
        errors.append(f"{DOC.name}: {name} is not a setting")
    for name, value in re.findall(r"`(HIDEOUT_[A-Z_]+)` \(`?([^()`]+?)`?\)", doc):
        default = fields[name].default if name in fields else None
        if default is not None and type(default)(value) != default:
            errors.append(f"{DOC.name}: {name} defaults to {default}, not {value}")
    installed = ".".join(uvicorn.__version__.split(".")[:2])
    for quoted in re.findall(r"uvicorn (\d+\.\d+)", doc):
        if quoted != installed:
            errors.append(f"{DOC.name}: names uvicorn {quoted}, {installed} is installed")
    return errors


# --- units ---------------------------------------------------------------------------------


def check_units(blocks: list[Block], scratch: Path) -> list[str]:
    if shutil.which("systemd-analyze") is None:
        return ["systemd-analyze is not installed"]
    folder = scratch / "units"
    folder.mkdir()
    units = {b.words[1]: b for b in blocks if b.kind == "unit"}
    errors = []
    for name, block in units.items():
        (folder / name).write_text(block.text.replace("/srv/hideout", str(REPO)))
        # Offline, verify does not notice that the unit a timer starts is missing: checked here.
        if name.endswith(".timer"):
            target = re.search(r"^Unit=(.+)$", block.text, re.M)
            target = target.group(1) if target else name.removesuffix(".timer") + ".service"
            if target not in units:
                errors.append(f"{block.where()}: {name} starts {target}, which the doc does not define")
    r = subprocess.run(
        ["systemd-analyze", "verify", *(str(folder / n) for n in units)], capture_output=True, text=True, timeout=TIMEOUT
    )
    # Warnings (an unknown key, a bad signal name) leave the exit code at 0: any output fails.
    if r.returncode or r.stdout.strip() or r.stderr.strip():
        errors.append(f"systemd-analyze verify ({r.returncode}):\n{r.stdout}{r.stderr}")
    return errors


def unit_commands(block: Block, scratch: Path) -> list[list[str]]:
    """The ExecStart lines of a unit as systemd would run them (only its `$$` and `%%` escapes)."""
    commands = []
    for line in block.text.splitlines():
        key, _, value = line.partition("=")
        if key in ("ExecStartPre", "ExecStart", "ExecStartPost"):
            value = value.replace(BACKUPS, str(scratch))
            if re.search(r"[%$]", value.replace("%%", "").replace("$$", "")):
                raise ValueError(f"{block.where()}: a specifier or variable this check does not undo: {value}")
            commands.append(shlex.split(value.replace("%%", "%").replace("$$", "$")))
    return commands


# --- running blocks ------------------------------------------------------------------------


def base_env(scratch: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HIDEOUT_", "PG")) and k != "TEST_DATABASE_URL"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["HIDEOUT_VAR_DIR"] = str(scratch / "var")
    return env


def run(argv: list[str], env: dict, cwd: Path, where: str, stdin: str | None = None) -> str | None:
    r = subprocess.run(
        argv, env=env, cwd=cwd, input=stdin, capture_output=True, text=True, timeout=TIMEOUT, start_new_session=True
    )  # no terminal: a password prompt reads stdin
    if r.returncode:
        return f"{where}: exit code {r.returncode}\n{r.stdout}{r.stderr}"
    return None


def run_part(
    targets: set[str], blocks: list[Block], scratch: Path, env: dict, database, rename=None, stdin: str | None = None
) -> str | None:
    """Runs the blocks for `targets` in the doc's order (each may need the ones before it) and
    returns the first problem; `database` loses data before a restore and tells what came back."""
    for block in blocks:
        if block.kind == "unit" and targets & set(block.words[2:]):
            try:
                commands = unit_commands(block, scratch)
            except ValueError as exc:
                return str(exc)
            for argv in commands:
                if problem := run(argv, env, scratch, f"{block.where()} {argv[0]}"):
                    return problem
            continue
        if block.kind != "run" or not targets & set(block.words[1:]):
            continue
        superuser = "superuser" in block.words
        restore = "restore" in block.words
        kept = database.lose() if restore else None
        if restore and kept is None:
            return f"{block.where()}: nothing to restore (no migrated database before it)"
        if problem := run(
            ["bash", "-euo", "pipefail", "-c", rename(block.text) if superuser else block.text],
            database.superuser_env if superuser else env,
            scratch,
            block.where(),
            stdin if superuser else None,
        ):
            return problem
        if restore and database.version() != kept:
            return f"{block.where()}: the restore did not bring back what the backup held"
    return None


class SqliteDatabase:
    superuser_env = None

    def __init__(self, path: Path):
        self.path = path

    def version(self) -> str | None:
        # Closed at once: a restore replaces the file and its write-ahead log.
        try:
            with closing(sqlite3.connect(self.path)) as db:
                row = db.execute("SELECT version_num FROM alembic_version").fetchone()
        except sqlite3.Error:
            return None
        return row and row[0]

    def lose(self) -> str | None:
        kept = self.version()
        if kept is not None:
            with closing(sqlite3.connect(self.path)) as db, db:
                db.execute("DELETE FROM alembic_version")
        return kept


def check_sqlite(blocks: list[Block], scratch: Path) -> list[str]:
    problem = run_part({"sqlite"}, blocks, scratch, base_env(scratch), SqliteDatabase(scratch / "var" / "hideout.sqlite3"))
    return [problem] if problem else []


class PostgresDatabase:
    def __init__(self, url: str, superuser_env: dict):
        self.url, self.superuser_env = url, superuser_env

    def version(self) -> str | None:
        import psycopg

        try:
            with psycopg.connect(self.url) as db:
                row = db.execute("SELECT version_num FROM alembic_version").fetchone()
        except psycopg.Error:
            return None
        return row and row[0]

    def lose(self) -> str | None:
        import psycopg

        kept = self.version()
        if kept is not None:
            with psycopg.connect(self.url) as db:
                db.execute("DELETE FROM alembic_version")
        return kept


def check_postgresql(blocks: list[Block], scratch: Path, admin_url: str) -> list[str]:
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    info = conninfo_to_dict(admin_url)
    host, port = info.get("host") or "127.0.0.1", info.get("port") or "5432"
    name, password = f"hideout_doccheck_{os.getpid()}", secrets.token_hex(16)
    admin = {**info, "dbname": "postgres"}

    def drop():
        with psycopg.connect(**admin, autocommit=True) as db:
            db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            db.execute(f'DROP ROLE IF EXISTS "{name}"')

    env = base_env(scratch)
    env["HIDEOUT_DATABASE_URL"] = f"postgresql://{name}:{password}@{host}:{port}/{name}"
    superuser_env = {**base_env(scratch), "PGHOST": host, "PGPORT": str(port), "PGUSER": info.get("user", "postgres")}
    if info.get("password"):
        superuser_env["PGPASSWORD"] = info["password"]
    database = PostgresDatabase(env["HIDEOUT_DATABASE_URL"], superuser_env)
    drop()
    try:
        problem = run_part(
            {"superuser", "postgresql"},
            blocks,
            scratch,
            env,
            database,
            rename=lambda text: re.sub(r"\bhideout\b", name, text),
            stdin=f"{password}\n{password}\n",
        )
        errors = [problem] if problem else []
        if not errors:
            with psycopg.connect(env["HIDEOUT_DATABASE_URL"]) as db:
                owner = db.execute("SELECT tableowner FROM pg_tables WHERE tablename = 'alembic_version'").fetchone()
                superuser = db.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").fetchone()[0]
            if owner != (name,) or superuser:
                errors.append(f"the tables belong to {owner}, not to the doc's unprivileged role")
        return errors
    finally:
        drop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--only", help=f"comma-separated parts of {', '.join(PARTS)} (default: all; postgresql only with --postgres)"
    )
    parser.add_argument("--postgres", help="a PostgreSQL superuser's URL, for the postgresql part")
    args = parser.parse_args(argv)
    parts = [p for p in args.only.split(",") if p] if args.only else [p for p in PARTS if p != "postgresql" or args.postgres]
    if unknown := set(parts) - set(PARTS):
        parser.error(f"unknown parts: {', '.join(sorted(unknown))}")
    if "postgresql" in parts and not args.postgres:
        parser.error("the postgresql part needs --postgres URL")
    doc = DOC.read_text()
    blocks = read_blocks(doc)
    failed = False
    for part in parts:
        with tempfile.TemporaryDirectory(prefix=f"deploy-{part}-") as tmp:
            scratch = Path(tmp)
            (scratch / "var").mkdir()
            if part == "env":
                errors = check_env(doc, blocks)
            elif part == "units":
                errors = check_units(blocks, scratch)
            elif part == "sqlite":
                errors = check_sqlite(blocks, scratch)
            else:
                errors = check_postgresql(blocks, scratch, args.postgres)
        print(f"{part}: " + ("ok" if not errors else "FAILED\n" + "\n".join(errors)))
        failed = failed or bool(errors)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
