"""Every refusal is an RFC 9457 problem document naming the rule or the field (``application/problem+json``).

Extension members: ``rule`` (a stable id such as ``revoke`` or ``not_your_turn``); for an engine's refusal
that names them, ``details`` (the seat, the card, the cards held: what ``detail`` says in English, as data a
page says in its own language); for malformed input, ``field`` and ``errors``.
"""

from __future__ import annotations

import logging
import math
import re
from typing import Any

import msgspec
from litestar import Request, Response
from litestar.openapi.datastructures import ResponseSpec
from litestar.exceptions import HTTPException, NotFoundException, ValidationException
from litestar.status_codes import HTTP_500_INTERNAL_SERVER_ERROR

from domain.errors import DomainError
from domain.tournament import ChampionshipRuleError
from services.db import DATABASE_AWAY
from services.errors import Conflict, Forbidden, Invalid, NotFound, ServiceError, TooSoon, Unprocessable

log = logging.getLogger("baloot.api")

MEDIA_TYPE = "application/problem+json"
TYPE_BASE = "https://baloot-arena.invalid/problems/"


class Problem(Exception):
    """A refusal: HTTP status, a stable rule id, a title and a detail in a referee's words."""

    def __init__(self, status: int, rule: str, detail: str, title: str | None = None, **extra: Any):
        super().__init__(detail)
        self.status, self.rule, self.detail = status, rule, detail
        self.title = title or rule.replace("_", " ")
        self.extra = extra


def problem_response(status: int, rule: str, title: str, detail: str, instance: str | None = None,
                     headers: dict[str, str] | None = None, **extra: Any) -> Response:
    body = {"type": TYPE_BASE + rule, "title": title, "status": status, "detail": detail, "rule": rule}
    if instance:
        body["instance"] = instance
    body.update(extra)
    return Response(body, status_code=status, media_type=MEDIA_TYPE, headers=headers)


class ProblemDocument(msgspec.Struct):
    """RFC 9457 problem details, with ``rule`` naming the rule or check that refused the request."""

    type: str
    title: str
    status: int
    detail: str
    rule: str
    instance: str | None = None
    field: str | None = None
    details: dict[str, Any] | None = None     # an engine's refusal: the seat, the card, the cards held


_DESCRIPTIONS = {
    400: "malformed or too deeply nested JSON, an invalid field (named in `field`), a NUL character, or a "
         "malformed hand record",
    401: "missing, malformed, unknown, expired or revoked bearer token",
    403: "not your seat, not seated, not invited, not the organiser or referee; a shared board hidden until "
         "it closes (`board_hidden`), hands a table never shows (`hands_hidden`); an official who plays in the "
         "round (`official_plays`) or the match (`own_match`); the access policy's rules: docs/access.md",
    404: "unknown table, deal, championship, webhook endpoint or delivery, or path",
    409: "the rules refuse the action (rule named), a stale version, a busy table, too many tokens or webhook "
         "endpoints, a disabled webhook endpoint, too many proposals waiting for answers (`too_many_proposals`, "
         "`too_many_proposals_to_invitee`, `invitee_busy`)",
    413: "the request body is too large",
    422: "an unknown user, a user named for two seats, or a team of the wrong size in the request; a webhook "
         "target that may not be reached (`webhook_target_refused`: a private, loopback or link-local address)",
    429: "too many requests for this user (or, for sign-ups and bad tokens, this address); too many live "
         "streams",
    503: "the database is unavailable for now (`database_unavailable`, with `Retry-After`): nothing was "
         "stored; retry the same request (same `command_id`)",
}
PROBLEM_RESPONSES = {
    status: ResponseSpec(data_container=ProblemDocument, media_type=MEDIA_TYPE, description=text,
                         generate_examples=False)
    for status, text in _DESCRIPTIONS.items()
}


def refusals(handler, unlimited: tuple[str, ...] = ()) -> set[int]:
    """The problem statuses an operation can answer with: what every operation of its kind can give (found from
    its signature) and what it declares itself (``refuses=`` in its decorator: its own 403s, 404s, 409s,
    422s).

    - 400 a NUL in the path or the query (on every route), a parameter or a body that does not parse or breaks
      its constraints; 413 a body too large;
    - 401 a route that names its caller (``user`` or ``viewer``) and so needs a valid token or session;
    - 403 an unsafe method a session cookie may sign (the CSRF check);
    - 404 a path naming something (a table, a championship, a deal) that may not exist;
    - 429 every route the rate limiter counts; 503 every route that reads the database.
    """
    params = handler.parsed_fn_signature.parameters
    dependencies = set(handler.resolve_dependencies())
    path = any("{" in p for p in handler.paths)
    unsafe = not handler.http_methods <= {"GET", "HEAD", "OPTIONS"}
    found = set(handler.opt.get("refuses", ()))
    found |= {400}
    found |= {413} if "data" in params else set()
    found |= {401} if {"user", "viewer"} & params.keys() else set()
    found |= {403} if unsafe and {"user", "viewer"} & params.keys() else set()
    found |= {404} if path else set()
    found |= {429} if not any(p.startswith(unlimited) for p in handler.paths) else set()
    found |= {503} if dependencies & {"pool", "tables", "championships", "daily", "feeds", "access", "lobby",
                                      "user", "viewer", "auth", "signer", "streams"} else set()
    return found


