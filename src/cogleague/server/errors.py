"""The one error shape of the HTTP API (protocol.md §2).

``{"error": {"code": …, "message": …}}`` with a fitting HTTP status.
"""

from __future__ import annotations

CODES = ("bad_request", "unauthorized", "forbidden", "not_found", "table_full", "already_seated",
         "insufficient_funds", "wrong_state", "rate_limited", "too_large")


class ApiError(Exception):
    """Raised anywhere below a request handler; the app turns it into the error document."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        if code not in CODES:
            raise ValueError(f"code must be one of {', '.join(CODES)} (got {code!r})")
        self.status = status
        self.code = code
        self.message = message

    def to_json(self) -> dict[str, dict[str, str]]:
        return {"error": {"code": self.code, "message": self.message}}
