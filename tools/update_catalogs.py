"""Brings every catalog up to the template (`make i18n`): each message of messages.pot that a
language lacks is added to it, untranslated, for its translator. Nothing is taken away —
unlike `pybabel update --ignore-obsolete`, which drops the gendered forms ("guild:f" …,
app/campaigns/terms.py) because no source line names them. Prints what each language lacks."""

from __future__ import annotations

import sys
from pathlib import Path

from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1] / "app" / "translations"


def main() -> int:
    with (ROOT / "messages.pot").open("rb") as fh:
        template = read_po(fh)
    for po in sorted(ROOT.glob("*/LC_MESSAGES/messages.po")):
        locale = po.parts[-3]
        with po.open("rb") as fh:
            catalog = read_po(fh, locale=locale)
        added = [m for m in template if m.id and m.id not in catalog]
        for message in added:
            catalog.add(
                message.id,
                "" if isinstance(message.id, str) else ("",) * catalog.num_plurals,
                flags=message.flags,
                context=message.context,
            )
        if added:
            with po.open("wb") as fh:
                write_po(fh, catalog, width=100, omit_header=False, no_location=True, sort_output=True)
        print(f"{locale}: {len(added)} to translate")
    return 0


if __name__ == "__main__":
    sys.exit(main())
