"""Every table, imported in one place for Alembic and the tests."""

import app.archive.models
import app.audit.models
import app.exports.models
import app.idempotency.models
import app.people.models
import app.season.models
import app.webhooks.models  # noqa: F401
from app.accounts.models import ApiToken, LoginFailure, User, UserSession  # noqa: F401
from app.alliances.models import Alliance, AllianceMember  # noqa: F401
from app.battles.models import Arrival, Battle, BattleConfirmation, BattlePhoto, BattleWarband, ConfirmLink  # noqa: F401
from app.campaigns.models import Campaign, Invitation, Player  # noqa: F401
from app.chronicle.models import ChronicleEntry  # noqa: F401
from app.clock.models import BattleClock  # noqa: F401
from app.companies.models import Company, CompanyItem, CompanyModel  # noqa: F401
from app.core.db import SQLModel
from app.events.models import Event  # noqa: F401
from app.gold.models import LedgerEntry, Transfer  # noqa: F401
from app.guilds.models import Guild, GuildMember, GuildRequest, GuildRoundMember  # noqa: F401
from app.letters.models import Letter  # noqa: F401
from app.live.models import LiveAudience, LiveEvent  # noqa: F401
from app.maps.models import Hideout, Path, Place  # noqa: F401
from app.rounds.models import TwilightChoice  # noqa: F401
from app.settlement.models import Ransom, Settlement  # noqa: F401
from app.versions.models import CampaignVersion  # noqa: F401
from app.warbands.models import Order, Warband, WarbandMember  # noqa: F401

metadata = SQLModel.metadata
