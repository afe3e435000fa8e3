from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tenants.models import Tenant
from tenants.selectors import TENANTS
from tenants.services import tenant_put
from tests.support.catalogs import catalogs  # noqa: F401 (fixture)


@pytest.fixture
def acme(db: Any) -> Iterator[Tenant]:
    """Tenant `acme`, stored through the services as the API stores it; this process's copy
    forgets it afterwards (the test's rollback takes the row away)."""
    tenant, _ = tenant_put(
        tenant_id="acme",
        fields={
            "name": "Acme Corp",
            "properties": {"logo_url": "https://acme.example/logo.png"},
            "default_locale": "fr",
        },
        actor="tests",
    )
    yield tenant
    TENANTS.forget()
