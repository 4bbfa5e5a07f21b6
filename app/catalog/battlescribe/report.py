"""What an import did, file by file: added, changed, kept, retained (V2) and skipped entries."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .source import Skipped


@dataclass
class FileReport:
    title: str
    output: Path
    sources: list[str]
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    retained: list[str] = field(default_factory=list)  # gone from the source, kept in the file (V2)
    skipped: list[Skipped] = field(default_factory=list)
    written: bool = False

    def summary_line(self) -> str:
        line = (
            f"{self.title}: {len(self.added)} added, {len(self.changed)} changed, "
            f"{len(self.kept)} kept, {len(self.skipped)} skipped"
        )
        if self.retained:
            line += f", {len(self.retained)} no longer in the source (kept)"
        return line


@dataclass
class ImportReport:
    files: list[FileReport] = field(default_factory=list)

    def summary_lines(self) -> list[str]:
        return [f.summary_line() for f in self.files]

    def detail_lines(self) -> list[str]:
        lines: list[str] = []
        for f in self.files:
            lines.extend(f"{f.title}: added {k}" for k in f.added)
            lines.extend(f"{f.title}: changed {k}" for k in f.changed)
            lines.extend(f"{f.title}: no longer in the source, kept {k}" for k in f.retained)
            lines.extend(f"{f.title}: {s.line()}" for s in f.skipped)
        return lines

    def file(self, title_or_name: str) -> FileReport:
        for f in self.files:
            if title_or_name in (f.title, f.output.name, f.output.stem):
                return f
        raise KeyError(title_or_name)

    @property
    def added(self) -> list[str]:
        return [k for f in self.files for k in f.added]

    @property
    def changed(self) -> list[str]:
        return [k for f in self.files for k in f.changed]

    @property
    def kept(self) -> list[str]:
        return [k for f in self.files for k in f.kept]

    @property
    def retained(self) -> list[str]:
        return [k for f in self.files for k in f.retained]

    @property
    def skipped(self) -> list[Skipped]:
        return [s for f in self.files for s in f.skipped]
