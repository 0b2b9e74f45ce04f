"""What the Kubernetes API means: URL parsing, authorization, discovery,
get/list/watch/create/update/patch/delete, Tables, and the hand-off of
pods/log, exec and attach to the runtime (logs, podexec).

Every function takes the request handler (server.Handler), which carries
the parsed path and query, the body, the identity and the response helpers.
"""

import base64
import json
import time

from kubesim import applyserver, discovery, metrics, patch, reviews, tables
from kubesim.errors import (ApiError, bad_request, forbidden, method_not_allowed, not_found,
                            not_acceptable, resource_not_found, unauthorized)
from kubesim.selectors import FieldSelector, LabelSelector
from kubesim.sim import runtime_module
from kubesim.store import Gone, now_rfc3339

TABLE_TYPE = "application/json;as=Table;v=%s;g=meta.k8s.io"
DEFAULT_WATCH_TIMEOUT = 1800
BOOKMARK_INTERVAL = 10.0


class Request:
    """A resource request, parsed like kube-apiserver's RequestInfo."""

    def __init__(self, group, version, rest, watch_prefix=False):
        self.group, self.version = group, version
        self.namespace = None
        self.plural = self.name = None
        self.subresource = ""
        self.watch_prefix = watch_prefix
        # namespaces/<ns>/<plural>/... is a namespaced resource, but
        # namespaces/<ns>[/status|/finalize] is the Namespace object itself
        if len(rest) >= 2 and rest[0] == "namespaces":
            self.namespace = rest[1]
            if len(rest) > 2 and rest[2] not in ("status", "finalize"):
                rest = rest[2:]
        if rest:
            self.plural = rest[0]
        if len(rest) > 1:
            self.name = rest[1]
        if len(rest) > 2:
            self.subresource = "/".join(rest[2:])
        if self.plural == "namespaces":
            self.namespace = None  # a Namespace is cluster-scoped

    def verb(self, method, query):
        if method in ("GET", "HEAD"):
            if self.watch_prefix or _flag(query, "watch"):
                return "watch"
            return "get" if self.name else "list"
        if method == "DELETE":
            return "delete" if self.name else "deletecollection"
        return {"POST": "create", "PUT": "update", "PATCH": "patch"}.get(method)


def _q(query, key, default=""):
    return query.get(key, [default])[0]


def _flag(query, key):
    return _q(query, key).lower() in ("1", "true")


def _media_types(accept):
    """[(type, {param: value})] in the order the client listed them."""
    out = []
    for part in (accept or "").split(","):
        fields = [f.strip() for f in part.split(";")]
        if not fields[0]:
            continue
        params = {}
        for f in fields[1:]:
            k, _, v = f.partition("=")
            params[k.strip()] = v.strip()
        out.append((fields[0].lower(), params))
    return out or [("*/*", {})]


def _negotiate(handler, special):
    """The first media type of Accept we serve: a key of `special` (matched
    on the as/g/v parameters) or "json"; raises 406 when none."""
    for mtype, params in _media_types(handler.headers.get("Accept")):
        if mtype not in ("application/json", "application/*", "*/*", "application/yaml"):
            continue
        key = (params.get("as"), params.get("g"), params.get("v"))
        if key in special:
            return special[key]
        if key == (None, None, None) and mtype != "application/yaml":
            return "json"
    raise not_acceptable(handler.headers.get("Accept"))


def _want_table(handler):
    return _negotiate(handler, {("Table", "meta.k8s.io", "v1"): "v1",
                                ("Table", "meta.k8s.io", "v1beta1"): "v1beta1"})


# --- entry point --------------------------------------------------------------

def _is_resource_path(parts):
    """/api/v1/<...> and /apis/<g>/<v>/<...>: below a group/version."""
    return (len(parts) >= 3 and parts[0] == "api") or (len(parts) >= 4 and parts[0] == "apis")


