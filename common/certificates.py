"""Self-signed X.509 certificates, PEM-encoded, for loopback servers that speak TLS or sign: the
bench's TLS link (bench/link.py) and the tests' servers (an SNS signing certificate, a TLS
listener). One builder, which the bench may import (it may not import tests/)."""

from __future__ import annotations

import datetime
import ipaddress
from collections.abc import Sequence

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.types import (
    CertificateIssuerPrivateKeyTypes,
    PrivateKeyTypes,
)
from cryptography.x509.oid import NameOID


def self_signed_certificate(
    key: CertificateIssuerPrivateKeyTypes,
    common_name: str,
    *,
    valid_since: datetime.timedelta,
    valid_for: datetime.timedelta,
    names: Sequence[str] = (),
    ca: bool = False,
) -> bytes:
    """A certificate for `common_name` signed by its own `key`, valid from `valid_since` ago to
    `valid_for` from now, as PEM. `names` go in subjectAltName (an IP address as one, anything
    else as a DNS name); `ca` makes it a CA that may sign certificates (what a client that
    verifies against it as its trust root wants: the bench's link)."""
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - valid_since)
        .not_valid_after(now + valid_for)
    )
    if names:
        builder = builder.add_extension(
            x509.SubjectAlternativeName([_general_name(n) for n in names]), critical=False
        )
    if ca:
        builder = (
            builder.add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(
                x509.KeyUsage(
                    digital_signature=True,
                    content_commitment=False,
                    key_encipherment=False,
                    data_encipherment=False,
                    key_agreement=False,
                    key_cert_sign=True,
                    crl_sign=False,
                    encipher_only=False,
                    decipher_only=False,
                ),
                critical=True,
            )
            .add_extension(
                x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False
            )
            .add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_public_key(key.public_key()),
                critical=False,
            )
        )
    return builder.sign(key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM)


def private_key_pem(key: PrivateKeyTypes) -> bytes:
    """`key` as unencrypted PKCS#8 PEM (what ssl.SSLContext.load_cert_chain reads)."""
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def _general_name(name: str) -> x509.GeneralName:
    try:
        return x509.IPAddress(ipaddress.ip_address(name))
    except ValueError:
        return x509.DNSName(name)
