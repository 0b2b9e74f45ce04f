"""Who is calling (authentication) and may they (authorization).

Authentication, like kube-apiserver's union of authenticators:
- a verified TLS client certificate: user = CN, groups = O;
- a bearer token from the static token file (tokens.csv, kube-apiserver
  --token-auth-file format: token,user,uid,"group1,group2"), re-read when
  the file changes;
- a bearer OIDC id-token (JWT), checked like --oidc-issuer-url/--oidc-*:
  signature against the issuer's JWKS (found through its discovery
  document), iss, aud = client id, exp.
Bad credentials are a 401; no credentials at all make the anonymous user,
who may only read /version and the health endpoints.

Authorization (see README): system:masters may do everything; others may
read cluster-scoped objects and all-namespace lists (secrets aside), and
work inside a project namespace (runai-<p>) unless the Project lists its
users in the `kube-sim/users` annotation or its groups in `kube-sim/groups`
(comma-separated; an OIDC identity's groups come from --oidc-groups-claim)
and they are in neither.
Other namespaces are read-only for them.

The /_sim control API is not Kubernetes and has its own credential: the
random token in the state directory's `sim-token` (mode 0600), sent as
`Authorization: Bearer`. Without it any local user could, for example,
add a system:masters user to a running demo.
"""

import csv
import io
import json
import os
import secrets
import ssl
import sys
import threading
import time
import urllib.request

from kubesim.errors import unauthorized

SIM_TOKEN_FILE = "sim-token"
MASTERS = "system:masters"
AUTHENTICATED = "system:authenticated"
USERS_ANNOTATION = "kube-sim/users"
GROUPS_ANNOTATION = "kube-sim/groups"
READ_VERBS = ("get", "list", "watch")
PROJECTS = ("run.ai", "v1", "projects")
NAMESPACES = ("", "v1", "namespaces")


class Identity:
    def __init__(self, user, groups=(), uid="", method="none"):
        self.user = user
        self.groups = list(groups)
        self.uid = uid
        self.method = method  # "bearer" | "cert" | "none"

    @property
    def is_admin(self):
        return MASTERS in self.groups

    @property
    def anonymous(self):
        return self.method == "none"

    def user_info(self):
        return {"username": self.user, "uid": self.uid, "groups": self.groups}


ANONYMOUS = Identity("system:anonymous", ["system:unauthenticated"])


def _log(msg):
    print("kube-sim: " + msg, file=sys.stderr, flush=True)


class TokenFile:
    """The static token file, re-read whenever its mtime changes."""

    def __init__(self, path):
        self.path = path
        self._mtime = None
        self._tokens = {}
        self._lock = threading.Lock()

    def ensure(self):
        """Creates the file with a random admin token if absent; returns an
        admin (system:masters) token, adding one if the file has none."""
        if not os.path.exists(self.path):
            self.add(secrets.token_hex(24), "kube-sim-admin", "kube-sim-admin", [MASTERS])
        self._reload()
        for token, ident in self._tokens.items():
            if ident.is_admin:
                return token
        return self.add(secrets.token_hex(24), "kube-sim-admin", "kube-sim-admin", [MASTERS])

    def add(self, token, user, uid, groups):
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerow([token, user, uid, ",".join(groups)])
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(fd, "a") as f:
            f.write(buf.getvalue())
        self._reload()
        return token

    def _reload(self):
        try:
            mtime = os.stat(self.path).st_mtime_ns
        except OSError:
            return
        with self._lock:
            if mtime == self._mtime:
                return
            tokens = {}
            with open(self.path, newline="") as f:
                for row in csv.reader(f):
                    if len(row) < 2 or row[0].startswith("#"):
                        continue
                    groups = [g for g in (row[3].split(",") if len(row) > 3 else []) if g]
                    uid = row[2] if len(row) > 2 else row[1]
                    tokens[row[0]] = Identity(row[1], groups + [AUTHENTICATED], uid, "bearer")
            self._tokens, self._mtime = tokens, mtime

    def lookup(self, token):
        self._reload()
        return self._tokens.get(token)


