"""A club's install, checked (issue 30): build the wheel, install it with plain pip into a fresh
virtual environment, start `hideout serve` from an empty directory far from the checkout, and
check that its pages, static files and API docs answer. Run by `make test` (`make test-package`).

    python tools/check_package.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAGES = ("/", "/login", "/register", "/api/docs", "/api/v1/openapi.json", "/favicon.ico")


def run(*args: str, **kwargs) -> None:
    print("$", " ".join(args), flush=True)
    subprocess.run(args, check=True, **kwargs)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, answer.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as refused:
        return refused.code, ""


def wait_for(url: str, server: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server exited with {server.returncode}")
        try:
            if get(url)[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.5)
    raise SystemExit(f"{url} did not answer within {seconds} s")


def check(where: Path) -> None:
    dist = where / "dist"
    # The build backend from this environment (a build in isolation would download setuptools).
    run(sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist), str(REPO))
    wheel = next(dist.glob("hideout-*.whl"))
    venv = where / "venv"
    run(sys.executable, "-m", "venv", str(venv))
    run(str(venv / "bin" / "pip"), "install", "-q", str(wheel))
    home = where / "club"
    home.mkdir()
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HIDEOUT_")} | {"HIDEOUT_VAR_DIR": str(home / "var")}
    log = open(where / "server.log", "w")
    server = subprocess.Popen(
        [str(venv / "bin" / "hideout"), "serve", "--host", "127.0.0.1", "--port", str(port)],
        cwd=home,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(base + "/login", server)
        for path in PAGES:
            status, body = get(base + path)
            print(f"{status} {path}")
            if status != 200:
                raise SystemExit(f"{path} answered {status}")
        _, login = get(base + "/login")
        assets = sorted(set(re.findall(r'(?:src|href)="(/static/[^"]+)"', login)))
        for asset in assets:
            status, _ = get(base + asset)
            print(f"{status} {asset}")
            if status != 200:
                raise SystemExit(f"{asset} answered {status}")
        if not assets:
            raise SystemExit("the login page links no static file")
        imported = subprocess.run(
            [str(venv / "bin" / "python"), "-c", "import app, sys; print(app.__file__)"],
            cwd=home,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        if str(REPO) in imported:
            raise SystemExit(f"the server ran the checkout's code ({imported}), not the wheel's")
        print(f"The wheel serves from {imported}: pages, {len(assets)} static files and the API docs answer.")
    finally:
        server.terminate()
        server.wait(20)
        log.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="build, install and run in this directory and keep it")
    args = parser.parse_args()
    where = args.keep or Path(tempfile.mkdtemp(prefix="hideout-package-"))
    where.mkdir(parents=True, exist_ok=True)
    try:
        check(where)
    except (subprocess.CalledProcessError, SystemExit) as failed:
        print(f"The package check failed: {failed}", file=sys.stderr)
        log = where / "server.log"
        if log.exists():
            print(log.read_text()[-4000:], file=sys.stderr)
        return 1
    finally:
        if not args.keep:
            shutil.rmtree(where, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
