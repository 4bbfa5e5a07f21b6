"""Issue 31 item 4's sizes: files of app/ over 400 lines, functions over 60, imports inside a
function outside the CLI entry points (app/cli.py, app/*/cli.py). Exits 1 when any is found.

    .venv/bin/python tools/sizes.py
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

APP = Path(__file__).resolve().parents[1] / "app"
MAX_FILE, MAX_FUNCTION = 400, 60


def findings() -> list[str]:
    found = []
    for path in sorted(APP.rglob("*.py")):
        rel = path.relative_to(APP.parent)
        if "migrations" in path.parts:  # applied migrations are history: never edited
            continue
        text = path.read_text()
        if text.count("\n") > MAX_FILE:
            found.append(f"{rel}: {text.count(chr(10))} lines")
        cli = path.name == "cli.py"
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION:
                    found.append(f"{rel}:{node.lineno} {node.name}: {length} lines")
                if not cli:
                    for inner in ast.walk(node):
                        if isinstance(inner, (ast.Import, ast.ImportFrom)):
                            found.append(f"{rel}:{inner.lineno} an import inside {node.name}")
    return found


if __name__ == "__main__":
    lines = findings()
    print("\n".join(lines) or "no file over 400 lines, no function over 60, no import inside a function")
    sys.exit(1 if lines else 0)
