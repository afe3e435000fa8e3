"""JSON 400, 404, 413 and 500 for API paths (docs/design/api.md: errors are JSON); HTML elsewhere
(admin)."""

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Django's answer to a request it refuses before any view sees it (a SuspiciousOperation),
    above all a body over DATA_UPLOAD_MAX_MEMORY_SIZE, which DRF does not turn into an API
    error: 413 for that one, 400 for the rest."""
    if not request.path.startswith("/api/"):
        return defaults.bad_request(request, exception)
    if isinstance(exception, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return JsonResponse(
            {"detail": f"the request body is larger than {limit} bytes"}, status=413
        )
    return JsonResponse({"detail": "bad request"}, status=400)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": f"no such resource: {request.path}"}, status=404)
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "internal error; it has been logged"}, status=500)
    return defaults.server_error(request)
