"""Catalog words shown to people, marked for translation."""

from app.core.errors import N_

TYPE_NAMES = {
    "Command": N_("Command"),
    "Grunt": N_("Grunt"),
    "Warrior": N_("Warrior"),
    "Support": N_("Support"),
    "Spellcaster": N_("Spellcaster"),
    "Large": N_("Large"),
}
SLOT_NAMES = {
    "Sundries": N_("Sundries"),
    "Melee": N_("Melee"),
    "Armour": N_("Armour"),
    "Ranged": N_("Ranged"),
    "Magic": N_("Magic"),
    "Mount": N_("Mount"),
}
RARITY_NAMES = {"Common": N_("Common"), "Rare": N_("Rare"), "Unique": N_("Unique")}
ALIGNMENT_NAMES = {"Good": N_("Good"), "Neutral": N_("Neutral"), "Evil": N_("Evil")}
MODEL_STATUS_NAMES = {
    "ready": N_("ready"),
    "miss_next": N_("misses the next battle"),
    "captured": N_("captured"),
    "dead": N_("dead"),
}
