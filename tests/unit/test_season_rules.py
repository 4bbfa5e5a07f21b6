"""The season's timing rules (issue 19), pure: a deadline lies ahead within a season's reach,
counts only for its own round and phase, the auto-advance does what the GM's switch would,
the "near" note and the day's digest fall due at the right moments."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core.errors import DomainError
from app.season import rules

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def test_issue19_a_deadline_lies_ahead_and_within_a_year():
    assert rules.check_deadline(NOW + timedelta(minutes=1, microseconds=5), NOW) == NOW + timedelta(minutes=1)
    for past in (NOW, NOW - timedelta(seconds=1)):
        with pytest.raises(DomainError) as exc:
            rules.check_deadline(past, NOW)
        assert exc.value.code == "deadline_past"
    with pytest.raises(DomainError) as exc:
        rules.check_deadline(NOW + timedelta(days=rules.MAX_AHEAD_DAYS, seconds=1), NOW)
    assert exc.value.code == "deadline_too_far"


def test_issue19_any_offset_is_the_same_moment_in_utc_and_naive_is_utc():
    warsaw = datetime(2026, 12, 3, 19, 0, tzinfo=timezone(timedelta(hours=1)))
    assert rules.check_deadline(warsaw, NOW) == datetime(2026, 12, 3, 18, 0, tzinfo=UTC)
    assert rules.utc(datetime(2026, 12, 3, 18, 0)) == datetime(2026, 12, 3, 18, 0, tzinfo=UTC)
    assert rules.iso(warsaw) == "2026-12-03T18:00:00Z" and rules.utc_text(warsaw) == "2026-12-03 18:00 UTC"


def test_issue19_a_deadline_counts_only_in_its_own_running_round_and_phase():
    assert rules.current(2, "orders", "running", 2, "orders")
    assert not rules.current(2, "orders", "running", 2, "battles")
    assert not rules.current(1, "orders", "running", 2, "orders")
    assert not rules.current(2, "orders", "finished", 2, "orders")


def test_issue19_the_auto_advance_does_what_the_gms_switch_does():
    """R2.1-R2.3: each phase to the next; after Twilight, End round (None)."""
    steps = {p: rules.advance_step(p) for p in ("preparation", "orders", "battles", "settlement", "twilight")}
    assert steps == {
        "preparation": "orders",
        "orders": "battles",
        "battles": "settlement",
        "settlement": "twilight",
        "twilight": None,
    }


def test_issue19_near_is_the_last_window_before_the_deadline_and_not_after():
    ends = NOW + timedelta(hours=2)
    assert not rules.near(ends, NOW, 60)
    assert rules.near(ends, ends - timedelta(minutes=60), 60)
    assert rules.near(ends, ends - timedelta(seconds=1), 60)
    assert not rules.near(ends, ends, 60)
    assert rules.noted_at_setting(NOW + timedelta(minutes=30), NOW, 60) == NOW  # set inside it: said already
    assert rules.noted_at_setting(NOW + timedelta(minutes=90), NOW, 60) is None


def test_issue19_the_digest_is_due_once_a_day_from_its_hour():
    assert not rules.digest_due(NOW.replace(hour=6), None, 7)
    assert rules.digest_due(NOW.replace(hour=7), None, 7)
    assert not rules.digest_due(NOW, NOW.date(), 7)
    assert rules.digest_due(NOW, NOW.date() - timedelta(days=1), 7)
    assert not rules.digest_due(NOW, date(2026, 12, 2), 7)  # a clock set back: never twice


@given(st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1)), st.integers(0, 23), st.integers(0, 23))
def test_issue19_at_most_one_digest_per_day_whatever_the_moment(moment, hour, other):
    now = moment.replace(tzinfo=UTC)
    if rules.digest_due(now, None, hour):
        assert not rules.digest_due(now.replace(hour=max(now.hour, other)), now.date(), hour)


def test_issue19_an_email_address_is_checked_for_typos_only():
    assert rules.check_email("  anna@example.org ") == "anna@example.org"
    for bad in (
        "anna",
        "anna@",
        "@example.org",
        "anna@localhost",
        "an na@example.org",
        "a<b>@example.org",
        "a@b@example.org,c@example.org",
        "x" * 250 + "@example.org",
    ):
        with pytest.raises(DomainError) as exc:
            rules.check_email(bad)
        assert exc.value.code == "email_invalid", bad
