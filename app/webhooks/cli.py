"""This domain's `hideout` subcommands."""

from __future__ import annotations


def cmd_send_webhooks(_args) -> int:
    """One round of the sender, for installs that run it from cron instead of in the server."""
    from app.core.db import make_engine
    from app.core.settings import get_settings
    from app.webhooks import sender

    settings = get_settings()
    engine = make_engine(settings.resolved_database_url())
    try:
        tried = sender.deliver_due(engine, settings)
    finally:
        engine.dispose()
    print(f"Webhook deliveries tried: {tried}.")
    return 0


def add_commands(sub) -> None:
    """Add subparsers to the `hideout` command (app/cli.py calls this)."""
    sub.add_parser("send-webhooks", help="send the webhook deliveries that are due").set_defaults(func=cmd_send_webhooks)
