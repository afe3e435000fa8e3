import pytest
from django.utils import timezone

from events.models import WebhookEndpoint
from events.services.endpoints import endpoint_delete


@pytest.fixture(autouse=True)
def endpoints_removed_after(django_db_blocker):
    """Endpoints a test made (through the services, the API or the admin) are deleted after it:
    the end-to-end tests commit theirs, and an endpoint left behind would receive the events of
    every later test's triggers."""
    started = timezone.now()
    yield
    with django_db_blocker.unblock():
        for endpoint in WebhookEndpoint.objects.filter(created_at__gte=started):
            endpoint_delete(endpoint)
