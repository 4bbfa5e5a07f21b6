"""Settings from the environment (prefix HIDEOUT_)."""

from __future__ import annotations

import os
import secrets
from contextlib import ExitStack
from functools import lru_cache
from importlib.resources import as_file, files
from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.core.affinity import SETTING_PATTERN
from app.core.files import private_dir

# The server's own files (templates, static files, migrations, translations, catalog data) are
# package data, found through importlib.resources wherever the package is installed (issue 30).
# Jinja's loader, StaticFiles, Alembic and the catalog's change stamps need real folders: an
# ordinary install has them on disk already; anything else (a zip) is extracted once, for the
# process's life (as_file on a folder needs Python 3.12).
_EXTRACTED = ExitStack()


def package_path(*parts: str) -> Path:
    resource = files("app").joinpath(*parts)
    if isinstance(resource, Path):
        return resource
    return _EXTRACTED.enter_context(as_file(resource))


PACKAGE = package_path()

# Values people paste from tutorials; a server started with one of them would sign
# sessions with a key anybody knows.
KNOWN_KEYS = {"", "changeme", "change-me", "secret", "secret-key", "hideout", "dev", "development"}


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="HIDEOUT_", extra="ignore")

    database_url: str = ""
    secret_key: str = ""
    # Beside the directory the server is started from, unless HIDEOUT_VAR_DIR says otherwise.
    var_dir: Path = Field(default_factory=lambda: Path.cwd() / "var")
    # Cheap argon2 parameters for the test suite only.
    fast_hashing: bool = False
    secure_cookies: bool = False
    # Login throttling (R11.5): failures count for `login_window_minutes`. Up to
    # `login_max_failures` per address and nickname together, and
    # `login_max_failures_per_address` per address alone (a club behind one router), go
    # free; each failure over a limit makes the next attempt wait, from
    # `login_first_wait_seconds` doubling per failure up to `login_max_wait_minutes`.
    login_max_failures: int = 5
    login_max_failures_per_address: int = 100
    login_window_minutes: int = 60
    login_first_wait_seconds: int = 30
    login_max_wait_minutes: int = 15
    # Browser sessions end after this many days without a request, and this many days
    # after logging in whatever happens.
    session_idle_days: int = 30
    session_max_days: int = 90
    # Live stream (R11.4): a comment line this often keeps proxies and phones from closing an
    # idle stream; at most this many streams per user in one server process; a phone that
    # missed more events than `live_replay_limit` is told to reload instead.
    live_heartbeat_seconds: float = 15.0
    live_max_streams_per_user: int = 8
    live_replay_limit: int = 100
    # How many requests of one server process read the database at once, and how many write;
    # the others wait their turn holding no thread (app/core/db.py). Two: one draws its page
    # while the other waits on the database. More only make the threads take the one
    # interpreter lock from each other (issue 37: a fifth to a third fewer pages a second at
    # twelve). At most six: twelve sessions, as before, within the connection pools.
    session_slots: int = Field(default=2, ge=1, le=6)
    # The test suite's check of the cheap revalidation (app/core/revalidation.py): every campaign
    # page drawn is keyed, and one drawn differently under the same key fails the request.
    revalidation_check: bool = False
    # SQLite: FULL keeps every answered change through a power cut; NORMAL (the test suite)
    # only through a killed process, and is faster.
    sqlite_synchronous: Literal["FULL", "NORMAL"] = "FULL"
    # The season's scheduler and the webhook sender run inside the server (tests turn them off).
    background_jobs: bool = True
    # Each worker's threads on a CPU of its own: "auto", a list ("2,3"), or off (app/core/affinity.py).
    worker_cpus: str = Field(default="", pattern=SETTING_PATTERN)
    # Webhooks (issue 19): hooks may not reach private, loopback or reserved addresses unless
    # this is on (home setups, tests); a failed delivery is tried `webhook_max_attempts` times,
    # waiting `webhook_retry_seconds` and doubling; the sender also looks for due deliveries
    # every `webhook_poll_seconds` (other processes' news).
    webhook_allow_private: bool = False
    webhook_timeout_seconds: float = 5.0
    webhook_max_attempts: int = 5
    webhook_retry_seconds: float = 30.0
    webhook_poll_seconds: float = 15.0
    # The season (issue 19): how often the scheduler looks for deadlines and digests, how long
    # before a deadline the chronicle says it is near, and from which hour (UTC) each day's
    # digest goes out. E-mail is off while `smtp_host` is empty.
    season_tick_seconds: float = 5.0
    deadline_near_minutes: int = 60
    digest_hour_utc: int = 7
    smtp_host: str = ""
    smtp_port: int = 587
    smtp_from: str = ""
    smtp_user: str = ""
    smtp_password: str = ""
    smtp_starttls: bool = True
    smtp_timeout_seconds: float = 20.0
    # The address the digest's links start with (e.g. https://hideout.example.org); none: no links.
    public_url: str = ""
    # Logs: JSON lines (for a log collector) or readable console lines.
    log_json: bool = False
    log_level: str = "INFO"

    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        private_dir(self.var_dir)
        return f"sqlite:///{self.var_dir / 'hideout.sqlite3'}"

    def resolved_secret_key(self) -> str:
        if self.secret_key:
            if self.secret_key.strip().lower() in KNOWN_KEYS or len(self.secret_key) < 16:
                raise SystemExit(
                    "HIDEOUT_SECRET_KEY is a known or too short value; set a long random one or unset it to have one generated."
                )
            return self.secret_key
        private_dir(self.var_dir)
        path = self.var_dir / "secret_key"
        try:
            # Created once, readable by the owner only from the start: workers starting together
            # all end up with the one key the first of them wrote.
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "w") as f:
                f.write(secrets.token_urlsafe(48))
        return path.read_text().strip()


@lru_cache
def get_settings() -> Settings:
    return Settings()
