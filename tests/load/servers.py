"""`hideout serve` processes for the tests that start, stop, kill and restart real servers
(issue 20's faults and load, R11.4's live streams, the club night bench)."""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

REPO = Path(__file__).resolve().parents[2]
# A bound on a hang, not a timing: a three-worker server on a busy two-core machine took over 30 s.
START_TIMEOUT = 120.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_env(database_url: str, var_dir: Path, secret_key: str | None = None, extra: dict | None = None) -> dict:
    """The environment of a test server: this one's, without the suite's database or settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HIDEOUT_") and k != "TEST_DATABASE_URL"}
    env.update(
        HIDEOUT_DATABASE_URL=database_url,
        HIDEOUT_VAR_DIR=str(var_dir),
        HIDEOUT_SECRET_KEY=secret_key or secrets.token_urlsafe(32),
        HIDEOUT_FAST_HASHING="1",
        PYTHONUNBUFFERED="1",
        **(extra or {}),
    )
    return env


def server_ready(url: str, log: str, workers: int) -> bool:
    """Each worker logs uvicorn's startup line once its app is up; before that, the other
    worker would take every connection."""
    if log.count("Application startup complete") < workers:
        return False
    try:
        return httpx.get(url + "/", timeout=2).status_code < 500
    except httpx.HTTPError:
        return False


class HideoutProcess:
    """`hideout serve` in a session of its own, so that one killpg reaches the parent and every
    uvicorn worker — a power cut leaves no worker behind either. The port, secret key and
    database stay across restarts: tokens issued before a kill still work after it."""

    def __init__(self, tmp: Path, database_url: str, *, workers: int = 1, env: dict | None = None, secret_key: str | None = None):
        self.tmp, self.workers, self.port = tmp, workers, free_port()
        self.env = server_env(database_url, tmp / "var", secret_key, env)
        self.proc: subprocess.Popen | None = None
        self.starts = 0
        self.log_path = tmp / "server.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def start(self) -> float:
        """Starts and waits until every worker answers; the seconds it took."""
        started = time.monotonic()
        self.launch()
        self.wait_ready(started + START_TIMEOUT)
        return time.monotonic() - started

    def launch(self) -> None:
        assert self.proc is None or self.proc.poll() is not None, "already running"
        self.starts += 1
        self.log_path = self.tmp / f"server-{self.port}-{self.starts}.log"
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "app.cli",
                    "serve",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(self.port),
                    "--workers",
                    str(self.workers),
                    "--no-demo",
                ],
                cwd=REPO,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def wait_ready(self, deadline: float) -> None:
        while not server_ready(self.url, self.log(), self.workers):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{self.url} did not start (exit code {self.proc.poll()}):\n{self.log()[-4000:]}")
            time.sleep(0.05)

    def kill9(self) -> None:
        """SIGKILL to the whole group; returns once no process of it is left."""
        pgid = self.proc.pid  # start_new_session: the leader's pid is the group's id
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=5)
        deadline = time.monotonic() + 5
        while _group_alive(pgid):
            assert time.monotonic() < deadline, f"process group {pgid} outlived SIGKILL"
            time.sleep(0.02)

    def exits_cleanly_within(self, seconds: float, after: str) -> None:
        """Fails the test unless the process exits within `seconds` (of `after`), and cleanly: with
        0, or by the SIGTERM uvicorn raises again once it has shut down gracefully (systemd counts
        an exit by SIGTERM as clean)."""
        try:
            code = self.proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the server still ran {seconds} s after {after}:\n{self.log()[-3000:]}")
        assert code in (0, -signal.SIGTERM), self.log()[-3000:]

    def stop(self) -> float:
        """SIGTERM, then SIGKILL to the group when it takes longer than uvicorn's own bound; the
        seconds it took to exit."""
        started = time.monotonic()
        if self.proc is None:
            return 0.0
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                pass
        if _group_alive(self.proc.pid):
            self.kill9()
        return time.monotonic() - started


def _group_alive(pgid: int) -> bool:
    """Whether a live (not zombie) process of group `pgid` remains."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def start_servers(
    tmp: Path, database_url: str, *, count: int = 1, workers: int = 1, env: dict | None = None, secret_key: str | None = None
) -> list[HideoutProcess]:
    """`count` servers on one database (one secret key, so a token works on each), started
    together; each answers before this returns. Pass `secret_key` to restart as the same club."""
    key = secret_key or secrets.token_urlsafe(32)
    servers = [HideoutProcess(tmp, database_url, workers=workers, env=env, secret_key=key) for _ in range(count)]
    deadline = time.monotonic() + START_TIMEOUT
    try:
        for server in servers:
            server.launch()
        for server in servers:
            server.wait_ready(deadline)
    except BaseException:
        for server in servers:
            server.stop()
        raise
    return servers