class OIDCVerifier:
    """Validates id-tokens the way kube-apiserver's --oidc-* flags do."""

    ALGORITHMS = ("RS256", "RS384", "RS512", "ES256", "ES384", "ES512",
                  "PS256", "PS384", "PS512")
    REFETCH_INTERVAL = 10.0  # at most one JWKS refetch per this many seconds

    def __init__(self, issuer, client_id, ca_file=None, username_claim="sub",
                 groups_claim=None):
        self.issuer = issuer
        self.client_id = client_id
        self.ca_file = ca_file
        self.username_claim = username_claim or "sub"
        self.groups_claim = groups_claim
        self._keys = {}
        self._fetched_at = 0.0
        self._lock = threading.Lock()

    def _fetch_json(self, url):
        ctx = ssl.create_default_context(cafile=self.ca_file) if self.ca_file else None
        req = urllib.request.Request(url, headers={"Accept": "application/json"})
        with urllib.request.urlopen(req, timeout=10, context=ctx) as resp:
            return json.loads(resp.read().decode("utf-8"))

    def _refresh_keys(self):
        disco = self._fetch_json(self.issuer.rstrip("/") + "/.well-known/openid-configuration")
        if disco.get("issuer") != self.issuer:
            raise ValueError("issuer in discovery document %r does not match %r"
                             % (disco.get("issuer"), self.issuer))
        jwks = self._fetch_json(disco["jwks_uri"])
        keys = {}
        for jwk in jwks.get("keys", []):
            if jwk.get("use", "sig") != "sig":
                continue
            keys[jwk.get("kid")] = jwk
        self._keys = keys
        self._fetched_at = time.monotonic()

    def _key(self, kid, alg):
        import jwt  # python3-jwt: imported only when OIDC is configured
        with self._lock:
            # unknown kid: the issuer may have rotated keys; refetch, but not
            # more often than REFETCH_INTERVAL (a bad token must not hammer it)
            stale = time.monotonic() - self._fetched_at > self.REFETCH_INTERVAL
            if (not self._keys or kid not in self._keys) and stale:
                self._refresh_keys()
            if kid is None and len(self._keys) == 1:
                jwk = next(iter(self._keys.values()))
            else:
                jwk = self._keys.get(kid)
        if jwk is None:
            raise ValueError("no JWKS key with kid %r" % kid)
        return jwt.PyJWK(jwk, algorithm=alg).key

    def verify(self, token):
        """Returns the Identity for a valid id-token; raises ValueError or a
        jwt error otherwise."""
        import jwt  # python3-jwt: imported only when OIDC is configured
        header = jwt.get_unverified_header(token)
        alg = header.get("alg")
        if alg not in self.ALGORITHMS:
            raise ValueError("signing algorithm %r not allowed" % alg)
        key = self._key(header.get("kid"), alg)
        claims = jwt.decode(token, key, algorithms=[alg], audience=self.client_id,
                            issuer=self.issuer,
                            options={"require": ["exp", "iss", "aud"]})
        if self.username_claim == "email" and claims.get("email_verified") is False:
            raise ValueError("email not verified")
        user = claims.get(self.username_claim)
        if not isinstance(user, str) or not user:
            raise ValueError("claim %r missing" % self.username_claim)
        groups = []
        if self.groups_claim:
            value = claims.get(self.groups_claim)
            groups = [value] if isinstance(value, str) else list(value or [])
        return Identity(user, groups + [AUTHENTICATED], str(claims.get("sub", "")), "bearer")


