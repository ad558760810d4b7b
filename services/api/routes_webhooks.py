"""Webhooks for integrators (services/webhooks, docs/webhooks.md): an organiser registers endpoints for one of
his championships or for all of them, with the kinds of event each takes; reads their delivery log and sends a
delivery again. Every route answers for the caller's own endpoints only: another's is unknown to him."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from litestar import Router, delete, get, post
from litestar.params import FromPath, FromQuery, JSONBody, PathParameter, QueryParameter

from services.api.deps import Caller, Gate, Pool, Who
from services.api.problems import Problem
from services.api.schemas import Strict
from services.access import policy
from services.webhooks import endpoints
from services.webhooks.endpoints import DeliveryOut, EndpointOut, EndpointRefused
from services.api.schemas_webhooks import NewEndpoint, EndpointCreated, DeliveryPage

EndpointId = Annotated[str, msgspec.Meta(pattern="^wh_[0-9a-f]{16}$")]


async def _call(fn, *args):
    """The service's answer, or its refusal as a problem document."""
    try:
        return await fn(*args)
    except EndpointRefused as exc:
        raise Problem(exc.status, exc.code, str(exc), **({"field": exc.field} if exc.field else {})) from None


@post("/", operation_id="registerWebhook", refuses=(403, 404, 409, 422), status_code=201,
      summary="Register a webhook endpoint for one of your championships (or all of them): the kinds of event it "
              "takes; the answer holds its signing secret, shown this once",
      dto=Strict[NewEndpoint], return_dto=None)
async def register(data: JSONBody[NewEndpoint], user: Caller, pool: Pool, access: Gate, viewer: Who
                   ) -> EndpointCreated:
    if data.championship_id is not None:                              # 404 for one that does not exist
        await access.championship(viewer, data.championship_id, policy.organiser)
    return EndpointCreated(*await _call(endpoints.register, pool, user.user_id, data.url, list(data.kinds),
                                        data.championship_id, data.description))


@get("/", operation_id="listWebhooks", summary="Your webhook endpoints, with what each has delivered and queued")
async def list_endpoints(user: Caller, pool: Pool) -> list[EndpointOut]:
    return await endpoints.of_owner(pool, user.user_id)


@get("/{endpoint_id:str}", operation_id="getWebhook", summary="One of your webhook endpoints")
async def get_endpoint(endpoint_id: FromPath[EndpointId], user: Caller, pool: Pool) -> EndpointOut:
    return await _call(endpoints.get, pool, user.user_id, endpoint_id)


@delete("/{endpoint_id:str}", operation_id="removeWebhook", status_code=204,
        summary="Remove a webhook endpoint: nothing more is sent to it")
async def remove_endpoint(endpoint_id: FromPath[EndpointId], user: Caller, pool: Pool) -> None:
    await _call(endpoints.remove, pool, user.user_id, endpoint_id)


@post("/{endpoint_id:str}/secret", operation_id="rotateWebhookSecret", status_code=200,
      summary="A new signing secret for the endpoint, shown this once and in force at once (the old one signs "
              "nothing more, queued deliveries included)")
async def rotate_secret(endpoint_id: FromPath[EndpointId], user: Caller, pool: Pool) -> EndpointCreated:
    return EndpointCreated(*await _call(endpoints.rotate_secret, pool, user.user_id, endpoint_id))


@post("/{endpoint_id:str}/enable", operation_id="enableWebhook", status_code=200,
      summary="Enable a disabled endpoint again: what was queued for it goes out, in order")
async def enable_endpoint(endpoint_id: FromPath[EndpointId], user: Caller, pool: Pool) -> EndpointOut:
    return await _call(endpoints.enable, pool, user.user_id, endpoint_id)


@get("/{endpoint_id:str}/deliveries", operation_id="listWebhookDeliveries",
     summary="The endpoint's delivery log, newest first: status, attempts, the last answer; a page at a time "
             "(pass next_before as before)")
async def list_deliveries(endpoint_id: FromPath[EndpointId], user: Caller, pool: Pool,
                          before: Annotated[int | None, QueryParameter(ge=1, le=2**63 - 1)] = None,
                          status: FromQuery[Literal["pending", "delivered"] | None] = None,
                          limit: Annotated[int, QueryParameter(ge=1, le=200)] = 50) -> DeliveryPage:
    rows = await _call(endpoints.deliveries, pool, user.user_id, endpoint_id, before, limit, status)
    return DeliveryPage(rows, rows[-1].delivery_id if len(rows) == limit else None)


@get("/{endpoint_id:str}/deliveries/{delivery_id:int}", operation_id="getWebhookDelivery",
     summary="One delivery with every attempt made at it")
async def get_delivery(endpoint_id: FromPath[EndpointId], delivery_id: Annotated[int, PathParameter(ge=1, le=2**63 - 1)], user: Caller, pool: Pool) -> DeliveryOut:
    return await _call(endpoints.delivery, pool, user.user_id, endpoint_id, delivery_id)


@post("/{endpoint_id:str}/deliveries/{delivery_id:int}/redeliver", operation_id="redeliverWebhook",
      refuses=(409,), status_code=200,
      summary="Send a delivery again (same webhook-id: receivers that saw it drop it), in its place in its line")
async def redeliver(endpoint_id: FromPath[EndpointId], delivery_id: Annotated[int, PathParameter(ge=1, le=2**63 - 1)], user: Caller, pool: Pool) -> DeliveryOut:
    return await _call(endpoints.redeliver, pool, user.user_id, endpoint_id, delivery_id)


webhook_router = Router(tags=["webhooks"], path="/webhooks", route_handlers=[
    register, list_endpoints, get_endpoint, remove_endpoint, rotate_secret, enable_endpoint, list_deliveries,
    get_delivery, redeliver])
