"""The demo campaign that `make run` shows: a GM, three players, places and hideouts,
round 1 in Preparation. Built through the same services as every request."""

from __future__ import annotations

from sqlmodel import Session, select

from app.accounts import service as accounts
from app.accounts.models import User
from app.campaigns import lifecycle
from app.campaigns import service as campaigns
from app.campaigns.models import Campaign, Player
from app.catalog.catalog import STARTER_DIR, load
from app.companies import service as companies
from app.companies.models import Company, CompanyModel
from app.events import service as events
from app.guilds import service as guilds
from app.maps import service as maps
from app.warbands import service as warbands

DEMO_PASSWORD = "vanguard-demo"
DEMO_GM = "master"
DEMO_PLAYERS = ("anna", "borys", "celina")
DEMO_NAME = "Winter of the Lost Crown"
STORY = """The old king is dead and his crown lost somewhere in the frozen marches.
Warbands gather in the ruins, each sure the crown is theirs by right.

*Whoever holds the most of the marches when the thaw comes will be crowned.*"""
PLACES = [
    # name, income, flag, x, y, description
    ("Ravensgate", 10, True, 18, 22, "A walled market town at the river ford."),
    ("Old Mill", 5, True, 72, 18, "A burnt mill with a sound cellar."),
    ("Frostbarrow", 5, True, 45, 75, "Burial mounds that nobody visits twice."),
    ("Greywater Ford", 8, True, 82, 64, "The only crossing for miles."),
    ("Crownfall Ruins", 20, False, 50, 45, "Where the king fell. The crown was last seen here."),
    ("Wolfwood", 4, False, 25, 60, "Dark pines and darker rumours."),
]


def demo_exists(session: Session) -> bool:
    return session.exec(select(Campaign.id).where(Campaign.name == DEMO_NAME)).first() is not None


def create_demo(session: Session) -> bool:
    """Creates the demo once; returns False when it was already there."""
    if demo_exists(session):
        return False
    users = {}
    for nickname in (DEMO_GM, *DEMO_PLAYERS):
        user = session.exec(select(User).where(User.nickname_key == nickname)).first()
        users[nickname] = user or accounts.register(session, nickname=nickname, password=DEMO_PASSWORD)
    gm = users[DEMO_GM]
    campaign = campaigns.create_campaign(
        session, actor=gm, data={"name": DEMO_NAME, "story": STORY, "max_players": 6, "modules": {"paths": True}}
    )
    place_ids = []
    for name, income, flag, x, y, text in PLACES:
        place = maps.create_place(
            session,
            actor=gm,
            campaign_id=campaign.id,
            data={"name": name, "income": income, "hideout_slot": flag, "x": x, "y": y, "description": text},
        )
        place_ids.append(place.id)
    ruins = place_ids[4]
    inner = [
        maps.create_place(
            session,
            actor=gm,
            campaign_id=campaign.id,
            data={"name": name, "income": 6, "hideout_slot": False, "x": x, "y": y, "parent_id": ruins, "entry": entry},
        ).id
        for name, x, y, entry in (
            ("Ruined Gate", 50, 85, True),
            ("Throne Hall", 50, 30, False),
            ("Crypt of Kings", 25, 60, False),
        )
    ]
    # Paths: index pairs into PLACES (and the ruins' inner places), one-way where marked.
    for a, b, one_way in ((0, 5, False), (5, 2, False), (0, 4, False), (1, 4, False), (1, 3, False), (3, 4, True), (2, 4, False)):
        maps.create_path(session, actor=gm, campaign_id=campaign.id, from_id=place_ids[a], to_id=place_ids[b], one_way=one_way)
    for a, b in ((0, 1), (1, 2)):
        maps.create_path(session, actor=gm, campaign_id=campaign.id, from_id=inner[a], to_id=inner[b], one_way=False)
    campaigns.update_settings(session, actor=gm, campaign_id=campaign.id, changes={}, wizard_step=6)
    for nickname in DEMO_PLAYERS:
        lifecycle.invite(session, actor=gm, campaign_id=campaign.id, nickname=nickname)
        lifecycle.accept_invitation(session, actor=users[nickname], campaign_id=campaign.id)
    lifecycle.set_status(session, actor=gm, campaign_id=campaign.id, target="hideouts")
    for nickname, place_id in zip(DEMO_PLAYERS, place_ids):
        lifecycle.claim_hideout(session, actor=users[nickname], campaign_id=campaign.id, place_id=place_id)
    _companies(session, campaign.id, users)
    lifecycle.set_status(session, actor=gm, campaign_id=campaign.id, target="running")
    _round_one(session, campaign.id, gm, users, ruins)
    _guild(session, campaign.id, users)
    return True