def serve(handler):
    path = handler.req_path.rstrip("/") or "/"
    parts = [p for p in path.split("/") if p]
    if _is_resource_path(parts):
        return _serve_resource(handler, parts)
    _authorize_path(handler, path)
    if parts and parts[0] in ("healthz", "livez", "readyz"):
        return handler.send_text(200, "ok")
    if path == "/version":
        return handler.send_json(200, discovery.VERSION)
    if parts[:2] == ["openapi", "v3"]:
        return _serve_openapi(handler, parts[2:])
    if path in ("/api", "/apis"):
        return _serve_group_discovery(handler, path == "/api")
    registry = handler.sim.registry
    if path == "/api/v1":
        return _send_or_404(handler, discovery.resource_list(registry, "", "v1"))
    if len(parts) == 2 and parts[0] == "apis":
        return _send_or_404(handler, discovery.api_group(registry, parts[1]))
    if len(parts) == 3 and parts[0] == "apis":
        return _send_or_404(handler, discovery.resource_list(registry, parts[1], parts[2]))
    raise resource_not_found()


def _serve_openapi(handler, gv):
    """/openapi/v3 (the index) and /openapi/v3/api/v1, /openapi/v3/apis/<g>/<v>."""
    registry = handler.sim.registry
    if not gv:
        return handler.send_json(200, discovery.openapi_index(registry))
    doc = None
    if gv[0] == "api" and len(gv) == 2:
        doc = discovery.openapi_document(registry, "", gv[1])
    elif gv[0] == "apis" and len(gv) == 3:
        doc = discovery.openapi_document(registry, gv[1], gv[2])
    _send_or_404(handler, doc)


def _authorize_path(handler, path):
    ident = handler.identity
    if not handler.sim.authz.allowed_path(ident, path):
        if ident.anonymous:
            raise unauthorized()
        raise ApiError(403, "Forbidden", 'forbidden: User "%s" cannot get path "%s"'
                       % (ident.user, path))


def _send_or_404(handler, doc):
    if doc is None:
        raise resource_not_found()
    handler.send_json(200, doc)


def _serve_group_discovery(handler, core):
    registry = handler.sim.registry
    kind = _negotiate(handler, {
        ("APIGroupDiscoveryList", "apidiscovery.k8s.io", "v2"): "v2",
        ("APIGroupDiscoveryList", "apidiscovery.k8s.io", "v2beta1"): "v2beta1"})
    if kind == "v2":
        return handler.send_json(200, discovery.aggregated(registry, core),
                                 content_type=discovery.AGGREGATED_V2)
    if kind == "v2beta1":
        return handler.send_json(200, discovery.aggregated(
            registry, core, "apidiscovery.k8s.io/v2beta1"),
            content_type=discovery.AGGREGATED_V2BETA1)
    if core:
        return handler.send_json(200, discovery.api_versions(handler.sim.server_address))
    return handler.send_json(200, discovery.api_group_list(registry))


# --- resources ----------------------------------------------------------------

def _parse(parts):
    if parts[0] == "api":
        group, version, rest = "", parts[1], parts[2:]
    else:
        group, version, rest = parts[1], parts[2], parts[3:]
    watch_prefix = bool(rest) and rest[0] == "watch"
    if watch_prefix:
        rest = rest[1:]
    return Request(group, version, rest, watch_prefix)


def _serve_resource(handler, parts):
    req = _parse(parts)
    sim = handler.sim
    res = sim.registry.get(req.group, req.version, req.plural) if req.plural else None
    if res is None:
        _authorize_path(handler, handler.req_path)
        raise resource_not_found()
    if (req.namespace and not res.namespaced) or \
            (res.namespaced and not req.namespace and req.name):
        raise resource_not_found()
    if res.plural == "services" and req.subresource.split("/")[0] == "proxy":
        return _service_proxy(handler, res, req)
    if req.subresource and req.subresource not in res.subresources:
        raise resource_not_found()
    verb = req.verb(handler.command, handler.query)
    if verb is None or verb not in res.verbs:
        raise method_not_allowed(handler.command)
    if verb == "create" and res.namespaced and not req.namespace:
        raise method_not_allowed(handler.command)
    _authorize(handler, res, req, _authz_verb(verb, req.subresource))
    if res.plural in reviews.PLURALS:
        return reviews.serve(handler, res)
    if res.group == metrics.GROUP:
        return metrics.serve(handler, res, req)
    if req.subresource in ("log", "exec", "attach", "portforward"):
        return _pod_stream(handler, res, req)
    if req.subresource == "eviction":
        return _evict(handler, res, req)
    return _VERBS[verb](handler, res, req)


