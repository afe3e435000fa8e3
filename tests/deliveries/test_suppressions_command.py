"""manage.py suppressions (docs/operations/people-and-channels.md): CSV out and back in, idempotent, every bad line
named, a malformed header refused whole."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from deliveries.models import Suppression
from deliveries.suppression import suppression_add

pytestmark = pytest.mark.django_db


def test_export_then_import_round_trips_and_import_is_idempotent(tmp_path):
    Suppression.objects.all().delete()
    suppression_add(channel="email", recipient="a@example.com", reason="bounced")
    suppression_add(channel="sms", recipient="+15550100", reason="unsubscribed", scope="marketing")
    exported = tmp_path / "list.csv"
    call_command("suppressions", "export", "--output", str(exported), stderr=io.StringIO())
    rows = Suppression.objects.values_list("channel", "recipient", "scope", "reason")
    before = sorted(rows)
    Suppression.objects.all().delete()

    out = io.StringIO()
    call_command("suppressions", "import", str(exported), stdout=out)
    assert "2 valid row(s): 2 added, 0 already there; 0 invalid" in out.getvalue()
    assert sorted(rows) == before

    again = io.StringIO()
    call_command("suppressions", "import", str(exported), stdout=again)
    assert "0 added, 2 already there" in again.getvalue()


def test_a_dry_run_counts_what_the_import_would_add_and_adds_nothing(tmp_path):
    Suppression.objects.all().delete()
    suppression_add(channel="email", recipient="there@example.com", reason="bounced")
    source = tmp_path / "in.csv"
    source.write_text(
        "channel,recipient,scope\n"
        "email,There@Example.com,\n"  # already there, whatever its case
        "email,new@example.com,\n"
        "email,new@example.com,all\n"  # the row above adds it
        "email,new@example.com,marketing\n"
        "sms,+15550100,\n"
    )

    dry = io.StringIO()
    call_command("suppressions", "import", str(source), "--dry-run", stdout=dry)
    assert "5 valid row(s): 3 would be added, 2 already there; 0 invalid" in dry.getvalue()
    assert Suppression.objects.count() == 1

    real = io.StringIO()
    call_command("suppressions", "import", str(source), stdout=real)
    assert "5 valid row(s): 3 added, 2 already there; 0 invalid" in real.getvalue()


def test_bad_lines_are_named_and_skipped_the_rest_added(tmp_path):
    source = tmp_path / "in.csv"
    source.write_text(
        "recipient,scope\nok@example.com,\nnot-an-address,\nfine@example.com,weekly\n"
    )
    err = io.StringIO()

    with pytest.raises(CommandError, match="2 invalid row"):
        call_command(
            "suppressions",
            "import",
            str(source),
            "--channel",
            "email",
            stdout=io.StringIO(),
            stderr=err,
        )

    assert "line 3: 'not-an-address' is not an email address" in err.getvalue()
    assert "line 4: scope 'weekly'" in err.getvalue()
    assert Suppression.objects.filter(recipient="ok@example.com", reason="manual").exists()


def test_a_header_without_the_columns_is_refused_whole(tmp_path):
    source = tmp_path / "in.csv"
    source.write_text("email,why\nok@example.com,x\n")

    with pytest.raises(CommandError) as refused:
        call_command("suppressions", "import", str(source))
    assert str(refused.value).endswith(
        "the header must name channel and recipient and may name scope, reason, source, "
        "created_at (missing: channel, recipient; unknown: email, why); nothing was added"
    )
    assert not Suppression.objects.filter(recipient="ok@example.com").exists()


def test_with_channel_given_the_header_needs_only_recipient(tmp_path):
    source = tmp_path / "in.csv"
    source.write_text("email\nok@example.com\n")

    with pytest.raises(CommandError, match="must name recipient and may name channel, scope"):
        call_command("suppressions", "import", str(source), "--channel", "email")
