"""Pages for people: to play under ``/play/`` (sign in, the lobby, a table to play at), to run championships
under ``/organise/`` (organisers), to rule on calls under ``/referee/`` (referees) and to watch under ``/watch/`` (championships, brackets, live tables,
replays and audits).

Plain HTML, CSS and ES modules shipped in the package (``static/``), with no build step: the pages call only
the public API and its live stream, as the person signed in (the session cookie, ``POST /session``) or else
as a spectator with a token of their own (``POST /users``). What a seat or a spectator may see is decided by
the server; the pages show what the API answers, and send the CSRF token with every change.
"""

from __future__ import annotations

from pathlib import Path

from litestar.static_files import create_static_files_router
import swagger_ui

STATIC = Path(__file__).parent / "static"

watch_router = create_static_files_router(path="/watch", directories=[STATIC], html_mode=True, name="watch")
play_router = create_static_files_router(path="/play", directories=[STATIC / "play"], html_mode=True, name="play")
organise_router = create_static_files_router(path="/organise", directories=[STATIC / "organise"], html_mode=True,
                                             name="organise")
referee_router = create_static_files_router(path="/referee", directories=[STATIC / "referee"], html_mode=True,
                                            name="referee")
# The API reference's page (/schema, services/api/reference.py) loads Swagger UI from here, not from a CDN.
reference_router = create_static_files_router(path="/schema-assets", directories=[Path(swagger_ui.__file__).parent / "static"],
                                              name="schema-assets")
web_routers = (watch_router, play_router, organise_router, referee_router, reference_router)
