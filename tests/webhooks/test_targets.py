"""Webhook targets given as literal IP addresses: an IPv6 address that carries an IPv4 one (6to4, Teredo, NAT64,
IPv4-mapped) is judged by what it carries, site-local and local-use NAT64 addresses are refused, and public
addresses, wrapped or not, still pass. Judged both by ``why_not_public`` and by ``check`` (what registration and
each delivery call), with an empty allow-list: no operator exception hides a wrong verdict."""

from __future__ import annotations

import ipaddress

import pytest

from services.webhooks import targets

# address → what the refusal must name (the kind, and the embedded IPv4 address where there is one)
REFUSED = {
    "2002:7f00:1::": ("6to4", "127.0.0.1", "loopback"),                  # the review's: 6to4 of loopback
    "2002:a9fe:a9fe::": ("6to4", "169.254.169.254", "link-local"),        # 6to4 of the cloud metadata service
    "2002:0a00:0001::": ("6to4", "10.0.0.1", "private"),
    "fec0::1": ("site-local",),
    "fed0:1:2::3": ("site-local",),                                        # anywhere in fec0::/10
    "2001:0:7f00:1::": ("Teredo", "server 127.0.0.1", "loopback"),
    # Teredo's client address is stored inverted: 80ff:fffe is 127.0.0.1
    "2001:0:4136:e378:8000:63bf:80ff:fffe": ("Teredo", "client 127.0.0.1", "loopback"),
    "2001:0:4136:e378:8000:63bf:5601:5601": ("Teredo", "client 169.254.169.254", "link-local"),
    "64:ff9b::7f00:1": ("NAT64", "127.0.0.1", "loopback"),
    "64:ff9b::a9fe:a9fe": ("NAT64", "169.254.169.254", "link-local"),
    "64:ff9b::c0a8:101": ("NAT64", "192.168.1.1", "private"),
    "64:ff9b:1::808:808": ("local-use NAT64",),                           # refused even around a public one
    "::ffff:127.0.0.1": ("loopback",),
    "::ffff:169.254.169.254": ("link-local",),
}
PUBLIC = ["8.8.8.8", "1.1.1.1", "2001:4860:4860::8888", "2606:4700:4700::1111",
          "2002:808:808::1",                                               # 6to4 of 8.8.8.8
          "64:ff9b::808:808",                                              # NAT64 of 8.8.8.8
          "::ffff:8.8.8.8"]


def url(address: str) -> str:
    host = f"[{address}]" if ":" in address else address
    return f"https://{host}:8443/hook"


@pytest.mark.parametrize("address", REFUSED)
def test_a_wrapped_or_site_local_address_is_not_public(address):
    kind = targets.why_not_public(ipaddress.ip_address(address))
    assert kind is not None, f"{address} passed as public"
    assert all(word in kind for word in REFUSED[address]), (address, kind)


@pytest.mark.parametrize("address", REFUSED)
async def test_a_url_to_a_wrapped_or_site_local_address_is_refused(address):
    with pytest.raises(targets.TargetRefused) as refused:
        await targets.check(url(address), allow=())
    assert REFUSED[address][0] in str(refused.value) and "public addresses only" in str(refused.value)


@pytest.mark.parametrize("address", PUBLIC)
async def test_a_public_address_wrapped_or_not_is_still_a_target(address):
    assert targets.why_not_public(ipaddress.ip_address(address)) is None
    target = await targets.check(url(address), allow=())
    assert ipaddress.ip_address(target.address) == ipaddress.ip_address(address)
    assert target.extensions == {"sni_hostname": address}       # TLS still verifies the name the URL gave


async def test_the_operator_may_still_allow_a_wrapped_address_by_name():
    """The allow-list admits the address itself (an operator's NAT64 to his own receivers, say), not what it
    wraps: allowing 127.0.0.1 does not open its 6to4 form."""
    with pytest.raises(targets.TargetRefused):
        await targets.check(url("2002:7f00:1::"), allow=targets.allow_list("127.0.0.1/32"))
    target = await targets.check(url("64:ff9b::a0a:a0a"), allow=targets.allow_list("64:ff9b::a0a:0/112"))
    assert target.address == "64:ff9b::a0a:a0a"
