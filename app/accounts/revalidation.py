"""The viewer's key of a campaign page's cheap revalidation (issue 37, app/core/revalidation.py),
read in one statement from the session cookie: who is asking and what they may see of the
campaign has changed exactly when this key has."""

from __future__ import annotations

from collections.abc import Hashable

from sqlalchemy import and_, bindparam, or_, select
from sqlalchemy.orm import aliased

from app.accounts import rules
from app.accounts.models import User, UserSession
from app.accounts.service import session_over
from app.campaigns.models import Campaign, Player
from app.core.db import aware, utcnow
from app.core.security import token_digest
from app.people.models import GameMaster
from app.versions.audience import EVERYONE, GAME_MASTERS, user_seat  # its listeners move the counters read here
from app.versions.models import AudienceVersion
from app.versions.service import EVERYWHERE

_ALL = aliased(AudienceVersion, name="every_member")
_MINE = aliased(AudienceVersion, name="mine")
_GMS = aliased(AudienceVersion, name="game_masters")
_NOWHERE = aliased(AudienceVersion, name="nowhere")
_USER = aliased(AudienceVersion, name="own_user")
_CID = bindparam("campaign_id")
# The login's row (as app/accounts/service.py reads it), the viewer's seats in the campaign
# (their player, whether they are one of its game masters), and the counters they see by:
# the campaign's every member's, their player's, the game masters' (a GM's), their own as a
# user (app/versions/audience.py `user_seat`), the changes placed nowhere.
_KEY = (
    select(
        UserSession.user_id,
        UserSession.created_at,
        UserSession.last_seen_at,
        UserSession.revoked_at,
        UserSession.acts,
        User.locale,
        User.time_zone,
        _ALL.version.label("every_member"),
        _MINE.version.label("mine"),
        _GMS.version.label("game_masters"),
        _USER.version.label("own_user"),
        _NOWHERE.version.label("nowhere"),
    )
    .join(User, User.id == UserSession.user_id)
    .outerjoin(Campaign, Campaign.id == _CID)
    .outerjoin(Player, and_(Player.campaign_id == _CID, Player.user_id == UserSession.user_id))
    .outerjoin(GameMaster, and_(GameMaster.campaign_id == _CID, GameMaster.user_id == UserSession.user_id))
    .outerjoin(_ALL, and_(_ALL.campaign_id == _CID, _ALL.seat == EVERYONE))
    .outerjoin(_MINE, and_(_MINE.campaign_id == _CID, _MINE.seat == Player.id))
    .outerjoin(
        _GMS,
        and_(
            _GMS.campaign_id == _CID,
            _GMS.seat == GAME_MASTERS,
            or_(Campaign.gm_user_id == UserSession.user_id, GameMaster.id.is_not(None)),
        ),
    )
    .outerjoin(_USER, and_(_USER.campaign_id == _CID, _USER.seat == user_seat(UserSession.user_id)))
    .outerjoin(_NOWHERE, and_(_NOWHERE.campaign_id == EVERYWHERE, _NOWHERE.seat == EVERYONE))
    .where(UserSession.token_hash == bindparam("token_hash"))
)
_CHECK = _KEY.execution_options(revalidation_check=True)


def viewer_key(app, token: str, campaign_id: int, check_only: bool = False) -> Hashable | None:
    """None where the page must be drawn: no live session, or one its login would end or
    touch (the login does that, app/accounts/service.py). The key holds besides the catalog's
    generation: pages show what it says, and an imported file changes it with no write."""
    params = {"token_hash": token_digest(app.state.secret_key, token), "campaign_id": campaign_id}
    with app.state.engine.connect() as connection:
        row = connection.execute(_CHECK if check_only else _KEY, params).first()
    if row is None:
        return None
    now = utcnow()
    if session_over(row, app.state.settings, now) or rules.session_needs_touch(last_seen_at=aware(row.last_seen_at), now=now):
        return None
    catalog = app.state.catalog
    catalog.get()  # reloaded if its files changed: the shop's prices and names are the catalog's
    return (
        campaign_id,
        row.user_id,
        row.acts,
        row.locale,
        row.time_zone,
        row.every_member,
        row.mine,
        row.game_masters,
        row.own_user,
        row.nowhere,
        catalog.generation,
    )
