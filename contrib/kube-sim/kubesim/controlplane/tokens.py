"""The control plane's identity side: one local user (password grant,
and the browser login's authorization codes), one access key
(client_credentials, and app_token under its older name), the JWTs it
issues and the refresh tokens, each good for one use (a
second use of a spent refresh token is refused, as Keycloak's rotation
does, so a client that refreshes twice for one expiry is caught).

With `opaque` set (the /_sim/controlplane setting opaqueTokens), the
access tokens are random strings, known only to this control plane, as
the documents allow (they say only "string"); the id-token stays a JWT."""

import base64
import hashlib
import hmac
import json
import os
import secrets
import threading
import time
import uuid

from kubesim import certs

CREDENTIALS_FILE = "control-plane-credentials.json"


def _b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Identity:
    def __init__(self, state_dir, issuer, ttl=3600):
        self.issuer = issuer
        self.ttl = ttl
        self.key = secrets.token_bytes(32)
        self.lock = threading.Lock()
        self.refresh = {}      # refresh token -> subject
        self.codes = {}        # authorization code -> (subject, client, redirect)
        self.opaque = False
        self.opaque_tokens = {}  # opaque access token -> its claims
        path = os.path.join(state_dir, CREDENTIALS_FILE)
        if os.path.exists(path):
            with open(path) as f:
                self.creds = json.load(f)
        else:
            self.creds = {"username": "researcher@example.com",
                          "password": secrets.token_urlsafe(12),
                          "clientId": "ak-" + secrets.token_hex(4),
                          "clientSecret": secrets.token_urlsafe(18)}
            certs.write_private(path, json.dumps(self.creds, indent=2) + "\n")
        self.path = path

    def _jwt(self, claims):
        head = _b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
        body = _b64(json.dumps(claims, separators=(",", ":")).encode())
        sig = hmac.new(self.key, ("%s.%s" % (head, body)).encode(), hashlib.sha256).digest()
        return "%s.%s.%s" % (head, body, _b64(sig))

    def verify(self, token):
        """The claims of a token this control plane issued and that has
        not expired, else None."""
        with self.lock:
            claims = self.opaque_tokens.get(token)
        if claims is not None:
            return claims if claims["exp"] > time.time() else None
        try:
            head, body, sig = token.split(".")
            want = hmac.new(self.key, ("%s.%s" % (head, body)).encode(),
                            hashlib.sha256).digest()
            if not hmac.compare_digest(want, _unb64(sig)):
                return None
            claims = json.loads(_unb64(body))
        except (ValueError, TypeError):
            return None
        return claims if claims.get("exp", 0) > time.time() else None

    def _subject(self, kind, name):
        return {"kind": kind, "name": name}

    def login(self, grant, body):
        """The subject a grant names, or None when its credentials are
        wrong. Keys are matched without regard to case, as the real
        decoder does."""
        b = {k.lower(): v for k, v in body.items()}
        c = self.creds
        if grant == "password":
            if b.get("username") == c["username"] and b.get("password") == c["password"] \
                    and b.get("clientid"):
                return self._subject("user", c["username"])
        elif grant == "client_credentials":
            if b.get("clientid") == c["clientId"] and b.get("clientsecret") == c["clientSecret"]:
                return self._subject("application", c["clientId"])
        elif grant == "app_token":
            if b.get("appid") == c["clientId"] and b.get("appsecret") == c["clientSecret"]:
                return self._subject("application", c["clientId"])
        elif grant == "exchange_token":
            with self.lock:
                got = self.codes.pop(b.get("code") or "", None)
            if got and got[1] == b.get("clientid") and got[2] == b.get("redirecturi"):
                return got[0]
        elif grant == "refresh_token":
            with self.lock:
                return self.refresh.pop(b.get("refreshtoken") or "", None)
        return None

    def new_code(self, subject, client_id, redirect_uri):
        """An authorization code for one exchange by client_id with the
        same redirect URI (the browser login's)."""
        code = "ac-" + secrets.token_urlsafe(24)
        with self.lock:
            self.codes[code] = (subject, client_id, redirect_uri)
        return code

    def issue(self, subject):
        now = int(time.time())
        claims = {"iss": self.issuer, "aud": "runai", "iat": now, "exp": now + self.ttl,
                  "jti": str(uuid.uuid4()), "sub": subject["name"]}
        if subject["kind"] == "user":
            claims.update({"email": subject["name"], "preferred_username": subject["name"],
                           "name": subject["name"].split("@")[0]})
        else:
            claims.update({"preferred_username": "service-account-" + subject["name"],
                           "client_id": subject["name"]})
        refresh = "rt-" + secrets.token_urlsafe(24)
        access = self._jwt(dict(claims, typ="Bearer"))
        with self.lock:
            self.refresh[refresh] = subject
            if self.opaque:
                access = "at-" + secrets.token_urlsafe(24)
                self.opaque_tokens[access] = dict(claims, typ="Bearer")
        return {"accessToken": access,
                "idToken": self._jwt(dict(claims, typ="ID")),
                "refreshToken": refresh}