def _authz_verb(verb, subresource):
    if subresource == "log":
        return "get"
    if subresource in ("exec", "attach", "portforward", "eviction"):
        return "create"
    return verb


def _authorize(handler, res, req, verb):
    ident = handler.identity
    if ident.anonymous:
        raise unauthorized()
    ns = req.namespace if res.namespaced else None
    if not handler.sim.authz.allowed(ident, verb, res.plural, ns, req.name, req.subresource):
        raise forbidden(ident.user, verb, res.plural, res.group, ns, req.name, req.subresource)


# --- reads --------------------------------------------------------------------

def _item(res, obj):
    """A list item: built-in kinds drop apiVersion/kind, as the real server
    does; custom resources keep them."""
    if res.crd:
        return obj
    return {k: v for k, v in obj.items() if k not in ("apiVersion", "kind")}


def _encode_continue(rv, key):
    raw = json.dumps({"rv": rv, "start": key}).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_continue(token, compacted_rv):
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        data = json.loads(raw)
        start, rv = tuple(data["start"]), int(data["rv"])
    except (ValueError, KeyError, TypeError):
        raise bad_request("continue key is not valid: %s" % token)
    if rv < compacted_rv:
        raise ApiError(410, "Expired", "The provided continue parameter is too old to "
                       "display a consistent list result. You can start a new list without "
                       "the continue parameter.")
    return start


def _selectors(handler, res):
    return (LabelSelector(_q(handler.query, "labelSelector")),
            FieldSelector(_q(handler.query, "fieldSelector"), res.plural))


def _paginate(handler, objs, rv, selective):
    """Applies continue and limit; returns (page, list metadata)."""
    meta = {"resourceVersion": str(rv)}
    token = _q(handler.query, "continue")
    if token:
        start = _decode_continue(token, handler.sim.store.compacted_rv())
        objs = [o for o in objs
                if (o["metadata"].get("namespace", ""), o["metadata"]["name"]) > start]
    try:
        limit = int(_q(handler.query, "limit", "0") or 0)
    except ValueError:
        raise bad_request("invalid limit: %r" % _q(handler.query, "limit"))
    if 0 < limit < len(objs):
        last = objs[limit - 1]["metadata"]
        meta["continue"] = _encode_continue(rv, [last.get("namespace", ""), last["name"]])
        if not selective:
            meta["remainingItemCount"] = len(objs) - limit
        objs = objs[:limit]
    return objs, meta


def _as_table(handler, res, objs, meta, version):
    body = tables.table(res, objs, meta, _q(handler.query, "includeObject", "Metadata"))
    body["apiVersion"] = "meta.k8s.io/" + version
    return body


def _list(handler, res, req):
    store = handler.sim.store
    lsel, fsel = _selectors(handler, res)
    with store.lock:
        objs = store.select(res.gvr, req.namespace, lsel, fsel)
        rv = store.current_rv()
    objs, meta = _paginate(handler, objs, rv, bool(lsel or fsel))
    table = _want_table(handler)
    if table != "json":
        return _send_list(handler, _as_table(handler, res, objs, meta, table),
                          TABLE_TYPE % table)
    _send_list(handler, _list_json(store, res, objs, meta), "application/json")


def _encode_item(res):
    return lambda obj: json.dumps(_item(res, obj), separators=(",", ":")).encode("utf-8")


def _list_json(store, res, objs, meta):
    """The List's bytes, exactly as json.dumps of the whole List would give
    them, as a list of parts: each item's cached serialisation
    (store.encoded) between the head and the tail, never joined here."""
    encode = _encode_item(res)
    head = json.dumps({"kind": res.list_kind, "apiVersion": res.api_version,
                       "metadata": meta}, separators=(",", ":")).encode("utf-8")
    parts = [head[:-1] + b',"items":[']
    for i, obj in enumerate(objs):
        if i:
            parts.append(b",")
        parts.append(store.encoded(res.gvr, obj, encode))
    parts.append(b"]}\n")
    return parts


