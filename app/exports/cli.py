"""This domain's `hideout` subcommands: `export CID FILE` and `import FILE --as NICKNAME`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from sqlmodel import select

from app.accounts import rules as account_rules
from app.accounts.models import User
from app.catalog.catalog import CatalogStore
from app.core import json_limits
from app.core.db import make_engine, unit_of_work
from app.core.errors import DomainError, message_for
from app.core.files import write_private
from app.core.settings import get_settings


def add_commands(sub) -> None:
    """Add subparsers to the `hideout` command (app/cli.py calls this)."""
    out = sub.add_parser("export", help="write a campaign to a JSON file (all of it but letters: docs/export.md)")
    out.add_argument("campaign_id", type=int)
    out.add_argument("path")
    out.set_defaults(func=cmd_export)
    into = sub.add_parser("import", help="create a campaign from an export file, run by the given user")
    into.add_argument("path")
    into.add_argument("--as", dest="nickname", required=True, help="the nickname of the user who becomes its game master")
    into.set_defaults(func=cmd_import)


def _english(exc: DomainError) -> str:
    return message_for(exc.code, exc.params, lambda text: text)


def _run(work):
    settings = get_settings()
    engine = make_engine(settings.resolved_database_url())
    try:
        with unit_of_work(engine, write=True) as session:
            return work(session, settings.var_dir)
    finally:
        engine.dispose()


def cmd_export(args) -> int:
    from app.exports import service

    try:
        doc = _run(lambda session, var: service.export_for_server(session, campaign_id=args.campaign_id, media_dir=var / "media"))
    except DomainError as exc:
        print(
            f"Export failed: {_english(exc) if exc.code != 'not_found' else f'there is no campaign {args.campaign_id}.'}",
            file=sys.stderr,
        )
        return 1
    target = Path(args.path)
    write_private(target, json.dumps(doc, ensure_ascii=False).encode("utf-8"))
    print(f"Campaign {args.campaign_id} written to {target}.")
    return 0


def cmd_import(args) -> int:
    from app.exports import service

    try:
        doc = json_limits.loads(Path(args.path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        print(f"Import failed: cannot read {args.path} as JSON ({exc}).", file=sys.stderr)
        return 1
    except DomainError as exc:
        print(f"Import failed: {_english(exc)}", file=sys.stderr)
        return 1

    def work(session, var):
        key = account_rules.nickname_key(args.nickname)
        gm = session.exec(select(User).where(User.nickname_key == key)).first()
        if gm is None:
            raise DomainError("user_unknown", nickname=args.nickname)
        # Whoever runs the server is not held to a user's hourly imports.
        catalog = CatalogStore(var / "catalog").get()
        campaign, invited = service.import_campaign(
            session, actor=gm, doc=doc, media_dir=var / "media", catalog=catalog, limited=False
        )
        return campaign.id, campaign.name, invited

    try:
        cid, name, invited = _run(work)
    except DomainError as exc:
        print(f"Import failed: {_english(exc)}", file=sys.stderr)
        return 1
    print(f"Campaign {name} imported as campaign {cid}, run by {args.nickname}; {invited} player(s) invited.")
    return 0
