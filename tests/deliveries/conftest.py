import pytest

from tests.deliveries.support import SENDGRID_PUBLIC_KEY, SNS_CERT_URL_PATTERN

# Endpoints a test made are deleted after it (the end-to-end tests commit theirs).
from tests.events.conftest import endpoints_removed_after  # noqa: F401


@pytest.fixture
def esps(settings):
    """Email providers through Amazon SES and SendGrid, with SendGrid's signature key and the
    tests' SNS certificate address: their tracking webhooks are served (deliveries/tracking.py).
    Nothing is sent through them."""
    settings.NOTIFLOW_EMAIL_PROVIDERS = ["ses", "sendgrid"]
    settings.NOTIFLOW_SNS_CERT_URL_PATTERN = SNS_CERT_URL_PATTERN
    settings.ANYMAIL = {
        **settings.ANYMAIL,
        "SENDGRID_TRACKING_WEBHOOK_VERIFICATION_KEY": SENDGRID_PUBLIC_KEY,
    }
