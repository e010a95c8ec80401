"""The one error shape of the HTTP API (protocol.md §2).

``{"error": {"code": …, "message": …}}`` with a fitting HTTP status.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

CODES = ("bad_request", "unauthorized", "forbidden", "not_found", "table_full", "already_seated",
         "insufficient_funds", "wrong_state", "rate_limited", "too_large", "bad_text")


class ErrorDetail(BaseModel):
    code: str
    message: str


class ErrorDocument(BaseModel):
    """``{"error": {"code", "message"}}`` — every error the HTTP API returns."""

    error: ErrorDetail


_WHY = {400: "a value is out of range or malformed (the message names the field)",
        401: "no API key, or an unknown one", 402: "the wallet cannot cover the stake",
        403: "the key may not do this", 404: "no such table, account or document",
        409: "the table or account is in the wrong state for this",
        413: "the request body is over the size limit",
        429: "a per-account limit is reached (a sign-in: too many failures for the name)"}


def responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI declarations of the error statuses a route can return (`ErrorDocument`)."""
    return {s: {"model": ErrorDocument, "description": _WHY[s]} for s in statuses}


class ApiError(Exception):
    """Raised anywhere below a request handler; the app turns it into the error document."""

    def __init__(self, status: int, code: str, message: str,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        if code not in CODES:
            raise ValueError(f"code must be one of {', '.join(CODES)} (got {code!r})")
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}  # e.g. a 429's Retry-After

    def to_json(self) -> dict[str, dict[str, str]]:
        return {"error": {"code": self.code, "message": self.message}}
