# Endpoints a test made are deleted after it (the end-to-end tests commit theirs).
from tests.events.conftest import endpoints_removed_after  # noqa: F401
