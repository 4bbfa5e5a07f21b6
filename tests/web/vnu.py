"""The Nu Html Checker (vnu-jar from npm, run on Debian's JRE) for issue 30's valid pages.

It lives in tools/node/ (ignored by git): `make vnu` installs it, and so does the first test
that needs it on a developer's machine; in CI a missing checker fails with the command to run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TOOLS = REPO / "tools" / "node" / "vnu"
VNU_VERSION = "26.9.27"
JAR = TOOLS / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"
# A run of a few seconds: the quick compiler only and one garbage collector thread cost a third
# less CPU than the JVM's defaults (17.9 → 13.5 s for the pages' check), which the suite's other
# worker needs; vnu's deep recursion needs the larger stack.
JVM_OPTIONS = ("-Xss8m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")


class CheckerMissing(RuntimeError):
    pass


def vnu_jar() -> Path:
    """The checker's jar, installed with npm when missing (never in CI: `make vnu` does it)."""
    if JAR.is_file():
        return JAR
    if shutil.which("java") is None:
        raise CheckerMissing("Java is not installed: `apt-get install default-jre-headless` (Debian's JRE).")
    if os.environ.get("CI") == "true" or shutil.which("npm") is None:
        raise CheckerMissing(f"The Nu Html Checker is not installed at {JAR}: run `make vnu`.")
    done = subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(TOOLS), f"vnu-jar@{VNU_VERSION}"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode or not JAR.is_file():
        raise CheckerMissing(f"`npm install vnu-jar` failed; run `make vnu`.\n{done.stderr[-2000:]}")
    return JAR


def check(files: list[Path]) -> list[dict]:
    """vnu's errors (non-document errors included) over all the files, in one run of the JVM,
    and its "Article lacks heading" warning, which the issue names too; each message carries
    its file's path in "url"."""
    if not files:
        return []
    done = subprocess.run(
        ["java", *JVM_OPTIONS, "-jar", str(vnu_jar()), "--format", "json", "--stdout", "--exit-zero-always", *map(str, files)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    try:
        messages = json.loads(done.stdout)["messages"]
    except (ValueError, KeyError):
        raise AssertionError(f"vnu gave no report (exit {done.returncode}): {done.stderr[-2000:]}") from None
    return [
        m
        for m in messages
        if m.get("type") in ("error", "non-document-error")
        or ("lacks heading" in (m.get("message") or "") and m.get("message", "").startswith("Article"))
    ]


def describe(message: dict, names: dict[str, str]) -> str:
    """One line: which page, where, what."""
    where = names.get(message.get("url", "").removeprefix("file:"), message.get("url", "?"))
    extract = (message.get("extract") or "").replace("\n", " ")[:160]
    return f"{where}:{message.get('lastLine', '?')}: {message.get('message')}  «{extract}»"
