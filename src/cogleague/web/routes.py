"""The web front's routes: the four pages, their static files, and the small JSON endpoints the
pages need that the table server does not already offer.

`cogleague serve` includes `router` into the server app; `cogleague replay open` includes it
into a tiny loopback app (`replay_server.py`). Pages are static HTML + ES modules; everything
dynamic is fetched from JSON endpoints:

- `GET /api/games` — every installed game's descriptor, public part (replay format, viewer);
- `GET /static/js/games/{name}.js` — a game's Theater module (`GameDescriptor.viewer`);
- `GET /api/replay-file` — the one replay `cogleague replay open FILE` serves (404 elsewhere);
- `GET /api/standings?game=` — standings per game from finished tables (`standings.py`);
- `GET /api/docs` and `GET /api/docs/{name}` — the rules pages and the protocol page, rendered
  from Markdown (`docs.py`).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import FileResponse, JSONResponse

from cogleague.core.errors import ConfigError
from cogleague.games import registry
from cogleague.server.cache import SharedReads
from cogleague.web import docs, standings

STATIC_DIR = Path(__file__).parent / "static"
PAGES = {
    "/": "index.html",
    "/lobby": "index.html",
    "/theater": "theater.html",
    "/observatory": "observatory.html",
    "/rules": "rules.html",
    "/play": "play.html",
    "/signin": "signin.html",
    "/signup": "signup.html",
    "/me": "me.html",
}
_CONTENT_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
                  ".html": "text/html; charset=utf-8", ".svg": "image/svg+xml",
                  ".png": "image/png", ".json": "application/json"}
NO_CACHE = {"Cache-Control": "no-cache"}
"""Pages and modules revalidate on every load, so a new version is never mixed with an old one."""

REPLAY_FILE_STATE = "cogleague_replay_file"
"""`app.state` attribute holding the path `cogleague replay open` serves."""

router = APIRouter()


def _page(name: str) -> Any:
    async def page() -> FileResponse:
        return FileResponse(STATIC_DIR / name, media_type=_CONTENT_TYPES[".html"],
                            headers=NO_CACHE)
    page.__name__ = f"page_{name.split('.')[0]}"
    return page


for _path, _file in PAGES.items():
    router.add_api_route(_path, _page(_file), methods=["GET"], include_in_schema=False)


@router.get("/static/js/games/{name}.js", include_in_schema=False)
async def game_viewer(name: str) -> FileResponse:
    """A game's Theater module, wherever its package keeps it (`GameDescriptor.viewer`)."""
    try:
        viewer = registry.get(name).viewer
    except ConfigError:
        viewer = None
    if viewer is None or not Path(viewer).is_file():
        raise HTTPException(404, f"game {name!r} has no viewer module")
    return FileResponse(viewer, media_type=_CONTENT_TYPES[".js"], headers=NO_CACHE)


@router.get("/api/games", tags=["web"])
async def api_games() -> JSONResponse:
    """Every installed game's public description: replay format, viewer module, rule numbers,
    what its score is called (`score_label`: the Play page's end banner names the unit) and its
    standings columns (the season pages label and format an agent's traits with them)."""
    return JSONResponse({"games": [{**d.describe(), "score_label": d.score_label,
                                    "standings_columns": [c.to_json()
                                                          for c in d.standings_columns]}
                                   for d in registry.available()]})


@router.get("/static/{path:path}", include_in_schema=False)
async def static_file(path: str) -> FileResponse:
    """Files under `static/` only: a path that resolves outside it is not found."""
    target = (STATIC_DIR / path).resolve()
    if not target.is_file() or not target.is_relative_to(STATIC_DIR.resolve()):
        raise HTTPException(404, f"no static file {path!r}")
    media = _CONTENT_TYPES.get(target.suffix, "application/octet-stream")
    return FileResponse(target, media_type=media, headers=NO_CACHE)


def _errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The error statuses a route declares (the server renders them as its error document)."""
    return {s: {"description": {400: "a bad parameter", 404: "not found"}[s],
                "content": {"application/json": {}}} for s in statuses}


@router.get("/api/replay-file", tags=["web"], response_model=None,
            responses={200: {"content": {"application/json": {}}, "description": "the replay"},
                       **_errors(404)})
async def replay_file(request: Request) -> FileResponse:
    """The replay document served by `cogleague replay open FILE`."""
    path = getattr(request.app.state, REPLAY_FILE_STATE, None)
    if path is None:
        raise HTTPException(404, "this server was not started by `cogleague replay open`")
    return FileResponse(path, media_type="application/json", headers=NO_CACHE)


@router.get("/api/standings", tags=["web"], responses=_errors(400))
async def api_standings(request: Request,
                        game: str | None = Query(None, description="a game (GET /api/games)"),
                        ) -> JSONResponse:
    """Each policy's mean episode score per game, from finished tables and league episodes."""
    reads = getattr(request.app.state, "standings_reads", None)
    if reads is None:  # computed off the event loop, once a second at most (server/cache.py)
        reads = request.app.state.standings_reads = SharedReads(ttl_s=1.0)
    url = standings.store_url(request.app)
    season, hidden = await _held_out_now(request)
    try:
        doc = await reads.get((game, hidden), lambda: asyncio.to_thread(
            standings.standings, url, game, season, hidden))
    except ValueError as exc:
        raise HTTPException(400, str(exc)) from exc
    return JSONResponse(doc)


@router.get("/api/season", tags=["web"])
async def api_season(request: Request) -> JSONResponse:
    """The season this server hosts (`{"season": ID}`, null for none): every page's navigation
    offers the League page while there is one."""
    return JSONResponse({"season": getattr(_season_runtime(request), "id", None)})


def _season_runtime(request: Request) -> Any:
    """The season this app hosts (the server's league runtime), or None."""
    runtime = getattr(request.app.state, "league", None)
    return runtime if getattr(runtime, "id", None) is not None else None


async def _held_out_now(request: Request) -> tuple[str | None, frozenset[str]]:
    """The running season (when this app hosts one) and its agents held out until it ends."""
    runtime = _season_runtime(request)
    if runtime is None:
        return None, frozenset()
    return runtime.id, frozenset(await runtime.store.tx(runtime.hidden_now))


@router.get("/api/docs", tags=["web"])
async def api_docs() -> JSONResponse:
    """Which documents the Rules page can show (the three games and the protocol)."""
    return JSONResponse({"docs": docs.available()})


@router.get("/api/docs/{name}", tags=["web"], responses=_errors(404))
async def api_doc(name: str) -> JSONResponse:
    """One document rendered from Markdown to HTML: `{name, title, html}`."""
    try:
        return JSONResponse(docs.render(name))
    except KeyError as exc:
        raise HTTPException(404, str(exc.args[0])) from exc