def document_problems(app, unlimited: tuple[str, ...] = ()) -> None:
    """Declare on each operation only the problem documents it can answer with, so the OpenAPI schema (and a
    client generated from it) is exact; the test suite checks every refusal it sees against these lists."""
    for route in app.routes:
        for handler in getattr(route, "route_handlers", ()):
            if handler.include_in_schema is False:
                continue
            declared = {status: PROBLEM_RESPONSES[status] for status in sorted(refusals(handler, unlimited))}
            handler.responses = {**declared, **(handler.responses or {})}


_STATUS = {NotFound: 404, Forbidden: 403, Conflict: 409, Invalid: 400, Unprocessable: 422}


def _on_service_error(request: Request, exc: ServiceError) -> Response:
    """The application layer's refusals, by kind."""
    if isinstance(exc, TooSoon):
        return problem_response(429, exc.rule, "too many requests", exc.detail, request.url.path,
                                headers={"Retry-After": str(max(1, math.ceil(exc.retry_after)))}, **exc.extra)
    status = next((code for kind, code in _STATUS.items() if isinstance(exc, kind)), 409)
    return problem_response(status, exc.rule, exc.rule.replace("_", " "), exc.detail, request.url.path, **exc.extra)


def _on_rules(request: Request, exc: DomainError) -> Response:
    """The engine refuses the action: the rule it names, in a referee's words."""
    extra = {"details": exc.details} if exc.details else {}
    return problem_response(409, exc.rule, "the rules refuse this action", exc.message, request.url.path, **extra)


def _on_tournament_rules(request: Request, exc: ChampionshipRuleError) -> Response:
    return problem_response(409, exc.rule, "the championship rules refuse this", exc.message, request.url.path,
                            **exc.extra)


def _on_problem(request: Request, exc: Problem) -> Response:
    return problem_response(exc.status, exc.rule, exc.title, exc.detail, request.url.path,
                            headers=getattr(exc, "headers", None), **exc.extra)


def field_in(message: str) -> str | None:
    """The field a msgspec/Litestar message names: ``at `$.a.b``` or ``missing required field `x```."""
    match = re.search(r"at `\$\.([^`]+)`", message) or re.search(r"field `([^`]+)`", message)
    return match.group(1) if match else None


def _field_of(error: dict) -> str | None:
    key = error.get("key")
    source = getattr(error.get("source"), "value", error.get("source"))
    message = str(error.get("message", ""))
    if key and key != "data":
        return f"{source}.{key}" if source and source != "body" else key
    return field_in(message) or key


def _on_validation(request: Request, exc: ValidationException) -> Response:
    errors = exc.extra if isinstance(exc.extra, list) else []
    fields = [f for f in (_field_of(e) for e in errors if isinstance(e, dict)) if f]
    messages = [str(e.get("message")) for e in errors if isinstance(e, dict) and e.get("message")]
    detail = "; ".join(messages) or str(exc.detail)
    rule = "malformed_body" if "JSON" in detail or "decode" in detail.lower() else "invalid_field"
    return problem_response(400, rule, "the request is malformed", detail, request.url.path,
                            field=fields[0] if fields else None, errors=errors)


def _on_http(request: Request, exc: HTTPException) -> Response:
    status = exc.status_code
    rules = {401: "bad_token", 403: "forbidden", 404: "not_found", 405: "method_not_allowed",
             413: "body_too_large", 429: "rate_limited"}
    rule = rules.get(status, "http_error")
    if status == 400:
        rule = "malformed_body"          # the body could not be decoded at all (e.g. truncated JSON)
    detail = exc.detail
    if status == 413:
        detail = "the request body is larger than the server accepts"
    if isinstance(exc, NotFoundException) and detail in ("", "Not Found"):
        detail = f"nothing at {request.url.path}"
    return problem_response(status, rule, rule.replace("_", " "), str(detail), request.url.path,
                            headers=exc.headers)


RETRY_AFTER_SECONDS = 2


def database_unavailable(instance: str | None, why: BaseException | str) -> Response:
    """503 ``database_unavailable``: the event store cannot be reached right now; retry soon."""
    detail = why if isinstance(why, str) else f"the database did not answer ({type(why).__name__}); nothing was stored"
    return problem_response(503, "database_unavailable", "the database is unavailable", detail, instance,
                            headers={"Retry-After": str(RETRY_AFTER_SECONDS)})


def _on_database_away(request: Request, exc: Exception) -> Response:
    log.warning("database unavailable on %s: %s", request.url.path, exc)
    return database_unavailable(request.url.path, exc)


def _on_error(request: Request, exc: Exception) -> Response:
    log.error("unhandled error on %s", request.url.path, exc_info=exc)
    return problem_response(HTTP_500_INTERNAL_SERVER_ERROR, "internal_error", "internal error",
                            "the server failed; nothing was stored for this request", request.url.path)


EXCEPTION_HANDLERS = {
    Problem: _on_problem,
    ServiceError: _on_service_error,
    DomainError: _on_rules,
    ChampionshipRuleError: _on_tournament_rules,
    ValidationException: _on_validation,
    HTTPException: _on_http,
    **{kind: _on_database_away for kind in DATABASE_AWAY},
    Exception: _on_error,
}
