"""Which preference decides a send (docs/design/recipients.md, "Preferences"): most specific first, the
workflow, then the category per channel, then the category as a whole, then the channel; then
the category's operator defaults; else on. One pure function (recipients/preferences.py)."""

from __future__ import annotations

import pytest

from recipients.preferences import Decision, preference_resolve

EVERYTHING_SAID = {
    "workflows": {"digest": False, "reset": True},
    "categories": {"comments": {"email": False, "sms": True}, "billing": False},
    "channels": {"sms": False, "email": True},
}

# (preferences, workflow, category, channel, the category's defaults) -> decision
CASES = [
    ({}, "w", "", "email", {}, Decision(True, "")),
    ({}, "w", "comments", "email", {}, Decision(True, "")),
    ({}, "w", "comments", "email", {"email": False}, Decision(False, "defaults.comments.email")),
    ({}, "w", "comments", "sms", {"email": False}, Decision(True, "")),
    ({}, "w", "", "email", {"email": False}, Decision(True, "")),  # no category: no defaults
    (EVERYTHING_SAID, "digest", "comments", "sms", {}, Decision(False, "workflows.digest")),
    (EVERYTHING_SAID, "reset", "billing", "email", {}, Decision(True, "workflows.reset")),
    (EVERYTHING_SAID, "w", "comments", "email", {}, Decision(False, "categories.comments.email")),
    (EVERYTHING_SAID, "w", "comments", "sms", {}, Decision(True, "categories.comments.sms")),
    (EVERYTHING_SAID, "w", "billing", "email", {}, Decision(False, "categories.billing")),
    (EVERYTHING_SAID, "w", "billing", "push", {}, Decision(False, "categories.billing")),
    (EVERYTHING_SAID, "w", "other", "sms", {}, Decision(False, "channels.sms")),
    (EVERYTHING_SAID, "w", "", "sms", {}, Decision(False, "channels.sms")),
    (EVERYTHING_SAID, "w", "other", "email", {"email": False}, Decision(True, "channels.email")),
    # A channel nobody named yet (a later one): the category's default, else on.
    (
        EVERYTHING_SAID,
        "w",
        "other",
        "push",
        {"push": False},
        Decision(False, "defaults.other.push"),
    ),
    (EVERYTHING_SAID, "w", "other", "push", {}, Decision(True, "")),
    # A category switched per channel, silent about this one: the channel decides.
    (
        {"categories": {"c": {"email": True}}, "channels": {"sms": False}},
        "w",
        "c",
        "sms",
        {},
        Decision(False, "channels.sms"),
    ),
    # A person's category switch wins over the operator's default.
    (
        {"categories": {"c": True}},
        "w",
        "c",
        "email",
        {"email": False},
        Decision(True, "categories.c"),
    ),
]


@pytest.mark.parametrize(
    ("preferences", "workflow", "category", "channel", "defaults", "decision"), CASES
)
def test_the_most_specific_preference_decides(
    preferences, workflow, category, channel, defaults, decision
):
    assert (
        preference_resolve(
            preferences, workflow=workflow, category=category, channel=channel, defaults=defaults
        )
        == decision
    )


def test_a_skipped_send_says_which_preference_decided():
    output = Decision(False, "categories.comments.email").skipped_output(to="ada@example.com")

    assert output == {
        "skipped": "preference: categories.comments.email is off",
        "rule": "preference",
        "preference": "categories.comments.email",
        "to": "ada@example.com",
    }
