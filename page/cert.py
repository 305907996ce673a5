"""A self-signed HTTPS certificate for this computer's network addresses, made on the spot.

Why: a phone opens the camera only on a secure origin, and the laptop's LAN address has no public
certificate. `openssl` (else the `cryptography` package) makes one locally; nothing is downloaded.
It names the addresses as subjectAltName and says serverAuth (iOS refuses server certificates without
it, and with more than 825 days). It is reused while it covers the same addresses and is not about to
expire, so the phones' one-time warning does not come back every evening.
"""

from __future__ import annotations

import ipaddress
import json
import os
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

CERT_DAYS = 90  # well under the 825 days iOS accepts for a server certificate
RENEW_BEFORE = timedelta(days=2)


class CertificateError(RuntimeError):
    """No certificate could be made; the message says what to install."""


@dataclass(frozen=True)
class Certificate:
    cert: Path
    key: Path
    hosts: tuple[str, ...]  # what the certificate names (IP addresses and DNS names)
    not_after: datetime
    made_now: bool  # False when an earlier certificate was reused


def _san_entries(hosts: Iterable[str]) -> list[str]:
    out = []
    for h in hosts:
        try:
            ipaddress.ip_address(h)
            out.append(f"IP:{h}")
        except ValueError:
            out.append(f"DNS:{h}")
    return out


def _make_with_openssl(cert: Path, key: Path, hosts: Sequence[str], days: int) -> None:
    cmd = [
        "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", str(key), "-out", str(cert), "-days", str(days),
        "-subj", "/CN=Mahjong scorer (self-signed)",
        "-addext", "subjectAltName=" + ",".join(_san_entries(hosts)),
        "-addext", "basicConstraints=critical,CA:FALSE",
        "-addext", "keyUsage=critical,digitalSignature",
        "-addext", "extendedKeyUsage=serverAuth",
    ]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise CertificateError(f"openssl could not make the certificate: {done.stderr.strip()[-300:]}")


def _make_with_cryptography(cert: Path, key: Path, hosts: Sequence[str], days: int) -> None:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    pkey = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Mahjong scorer (self-signed)")])
    alt = []
    for h in hosts:
        try:
            alt.append(x509.IPAddress(ipaddress.ip_address(h)))
        except ValueError:
            alt.append(x509.DNSName(h))
    now = datetime.now(UTC)
    built = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(pkey.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=days))
        .add_extension(x509.SubjectAlternativeName(alt), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(pkey, hashes.SHA256())
    )
    key.write_bytes(
        pkey.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    cert.write_bytes(built.public_bytes(serialization.Encoding.PEM))


def certificate_tool() -> str | None:
    """What can make the certificate here: 'openssl', 'cryptography' or None."""
    if shutil.which("openssl"):
        return "openssl"
    try:
        import cryptography  # noqa: F401
    except ImportError:
        return None
    return "cryptography"


def make_certificate(
    cert_dir: Path, hosts: Sequence[str], days: int = CERT_DAYS, tool: str | None = None
) -> Certificate:
    """A new self-signed certificate and key for `hosts` in `cert_dir` (the key readable by its owner only)."""
    tool = tool or certificate_tool()
    if tool is None:
        raise CertificateError(
            "no way to make a certificate: install the openssl command (apt install openssl) "
            "or the Python package cryptography (pip install cryptography)"
        )
    cert_dir.mkdir(parents=True, exist_ok=True)
    cert, key = cert_dir / "cert.pem", cert_dir / "key.pem"
    old_umask = os.umask(0o077)
    try:
        (_make_with_openssl if tool == "openssl" else _make_with_cryptography)(cert, key, hosts, days)
    finally:
        os.umask(old_umask)
    key.chmod(0o600)
    not_after = datetime.now(UTC) + timedelta(days=days)
    meta = {"hosts": list(hosts), "not_after": not_after.isoformat(), "tool": tool}
    (cert_dir / "cert.json").write_text(json.dumps(meta), encoding="utf-8")
    return Certificate(cert, key, tuple(hosts), not_after, True)


def ensure_certificate(cert_dir: Path, hosts: Sequence[str], days: int = CERT_DAYS) -> Certificate:
    """The certificate in `cert_dir` if it covers `hosts` and is not about to expire, else a new one."""
    cert, key, meta_path = cert_dir / "cert.pem", cert_dir / "key.pem", cert_dir / "cert.json"
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        not_after = datetime.fromisoformat(meta["not_after"])
        covered = set(hosts) <= set(meta["hosts"])
        if covered and cert.is_file() and key.is_file() and not_after - datetime.now(UTC) > RENEW_BEFORE:
            return Certificate(cert, key, tuple(meta["hosts"]), not_after, False)
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return make_certificate(cert_dir, hosts, days)
