"""Who did it: one spelling of the actor in every audit trail (trigger events, workflow versions,
a trigger's created_by), whichever door the change came through.

    api:<key name>        a client with an API key (the key's name, never the key)
    admin:<username>      a user of the admin site
    manage.py <command>   an operator's command
"""

from __future__ import annotations

from typing import Any


def actor_of(request: Any) -> str:
    """The actor of a Django or DRF request."""
    user = getattr(request, "user", None)
    api_key_name = getattr(user, "api_key_name", None)  # triggers.auth.ApiClient
    if api_key_name:
        return f"api:{api_key_name}"
    if user is not None and user.is_authenticated:
        return f"admin:{user.get_username()}"
    return "anonymous"


def command_actor(command: str) -> str:
    """The actor of a management command, by its name."""
    return f"manage.py {command}"
