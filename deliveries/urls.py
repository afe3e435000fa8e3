"""The endpoints providers call (tracking webhooks, status callbacks) and the one-click
unsubscribe and the preference page, outside /api/ and its API keys: each checks its caller its own way
(docs/security/providers.md)."""

from django.urls import URLPattern, URLResolver, path

from deliveries import preferences_page, tracking, twilio, views

app_name = "deliveries"
urlpatterns: list[URLPattern | URLResolver] = [
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
    path("preferences/<str:token>/", preferences_page.preferences_page, name="preferences-page"),
    path("twilio/status/", twilio.twilio_status, name="twilio-status"),
    # anymail's tracking webhooks, of the configured ESPs only, with their basic auth and, where
    # the ESP signs, their signature (deliveries/tracking.py); a 404 otherwise.
    path("anymail/<slug:esp>/tracking/", tracking.anymail_tracking, name="anymail-tracking"),
]
