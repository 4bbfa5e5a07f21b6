"""Files that hold the club's data (the SQLite database, backups, exports) are the owner's
alone (issue 28): created 0600 in folders created 0700, whatever the umask — a shared host's
other users must not read members' letters or password hashes out of them."""

from __future__ import annotations

import os
from pathlib import Path

FILE_MODE = 0o600
DIR_MODE = 0o700


def private_dir(path: Path) -> None:
    """`path` and any missing parents, new ones 0700 (existing folders are left as they are:
    a backup may go to a folder the admin shares on purpose)."""
    missing = []
    while not path.exists() and path != path.parent:
        missing.append(path)
        path = path.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=DIR_MODE)
        except FileExistsError:
            continue
        os.chmod(folder, DIR_MODE)  # mkdir's mode passes through the umask


def private_file(path: Path, *, tighten: bool = True) -> Path:
    """Makes sure `path` exists, created readable by its owner only, before anything writes
    into it (SQLite then gives its -wal and -shm files the same mode). An existing file is
    made so too unless `tighten` is off (the server's database: app/core/db.py's
    tighten_sqlite_files takes off only its group's and others' bits, with its -wal and -shm,
    and says so in the log)."""
    path = Path(path)
    private_dir(path.parent)
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, FILE_MODE))
    except FileExistsError:
        if tighten:
            os.chmod(path, FILE_MODE)
    return path


def write_private(path: Path, data: bytes) -> None:
    """Writes `data` to `path` (replacing what was there), readable by its owner only."""
    private_file(path)
    with open(path, "wb") as out:
        out.write(data)
