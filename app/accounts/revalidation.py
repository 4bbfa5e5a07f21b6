"""The viewer's key of a campaign page's cheap revalidation (issue 37, app/core/revalidation.py),
read in one statement from the session cookie: who is asking and what they may see of the
campaign has changed exactly when this key has."""

from __future__ import annotations

from collections.abc import Hashable

from sqlalchemy import and_, bindparam, select
from sqlalchemy.orm import aliased

from app.accounts import rules
from app.accounts.models import User, UserSession
from app.accounts.service import session_over
from app.core.db import aware, utcnow
from app.core.security import token_digest
from app.versions.audience import EVERYONE  # its listeners move the counters read here
from app.versions.models import AudienceVersion

_ALL = aliased(AudienceVersion, name="every_member")
_MINE = aliased(AudienceVersion, name="mine")
_NOWHERE = aliased(AudienceVersion, name="nowhere")
# The login's row (as app/accounts/service.py reads it) and the three counters the viewer
# sees by: the campaign's every member's, the viewer's own, the changes placed nowhere.
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
        _NOWHERE.version.label("nowhere"),
    )
    .join(User, User.id == UserSession.user_id)
    .outerjoin(_ALL, and_(_ALL.campaign_id == bindparam("campaign_id"), _ALL.user_id == EVERYONE))
    .outerjoin(_MINE, and_(_MINE.campaign_id == bindparam("campaign_id"), _MINE.user_id == UserSession.user_id))
    .outerjoin(_NOWHERE, and_(_NOWHERE.campaign_id == 0, _NOWHERE.user_id == EVERYONE))
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
        row.nowhere,
        catalog.generation,
    )
