"""R11.5: login waits grow and end (no lockout); sessions end when idle or too old; waits are
said in the reader's language."""

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from app.accounts import rules
from app.core.errors import Duration, message_for
from app.core.i18n import translations

NOW = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)
PAIR = rules.Throttle(free=5, first_wait=timedelta(seconds=30), max_wait=timedelta(minutes=15))


def wait(failures: int, seconds_ago: float = 0) -> int:
    return rules.throttle_wait(PAIR, failures=failures, last_failure=NOW - timedelta(seconds=seconds_ago), now=NOW)


def test_r11_5_free_failures_then_a_wait_that_doubles_up_to_the_cap():
    assert [wait(n) for n in range(5)] == [0, 0, 0, 0, 0]
    assert [wait(n) for n in range(5, 12)] == [30, 60, 120, 240, 480, 900, 900]
    assert wait(10_000) == 900  # huge counts neither overflow nor lock for longer


def test_r11_5_the_wait_runs_from_the_last_failure_and_ends():
    assert wait(6, seconds_ago=45) == 15
    assert wait(6, seconds_ago=60) == 0
    assert wait(50, seconds_ago=900) == 0
    assert rules.throttle_wait(PAIR, failures=9, last_failure=None, now=NOW) == 0


@given(st.integers(min_value=0, max_value=500), st.floats(min_value=0, max_value=3600))
def test_r11_5_a_wait_is_never_longer_than_the_cap(failures, seconds_ago):
    assert 0 <= wait(failures, seconds_ago) <= 900


def test_r11_5_a_session_ends_when_idle_or_too_old():
    idle, max_age = timedelta(days=30), timedelta(days=90)

    def expired(created_days_ago: float, seen_days_ago: float) -> bool:
        return rules.session_expired(
            created_at=NOW - timedelta(days=created_days_ago),
            last_seen_at=NOW - timedelta(days=seen_days_ago),
            now=NOW,
            idle=idle,
            max_age=max_age,
        )

    assert not expired(0, 0)
    assert not expired(89, 29)
    assert expired(40, 30)  # idle 30 days
    assert expired(90, 0)  # 90 days old, even if used a minute ago
    assert expired(3650, 0)  # the ten-year-old session


def test_r11_5_last_seen_is_written_at_most_every_few_minutes():
    assert not rules.session_needs_touch(last_seen_at=NOW - timedelta(minutes=4, seconds=59), now=NOW)
    assert rules.session_needs_touch(last_seen_at=NOW - timedelta(minutes=5), now=NOW)


def test_r11_3_r11_5_the_wait_is_said_in_seconds_or_minutes_in_the_readers_language():
    en, pl = translations("en").gettext, translations("pl").gettext
    assert Duration(1).text(en) == "1 second" and Duration(45).text(en) == "45 seconds"
    assert Duration(119).text(en) == "119 seconds" and Duration(121).text(en) == "3 minutes"
    assert Duration(900).text(en) == "15 minutes"
    assert [Duration(s).text(pl) for s in (1, 2, 5, 22, 60)] == ["1 sekundę", "2 sekundy", "5 sekund", "22 sekundy", "60 sekund"]
    assert [Duration(s).text(pl) for s in (120, 180, 300, 900)] == ["2 minuty", "3 minuty", "5 minut", "15 minut"]
    assert message_for("login_throttled", {"wait": Duration(240)}, en) == "Too many failed logins. Try again in 4 minutes."
    assert message_for("login_throttled", {"wait": Duration(30)}, pl) == (
        "Zbyt wiele nieudanych logowań. Spróbuj ponownie za 30 sekund."
    )
