"""The webhook address rule and IPv6 forms that carry an IPv4 address (events/addresses.py;
docs/security/index.md, "Webhooks"; issue 31): 6to4, Teredo and NAT64 are judged by the IPv4
they reach, and the 6to4 relay anycast is not public."""

from __future__ import annotations

import pytest

from events.addresses import AddressRefused, is_public, url_check


@pytest.mark.parametrize(
    "address",
    [
        "2002:7f00:1::",  # 6to4 of 127.0.0.1
        "2002:a00:1::1",  # 6to4 of 10.0.0.1
        "2002:a9fe:a9fe::",  # 6to4 of 169.254.169.254
        "2002:c058:6301::",  # 6to4 of the relay anycast itself
        "192.88.99.1",  # the 6to4 relay anycast
        "192.88.99.254",
        "2001:0:4136:e378:8000:63bf:3fff:fdd2",  # Teredo (client 192.0.2.45)
        "2001:0:7f00:1:0:0:80ff:fffe",  # Teredo with server 127.0.0.1
        "64:ff9b::7f00:1",  # NAT64 of 127.0.0.1
        "64:ff9b::a9fe:a9fe",  # NAT64 of 169.254.169.254
        "64:ff9b::c0a8:101",  # NAT64 of 192.168.1.1
        "64:ff9b:1::a00:1",  # the local-use NAT64 prefix
    ],
)
def test_ipv6_forms_of_non_public_ipv4_addresses_are_not_public(address):
    assert is_public(address) is False


@pytest.mark.parametrize("address", ["2002:808:808::1", "64:ff9b::808:808", "8.8.8.8"])
def test_ipv6_forms_of_public_ipv4_addresses_stay_public(address):
    assert is_public(address) is True


@pytest.mark.parametrize(
    "url", ["http://[2002:7f00:1::]/", "http://192.88.99.1/", "https://[64:ff9b::7f00:1]:8443/"]
)
def test_a_webhook_url_on_such_an_address_is_refused(settings, url):
    settings.NOTIFLOW_WEBHOOK_ALLOW_PRIVATE = False
    with pytest.raises(AddressRefused, match="non-public"):
        url_check(url)
