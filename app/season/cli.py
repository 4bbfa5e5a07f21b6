"""This domain's `hideout` subcommands."""

from __future__ import annotations


def cmd_tick(_args) -> int:
    """One pass of the season's scheduler, for cron (it is safe next to running servers)."""
    from app.catalog.catalog import CatalogStore
    from app.core.db import make_engine
    from app.core.settings import get_settings
    from app.season import scheduler

    settings = get_settings()
    engine = make_engine(settings.resolved_database_url())
    try:
        report = scheduler.tick(engine, settings, CatalogStore(settings.var_dir / "catalog").get)
    finally:
        engine.dispose()
    print(
        f"Advanced: {len(report.advanced)}; waiting: {len(report.waiting)}; deadlines near: {len(report.near)}; "
        f"digests sent: {report.digests}."
    )
    return 0


def add_commands(sub) -> None:
    """Add subparsers to the `hideout` command (app/cli.py calls this)."""
    sub.add_parser("tick", help="act on due deadlines and send due digests once (for cron)").set_defaults(func=cmd_tick)
