"""`make run HOST=0.0.0.0 PORT=8080` serves a club's Wi-Fi; the defaults stay local."""

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _dry_run(*args: str) -> str:
    if not shutil.which("make"):
        pytest.skip("make is not installed")
    env = {"PATH": "/usr/bin:/bin", "HOST": "elsewhere", "PORT": "1"}  # the environment is ignored
    done = subprocess.run(
        ["make", "-n", "-W", ".venv/bin/.installed", "run", *args], cwd=REPO, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def test_make_run_defaults_to_this_machine_and_takes_host_and_port():
    assert "hideout serve --host 127.0.0.1 --port 8000" in _dry_run()
    assert "hideout serve --host 0.0.0.0 --port 8080" in _dry_run("HOST=0.0.0.0", "PORT=8080")


def test_make_run_says_it_is_installing():
    if not shutil.which("make"):
        pytest.skip("make is not installed")
    out = subprocess.run(["make", "-n", "-B", "run"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    assert "Installing Hideout into .venv (under a minute)" in out
