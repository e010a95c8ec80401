"""A small async client for the server's HTTP API (protocol.md §2), used by `cogleague bot run`,
the tests and the load benchmark. Errors come back as `LobbyError` with the protocol's code."""

from __future__ import annotations

from typing import Any, TypedDict, cast

import httpx


class SeatGrant(TypedDict):
    """A seat and the token that plays it (`POST /tables/{id}/reclaim`): the token is shown
    once, and the seat's earlier token stops working."""

    table: str
    seat: int
    alias: str
    token: str
    kind: str


class LobbyError(RuntimeError):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{code}: {message} (HTTP {status})")
        self.status = status
        self.code = code
        self.message = message


class LobbyClient:
    """``async with LobbyClient("http://127.0.0.1:8000", key) as lobby: …``"""

    def __init__(self, server: str, key: str | None = None, timeout: float = 30.0) -> None:
        self.server = server.rstrip("/")
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        # Plain http needs no TLS context (building one costs ~0.1 s per client).
        plain = self.server.startswith("http://")
        self.http = httpx.AsyncClient(base_url=self.server, headers=headers, timeout=timeout,
                                      verify=not plain, trust_env=not plain)

    async def __aenter__(self) -> LobbyClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.http.aclose()

    async def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        response = await self.http.request(method, path, json=body)
        if response.status_code >= 400:
            try:
                err = response.json()["error"]
                code, message = err["code"], err["message"]
            except (ValueError, KeyError, TypeError):
                code, message = "http_error", response.text[:200]
            raise LobbyError(response.status_code, code, message)
        return response.json()

    # -- accounts ------------------------------------------------------------------------------
    async def create_account(self, name: str, credits: int = 0) -> dict[str, Any]:
        return await self.request("POST", "/accounts", {"name": name, "credits": credits})

    async def grant(self, account_id: int, amount: int, idempotency_key: str) -> dict[str, Any]:
        return await self.request("POST", f"/accounts/{account_id}/credits",
                                  {"amount": amount, "idempotency_key": idempotency_key})

    async def wallet(self) -> dict[str, Any]:
        return await self.request("GET", "/wallet")

    # -- tables --------------------------------------------------------------------------------
    async def games(self) -> list[dict[str, Any]]:
        return (await self.request("GET", "/games"))["games"]

    async def create_table(self, game: str, **fields: Any) -> dict[str, Any]:
        return await self.request("POST", "/tables", {"game": game, **fields})

    async def table(self, table_id: str) -> dict[str, Any]:
        return await self.request("GET", f"/tables/{table_id}")

    async def tables(self, state: str | None = None) -> list[dict[str, Any]]:
        path = "/tables" + (f"?state={state}" if state else "")
        return (await self.request("GET", path))["tables"]

    async def join(self, table_id: str, kind: str = "remote", **fields: Any) -> dict[str, Any]:
        return await self.request("POST", f"/tables/{table_id}/join", {"kind": kind, **fields})

    async def reclaim(self, table_id: str) -> SeatGrant:
        """Take back the seat this account holds at an open or running table with a fresh
        token (a bot that restarted without its token); the old token is refused from now on.
        `LobbyError` ``not_found`` when the account holds no seat there, ``wrong_state`` once
        the table ended."""
        return cast(SeatGrant, await self.request("POST", f"/tables/{table_id}/reclaim"))

    async def leave(self, table_id: str) -> dict[str, Any]:
        return await self.request("POST", f"/tables/{table_id}/leave")

    async def start(self, table_id: str) -> dict[str, Any]:
        return await self.request("POST", f"/tables/{table_id}/start")

    async def abort(self, table_id: str, detail: str | None = None) -> dict[str, Any]:
        return await self.request("POST", f"/tables/{table_id}/abort",
                                  {"detail": detail} if detail else None)

    async def results(self, table_id: str) -> dict[str, Any]:
        return await self.request("GET", f"/tables/{table_id}/results")

    async def replay(self, table_id: str) -> dict[str, Any]:
        return await self.request("GET", f"/tables/{table_id}/replay")