def _send_list(handler, body, content_type):
    """body: a List as a dict, or as its bytes in parts (_list_json)."""
    parts = body if isinstance(body, list) else \
        [json.dumps(body, separators=(",", ":")).encode("utf-8") + b"\n"]
    headers = {}
    cap = getattr(handler.sim.options, "max_list_bytes", None)
    size = sum(map(len, parts))
    if cap and size > cap:
        # still sent: the option only marks oversize answers for client tests
        headers["X-Kube-Sim-Oversize"] = str(size)
    handler.send_bytes(200, parts, content_type, headers)


def _get(handler, res, req):
    obj = handler.sim.store.get_ref(res.gvr, req.namespace, req.name)
    if obj is None:
        raise not_found(res.plural, req.name, res.group)
    table = _want_table(handler)
    if table != "json":
        meta = {"resourceVersion": obj["metadata"].get("resourceVersion", "")}
        return handler.send_json(200, _as_table(handler, res, [obj], meta, table),
                                 content_type=TABLE_TYPE % table)
    handler.send_json(200, obj)


# --- watch --------------------------------------------------------------------

class _WatchFilter:
    """Turns store changes into watch events for one watcher, following the
    real server: an object leaving the selector is DELETED, entering it ADDED."""

    def __init__(self, res, namespace, lsel, fsel):
        self.res, self.namespace, self.lsel, self.fsel = res, namespace, lsel, fsel

    def matches(self, obj):
        if obj is None:
            return False
        if self.namespace and obj["metadata"].get("namespace") != self.namespace:
            return False
        return self.lsel.matches(obj["metadata"].get("labels")) and self.fsel.matches(obj)

    def event(self, change):
        if change.gvr != self.res.gvr:
            return None
        if change.type == "DELETED":
            return ("DELETED", change.obj) if self.matches(change.obj) else None
        now, before = self.matches(change.obj), self.matches(change.old)
        if now and before:
            return ("MODIFIED", change.obj)
        if now:
            return ("ADDED", change.obj)
        if before:
            return ("DELETED", change.obj)
        return None


def _watch(handler, res, req):
    store, query = handler.sim.store, handler.query
    lsel, fsel = _selectors(handler, res)
    flt = _WatchFilter(res, req.namespace, lsel, fsel)
    table = _want_table(handler)
    try:
        timeout = float(_q(query, "timeoutSeconds") or DEFAULT_WATCH_TIMEOUT)
    except ValueError:
        raise bad_request("invalid timeoutSeconds")
    rv_param = _q(query, "resourceVersion")
    initial = rv_param in ("", "0") or _flag(query, "sendInitialEvents")
    with store.lock:
        if initial:
            start_objs = store.select(res.gvr, req.namespace, lsel, fsel)
            last = store.current_rv()
        else:
            start_objs = []
            try:
                last = int(rv_param)
            except ValueError:
                raise bad_request("invalid resource version %r" % rv_param)
    stream = _WatchStream(handler, res, table, _flag(query, "allowWatchBookmarks"))
    with handler.sim.stream_started():
        stream.open()
        for obj in start_objs:
            if not stream.send("ADDED", obj):
                return
        if _flag(query, "sendInitialEvents") and stream.bookmarks:
            stream.bookmark(last, initial_end=True)
        _watch_loop(handler, store, flt, stream, last, timeout)
        stream.close()


def _watch_loop(handler, store, flt, stream, last, timeout):
    deadline = time.monotonic() + timeout
    last_sent = time.monotonic()
    while not handler.sim.stopping:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return
        try:
            changes, newest = store.wait_changes(last, flt.res.gvr, min(1.0, remaining))
        except Gone:
            stream.send_error(ApiError(410, "Expired", "too old resource version: %d (%d)"
                                       % (last, store.current_rv())))
            return
        for change in changes:
            ev = flt.event(change)
            if ev and not stream.send(ev[0], ev[1]):
                return
            if ev:
                last_sent = time.monotonic()
        last = max(last, newest)
        if not changes:
            if handler.client_gone():
                return
            if stream.bookmarks and time.monotonic() - last_sent > BOOKMARK_INTERVAL:
                if not stream.bookmark(last):
                    return
                last_sent = time.monotonic()


