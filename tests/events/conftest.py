import pytest

from tests.events import support


@pytest.fixture(autouse=True)
def endpoints_removed_after(django_db_blocker):
    """Endpoints a test made with support.endpoint_on are deleted after it: the end-to-end
    tests commit theirs, and an endpoint left behind would receive the events of every later
    test's triggers."""
    yield
    made, support.MADE[:] = list(support.MADE), []
    with django_db_blocker.unblock():
        for endpoint in made:
            support.endpoint_delete(endpoint)
