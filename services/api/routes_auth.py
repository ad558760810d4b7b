"""Users and their bearer tokens: sign up, who am I, a new token, revoke this one, revoke them all."""

from __future__ import annotations


from litestar import Request, Router, delete, get, post
from litestar.params import JSONBody, Parameter

from services.api import schemas
from services.api.schemas import Strict
from services.tokens import User, register
from services.api.deps import Auth, Caller, Pool
from services.api.problems import Problem
from services import people
from services.api.schemas_auth import CreatedUser, TokenIssued, TokensRevoked

MAX_LIVE_TOKENS = 50          # per user: a bound on what one account can make the server store


@post("/users", operation_id="createUser", summary="Create a user and its first bearer token", status_code=201,
      refuses=(409,),
      dto=Strict[schemas.NewUser], return_dto=None)
async def create_user(data: JSONBody[schemas.NewUser], pool: Pool) -> CreatedUser:
    if data.kind == "bot":
        raise Problem(400, "invalid_field", "bot accounts are the server's: seat \"bot\" at a table, or register "
                                            "a team with \"bot\" players as its organiser", field="kind")
    user, token, expires_at = await register(pool, data.name, data.kind)
    return CreatedUser(user.user_id, user.name, user.kind, token, expires_at)


@get("/me", operation_id="whoAmI", summary="The user behind the token")
async def who_am_i(user: Caller) -> User:
    return user


@get("/users", operation_id="listUsers", summary="Public names of the users named in `ids` (comma-separated, "
     "at most 100): who sits at a table, who plays in a team")
async def list_users(user: Caller, pool: Pool,
                     ids: str = Parameter(max_length=100 * 40, pattern=r"^[A-Za-z0-9_-]+(,[A-Za-z0-9_-]+)*$")
                     ) -> list[User]:
    wanted = list(dict.fromkeys(ids.split(",")))
    if len(wanted) > 100:
        raise Problem(400, "invalid_field", f"{len(wanted)} ids asked for; at most 100 at once", field="ids")
    return [User(u["user_id"], u["name"], u["kind"]) for u in await people.users(pool, wanted)]


@post("/tokens", operation_id="createToken", refuses=(401, 403, 409), status_code=201,
      summary="A new bearer token for the caller (e.g. another device, or before this one expires)")
async def create_token(request: Request, auth: Auth, pool: Pool) -> TokenIssued:
    session = await auth.session(request.scope)
    live = await people.live_tokens(pool, session.user.user_id)
    if live >= MAX_LIVE_TOKENS:
        raise Problem(409, "too_many_tokens", f"you hold {live} valid tokens, the most one user may; revoke some "
                                              "(DELETE /tokens/current, POST /tokens/revoke-all) first")
    token, expires_at = await auth.issue(session.user.user_id)
    return TokenIssued(session.user.user_id, token, expires_at)


@delete("/tokens/current", operation_id="revokeToken", refuses=(401,), status_code=204,
        summary="Revoke the token this request is made with")
async def revoke_current(request: Request, auth: Auth) -> None:
    await auth.revoke(await auth.session(request.scope))


@post("/tokens/revoke-all", operation_id="revokeAllTokens", refuses=(401, 403), status_code=200,
      summary="Revoke every token of the caller (this one included)")
async def revoke_all(request: Request, auth: Auth) -> TokensRevoked:
    session = await auth.session(request.scope)
    return TokensRevoked(await auth.revoke_all(session.user.user_id))


auth_router = Router(path="/", tags=["users and tokens"], route_handlers=[
    create_user, list_users, who_am_i, create_token, revoke_current, revoke_all])
