"""`Authorization: Bearer <api key>` for the REST API."""

from __future__ import annotations

from dataclasses import dataclass

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions

from common.credentials import CredentialsMalformed, authorization_credentials
from triggers.api_keys import ApiKeyRefused, api_key_verify


@dataclass(frozen=True)
class ApiClient:
    """The authenticated caller: the name of the API key it used."""

    name: str
    is_authenticated: bool = True

    @property
    def api_key_name(self) -> str:  # what common.actors reads
        return self.name

    def __str__(self) -> str:
        return f"api:{self.name}"


class ApiKeyAuthentication(authentication.BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request):
        try:
            key = authorization_credentials(request, self.keyword)
        except CredentialsMalformed:
            raise exceptions.AuthenticationFailed(
                "Authorization must be 'Bearer <api key>'"
            ) from None
        if key is None:
            return None
        try:
            api_key = api_key_verify(key=key)
        except ApiKeyRefused as exc:
            raise exceptions.AuthenticationFailed(str(exc)) from None
        return ApiClient(name=api_key.name), api_key

    def authenticate_header(self, request) -> str:
        # Makes DRF answer 401 (not 403) when the header is missing.
        return self.keyword


class ApiKeyAuthenticationScheme(OpenApiAuthenticationExtension):
    """Tells the OpenAPI schema that every endpoint takes `Authorization: Bearer <api key>`."""

    target_class = "triggers.auth.ApiKeyAuthentication"
    name = "ApiKey"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "An API key from `manage.py create_api_key <name> --scope trigger|admin` "
            "or the admin. A `trigger` key creates, reads and cancels triggers (with their logs) "
            "and reads workflows and their stats, optionally only for the workflows it is "
            "limited to; an `admin` key can do everything. A key without the scope an operation "
            "needs gets 403; each operation's description names its scope. Revoked or expired "
            "keys get 401; over the key's rate limit, 429 with Retry-After.",
        }
