"""Secrets never reach a log handler: the redaction filter sees every record of the server's
loggers, including the records of child loggers (`cogleague.server`, where the server code
logs), which Python does not pass through a parent logger's filters when they propagate."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import pytest

from cogleague.server.auth import install_log_redaction, new_api_key, new_seat_token


@pytest.fixture
def captured() -> Iterator[io.StringIO]:
    """A handler on the `cogleague` logger (where a deployment's handler would sit)."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    parent = logging.getLogger("cogleague")
    parent.addHandler(handler)
    level = parent.level
    parent.setLevel(logging.INFO)
    try:
        yield out
    finally:
        parent.removeHandler(handler)
        parent.setLevel(level)


def test_a_secret_logged_by_the_server_logger_is_redacted(captured: io.StringIO) -> None:
    install_log_redaction()
    key, token = new_api_key(), new_seat_token()
    server_log = logging.getLogger("cogleague.server")  # as the server's modules log
    server_log.warning("seat joined with %s", token)
    server_log.warning("GET /v1/tables/1/ws?token=hunter2secret&x=1 by %s", key)
    text = captured.getvalue()
    assert "seat joined with" in text and "GET /v1/tables" in text, text
    assert token not in text and key not in text and "hunter2secret" not in text, text


def test_a_logger_made_after_the_filter_is_installed_is_redacted(
        captured: io.StringIO) -> None:
    install_log_redaction()
    token = new_seat_token()
    logging.getLogger("cogleague.later.made.child").warning("token %s", token)
    text = captured.getvalue()
    assert "token" in text and token not in text, text


def test_a_database_urls_password_is_redacted(captured: io.StringIO) -> None:
    install_log_redaction()
    logging.getLogger("cogleague.server").warning(
        "database %s unreachable", "postgresql+psycopg://league:hunter2-pw@db:5432/league")
    text = captured.getvalue()
    assert "postgresql+psycopg://league:[redacted]@db:5432/league" in text, text


def test_secrets_inside_exceptions_and_tracebacks_are_redacted(captured: io.StringIO) -> None:
    install_log_redaction()
    token = new_seat_token()
    log = logging.getLogger("cogleague.server")
    error = ValueError(f"GET https://llm.example/v1?key=sk-hunter2 for {token}")
    log.warning("provider failed: %s (%d tries)", error, 3)
    try:
        raise error
    except ValueError:
        log.exception("provider crashed")
    text = captured.getvalue()
    assert "provider failed: GET https://llm.example/v1?key=[redacted]" in text, text
    assert "(3 tries)" in text and "Traceback" in text and "ValueError: GET" in text, text
    assert "sk-hunter2" not in text and token not in text, text


def test_mapping_arguments_stay_a_mapping(captured: io.StringIO) -> None:
    install_log_redaction()
    logging.getLogger("cogleague.server").warning(
        "%(who)s joined %(url)s", {"who": "ann", "url": "/ws?token=abc123"})
    assert "ann joined /ws?token=[redacted]" in captured.getvalue(), captured.getvalue()


def test_a_key_split_between_the_message_and_its_arguments_is_redacted(
        captured: io.StringIO) -> None:
    install_log_redaction()
    key = new_api_key()
    logging.getLogger("cogleague.server").warning("key clk_%s", key.removeprefix("clk_"))
    assert "key clk_[redacted]" in captured.getvalue(), captured.getvalue()


def test_uvicorns_access_line_keeps_its_arguments(captured: io.StringIO) -> None:
    """uvicorn's access formatter unpacks the record's arguments: they stay a tuple."""
    from uvicorn.logging import AccessFormatter

    install_log_redaction()
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(AccessFormatter('%(client_addr)s "%(request_line)s" %(status_code)s',
                                         use_colors=False))
    access = logging.getLogger("uvicorn.access")
    access.addHandler(handler)
    level = access.level
    access.setLevel(logging.INFO)
    try:
        access.info('%s - "%s %s HTTP/%s" %d', "1.2.3.4:5", "GET", "/ws?token=abc123", "1.1",
                    101)
    finally:
        access.removeHandler(handler)
        access.setLevel(level)
    assert out.getvalue().startswith('1.2.3.4:5 "GET /ws?token=[redacted] HTTP/1.1" 101'), \
        out.getvalue()


def test_a_record_is_redacted_once_however_many_filters_it_passes(
        captured: io.StringIO, monkeypatch: pytest.MonkeyPatch) -> None:
    """The logger's filter and the handler's both see a record of `cogleague.server`: the
    second finds it done (a record's scan costs a regex pass over its message and traceback,
    on every line the server logs)."""
    from cogleague.server import auth

    install_log_redaction()
    seen: list[str] = []
    real = auth.redact

    def counting(text: str) -> str:
        seen.append(text)
        return real(text)

    monkeypatch.setattr(auth, "redact", counting)
    server_log = logging.getLogger("cogleague.server")
    server_log.warning("a plain line")
    assert seen == ["a plain line"], seen
    seen.clear()
    try:
        raise ValueError("boom")
    except ValueError:
        server_log.exception("it failed")
    assert len(seen) == 2 and seen[0] == "it failed", seen  # the message, the traceback
    seen.clear()
    token = new_seat_token()
    logging.getLogger("cogleague.made.after.start").warning("token %s", token)
    # a logger made later: its record is redacted at the handler, in one pass (the whole
    # message, then its format and argument)
    assert seen == [f"token {token}", "token %s", token], seen
    text = captured.getvalue()
    assert "a plain line" in text and "boom" in text and token not in text, text
