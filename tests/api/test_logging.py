"""R11.5: one log line per request (request id, method, path, status, time in ms); an
unexpected error answers 500 with the request id and logs its traceback once, without local
variables (R11.2: they may hold passwords or tokens); every answer carries X-Request-ID."""

import json
import re

import pytest
from starlette.testclient import TestClient

from app.core.logging import configure_logging
from app.main import create_app

SECRET = "hunter2-local-value"
PAIRS = re.compile(r"(\w+)=(\S+)")


def _fields(line: str) -> dict[str, str]:
    return dict(PAIRS.findall(line))


def _console_requests(err: str) -> list[dict[str, str]]:
    return [_fields(line) for line in err.splitlines() if re.search(r"\]\s+request\s", line)]


@pytest.fixture
def broken_app(settings):
    """An app of its own with routes that fail, so the shared app's route list (which the
    secrecy matrix walks) stays as it is; logging is set back afterwards."""

    def make(**overrides):
        app = create_app(settings.model_copy(update=overrides))

        @app.get("/api/v1/test-only/boom")
        def api_boom():
            password = SECRET  # noqa: F841 — a local that must not reach the log
            raise RuntimeError("the route broke")

        @app.get("/test-only/boom")
        def page_boom():
            token = SECRET  # noqa: F841
            raise RuntimeError("the page broke")

        made.append(app)
        return TestClient(app, base_url="http://testserver")

    made = []
    yield make
    for app in made:
        app.state.engine.dispose()
    configure_logging(json=settings.log_json, level=settings.log_level)


def test_r11_5_one_request_line_per_request_with_its_fields(client, capsys):
    capsys.readouterr()
    answers = [client.get("/login"), client.get("/api/v1/me"), client.post("/api/v1/users", json={})]
    lines = _console_requests(capsys.readouterr().err)
    assert len(lines) == 3
    for line, answer, (method, path) in zip(
        lines, answers, [("GET", "/login"), ("GET", "/api/v1/me"), ("POST", "/api/v1/users")]
    ):
        assert line["request_id"] == answer.headers["X-Request-ID"]
        assert (line["method"], line["path"], line["status"]) == (method, path, str(answer.status_code))
        assert float(line["duration_ms"]) >= 0


def test_r11_5_every_answer_carries_a_request_id_and_a_safe_incoming_one_is_kept(client):
    ids = {client.get(path).headers["X-Request-ID"] for path in ("/", "/api/v1/me", "/nowhere", "/static/style.css")}
    assert len(ids) == 4 and all(re.fullmatch(r"[0-9a-f]{16}", i) for i in ids)
    assert client.get("/", headers={"X-Request-ID": "club-bot.42_a"}).headers["X-Request-ID"] == "club-bot.42_a"
    for unsafe in ("two words", "x" * 65, "<script>", 'id"quote', "-leading-dash"):
        kept = client.get("/", headers={"X-Request-ID": unsafe}).headers["X-Request-ID"]
        assert kept != unsafe and re.fullmatch(r"[0-9a-f]{16}", kept)


def test_r11_2_r11_5_an_unexpected_api_error_is_500_with_the_request_id_and_one_traceback_without_locals(broken_app, capsys):
    broken = broken_app(log_json=True)
    capsys.readouterr()
    r = broken.get("/api/v1/test-only/boom")
    err = capsys.readouterr().err
    assert r.status_code == 500
    request_id = r.headers["X-Request-ID"]
    assert r.json() == {
        "error": {
            "code": "internal_error",
            "message": "Something went wrong on the server. Please try again.",
            "details": [],
            "request_id": request_id,
        }
    }
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    records = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    assert err.count("Traceback (most recent call last)") == 1
    [failure] = [rec for rec in records if "exception" in rec]
    assert failure["request_id"] == request_id and "RuntimeError: the route broke" in failure["exception"]
    [line] = [rec for rec in records if rec["event"] == "request"]
    assert (line["request_id"], line["method"], line["path"], line["status"]) == (
        request_id,
        "GET",
        "/api/v1/test-only/boom",
        500,
    )
    assert isinstance(line["duration_ms"], float)
    assert SECRET not in err and SECRET not in r.text


def test_r11_5_an_unexpected_page_error_shows_the_request_id_in_the_users_language(broken_app, capsys):
    broken = broken_app()
    capsys.readouterr()
    r = broken.get("/test-only/boom", headers={"Accept-Language": "pl"})
    err = capsys.readouterr().err
    assert r.status_code == 500 and "text/html" in r.headers["content-type"]
    request_id = r.headers["X-Request-ID"]
    assert f"Identyfikator żądania: {request_id}" in r.text
    assert err.count("Traceback (most recent call last)") == 1 and "RuntimeError: the page broke" in err
    assert SECRET not in err and SECRET not in r.text
    [line] = _console_requests(err)
    assert (line["request_id"], line["status"]) == (request_id, "500")
    partial = broken.get("/test-only/boom", headers={"HX-Request": "true"})
    assert partial.status_code == 500 and partial.headers["X-Request-ID"] in partial.text and "<html" not in partial.text


def test_r11_5_console_lines_are_readable_and_json_lines_parse(broken_app, capsys):
    console = broken_app()
    capsys.readouterr()
    console.get("/login")
    [plain] = [line for line in capsys.readouterr().err.splitlines() if "path=/login" in line]
    assert not plain.startswith("{") and "[info" in plain
    as_json = broken_app(log_json=True)
    capsys.readouterr()
    as_json.get("/login")
    [record] = [json.loads(line) for line in capsys.readouterr().err.splitlines() if '"/login"' in line]
    assert record["event"] == "request" and record["level"] == "info" and record["status"] == 200