class _WatchStream:
    """Writes watch events, one JSON line per chunk, flushed each time."""

    def __init__(self, handler, res, table, bookmarks):
        self.handler, self.res, self.table, self.bookmarks = handler, res, table, bookmarks

    def open(self):
        ctype = TABLE_TYPE % self.table if self.table != "json" else "application/json"
        self.handler.start_chunked(200, ctype)

    def _write(self, event):
        line = json.dumps(event, separators=(",", ":")).encode("utf-8") + b"\n"
        return self.handler.write_chunk(line)

    def send(self, type_, obj):
        if self.table != "json":
            meta = {"resourceVersion": obj["metadata"].get("resourceVersion", "")}
            obj = _as_table(self.handler, self.res, [obj], meta, self.table)
        return self._write({"type": type_, "object": obj})

    def send_error(self, err):
        return self._write({"type": "ERROR", "object": err.status()})

    def bookmark(self, rv, initial_end=False):
        meta = {"resourceVersion": str(rv)}
        if initial_end:
            meta["annotations"] = {"k8s.io/initial-events-end": "true"}
        return self._write({"type": "BOOKMARK", "object": {
            "kind": self.res.kind, "apiVersion": self.res.api_version, "metadata": meta}})

    def close(self):
        self.handler.end_chunked()


# --- writes -------------------------------------------------------------------

def _dry_run(handler, options=None):
    values = handler.query.get("dryRun", []) + list((options or {}).get("dryRun") or [])
    for v in values:
        if v != "All":
            raise bad_request('invalid dry run value: "%s"; supported values: All' % v)
    return bool(values)


def _body_object(handler, res):
    obj = handler.body_json()
    if not isinstance(obj, dict):
        raise bad_request("the body must be a JSON object")
    kind = obj.get("kind")
    if kind and kind != res.kind:
        raise bad_request("the kind in the request body (%s) does not match the resource "
                          "(%s)" % (kind, res.kind))
    return obj


def _check_namespace(obj, req, res):
    meta = obj.setdefault("metadata", {})
    if not isinstance(meta, dict):
        raise bad_request("metadata must be an object")
    if res.namespaced and meta.get("namespace") and meta["namespace"] != req.namespace:
        raise bad_request("the namespace of the provided object does not match the "
                          "namespace sent on the request")


def _drops_status_on_create(res):
    return res.has_status and res.plural not in ("nodes", "namespaces")


def _create(handler, res, req):
    obj = _body_object(handler, res)
    _check_namespace(obj, req, res)
    if _drops_status_on_create(res):
        obj.pop("status", None)
    out = handler.sim.store.create(res.gvr, req.namespace, obj, dry_run=_dry_run(handler))
    handler.send_json(201, out)


def _check_name(obj, req):
    name = obj["metadata"].get("name")
    if name and name != req.name:
        raise bad_request("the name of the object (%s) does not match the name on the URL "
                          "(%s)" % (name, req.name))
    obj["metadata"]["name"] = req.name


def _write_back(handler, res, req, obj):
    """Stores an updated object (PUT or PATCH), main resource or /status."""
    status_only = req.subresource == "status"
    out = handler.sim.store.update(res.gvr, req.namespace, obj, check_rv=True,
                                   dry_run=_dry_run(handler), status_only=status_only,
                                   keep_status=res.has_status and not status_only)
    handler.send_json(200, out)


def _update(handler, res, req):
    obj = _body_object(handler, res)
    _check_namespace(obj, req, res)
    _check_name(obj, req)
    _write_back(handler, res, req, obj)


def _patch(handler, res, req):
    store = handler.sim.store
    ctype = handler.headers.get("Content-Type", "").split(";")[0].strip().lower()
    if ctype == applyserver.CONTENT_TYPE:
        return applyserver.apply(handler, res, req)
    patch.check_type(ctype, res.crd)
    old = store.get(res.gvr, req.namespace, req.name)
    if old is None:
        raise not_found(res.plural, req.name, res.group)
    body = handler.body_json()
    if body is None:
        raise bad_request("the PATCH body is empty")
    new = patch.apply(ctype, old, body, custom_resource=res.crd)
    if not isinstance(new, dict):
        raise bad_request("the patched object is not a JSON object")
    meta = new.setdefault("metadata", {})
    if meta.get("name") != req.name:
        raise bad_request("the name of the object cannot be changed by a patch")
    _write_back(handler, res, req, new)