class Authenticator:
    def __init__(self, token_file, oidc=None):
        self.tokens = token_file
        self.oidc = oidc
        # the emulated control plane's token check (claims or None), set
        # with --control-plane: its tokens are accepted as a cluster with
        # Run:ai's "cluster authentication" accepts them
        self.control_plane = None

    @staticmethod
    def _cert_identity(peercert):
        if not peercert:
            return None
        cn, orgs = None, []
        for rdn in peercert.get("subject", ()):
            for key, value in rdn:
                if key == "commonName":
                    cn = value
                elif key == "organizationName":
                    orgs.append(value)
        if not cn:
            return None
        return Identity(cn, orgs + [AUTHENTICATED], cn, "cert")

    def _token_identity(self, token):
        ident = self.tokens.lookup(token)
        if ident is not None:
            return ident
        if self.control_plane is not None and token.count(".") == 2:
            claims = self.control_plane(token)
            if claims is not None:
                user = claims.get("email") or claims.get("sub") or ""
                return Identity(user, [AUTHENTICATED], str(claims.get("sub", "")), "bearer")
        if self.oidc is not None and token.count(".") == 2:
            try:
                return self.oidc.verify(token)
            except Exception as e:  # any failure is a plain 401, logged here
                _log("oidc: rejected id-token: %s" % e)
        return None

    def authenticate(self, authorization, peercert):
        """Identity for the request; raises a 401 ApiError for bad
        credentials; ANONYMOUS when there are none."""
        ident = self._cert_identity(peercert)
        if ident is not None:
            return ident
        if authorization:
            scheme, _, token = authorization.partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                ident = self._token_identity(token.strip())
                if ident is not None:
                    return ident
            raise unauthorized()
        return ANONYMOUS


class Authorizer:
    """The access rules; reads namespaces and projects from the store."""

    def __init__(self, store):
        self.store = store

    def _project_of(self, namespace):
        """(project name, Project object or None), or (None, None) when the
        namespace belongs to no project."""
        ns = self.store.get_ref(NAMESPACES, None, namespace)
        label = ((ns or {}).get("metadata", {}).get("labels") or {}).get("runai/queue")
        name = label or (namespace[len("runai-"):] if namespace.startswith("runai-") else None)
        if not name:
            return None, None
        try:
            return name, self.store.get_ref(PROJECTS, None, name)
        except Exception:
            return name, None

    def _project_allows(self, ident, project):
        annotations = (project or {}).get("metadata", {}).get("annotations") or {}
        users = annotations.get(USERS_ANNOTATION)
        groups = annotations.get(GROUPS_ANNOTATION)
        if users is None and groups is None:
            return True
        listed = {u.strip() for u in (users or "").split(",") if u.strip()}
        listed_groups = {g.strip() for g in (groups or "").split(",") if g.strip()}
        return ident.user in listed or bool(listed_groups.intersection(ident.groups))

    def allowed(self, ident, verb, resource, namespace, name=None, subresource=""):
        if ident.is_admin:
            return True
        if ident.anonymous:
            return False
        if resource in ("selfsubjectaccessreviews", "selfsubjectrulesreviews"):
            return True
        if not namespace:
            # cluster scope: reads of cluster objects and all-namespace lists
            return verb in READ_VERBS and resource != "secrets"
        project_name, project = self._project_of(namespace)
        if project_name is None:
            return verb in READ_VERBS and not subresource
        return self._project_allows(ident, project)

    def allowed_path(self, ident, path):
        """Non-resource URLs (discovery, /version, health)."""
        public = ("/version", "/healthz", "/livez", "/readyz")
        if any(path == p or path.startswith(p + "/") for p in public):
            return True
        return not ident.anonymous


def ensure_sim_token(path):
    """Returns the /_sim token kept in `path`, making one if the file is
    absent. Kept across restarts (tests restart the server with its state);
    an existing file is made 0600 again, and a file that does not hold a
    token is replaced."""
    try:
        with open(path) as f:
            token = f.read().strip()
        if len(token) >= 32 and token.isalnum():
            os.chmod(path, 0o600)
            return token
    except FileNotFoundError:
        pass
    token = secrets.token_hex(32)
    tmp = "%s.tmp.%d" % (path, os.getpid())
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(token + "\n")
    os.replace(tmp, path)
    return token


def sim_authorized(header, token):
    """Whether an Authorization header carries the /_sim token (compared in
    constant time)."""
    if not header or not token:
        return False
    scheme, _, value = header.strip().partition(" ")
    if scheme.lower() != "bearer":
        return False
    return secrets.compare_digest(value.strip().encode(), token.encode())
