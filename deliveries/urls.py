"""The endpoints providers call (tracking webhooks, status callbacks) and the one-click
unsubscribe, outside /api/ and its API keys: each checks its caller its own way."""

from django.urls import URLPattern, URLResolver

urlpatterns: list[URLPattern | URLResolver] = []
