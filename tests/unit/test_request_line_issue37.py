"""Issue 37, R11.5: the request line is written straight to the log handler's stream, and it is
the very line `log.info("request", ...)` writes through the standard library: the same text in
either format, the same level filter."""

import re

import pytest
import structlog

from app.core import logging as hideout_logging

FIELDS = {"method": "GET", "path": "/campaigns/1", "status": 200, "duration_ms": 4.2}


def _lines(capsys) -> list[str]:
    return [re.sub(r"\d{4}-\d\d-\d\dT[\d:.]+Z", "<time>", line) for line in capsys.readouterr().err.splitlines()]


@pytest.fixture
def restore_logging(settings):
    yield
    hideout_logging.configure_logging(json=settings.log_json, level=settings.log_level)


@pytest.mark.parametrize("json", [False, True])
def test_r11_5_the_request_line_is_the_line_the_logger_writes(json, capsys, restore_logging):
    hideout_logging.configure_logging(json=json)
    capsys.readouterr()
    with structlog.contextvars.bound_contextvars(request_id="0123456789abcdef"):
        for method in ("info", "error"):
            getattr(hideout_logging.log, method)("request", **FIELDS)
            hideout_logging._log_request(method, **FIELDS)
    through_logging, straight, error_through_logging, error_straight = _lines(capsys)
    assert straight == through_logging and error_straight == error_through_logging
    assert "request_id" in straight and "0123456789abcdef" in straight and straight != error_straight


def test_r11_5_the_request_line_keeps_the_level(capsys, restore_logging):
    hideout_logging.configure_logging(level="WARNING")
    capsys.readouterr()
    hideout_logging._log_request("info", **FIELDS)
    assert _lines(capsys) == []
    hideout_logging._log_request("error", **FIELDS)
    [line] = _lines(capsys)
    assert "[error" in line and "status=200" in line