def _delete_options(handler):
    opts = {}
    if handler.body_raw:
        body = handler.body_json()
        if isinstance(body, dict):
            opts = body
    policy = _q(handler.query, "propagationPolicy") or opts.get("propagationPolicy")
    orphan = _q(handler.query, "orphanDependents") or opts.get("orphanDependents")
    if policy is None and str(orphan).lower() == "true":
        policy = "Orphan"
    if policy not in (None, "Orphan", "Background", "Foreground"):
        raise bad_request('propagationPolicy: Unsupported value: "%s": supported values: '
                          '"Foreground", "Background", "Orphan"' % policy)
    return policy, _dry_run(handler, opts), opts.get("preconditions")


def _delete(handler, res, req):
    policy, dry, pre = _delete_options(handler)
    out = handler.sim.store.delete(res.gvr, req.namespace, req.name, policy, dry, pre)
    if out is None:
        raise not_found(res.plural, req.name, res.group)
    if res.plural in ("pods", "namespaces") or out["metadata"].get("deletionTimestamp"):
        if res.plural == "namespaces":
            out["metadata"]["deletionTimestamp"] = now_rfc3339()
            out.setdefault("status", {})["phase"] = "Terminating"
        return handler.send_json(200, out)
    handler.send_json(200, {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
        "details": {"name": req.name, "group": res.group, "kind": res.plural,
                    "uid": out["metadata"].get("uid", "")}})


def _delete_collection(handler, res, req):
    store = handler.sim.store
    policy, dry, _ = _delete_options(handler)
    lsel, fsel = _selectors(handler, res)
    deleted = []
    for obj in store.select(res.gvr, req.namespace, lsel, fsel):
        meta = obj["metadata"]
        out = store.delete(res.gvr, meta.get("namespace"), meta["name"], policy, dry)
        if out is not None:
            deleted.append(_item(res, out))
    handler.send_json(200, {"kind": res.list_kind, "apiVersion": res.api_version,
                            "metadata": {"resourceVersion": str(store.current_rv())},
                            "items": deleted})


_VERBS = {"get": _get, "list": _list, "watch": _watch, "create": _create,
          "update": _update, "patch": _patch, "delete": _delete,
          "deletecollection": _delete_collection}


# --- special resources --------------------------------------------------------

def _evict(handler, res, req):
    if handler.command != "POST":
        raise method_not_allowed(handler.command)
    out = handler.sim.store.delete(res.gvr, req.namespace, req.name,
                                   dry_run=_dry_run(handler))
    if out is None:
        raise not_found(res.plural, req.name, res.group)
    handler.send_json(201, {"kind": "Status", "apiVersion": "v1", "metadata": {},
                            "status": "Success", "code": 201})


def _service_proxy(handler, res, req):
    """services/<svc>/proxy/...: handed to the Prometheus emulation."""
    _authorize(handler, res, req, "get")
    prometheus = runtime_module("prometheus")
    if prometheus is None:
        raise ApiError(503, "ServiceUnavailable",
                       'no endpoints available for service "%s"' % req.name)
    return prometheus.handle_proxy(handler, handler.sim, req)


def _pod_stream(handler, res, req):
    """pods/log, pods/exec, pods/attach, pods/portforward: handed to the
    runtime (logs, podexec, portforward)."""
    pod = handler.sim.store.get_ref(res.gvr, req.namespace, req.name)
    if pod is None:
        raise not_found(res.plural, req.name, res.group)
    name = {"log": "logs", "portforward": "portforward"}.get(req.subresource, "podexec")
    module = runtime_module(name)  # the runtime half; the API works without it
    if module is None:
        raise ApiError(503, "ServiceUnavailable",
                       "the pod runtime (kubesim.%s) is not installed" % name)
    if req.subresource == "log":
        if handler.command != "GET":
            raise method_not_allowed(handler.command)
        return module.handle_log(handler, handler.sim, req.namespace, req.name, handler.query)
    if req.subresource == "portforward":
        return module.handle_portforward(handler, handler.sim, req.namespace, req.name,
                                         handler.query)
    return module.handle_exec(handler, handler.sim, req.namespace, req.name, handler.query,
                              attach=req.subresource == "attach")
