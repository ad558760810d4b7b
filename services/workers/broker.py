"""The broker: RabbitMQ when BROKER_URL is set (production), else Dramatiq's in-process stub broker."""

from __future__ import annotations

import os

import dramatiq
from dramatiq.brokers.stub import StubBroker
from dramatiq.middleware.asyncio import AsyncIO

QUEUES = ("bots", "clocks", "championships", "projections")      # the workers' queues, by these names on any host


def make_broker(url: str | None = None) -> tuple[dramatiq.Broker, str]:
    """A broker with the AsyncIO middleware (async actors), and a line saying which one it is."""
    url = url if url is not None else os.environ.get("BROKER_URL")
    if url:
        from dramatiq.brokers.rabbitmq import RabbitmqBroker

        broker = RabbitmqBroker(url=url, confirm_delivery=True)
        where = f"RabbitMQ at {url.split('@')[-1]}"
    else:
        broker = StubBroker()
        broker.emit_after("process_boot")
        where = "in-process broker (no BROKER_URL)"
    broker.add_middleware(AsyncIO())
    dramatiq.set_broker(broker)
    return broker, where


def broker_unavailable_errors() -> tuple[type[BaseException], ...]:
    """What sending raises while the broker is away (refused, reset, restarting): work the reconciler redoes."""
    import pika.exceptions
    from dramatiq.errors import BrokerConnectionError

    return (BrokerConnectionError, pika.exceptions.AMQPConnectionError, pika.exceptions.AMQPChannelError,
            pika.exceptions.StreamLostError, OSError)


def rabbitmq_reachable(url: str, timeout: float = 2.0) -> bool:
    """Whether a RabbitMQ server answers at ``url`` (AMQP handshake)."""
    import pika

    params = pika.URLParameters(url)
    params.socket_timeout = timeout
    params.blocked_connection_timeout = timeout
    params.connection_attempts = 1
    try:
        pika.BlockingConnection(params).close()
        return True
    except Exception:
        return False


def consumers(url: str, queues: tuple[str, ...]) -> dict[str, int]:
    """How many consumers RabbitMQ at ``url`` has on each of ``queues`` (0 where a queue does not exist yet),
    over one connection."""
    import pika
    import pika.exceptions

    connection = pika.BlockingConnection(pika.URLParameters(url))
    counts = {}
    try:
        for queue in queues:            # a channel each: the broker closes the channel that asked for no queue
            try:
                counts[queue] = connection.channel().queue_declare(queue, passive=True).method.consumer_count
            except pika.exceptions.ChannelClosedByBroker:       # 404: no such queue, so nobody takes from it
                counts[queue] = 0
    finally:
        connection.close()
    return counts


def waiting(broker: dramatiq.Broker, queue: str) -> int:
    """How many messages wait in ``queue`` (ready, not delayed); 0 when the broker cannot say."""
    try:
        if isinstance(broker, StubBroker):
            return broker.queues[queue].qsize() if queue in broker.queues else 0
        return int(broker.get_queue_message_counts(queue)[0])
    except Exception:                       # noqa: BLE001 - a count is advice: none when the broker is away
        return 0
