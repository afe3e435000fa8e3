"""Django integration: `INSTALLED_APPS += ["notiflow_client.django"]`, settings `NOTIFLOW_URL`
and `NOTIFLOW_INBOX_SECRET`, then `{% load notiflow_inbox %}{% notiflow_inbox request.user.pk %}`.
It needs Django alone: no model, no database, nothing of Notiflow's server."""
