"""`Authorization: Bearer <api key>` for the REST API."""

from __future__ import annotations

from dataclasses import dataclass

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions

from triggers.services import api_key_authenticate


@dataclass(frozen=True)
class ApiClient:
    """The authenticated caller: the name of the API key it used."""

    name: str
    is_authenticated: bool = True

    @property
    def api_key_name(self) -> str:  # what notiflow.actors reads
        return self.name

    def __str__(self) -> str:
        return f"api:{self.name}"


class ApiKeyAuthentication(authentication.BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).decode(errors="replace")
        if not header:
            return None
        scheme, _, key = header.partition(" ")
        # Authentication schemes are case-insensitive (RFC 9110, 11.1); the key is not.
        if scheme.lower() != self.keyword.lower() or not key.strip():
            raise exceptions.AuthenticationFailed("Authorization must be 'Bearer <api key>'")
        api_key = api_key_authenticate(key=key.strip())
        if api_key is None:
            raise exceptions.AuthenticationFailed("invalid API key")
        return ApiClient(name=api_key.name), api_key

    def authenticate_header(self, request) -> str:
        # Makes DRF answer 401 (not 403) when the header is missing.
        return self.keyword


class ApiKeyAuthenticationScheme(OpenApiAuthenticationExtension):
    """Tells the OpenAPI schema that every endpoint takes `Authorization: Bearer <api key>`."""

    target_class = "triggers.auth.ApiKeyAuthentication"
    name = "ApiKey"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer", "description": "manage.py create_api_key"}
