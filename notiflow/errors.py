"""JSON 404 and 500 for API paths (docs/design.md: errors are JSON); HTML elsewhere (admin)."""

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": f"no such resource: {request.path}"}, status=404)
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "internal error; it has been logged"}, status=500)
    return defaults.server_error(request)
