"""Sets Polish translations from a JSON file {msgid: msgstr}: python tools/set_translations.py F.json"""
import json, sys
from babel.messages.pofile import read_po, write_po
path = 'translations/pl/LC_MESSAGES/messages.po'
c = read_po(open(path, 'rb'), locale='pl')
pairs = json.load(open(sys.argv[1]))
for k, v in pairs.items():
    m = c[k]
    assert m is not None, k
    m.string = v
    m.flags.discard('fuzzy')
with open(path, 'wb') as fh:
    write_po(fh, c, width=100, omit_header=False, no_location=True, sort_output=True)
left = [m.id for m in c if m.id and (not m.string or m.fuzzy)]
print("untranslated:", left)