def _guild(session: Session, campaign_id: int, users: dict) -> None:
    """Anna's guild, with an invitation waiting for Celina (her dashboard shows it)."""
    guild = guilds.found(session, actor=users["anna"], campaign_id=campaign_id, name="The Silver Oath")
    celina = session.exec(select(Player.id).where(Player.campaign_id == campaign_id, Player.user_id == users["celina"].id)).one()
    guilds.invite(session, actor=users["anna"], campaign_id=campaign_id, guild_id=guild.id, player_id=celina)


def _round_one(session: Session, campaign_id: int, gm, users: dict, ruins: int) -> None:
    """An event to fight over and a warband for each player, ready for Orders."""
    catalog = load([STARTER_DIR])
    events.create_event(
        session,
        actor=gm,
        campaign_id=campaign_id,
        catalog=catalog,
        data={
            "place_id": ruins,
            "title": "The Crown is Sighted",
            "duration": 2,
            "reward": "A Unique item of the GM's choice",
            "text": "A shepherd swears he saw a glint of gold among the fallen stones.",
            "notes": "With three or more warbands: whoever holds the centre at the end wins.",
        },
    )
    for nickname, name in zip(DEMO_PLAYERS, ("Lions of the Ford", "Da Mill Krushas", "The Restless")):
        player = users[nickname]
        company = session.exec(
            select(Company)
            .join(Player, Player.id == Company.player_id)
            .where(Player.user_id == player.id, Player.campaign_id == campaign_id)
        ).one()
        model_ids = list(session.exec(select(CompanyModel.id).where(CompanyModel.company_id == company.id)).all())
        warbands.create_warband(
            session, actor=player, campaign_id=campaign_id, name=name, model_ids=model_ids, mercenary_key=None, catalog=catalog
        )


# Each demo player's faction and a first purchase, so the company pages have something to show.
COMPANIES = {
    "anna": (
        "basileans",
        [
            "basileans.veteran-sergeant",
            "basileans.man-at-arms",
            "basileans.man-at-arms",
            "basileans.crossbowman",
            "basileans.sisterhood",
        ],
        ["item.bandages", "item.spear"],
    ),
    "borys": ("orcs", ["orcs.krusher", "orcs.ax", "orcs.ax", "orcs.greatax"], ["item.brew-of-courage"]),
    "celina": ("undead", ["undead.necromancer", "undead.skeleton", "undead.skeleton", "undead.zombie", "undead.revenant"], []),
}


def _companies(session: Session, campaign_id: int, users: dict) -> None:
    catalog = load([STARTER_DIR])
    for nickname, (faction, profiles, items) in COMPANIES.items():
        actor = users[nickname]
        companies.choose_faction(session, actor=actor, campaign_id=campaign_id, faction=faction, catalog=catalog)
        for key in profiles:
            companies.buy_model(session, actor=actor, campaign_id=campaign_id, profile_key=key, catalog=catalog)
        for key in items:
            companies.buy_item(session, actor=actor, campaign_id=campaign_id, item_key=key, catalog=catalog)


def demo_logins() -> str:
    lines = [f"  game master: {DEMO_GM} / {DEMO_PASSWORD}"]
    lines += [f"  player:      {n} / {DEMO_PASSWORD}" for n in DEMO_PLAYERS]
    return "\n".join(lines)
