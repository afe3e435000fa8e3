import pytest

from tests.deliveries.support import SENDGRID_PUBLIC_KEY

# Endpoints a test made are deleted after it (the end-to-end tests commit theirs).
from tests.events.conftest import endpoints_removed_after  # noqa: F401


@pytest.fixture
def esps(settings):
    """Email providers through Amazon SES and SendGrid, with SendGrid's signature key: their
    tracking webhooks are served (deliveries/tracking.py). Nothing is sent through them."""
    settings.NOTIFLOW_EMAIL_PROVIDERS = ["ses", "sendgrid"]
    settings.ANYMAIL = {
        **settings.ANYMAIL,
        "SENDGRID_TRACKING_WEBHOOK_VERIFICATION_KEY": SENDGRID_PUBLIC_KEY,
    }
