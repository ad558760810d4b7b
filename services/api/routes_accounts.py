"""Accounts people sign back into: sign up with a login and password, sign in from any browser (a session
cookie), sign out, change the password; a user made with a token only sets a login and password later.

A wrong login and a wrong password are one refusal (``401 bad_credentials``); every attempt is counted
before its password is checked, slowed per (login, address) pair and paced per address
(``services.api.limits.SignInThrottle``, ``429 rate_limited``).
Organiser and referee are roles on the account (``grants`` on the scope "platform"), given with
``baloot account grant``.
"""

from __future__ import annotations

import datetime as dt

from litestar import Request, Response, Router, delete, get, post, put
from litestar.datastructures import State
from litestar.params import FromPath, JSONBody

from services.accounts import Account, Accounts, check_password, normalise_login
from services.errors import Invalid
from services.api.auth import Authenticator
from services.api.deps import Auth, Caller
from services.api.limits import Limits, client_address
from services.api.problems import Problem
from services.api.schemas import Strict
from services.api.sessions import cleared_cookies, session_cookies
from services.people import platform_roles
from services.roles import referees_anything
from services.api.schemas_accounts import NewAccount, SignIn, NewCredentials, PasswordChange, SignedIn, Claim, Found

ACCOUNT_ROLES = ("organiser", "referee")


def _accounts(state: State) -> Accounts:
    return state.platform.accounts


async def _signed_in(accounts: Accounts, account: Account, via: str, expires_at: dt.datetime) -> SignedIn:
    return SignedIn(account.user_id, account.name, account.kind, account.login,
                    await platform_roles(accounts.pool, account.user_id), via, expires_at,
                    await referees_anything(accounts.pool, account.user_id))


async def _start_session(request: Request, auth: Authenticator, accounts: Accounts, account: Account,
                         status: int) -> Response[SignedIn]:
    token, expires_at = await auth.issue(account.user_id, via="session")
    body = await _signed_in(accounts, account, "session", expires_at)
    return Response(body, status_code=status, cookies=session_cookies(token, expires_at, request.scope))


def _login_key(login: str) -> str:
    """What a sign-in's attempts are counted under: the login as stored (any spelling of it is one)."""
    try:
        return normalise_login(login)
    except Invalid:
        return login.casefold()


def _wrong() -> Problem:
    return Problem(401, "bad_credentials", "no account has this login and password", "wrong login or password")


@post("/accounts", operation_id="createAccount", refuses=(409,),
      status_code=201, dto=Strict[NewAccount], return_dto=None,
      summary="Sign up with a login and password: the account, signed in (a session cookie)")
async def create_account(request: Request, data: JSONBody[NewAccount], auth: Auth, state: State
                         ) -> Response[SignedIn]:
    accounts = _accounts(state)
    account = await accounts.create(data.login, data.password, data.name)
    return await _start_session(request, auth, accounts, account, 201)


@post("/accounts/claim", operation_id="claimAccount", refuses=(409,),
      status_code=200, dto=Strict[Claim], return_dto=None,
      summary="Claim the account an organiser made for you (his import's code): your password, signed in")
async def claim_account(request: Request, data: JSONBody[Claim], auth: Auth, state: State) -> Response[SignedIn]:
    limits: Limits = state.limits
    accounts = _accounts(state)
    address = client_address(request.scope)
    # Codes are tried as passwords are (a code names no login: the address's pair is "claim").
    await limits.sign_in.reserve(accounts.pool, "claim", address, "too many wrong codes; try again later")
    try:
        account = await accounts.claim(data.code, data.password, data.name)
    except Invalid as refusal:
        if refusal.rule != "bad_invitation":          # a good code, a refused password: no guess was made
            await limits.sign_in.give_back(accounts.pool, "claim", address)
        raise
    await limits.sign_in.succeeded(accounts.pool, "claim", address)
    await auth.revoke_all(account.user_id)        # a claim starts afresh: nothing minted before it survives
    return await _start_session(request, auth, accounts, account, 200)


