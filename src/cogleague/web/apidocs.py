"""`GET /docs`: Swagger UI over the server's OpenAPI document, with its assets served from the
`swagger-ui-py` package, so the page works with no network (FastAPI's own page loads them
from a CDN). The page has a language, a title and the site's header like every other page.
"""

from __future__ import annotations

from pathlib import Path

import swagger_ui
from fastapi import APIRouter, HTTPException
from fastapi.responses import FileResponse, HTMLResponse

ASSETS = Path(swagger_ui.__file__).parent / "static"
SERVED = {"swagger-ui.css": "text/css; charset=utf-8",
          "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
          "swagger-ui-standalone-preset.js": "text/javascript; charset=utf-8"}
"""The only files of the package the page needs."""

router = APIRouter(include_in_schema=False)

PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>HTTP API · cogleague</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="stylesheet" href="/static/css/apidocs.css">
<link rel="icon" href="data:,">
</head>
<body>
<header class="api-top"><a href="/">cogleague</a> · <a href="/protocol">table protocol</a></header>
<main id="swagger-ui" aria-label="HTTP API reference"></main>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/static/js/apidocs.js"></script>
</body>
</html>
"""


@router.get("/docs")
async def docs_page() -> HTMLResponse:
    return HTMLResponse(PAGE)


@router.get("/docs/assets/{name}")
async def docs_asset(name: str) -> FileResponse:
    if name not in SERVED:
        raise HTTPException(404, f"no Swagger UI asset {name!r}")
    return FileResponse(ASSETS / name, media_type=SERVED[name],
                        headers={"Cache-Control": "max-age=86400"})
