"""The import: catalogue files merged with the ones already written, never dropping an entry
an older import wrote (V2), and written only when something changed."""

from __future__ import annotations

from pathlib import Path

from ..catalog import CatalogError, CatalogFile, read_file, write_file
from .catalogues import ParsedCatalogue, _file_title, parse_game_system, read_catalogue
from .report import FileReport, ImportReport
from .source import COMMON_FILE, SOURCE, BattleScribeError, GameSystem, _read_xml

_KINDS = ("factions", "profiles", "mercenaries", "items")


def _merge(new: CatalogFile, old: CatalogFile | None, report: FileReport) -> CatalogFile:
    """New rows win; rows of the old file that the source no longer has are kept (V2)."""
    merged: dict[str, list] = {}
    for kind in _KINDS:
        old_rows = {r.key: r for r in (getattr(old, kind) if old else [])}
        rows = {}
        for row in getattr(new, kind):
            before = old_rows.pop(row.key, None)
            if before is None:
                report.added.append(row.key)
            elif before.model_dump() != row.model_dump():
                report.changed.append(row.key)
            else:
                report.kept.append(row.key)
            rows[row.key] = row
        for key, row in old_rows.items():  # what the source no longer has
            report.retained.append(key)
            rows[key] = row
        merged[kind] = [rows[k] for k in sorted(rows)]
    return CatalogFile(source=new.source, name=new.name, scenarios=list(old.scenarios) if old else [], **merged)


def _plan(path: Path, new: CatalogFile, report: FileReport) -> CatalogFile | None:
    """The merged file to write to `path`, or None when the file already holds exactly that."""
    old = None
    if path.exists():
        try:
            old = read_file(path)
        except CatalogError as exc:
            raise BattleScribeError(
                f"{path} exists but is not a valid catalog file; fix or remove it before importing ({exc})"
            ) from exc
    merged = _merge(new, old, report)
    if old is not None and merged.model_dump() == old.model_dump():
        return None
    return merged


def _expand(paths: list[Path]) -> tuple[list[Path], list[Path]]:
    systems: list[Path] = []
    catalogues: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            members = sorted(x for x in p.iterdir() if x.is_file())
        elif p.exists():
            members = [p]
        else:
            raise BattleScribeError(f"{p}: no such file")
        for m in members:
            suffix = m.suffix.lower()
            if suffix in (".gst", ".gstz"):
                systems.append(m)
            elif suffix in (".cat", ".catz"):
                catalogues.append(m)
            elif not p.is_dir():
                raise BattleScribeError(f"{m}: not a BattleScribe file (.gst or .cat)")
    return list(dict.fromkeys(systems)), list(dict.fromkeys(catalogues))


def import_catalog(paths: list[Path], out_dir: Path) -> ImportReport:
    """Import a game system and catalogues (any order; a directory stands for its files) into
    `out_dir`: one `<faction-key>.json` per catalogue, game-system items and mercenaries in
    `bs-common.json`. Without a `.gst` among the paths, the one beside the catalogues is used."""
    out_dir = Path(out_dir)
    gst_paths, cat_paths = _expand(paths)
    systems = _game_systems(gst_paths, cat_paths)
    parsed = _catalogues(cat_paths, systems)
    return _write(_jobs(systems, parsed, out_dir), out_dir)


def _game_systems(gst_paths: list[Path], cat_paths: list[Path]) -> list[GameSystem]:
    if not gst_paths:
        beside = sorted({g for c in cat_paths for g in c.parent.iterdir() if g.suffix.lower() in (".gst", ".gstz")})
        gst_paths = beside
    if not gst_paths:
        raise BattleScribeError("no game system: give the .gst file (none lies beside the catalogues)")
    return [parse_game_system(p) for p in gst_paths]


def _catalogues(cat_paths: list[Path], systems: list[GameSystem]) -> list[ParsedCatalogue]:
    """Each catalogue read against its own game system; two giving one faction stop the import."""
    by_id = {s.id: s for s in systems}
    parsed: list[ParsedCatalogue] = []
    for cat in cat_paths:
        root_system_id = _read_xml(cat).get("gameSystemId") if len(systems) > 1 else None
        system = by_id.get(root_system_id) if root_system_id else systems[0]
        if system is None:
            raise BattleScribeError(f"{cat}: none of the given game systems has id {root_system_id}")
        parsed.append(read_catalogue(cat, system))
    seen: dict[str, Path] = {}
    for pc in parsed:
        key = pc.faction.key
        if key in seen:
            raise BattleScribeError(f"{pc.path} and {seen[key]} both give faction {key}")
        seen[key] = pc.path
    return parsed


def _jobs(systems: list[GameSystem], parsed: list[ParsedCatalogue], out_dir: Path) -> list[tuple[CatalogFile, FileReport]]:
    """The files to write, each with its report: the common file first, then one per faction."""
    # game-system items and mercenaries (keys stay unique should several systems be given)
    items = list({i.key: i for s in systems for i in s.items}.values())
    mercs = list({m.key: m for s in systems for m in s.mercenaries}.values())
    common = CatalogFile(
        source=SOURCE,
        items=items,
        mercenaries=mercs,
        name=_file_title(", ".join(s.title for s in systems), systems[0].revision if len(systems) == 1 else None)
        + ": items and mercenaries",
    )
    jobs = [
        (
            common,
            FileReport(
                title=" / ".join(s.title for s in systems) + " (items and mercenaries)",
                output=out_dir / COMMON_FILE,
                sources=[s.path.name for s in systems],
                skipped=[x for s in systems for x in s.skipped],
            ),
        )
    ]
    for pc in sorted(parsed, key=lambda p: p.faction.key):
        jobs.append(
            (
                pc.data,
                FileReport(
                    title=pc.faction.name,
                    output=out_dir / f"{pc.faction.key}.json",
                    sources=[pc.path.name],
                    skipped=list(pc.skipped),
                ),
            )
        )
    return jobs


def _write(jobs: list[tuple[CatalogFile, FileReport]], out_dir: Path) -> ImportReport:
    # compare with every existing file first, so a bad one stops the import before any write
    report = ImportReport()
    plans = []
    for new, file_report in jobs:
        plans.append(_plan(file_report.output, new, file_report))
        report.files.append(file_report)
    out_dir.mkdir(parents=True, exist_ok=True)
    for merged, file_report in zip(plans, report.files):
        if merged is not None:
            write_file(file_report.output, merged)
            file_report.written = True
    return report
