"""The serving process (issue 37: a worker's resident memory). `hideout serve` migrates, adds
the demo and then replaces itself with `python -m app.server` (the same process id, signals and
output), so that what serves holds what serving needs: not the migration tool (alembic alone
is 10 MB), the migrations run, the demo or the command line. Uvicorn's own workers, with
`--workers` above 1, start fresh the same way.

    python -m app.server --host 127.0.0.1 --port 8000 --workers 1
"""

from __future__ import annotations

import argparse
import sys

# Two optional imports of the libraries below that serving never uses, refused before they
# run: structlog's pretty tracebacks (rich, where it is installed: the console lines use plain
# ones) and uvicorn's reloader (watchfiles). Each worker is about 5 MB smaller (issue 37).
for _unused in ("rich", "watchfiles"):
    sys.modules.setdefault(_unused, None)  # type: ignore[arg-type]

import uvicorn  # noqa: E402

from app.core.logging import configure_logging  # noqa: E402
from app.core.settings import get_settings  # noqa: E402

GRACEFUL_SECONDS = 10
# Idle connections are kept this long. Uvicorn's 5 s closed a phone's connection while its
# member read the page, and a tap sent just as it closed met a reset (issue 20's club night). A
# proxy in front must give up on an idle connection first (nginx: 60 s), so longer than that.
KEEP_ALIVE_SECONDS = 75


def command(host: str, port: int, workers: int) -> list[str]:
    """The serving process's command line, for `os.execv`."""
    return [sys.executable, "-m", "app.server", "--host", host, "--port", str(port), "--workers", str(workers)]


def run(host: str, port: int, workers: int) -> None:
    settings = get_settings()
    configure_logging(json=settings.log_json, level=settings.log_level)
    # Uvicorn's own lines go through the same handler; requests are logged by the app.
    # Open live streams end at once on SIGTERM (app/core/live.py); the bound is for slow requests.
    uvicorn.run(
        "app.asgi:app",
        host=host,
        port=port,
        workers=workers,
        proxy_headers=True,
        log_config=None,
        access_log=False,
        timeout_graceful_shutdown=GRACEFUL_SECONDS,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        # A worker answers its first health check only once the whole app is imported:
        # on a small, busy box that takes longer than uvicorn's 5 s, and it would be
        # killed and started again in a loop (issue 20).
        timeout_worker_healthcheck=30,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.server", description="Serve Hideout (migrated already)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    run(args.host, args.port, args.workers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
