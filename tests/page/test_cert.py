"""The self-signed certificate of `make app-lan`: what it names, that it is a server certificate, reuse."""

from __future__ import annotations

import ipaddress
import json
import shutil
import ssl
from datetime import UTC, datetime, timedelta

import pytest

from page import cert as C

HOSTS = ["192.168.1.23", "mahjong.local", "localhost", "127.0.0.1"]


def available_tools() -> list[str]:
    """What can make a certificate on this machine (the tests run each)."""
    tools = []
    if shutil.which("openssl"):
        tools.append("openssl")
    try:
        import cryptography  # noqa: F401

        tools.append("cryptography")
    except ImportError:
        pass
    return tools


@pytest.mark.parametrize("tool", available_tools())
def test_certificate_names_the_lan_address_and_is_a_server_certificate(tmp_path, tool):
    x509 = pytest.importorskip("cryptography.x509", reason="reading the certificate needs cryptography")
    from cryptography.x509.oid import ExtendedKeyUsageOID

    cert = C.make_certificate(tmp_path / "c", HOSTS, days=30, tool=tool)
    assert cert.made_now and cert.hosts == tuple(HOSTS)
    assert cert.key.stat().st_mode & 0o777 == 0o600
    c = x509.load_pem_x509_certificate(cert.cert.read_bytes())
    san = c.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert san.get_values_for_type(x509.IPAddress) == [
        ipaddress.ip_address("192.168.1.23"),
        ipaddress.ip_address("127.0.0.1"),
    ]
    assert san.get_values_for_type(x509.DNSName) == ["mahjong.local", "localhost"]
    eku = c.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    assert ExtendedKeyUsageOID.SERVER_AUTH in eku  # iOS refuses server certificates without it
    assert c.extensions.get_extension_for_class(x509.BasicConstraints).value.ca is False
    lifetime = c.not_valid_after_utc - c.not_valid_before_utc
    assert timedelta(days=29) < lifetime < timedelta(days=31)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert.cert, cert.key)  # the key belongs to the certificate


def test_certificate_is_reused_while_it_covers_the_addresses(tmp_path):
    if not available_tools():
        pytest.skip("neither openssl nor cryptography")
    d = tmp_path / "c"
    first = C.ensure_certificate(d, HOSTS)
    pem = first.cert.read_bytes()
    again = C.ensure_certificate(d, ["192.168.1.23", "localhost"])
    assert not again.made_now and again.cert.read_bytes() == pem
    moved = C.ensure_certificate(d, ["10.0.0.7", "localhost"])  # the laptop got a new address
    assert moved.made_now and moved.cert.read_bytes() != pem
    meta = json.loads((d / "cert.json").read_text())
    meta["not_after"] = (datetime.now(UTC) + timedelta(hours=5)).isoformat()  # about to expire
    (d / "cert.json").write_text(json.dumps(meta))
    assert C.ensure_certificate(d, ["10.0.0.7"]).made_now
    (d / "cert.json").write_text("{broken")
    assert C.ensure_certificate(d, ["10.0.0.7"]).made_now


def test_no_certificate_tool_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setattr(C, "certificate_tool", lambda: None)
    with pytest.raises(C.CertificateError, match="apt install openssl"):
        C.make_certificate(tmp_path, HOSTS)
