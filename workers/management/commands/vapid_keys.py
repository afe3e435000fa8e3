"""`manage.py vapid_keys`: a new VAPID key pair for web push, printed as the two settings."""

from django.core.management.base import BaseCommand

from workers.providers.push import vapid_key_pair


class Command(BaseCommand):
    help = (
        "Print a new VAPID key pair (P-256, base64url) as NOTIFLOW_VAPID_PRIVATE_KEY and "
        "NOTIFLOW_VAPID_PUBLIC_KEY lines. Keep the private key secret; the public key is the "
        "applicationServerKey browsers subscribe with (changing it invalidates every "
        "subscription)."
    )

    def handle(self, *args: object, **options: object) -> None:
        private, public = vapid_key_pair()
        self.stdout.write(f"NOTIFLOW_VAPID_PRIVATE_KEY={private}")
        self.stdout.write(f"NOTIFLOW_VAPID_PUBLIC_KEY={public}")