@post("/session", operation_id="signIn", refuses=(401, 403), status_code=200, dto=Strict[SignIn], return_dto=None,
      summary="Sign in with a login and password: a session cookie for this browser")
async def sign_in(request: Request, data: JSONBody[SignIn], auth: Auth, state: State) -> Response[SignedIn]:
    limits: Limits = state.limits
    accounts = _accounts(state)
    key, address = _login_key(data.login), client_address(request.scope)
    # The attempt is counted BEFORE the password is checked (a burst cannot outrun its count).
    await limits.sign_in.reserve(accounts.pool, key, address)
    account = await accounts.verify(data.login, data.password)
    if account is None:
        raise _wrong()
    await limits.sign_in.succeeded(accounts.pool, key, address)
    return await _start_session(request, auth, accounts, account, 200)


@get("/session", operation_id="whoIsSignedIn", summary="The account this browser's session (or the token) is")
async def current_session(request: Request, user: Caller, auth: Auth, state: State) -> SignedIn:
    session = await auth.session(request.scope)
    return await _signed_in(_accounts(state), await _accounts(state).of(user.user_id), session.via,
                            session.expires_at)


@delete("/session", operation_id="signOut", status_code=204, refuses=(409,),
        summary="Sign out: this browser's session ends (its live streams with it)")
async def sign_out(request: Request, user: Caller, auth: Auth) -> Response[None]:
    session = await auth.session(request.scope)
    if session.via != "session":
        raise Problem(409, "not_a_session", "this request is made with a bearer token: revoke it with "
                                            "DELETE /tokens/current")
    await auth.revoke(session)
    return Response(None, status_code=204, cookies=cleared_cookies(request.scope))


@post("/me/credentials", operation_id="setCredentials", refuses=(409,), status_code=200, dto=Strict[NewCredentials],
      return_dto=None, summary="A login and password for an account that has none (made with a token only)")
async def set_credentials(request: Request, data: JSONBody[NewCredentials], user: Caller, auth: Auth,
                          state: State) -> SignedIn:
    session = await auth.session(request.scope)
    account = await _accounts(state).set_credentials(user.user_id, data.login, data.password)
    return await _signed_in(_accounts(state), account, session.via, session.expires_at)


@put("/me/password", operation_id="changePassword", status_code=200, dto=Strict[PasswordChange], return_dto=None,
     refuses=(409,), summary="Change the password (the current one is asked): the account's other sessions and "
                             "tokens end")
async def change_password(request: Request, data: JSONBody[PasswordChange], user: Caller, auth: Auth,
                          state: State) -> SignedIn:
    limits: Limits = state.limits
    session = await auth.session(request.scope)
    accounts = _accounts(state)
    account = await accounts.of(user.user_id)
    if account.login is not None:                  # a refused new password is no guess of the current one
        check_password(data.new_password, account.login, field="new_password", name=account.name)
    key, address = f"user:{user.user_id}", client_address(request.scope)
    await limits.sign_in.reserve(accounts.pool, key, address)
    if not await accounts.change_password(user.user_id, data.current_password, data.new_password):
        raise _wrong()
    await limits.sign_in.succeeded(accounts.pool, key, address)
    # Every other session AND bearer token ends (their live streams with them): whoever held a copy of the
    # old password may have minted tokens with it; only the request's own credential is kept.
    await auth.revoke_all(user.user_id, keep=session.token_hash)
    return await _signed_in(accounts, account, session.via, session.expires_at)


@get("/accounts/{login:str}", operation_id="findAccount",
     summary="The person with this login (to seat a friend at a table, or name him in a team)")
async def find_account(login: FromPath[str], user: Caller, state: State) -> Found:
    accounts = _accounts(state)
    found = await accounts.by_login(login)
    if found is None:
        raise Problem(404, "unknown_account", "no account has this login", field="login")
    return Found(found.user_id, found.name, found.login)


account_router = Router(path="/", tags=["accounts"], route_handlers=[
    create_account, claim_account, sign_in, current_session, sign_out,
    set_credentials, change_password, find_account])
