"""A club's install, checked (issue 30): `python -m build` makes the sdist and, from it, the wheel;
both must hold every data file the checkout's app/ has. The wheel is installed with plain pip and
no extras into a fresh virtual environment, whose size is the server's install (`make run`
installs the same: at most 200 MB). `hideout serve` runs from an empty directory far from the
checkout: its pages (one in Polish, the demo campaign's as its GM), static files and API docs
must answer. Then docs/deploy.md's install command (`<!-- ci: package -->`) runs in the
unpacked sdist and must install the same files. Run by `make test` (`make test-package`).

    python tools/check_package.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import fnmatch
import http.cookiejar
import os
import re
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEPLOY_DOC = REPO / "docs" / "deploy.md"
PAGES = ("/", "/login", "/register", "/api/docs", "/api/v1/openapi.json", "/favicon.ico")
MAX_INSTALL_MB = 200
# The package data, by kind: an archive must hold as many of each as the checkout's app/ has.
# Translations are the .po files: app/core/i18n.py compiles them in memory at first use, so no
# .mo is built or shipped (the Polish page below shows that this works from the wheel).
DATA = {
    "Python modules": "app/**.py",
    "migrations": "app/migrations/**",
    "templates": "app/templates/**",
    "static files": "app/static/**",
    "translations": "app/translations/*/LC_MESSAGES/messages.po",
    "catalog data": "app/catalog/data/**",
    "catalog format": "app/catalog/FORMAT.md",
    "ready maps": "app/maps/data/**",
}
# The Polish login page says this (app/translations/pl: "Log in").
POLISH = "Zaloguj się"


def run(*args: str, **kwargs) -> None:
    print("$", " ".join(args), flush=True)
    started = time.monotonic()
    subprocess.run(args, check=True, **kwargs)
    print(f"  ({time.monotonic() - started:.0f} s)", flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str, opener=None, headers: dict | None = None, data: dict | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url, headers=headers or {}, data=urllib.parse.urlencode(data).encode() if data else None)
    try:
        with (opener or urllib.request.build_opener()).open(request, timeout=10) as answer:
            return answer.status, answer.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as refused:
        return refused.code, ""


def must(status: int, what: str) -> None:
    print(f"{status} {what}")
    if status != 200:
        raise SystemExit(f"{what} answered {status}")


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


def data_files(names: list[str]) -> dict[str, int]:
    """How many files of each kind of DATA are among `names` (paths from the project's root)."""
    names = [n for n in names if "__pycache__" not in n and not n.endswith("/")]
    return {kind: sum(fnmatch.fnmatch(n, pattern) for n in names) for kind, pattern in DATA.items()}


def check_archives(sdist: Path, wheel: Path) -> None:
    checkout = data_files([p.relative_to(REPO).as_posix() for p in (REPO / "app").rglob("*") if p.is_file()])
    with tarfile.open(sdist) as tar:
        # hideout-0.1.0/app/... : the sdist's own root folder dropped.
        in_sdist = data_files([m.name.split("/", 1)[-1] for m in tar.getmembers() if m.isfile()])
    with zipfile.ZipFile(wheel) as whl:
        in_wheel = data_files(whl.namelist())
    for kind, count in checkout.items():
        print(f"{kind}: {count} in the checkout, {in_sdist[kind]} in the sdist, {in_wheel[kind]} in the wheel")
        if not count or in_sdist[kind] < count or in_wheel[kind] < count:
            raise SystemExit(f"{kind}: the sdist or the wheel lacks some (pyproject.toml, package-data)")


def build(where: Path) -> tuple[Path, Path]:
    dist = where / "dist"
    # Without flags, build makes the sdist, then the wheel from the unpacked sdist: a file the sdist
    # forgets is missing from the wheel too. The build backend comes from this environment (a build
    # in isolation would download setuptools).
    run(sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(REPO), stdout=subprocess.DEVNULL)
    sdist, wheel = next(dist.glob("hideout-*.tar.gz")), next(dist.glob("hideout-*.whl"))
    check_archives(sdist, wheel)
    return sdist, wheel


def install_size(venv: Path) -> int:
    """The virtual environment's size in MB (10^6 bytes): pip's compiled bytecode counts, links
    are not followed. `make run`'s venv holds the same dependencies (the app installed editable)."""
    total = sum(p.lstat().st_size for p in venv.rglob("*") if not p.is_symlink() and p.is_file())
    return round(total / 1e6)


def check_pages(base: str, gm: str, password: str, campaign: str) -> None:
    for path in PAGES:
        must(get(base + path)[0], path)
    status, login = get(base + "/login", headers={"Accept-Language": "pl"})
    must(status, "/login in Polish")
    if POLISH not in login or '<html lang="pl"' not in login:
        raise SystemExit(f"/login with Accept-Language: pl does not say {POLISH!r}: translations missing?")
    assets = sorted(set(re.findall(r'(?:src|href)="(/static/[^"]+)"', login)))
    for asset in assets:
        must(get(base + asset)[0], asset)
    if not assets:
        raise SystemExit("the login page links no static file")
    gm_session = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    _, form = get(base + "/login", gm_session)
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', form)
    if not csrf:
        raise SystemExit("the login form carries no csrf_token")
    fields = {"nickname": gm, "password": password, "next": "/", "csrf_token": csrf.group(1)}
    status, home = get(base + "/login", gm_session, data=fields)
    must(status, f"POST /login as the demo GM {gm}")
    link = re.search(rf'href="(/campaigns/\d+)"><strong>{re.escape(campaign)}<', home)
    if not link:
        raise SystemExit(f"the demo GM's home page does not list {campaign!r}")
    status, page = get(base + link.group(1), gm_session, headers={"Accept-Language": "pl"})
    must(status, f"{link.group(1)} (the demo campaign, in Polish)")
    if campaign not in page or '<html lang="pl"' not in page:
        raise SystemExit(f"{link.group(1)} does not show {campaign!r} in Polish")
    print(f"Pages, {len(assets)} static files, a Polish page and the demo campaign answer.")


def installed(venv: Path, cwd: Path) -> list[str]:
    """The installed app's module file, then the demo GM's nickname and password and the demo
    campaign's name (app/demo.py), read from the installed code itself."""
    code = "import app, app.demo as d; print(app.__file__, d.DEMO_GM, d.DEMO_PASSWORD, d.DEMO_NAME, sep='\\n')"
    out = subprocess.run([str(venv / "bin" / "python"), "-c", code], cwd=cwd, capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def package_files(venv: Path) -> list[str]:
    """The files of the package installed in `venv`, bytecode left out."""
    root = next(venv.glob("lib/python*/site-packages"))
    return sorted(
        p.relative_to(root).as_posix() for p in (root / "app").rglob("*") if p.is_file() and "__pycache__" not in p.parts
    )


def serve(where: Path, venv: Path) -> None:
    home = where / "club"
    home.mkdir()
    module, gm, password, campaign = installed(venv, home)
    if str(REPO) in module:
        raise SystemExit(f"the venv imports the checkout's code ({module}), not the wheel's")
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
        check_pages(base, gm, password, campaign)
    finally:
        server.terminate()
        server.wait(20)
        log.close()
    print(f"The wheel serves from {module}.")


def deploy_doc_install(where: Path, sdist: Path, wheel_venv: Path) -> None:
    """docs/deploy.md §1's install command, in the unpacked sdist standing for /srv/hideout. Its
    dependencies are left out (PIP_NO_DEPS): the wheel's install above has just resolved the same
    list, and a second download and install of them would double this check's time."""
    blocks = re.findall(r"^<!-- ci: package -->\n```sh\n(.*?)^```", DEPLOY_DOC.read_text(), re.S | re.M)
    if len(blocks) != 1:
        raise SystemExit(f"{DEPLOY_DOC.name}: expected one <!-- ci: package --> block, found {len(blocks)}")
    with tarfile.open(sdist) as tar:
        tar.extractall(where / "srv", filter="data")
    srv = next((where / "srv").iterdir())
    command = blocks[0].replace("/srv/hideout", str(srv))
    print("$", command.strip(), flush=True)
    started = time.monotonic()
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", command], env=os.environ | {"PIP_NO_DEPS": "1"}, capture_output=True, text=True
    )
    if done.returncode:
        raise SystemExit(f"docs/deploy.md's install failed ({done.returncode}):\n{(done.stdout + done.stderr)[-4000:]}")
    ours, theirs = package_files(srv / ".venv"), package_files(wheel_venv)
    if ours != theirs:
        raise SystemExit(f"the deploy guide's install differs from the wheel's: {sorted(set(ours) ^ set(theirs))[:10]}")
    print(f"  ({time.monotonic() - started:.0f} s)")
    print(f"docs/deploy.md's install (pip install . in the sdist) gives the wheel's {len(ours)} files.")


def check(where: Path) -> None:
    sdist, wheel = build(where)
    venv = where / "venv"
    run(sys.executable, "-m", "venv", str(venv))
    run(str(venv / "bin" / "pip"), "install", "-q", str(wheel))
    size = install_size(venv)
    print(f"server install: {size} MB (a fresh venv with the wheel and no extras; at most {MAX_INSTALL_MB})")
    if size > MAX_INSTALL_MB:
        raise SystemExit(f"the server's install takes {size} MB, over {MAX_INSTALL_MB}: a dependency too many?")
    serve(where, venv)
    deploy_doc_install(where, sdist, venv)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="build, install and run in this directory and keep it")
    args = parser.parse_args()
    where = args.keep or Path(tempfile.mkdtemp(prefix="hideout-package-"))
    where.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
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
    print(f"The club's install checked in {time.monotonic() - started:.0f} s.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
