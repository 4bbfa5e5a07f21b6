"""This domain's `hideout` subcommands."""


def add_commands(sub) -> None:
    """Add subparsers to the `hideout` command (app/cli.py calls this)."""
