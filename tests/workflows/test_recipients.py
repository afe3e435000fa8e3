"""An email recipient is checked as written (workflows.semantics, recipient_check): a value that
is not an address is named whole, never by the word the parser kept of it."""

from __future__ import annotations

import re

import pytest

from tests.factories import email_node
from workflows.semantics import RenderError, node_render

CONTEXT = {"payload": {"name": "Ada"}, "vars": {}}


@pytest.mark.parametrize(
    ("to", "problem"),
    [
        ("not an email", "'not an email' is not an email address"),
        ("nobody", "'nobody' is not an email address"),
        ("ada@example.com junk", "'ada@example.com junk' is not an email address"),
        ("Ada Lovelace ada@example.com", "'Ada Lovelace ada@example.com' is not an email address"),
    ],
)
def test_a_recipient_that_is_not_an_address_is_named_whole(to, problem):
    with pytest.raises(RenderError, match=re.escape(f"node 'mail': {problem}")):
        node_render(email_node("mail", to=to), CONTEXT)


def test_of_several_recipients_the_bad_one_is_named_within_the_value():
    node = email_node("mail", to="a@example.com, nobody", max_recipients=2)
    with pytest.raises(RenderError, match=re.escape("'nobody' (in 'a@example.com, nobody')")):
        node_render(node, CONTEXT)


@pytest.mark.parametrize(
    "to", ["ada@example.com", "Ada <ada@example.com>", "ADA@Example.com", "a@example.com (Ada)"]
)
def test_addresses_as_written_still_pass(to):
    assert "@" in node_render(email_node("mail", to=to), CONTEXT)["to"]
