"""What waits for a member of a campaign (issue 19): orders not sent before a deadline, results
to enter or confirm, settlements to close, ransoms, guild requests and invitations, unread
letters — and for the GM, disputes, Twilight's choices and an auto-advance that waits. Each
list is built from the viewer's own readable statements (app/visibility/ through the
domains' services), so it names only what this viewer may see: the dashboard and the daily
digest both read it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from sqlalchemy import func
from sqlmodel import Session, select

from app.accounts.models import User
from app.campaigns.models import Campaign, Player
from app.campaigns.service import away_now, nicknames
from app.companies.models import Company
from app.guilds import service as guilds
from app.letters import service as letters
from app.maps import service as maps
from app.people.models import GameMaster
from app.rounds import service as rounds
from app.season import rules
from app.season.models import PhaseDeadline
from app.season.service import deadline_of, waiting_message
from app.visibility import Viewer, viewer_for
from app.warbands.models import Order, Warband


@dataclass
class Reminder:
    kind: str
    link: str
    count: int = 1
    params: dict = field(default_factory=dict)


def sent_orders(session: Session, campaign: Campaign, player_id: int) -> int:
    return session.exec(
        select(func.count())
        .select_from(Order)
        .where(Order.campaign_id == campaign.id, Order.round == campaign.round, Order.player_id == player_id)
    ).one()


def without_orders(session: Session, campaign: Campaign) -> list[int]:
    """Players who have sent no warband this round (the GM's view: orders are the GM's to see);
    nobody waits for a player away this round (R12.11)."""
    sent = select(Order.player_id).where(Order.campaign_id == campaign.id, Order.round == campaign.round)
    away = away_now(session, campaign)
    found = session.exec(select(Player.id).where(Player.campaign_id == campaign.id, Player.id.not_in(sent)).order_by(Player.id))
    return [pid for pid in found.all() if pid not in away]


def orders_reminder(session: Session, viewer: Viewer, deadline: PhaseDeadline | None) -> Reminder | None:
    """Orders is open with a deadline and this player has sent nothing yet."""
    campaign = viewer.campaign
    if viewer.player is None or deadline is None or campaign.phase != "orders":
        return None
    if sent_orders(session, campaign, viewer.player.id) or viewer.player.id in away_now(session, campaign):
        return None
    return Reminder(
        "orders",
        f"/campaigns/{campaign.id}/warbands",
        params={"at": rules.utc_text(deadline.ends_at), "ends_at": rules.iso(deadline.ends_at)},
    )


def steps_done(session: Session, viewer: Viewer) -> frozenset[str]:
    """The steps of "What to do now" this viewer has already taken (issue 29 item 5), from the
    state as it is now: their company's faction chosen and confirmed; in Orders every warband
    of theirs sent; in Battles nothing left to enter or confirm (the GM: every result in); in
    Settlement nothing left to settle (the GM: every settlement closed)."""
    campaign, done = viewer.campaign, set()
    me = viewer.player.id if viewer.player else None
    if me is not None and campaign.status in ("setup", "hideouts"):
        company = session.exec(select(Company.faction, Company.confirmed).where(Company.player_id == me)).first()
        if company is not None and company.faction:
            done.add("faction_chosen")
        if company is not None and company.confirmed:
            done.add("company_confirmed")
    if campaign.status != "running" or not (viewer.is_gm or me is not None):
        return frozenset(done)
    if campaign.phase == "orders" and me is not None:
        bands = session.exec(select(func.count()).select_from(Warband).where(Warband.player_id == me)).one()
        if bands and sent_orders(session, campaign, me) >= bands:
            done.add("orders_sent")
    elif campaign.phase in ("battles", "settlement"):
        if viewer.is_gm:
            views = rounds.page_todo(session, viewer).views  # the dashboard's panel read them
            # While a result is missing neither step is done: the settlements go unread (a
            # statement and a pass over every warband of the round on each visit, issue 37).
            if rounds.results_in(views):
                done.add("results_in")
                if not rounds.missing_for_twilight(session, campaign, views):
                    done.add("settled")
        else:
            todo = rounds.page_todo(session, viewer)
            if not todo.battles:
                done.add("results_in")
            if campaign.phase == "settlement" and not todo.settle:
                done.add("settled")
    return frozenset(done)


def for_viewer(session: Session, viewer: Viewer, gettext) -> list[Reminder]:
    """Everything that waits for this viewer in this campaign (the digest's list)."""
    campaign = viewer.campaign
    if campaign.status != "running" or (viewer.player is not None and viewer.player.id in away_now(session, campaign)):
        return []  # R12.11: nothing reminds a player away this round
    cid = campaign.id
    deadline = deadline_of(session, campaign)
    found = [r for r in (orders_reminder(session, viewer, deadline),) if r]
    todo = rounds.todo(session, viewer)
    for action, view in todo.battles:
        names = " vs ".join(w.name for w in view.warbands)
        found.append(Reminder(action, f"/campaigns/{cid}/battles/{view.battle.id}", params={"names": names}))
    if todo.settle and not viewer.is_gm:
        labels = maps.labels(session, cid)
        for p in todo.settle:
            found.append(
                Reminder(
                    "settle",
                    f"/campaigns/{cid}/battles/{p.battle_id}/settlements/{p.warband_id}",
                    params={"warband": p.warband, "place": labels.get(p.place_id, "")},
                )
            )
    if todo.ransoms and not viewer.is_gm:  # the GM watches ransoms but answers none
        found.append(Reminder("ransoms", f"/campaigns/{cid}/ransoms", len(todo.ransoms)))
    if todo.choices:
        found.append(Reminder("twilight_choices", f"/campaigns/{cid}/twilight", todo.choices))
    waiting = guilds.waiting(session, viewer)
    names = nicknames(session, cid) if waiting.requests else {}
    for r, g in waiting.requests:
        found.append(
            Reminder(
                "guild_request",
                f"/campaigns/{cid}#guild-request-{r.id}",
                params={"nickname": names.get(r.player_id, ""), "name": g.name},
            )
        )
    for r, g in waiting.invitations:
        found.append(Reminder("guild_invitation", f"/campaigns/{cid}#guild-invitation-{r.id}", params={"name": g.name}))
    unread = letters.unread_count(session, viewer)
    if unread:
        found.append(Reminder("letters", f"/campaigns/{cid}/letters", unread))
    if viewer.is_gm and deadline is not None and deadline.waiting_code:
        found.append(Reminder("waiting", f"/campaigns/{cid}", params={"why": waiting_message(deadline, gettext)}))
    return found


@dataclass
class CampaignReminders:
    campaign: Campaign
    reminders: list[Reminder]


def for_user(session: Session, user: User, gettext) -> list[CampaignReminders]:
    """Every running campaign of the user (as GM or player) with something waiting."""
    ids = sorted(
        set(session.exec(select(Campaign.id).where(Campaign.status == "running", Campaign.gm_user_id == user.id)).all())
        | set(
            session.exec(
                select(Campaign.id)
                .join(GameMaster, GameMaster.campaign_id == Campaign.id)
                .where(Campaign.status == "running", GameMaster.user_id == user.id)
            ).all()
        )
        | set(
            session.exec(
                select(Campaign.id)
                .join(Player, Player.campaign_id == Campaign.id)
                .where(Campaign.status == "running", Player.user_id == user.id)
            ).all()
        )
    )
    result = []
    for cid in ids:
        viewer = viewer_for(session, user, cid)
        found = for_viewer(session, viewer, gettext)
        if found:
            result.append(CampaignReminders(viewer.campaign, found))
    return result


def line(reminder: Reminder, gettext, ngettext, words: Mapping[str, str], moment=None) -> str:
    """One reminder in the reader's language (`words`: the campaign's guild words in it, R8.2;
    `moment`: says an ISO moment in the reader's language and time zone, else UTC's words)."""
    k, n, p = reminder.kind, reminder.count, reminder.params
    if k == "orders":
        at = moment(p["ends_at"]) if moment else p["at"]
        return gettext("Orders close at %(at)s and you have not sent any warband yet.") % {**p, "at": at}
    if k == "report":
        return gettext("Enter the result: %(names)s") % p
    if k == "confirm":
        return gettext("Confirm the result: %(names)s") % p
    if k == "resolve":
        return gettext("Decide a disputed result: %(names)s") % p
    if k == "settle":
        return gettext("Settle this battle: %(warband)s at %(place)s") % p
    if k == "ransoms":
        return ngettext("%(num)d prisoner's ransom waits for an answer", "%(num)d prisoners' ransoms wait for an answer", n) % {
            "num": n
        }
    if k == "twilight_choices":
        return ngettext("Twilight: choose who takes %(num)d place", "Twilight: choose who takes %(num)d places", n) % {"num": n}
    if k == "guild_request":
        return gettext("%(nickname)s asks to join your %(guild)s %(name)s.") % {**words, **p}
    if k == "guild_invitation":
        return gettext("The %(guild)s %(name)s invites you.") % {**words, **p}
    if k == "letters":
        return ngettext("%(num)d unread letter", "%(num)d unread letters", n) % {"num": n}
    return gettext("The deadline has passed, but the round cannot move on by itself yet: %(why)s") % p
