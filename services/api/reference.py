"""The API reference at ``/schema`` (and ``/schema/swagger``): Swagger UI on the OpenAPI document
(``/schema/openapi.json``), its scripts and styles served by this server (``/schema-assets/``, from the
swagger-ui-py package) and started by a script of ours, so that the page needs no CDN and runs under the
pages' Content-Security-Policy (no inline script)."""

from __future__ import annotations

from typing import Any

from litestar import Request
from litestar.openapi.plugins import OpenAPIRenderPlugin

PAGE = b"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>baloot-arena API reference</title>
<link rel="icon" href="/watch/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/schema-assets/swagger-ui.css">
</head>
<body>
<div id="swagger"></div>
<script src="/schema-assets/swagger-ui-bundle.js"></script>
<script src="/watch/js/reference.js"></script>
</body>
</html>
"""


class OfflineSwagger(OpenAPIRenderPlugin):
    def __init__(self) -> None:
        super().__init__(path=["/", "/swagger"])

    def render(self, request: Request, openapi_schema: dict[str, Any]) -> bytes:
        return PAGE
