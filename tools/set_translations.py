"""Sets Polish translations from a JSON file {msgid: msgstr}: python tools/set_translations.py F.json"""

import json
import sys

from babel.messages.pofile import read_po, write_po

path = "app/translations/pl/LC_MESSAGES/messages.po"
with open(path, "rb") as fh:
    c = read_po(fh, locale="pl")
with open(sys.argv[1]) as fh:
    pairs = json.load(fh)
for k, v in pairs.items():
    m = c[k]
    assert m is not None, k
    m.string = v
    m.flags.discard("fuzzy")
with open(path, "wb") as fh:
    write_po(fh, c, width=100, omit_header=False, no_location=True, sort_output=True)
left = [m.id for m in c if m.id and (not m.string or m.fuzzy)]
print("untranslated:", left)
