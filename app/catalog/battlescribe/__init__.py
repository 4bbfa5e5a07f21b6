"""Import BattleScribe data (a `.gst` game system and `.cat` catalogues) into Hideout catalog
files (FORMAT.md; V1, V2).

BattleScribe XML is read with defusedxml (entities and external references refused). What the
importer takes from it:

* **Game system** (`.gst`): the category names (Grunt, Warrior, Command, Support,
  Spellcaster, Large, Mercenary, ...), the id of the `" Points"` cost type, the id of the
  `" Warband Member"` profile type, the items and the mercenaries.
* **Models**: every `selectionEntry type="model"` anywhere in a file that carries a
  `" Warband Member"` profile. Its types are its category links resolved to category names
  (BattleScribe names most links "New CategoryLink", so the *target* decides); only the six
  model types are kept, a model with none of them is skipped with a reason. A model
  categorised "Mercenary" becomes a mercenary (no faction, its own alignment).
* **Unique**: a model is a named character when the entry itself is limited to at most one
  selection per roster / force (a `max` constraint of 1 whose scope is not `parent` and that
  no modifier raises), or when it carries a category or rule named "Unique" or
  "Named Character". Ordinary profiles use a `max 0` constraint raised by modifiers per
  40 points; that pattern never counts as unique.
* **Healer**: a special rule whose name contains "Heal".
* **Items**: entries offered in an item group (a `selectionEntryGroup` whose name contains
  "Items", e.g. `" Items"`, with sub-groups named after the slots and/or rarities) and
  entries with an `"Items - <Slot>"` profile. The slot comes from the `"Items - <Slot>"`
  profile type, else from the nearest enclosing group named after a slot; the rarity from the
  `(Common)` / `(Rare)` / `(Unique)` marker in the entry's name, else from the nearest
  enclosing group named after a rarity (or "Items - <Rarity>"). Entries with an item profile
  but no rarity (a model's default Spear, Bow, ...) are skipped with a reason.

Keys are derived from names, not from BattleScribe ids, so they survive re-imports:
`bs.<faction>` (faction), `bs.<faction>.<model>` (profile), `bs.merc.<model>` (mercenary),
`bs.item.<item>` (game-system item) and `bs.item.<faction>.<item>` (catalogue item). When two
entries of one file share a name, the first keeps the plain key and each later one gets a
short suffix from its own BattleScribe id. Each profile, mercenary and item also keeps its
entry's id as `bs_id`, by which a roster file's selections are matched first (R12.15).

`import_catalog` writes one file per faction (`<faction-key>.json`) plus `bs-common.json`
(game-system items and mercenaries), compares each with the file already there and never
drops an entry an older import wrote (V2): entries no longer in the source are kept as they
were. Importing the same sources twice leaves every file untouched.

`roster.py` reads a player's roster (`.ros`, `.rosz`) from an upload and matches its models to
the catalog by the keys above, then by name (R12.15).
"""

from .catalogues import ParsedCatalogue, parse_catalogue, parse_game_system, read_catalogue
from .importer import import_catalog
from .report import FileReport, ImportReport
from .source import COMMON_FILE, SOURCE, BattleScribeError, GameSystem, Skipped, faction_slug, slugify

__all__ = [
    "COMMON_FILE",
    "SOURCE",
    "BattleScribeError",
    "FileReport",
    "GameSystem",
    "ImportReport",
    "ParsedCatalogue",
    "Skipped",
    "faction_slug",
    "import_catalog",
    "parse_catalogue",
    "parse_game_system",
    "read_catalogue",
    "slugify",
]
