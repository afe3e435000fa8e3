"""The endpoints providers call (tracking webhooks, status callbacks) and the one-click
unsubscribe, outside /api/ and its API keys: each checks its caller its own way
(docs/security.md)."""

from django.conf import settings
from django.urls import URLPattern, URLResolver, include, path

from deliveries import twilio, views

app_name = "deliveries"
urlpatterns: list[URLPattern | URLResolver] = [
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
    path("twilio/status/", twilio.twilio_status, name="twilio-status"),
]
# anymail's tracking webhooks (/deliveries/anymail/<esp>/tracking/), with their basic auth: only
# when a secret is set, since anymail would otherwise accept anyone's reports.
if settings.ANYMAIL.get("WEBHOOK_SECRET"):
    urlpatterns.append(path("anymail/", include("anymail.urls")))
