"""API keys and seat tokens: random, stored only as hashes, compared in constant time, never logged.

Keys and tokens carry 256 random bits (`secrets.token_urlsafe(32)`). The database keeps their
SHA-256: a leaked database yields no usable credential, and a lookup by hash is an index hit.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import secrets

KEY_BYTES = 32
"""≥ 128 bits required (protocol.md §5); 256 used."""

API_KEY_PREFIX = "clk_"
SEAT_TOKEN_PREFIX = "cls_"


def new_api_key() -> str:
    return API_KEY_PREFIX + secrets.token_urlsafe(KEY_BYTES)


def new_seat_token() -> str:
    return SEAT_TOKEN_PREFIX + secrets.token_urlsafe(KEY_BYTES)


def digest(secret: str) -> str:
    """The stored form of a key or token."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def matches(secret: str | None, stored_digest: str | None) -> bool:
    """Constant-time check of a presented secret against a stored digest."""
    if not secret or not stored_digest:
        return False
    return hmac.compare_digest(digest(secret), stored_digest)


def bearer(header: str | None) -> str | None:
    """The key of an ``Authorization: Bearer KEY`` header, or None."""
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()


_SECRET_RE = re.compile(r"((?:token|key)=)[^&\s\"']+|\b(cl[ks]_)[A-Za-z0-9_\-]{16,}"
                        r"|(://[^:/@\s]*:)[^@\s/]+(?=@)")


def redact(text: str) -> str:
    """Replace anything that looks like a key or token (query parameters included) or the
    password of a URL (a database URL's ``user:password@``)."""
    return _SECRET_RE.sub(lambda m: (m.group(1) or m.group(2) or m.group(3)) + "[redacted]",
                          text)


_DONE = "_cogleague_redacted"
"""Set on a record once redacted: the next filter it passes (the handler's, after the
logger's) leaves it as it is."""


class RedactSecrets(logging.Filter):
    """On the server's and uvicorn's loggers and handlers (`install_log_redaction`): WebSocket
    URLs carry the seat token in their query. A record is redacted by the first of these
    filters it meets (a record of a logger made after start-up: by a handler's) and marked,
    so the work is done once per record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, _DONE, False):
            return True
        setattr(record, _DONE, True)
        try:  # the message as a handler would write it: a secret may span msg and args
            message = record.getMessage()
        except (TypeError, ValueError, KeyError):
            message = None  # malformed: the handler reports it, as without this filter
        clean = None if message is None else redact(message)
        if clean != message:
            msg, args = record.msg, record.args
            record.msg = redact(msg) if isinstance(msg, str) else msg
            if isinstance(args, tuple):  # kept a tuple: uvicorn's access formatter reads it
                record.args = tuple(redact(a) if isinstance(a, str) else a for a in args)
            if record.getMessage() != clean:  # the secret was not in one string alone
                record.msg, record.args = clean, None
        if record.exc_info and not record.exc_text:  # a traceback ends with the message
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


_REDACTED_LOGGERS = ("cogleague", "uvicorn")


def install_log_redaction() -> None:
    """Filter every record of the server's loggers before any handler writes it.

    A logger's filters see only the records logged on that logger, not those propagated from
    its children (the server logs on `cogleague.server`), so the filter goes on every logger of
    those trees that exists now (the server's modules are imported) and on the handlers that
    would write the rest: those of these loggers and the root's, and Python's last resort."""
    names = [n for n in logging.root.manager.loggerDict
             if any(n == p or n.startswith(p + ".") for p in _REDACTED_LOGGERS)]
    loggers = [logging.getLogger(n) for n in {*_REDACTED_LOGGERS, "uvicorn.error",
                                              "uvicorn.access", *names}]
    targets: list[logging.Filterer] = [*loggers]
    targets += [h for log in [*loggers, logging.root] for h in log.handlers]
    if logging.lastResort is not None:
        targets.append(logging.lastResort)
    for target in targets:
        if not any(isinstance(f, RedactSecrets) for f in target.filters):
            target.addFilter(RedactSecrets())
