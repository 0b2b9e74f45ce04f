"""The state directory's PKI and kubeconfigs.

Generated once with python3-cryptography and reused while present:
ca.crt/ca.key (the cluster CA), server.crt/server.key (SAN IP:127.0.0.1,
DNS:localhost) and admin.crt/admin.key (CN=kube-sim-admin,
O=system:masters) for client-certificate auth. Keys are EC P-256.
"""

import base64
import datetime
import ipaddress
import os

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

_VALID_DAYS = 3650


def write_private(path, data, mode=0o600):
    """Writes a file atomically (temp file, fsync, rename) with `mode`."""
    tmp = "%s.tmp.%d" % (path, os.getpid())
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))
        f.flush()
        os.fsync(f.fileno())
    os.chmod(tmp, mode)
    os.replace(tmp, path)


def _name(cn, org=None):
    attrs = [x509.NameAttribute(NameOID.COMMON_NAME, cn)]
    if org:
        attrs.append(x509.NameAttribute(NameOID.ORGANIZATION_NAME, org))
    return x509.Name(attrs)


def _key_pem(key):
    return key.private_bytes(serialization.Encoding.PEM,
                             serialization.PrivateFormat.TraditionalOpenSSL,
                             serialization.NoEncryption())


def _builder(subject, issuer, public_key):
    now = datetime.datetime.now(datetime.timezone.utc)
    return (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer)
            .public_key(public_key).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=_VALID_DAYS)))


def _make_ca():
    key = ec.generate_private_key(ec.SECP256R1())
    name = _name("kube-sim-ca")
    cert = (_builder(name, name, key.public_key())
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True,
                                         crl_sign=True, content_commitment=False,
                                         key_encipherment=False, data_encipherment=False,
                                         key_agreement=False, encipher_only=False,
                                         decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()),
                           critical=False)
            .sign(key, hashes.SHA256()))
    return key, cert


def _make_leaf(ca_key, ca_cert, subject, server):
    key = ec.generate_private_key(ec.SECP256R1())
    usage = ExtendedKeyUsageOID.SERVER_AUTH if server else ExtendedKeyUsageOID.CLIENT_AUTH
    b = (_builder(subject, ca_cert.subject, key.public_key())
         .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
         .add_extension(x509.KeyUsage(digital_signature=True, key_encipherment=True,
                                      key_cert_sign=False, crl_sign=False,
                                      content_commitment=False, data_encipherment=False,
                                      key_agreement=False, encipher_only=False,
                                      decipher_only=False), critical=True)
         .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
         .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(
             ca_key.public_key()), critical=False))
    if server:
        b = b.add_extension(x509.SubjectAlternativeName([
            x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
            x509.IPAddress(ipaddress.ip_address("::1")),
            x509.DNSName("localhost")]), critical=False)
    return key, b.sign(ca_key, hashes.SHA256())


class Pki:
    """Paths of the PKI files in a state directory."""

    def __init__(self, state_dir):
        p = lambda n: os.path.join(state_dir, n)  # noqa: E731
        self.ca_crt, self.ca_key = p("ca.crt"), p("ca.key")
        self.server_crt, self.server_key = p("server.crt"), p("server.key")
        self.admin_crt, self.admin_key = p("admin.crt"), p("admin.key")

    def _all(self):
        return (self.ca_crt, self.ca_key, self.server_crt, self.server_key,
                self.admin_crt, self.admin_key)

    def ensure(self):
        """Generates the files unless all of them exist already."""
        if all(os.path.exists(f) for f in self._all()):
            return self
        ca_key, ca_cert = _make_ca()
        srv_key, srv_cert = _make_leaf(ca_key, ca_cert, _name("kube-sim"), server=True)
        adm_key, adm_cert = _make_leaf(ca_key, ca_cert,
                                       _name("kube-sim-admin", "system:masters"), server=False)
        pem = lambda c: c.public_bytes(serialization.Encoding.PEM)  # noqa: E731
        write_private(self.ca_key, _key_pem(ca_key))
        write_private(self.server_key, _key_pem(srv_key))
        write_private(self.admin_key, _key_pem(adm_key))
        write_private(self.ca_crt, pem(ca_cert), 0o644)
        write_private(self.server_crt, pem(srv_cert), 0o644)
        write_private(self.admin_crt, pem(adm_cert), 0o644)
        return self


def _b64file(path):
    with open(path, "rb") as f:
        return base64.b64encode(f.read()).decode("ascii")


def kubeconfig(server, user_lines, ca_file=None):
    """A kubeconfig with one cluster/user/context named kube-sim / admin.

    Every value sits on its own line, so tests can rewrite one field with
    `sed` (server:, token:, certificate-authority-data:, namespace:)."""
    cluster = ["    server: %s" % server]
    if ca_file:
        cluster.append("    certificate-authority-data: %s" % _b64file(ca_file))
    lines = (["apiVersion: v1", "kind: Config", "clusters:", "- name: kube-sim", "  cluster:"]
             + cluster
             + ["users:", "- name: admin", "  user:"] + ["    " + u for u in user_lines]
             + ["contexts:", "- name: kube-sim", "  context:", "    cluster: kube-sim",
                "    user: admin", "    namespace: default",
                "current-context: kube-sim", "preferences: {}"])
    return "\n".join(lines) + "\n"


def write_kubeconfigs(state_dir, server, token, pki, tls=True):
    """Writes DIR/kubeconfig (bearer token) and DIR/kubeconfig-cert
    (client certificate); returns their paths."""
    ca = pki.ca_crt if tls else None
    token_cfg = kubeconfig(server, ["token: %s" % token], ca)
    cert_cfg = kubeconfig(server, ["client-certificate-data: %s" % _b64file(pki.admin_crt),
                                   "client-key-data: %s" % _b64file(pki.admin_key)], ca)
    paths = (os.path.join(state_dir, "kubeconfig"), os.path.join(state_dir, "kubeconfig-cert"))
    write_private(paths[0], token_cfg)
    write_private(paths[1], cert_cfg)
    return paths
