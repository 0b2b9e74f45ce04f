"""The control plane's identity provider, as far as the browser login
needs it: the realm's discovery document, an authorization endpoint with
a sign-in form for the emulator's user, and the page that shows a code
to paste (the remote-browser flow's redirect). The code it gives is
exchanged at POST /api/v1/token (grantType exchange_token), for the
same client id and redirect URI, once."""

import html
import json
import urllib.parse

REALM = "/auth/realms/runai"
AUTH_PATH = REALM + "/protocol/openid-connect/auth"
CODE_PAGE = "/oauth-code"
MAX_FORM = 64 * 1024


def discovery(issuer):
    oidc = issuer + "/protocol/openid-connect"
    return {"issuer": issuer, "authorization_endpoint": oidc + "/auth",
            "token_endpoint": oidc + "/token", "jwks_uri": oidc + "/certs",
            "response_types_supported": ["code"],
            "code_challenge_methods_supported": ["S256"]}


def redirect_allowed(cp_url, uri):
    """Where a code may be sent: this machine's loopback (the browser
    flow's listener, any port) or the control plane's own code page."""
    u = urllib.parse.urlsplit(uri or "")
    if uri == cp_url + CODE_PAGE:
        return True
    return u.scheme == "http" and u.hostname in ("127.0.0.1", "localhost", "::1")


def _form(params, message=""):
    hidden = "".join('<input type="hidden" name="%s" value="%s">'
                     % (html.escape(k), html.escape(v)) for k, v in sorted(params.items())
                     if k in ("client_id", "redirect_uri", "state", "scope", "nonce",
                              "response_type"))
    return ("<!doctype html><title>Run:ai sign-in</title>"
            "<p id=\"message\">%s</p>"
            "<form method=\"post\" action=\"%s\">%s"
            "<input name=\"username\"><input name=\"password\" type=\"password\">"
            "<button>Sign in</button></form>" % (html.escape(message), AUTH_PATH, hidden))


def _first(query):
    return {k: v[0] for k, v in query.items() if v}


def is_realm_path(path):
    return path.startswith(REALM + "/") or path == CODE_PAGE


def handle(cp, method, path, query, raw_body):
    """(status, content type, body, extra headers) for a realm path
    (is_realm_path)."""
    if path == REALM + "/.well-known/openid-configuration" and method == "GET":
        return 200, "application/json", json.dumps(discovery(cp.identity.issuer)), {}
    if path == CODE_PAGE and method == "GET":
        code = _first(query).get("code", "")
        return 200, "text/html", ("<!doctype html><title>Your code</title>"
                                  "<p>Paste this code into runai:</p>"
                                  "<pre id=\"code\">%s</pre>" % html.escape(code)), {}
    if path != AUTH_PATH:
        return 404, "text/plain", "not found", {}
    params = _first(query)
    if method == "POST":
        if len(raw_body) > MAX_FORM:
            return 413, "text/plain", "form too large", {}
        params = _first(urllib.parse.parse_qs(raw_body.decode("utf-8", "replace")))
    elif method != "GET":
        return 405, "text/plain", "method not allowed", {}
    if params.get("response_type") != "code" or not params.get("client_id"):
        return 400, "text/plain", "response_type=code and a client_id are required", {}
    if not redirect_allowed(cp.url, params.get("redirect_uri")):
        return 400, "text/plain", "redirect_uri is not allowed", {}
    if method == "GET":
        return 200, "text/html", _form(params), {}
    subject = cp.identity.login("password", {"username": params.get("username"),
                                             "password": params.get("password"),
                                             "clientID": params["client_id"]})
    if subject is None:
        return 401, "text/html", _form(params, "Invalid username or password."), {}
    code = cp.identity.new_code(subject, params["client_id"], params["redirect_uri"])
    answer = {"code": code}
    if params.get("state"):
        answer["state"] = params["state"]
    sep = "&" if "?" in params["redirect_uri"] else "?"
    return 302, "text/plain", "", {
        "Location": params["redirect_uri"] + sep + urllib.parse.urlencode(answer)}
