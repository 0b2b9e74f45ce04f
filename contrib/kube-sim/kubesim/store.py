"""The object store: every API object, a global resourceVersion counter,
a bounded history of changes for watches, and change listeners.

Objects are plain JSON dicts. The store never changes a stored dict in
place: every write stores a fresh copy. That lets the HTTP layer serialise
stored objects without copying them (`select`, `get_ref`), while the
public methods the runtime uses (`get`, `list`, `create`, ...) hand out
deep copies, as the interface promises.

Listeners are called after each change, once the store's own lock block
has been left (if the caller holds `store.lock` itself, they run under it).
"""

import collections
import random
import threading
import time
import traceback
import uuid

from kubesim import admission, validation
from kubesim.errors import ApiError, already_exists, conflict, not_found, resource_not_found
from kubesim.resources import CRD_GVR
from kubesim.selectors import FieldSelector, LabelSelector

NAMESPACES = ("", "v1", "namespaces")
EVENTS = ("", "v1", "events")

# How many changes watches can catch up on; older resourceVersions get 410.
DEFAULT_HISTORY = 50000

_NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789"


def clone(o):
    """Deep copy of a JSON value (much faster than copy.deepcopy)."""
    if isinstance(o, dict):
        return {k: clone(v) for k, v in o.items()}
    if isinstance(o, list):
        return [clone(v) for v in o]
    return o


def now_rfc3339():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _random_suffix(n=5):
    return "".join(random.choice(_NAME_CHARS) for _ in range(n))


def _without_rv(obj):
    meta = dict(obj.get("metadata") or {})
    meta.pop("resourceVersion", None)
    out = dict(obj)
    out["metadata"] = meta
    return out


def _typed(res, obj):
    """`obj` with apiVersion and kind set from the resource, first."""
    out = {"apiVersion": res.api_version, "kind": res.kind}
    out.update((k, v) for k, v in obj.items() if k not in ("apiVersion", "kind"))
    return out


class Change:
    """One entry of the watch history."""
    __slots__ = ("rv", "type", "gvr", "namespace", "obj", "old")

    def __init__(self, rv, type_, gvr, namespace, obj, old):
        self.rv, self.type, self.gvr = rv, type_, gvr
        self.namespace, self.obj, self.old = namespace, obj, old


class Gone(Exception):
    """The requested resourceVersion is older than the kept history."""


class Store:
    def __init__(self, registry, history_size=DEFAULT_HISTORY):
        self.lock = threading.RLock()
        self.changed = threading.Condition(self.lock)
        self.registry = registry
        registry.set_crd_source(self._crd_snapshot)
        self._data = {}            # gvr -> {namespace: {name: obj}}
        self._rv = 0
        self._history = collections.deque()
        self._history_size = history_size
        self._evicted_rv = 0       # changes at or below this rv are forgotten
        self._owners = {}          # owner uid -> {(gvr, namespace, name)}
        self._crd_stamp = 0
        self._listeners = []
        self._tls = threading.local()
        self._ip_counter = 0
        self._encoded = {}         # (gvr, namespace, name) -> (obj, bytes)

    # --- bookkeeping ------------------------------------------------------

    def _resource(self, gvr):
        res = self.registry.known(tuple(gvr))
        if res is None:
            raise resource_not_found()
        return res

    def _crd_snapshot(self):
        with self.lock:
            crds = list(self._bucket(CRD_GVR, "").values())
            return self._crd_stamp, crds

    def _bucket(self, gvr, ns):
        return self._data.get(tuple(gvr), {}).get(ns, {})

    def _ns_key(self, res, namespace):
        return (namespace or "") if res.namespaced else ""

    def current_rv(self):
        with self.lock:
            return self._rv

    def _pending(self):
        if not hasattr(self._tls, "pending"):
            self._tls.pending = []
        return self._tls.pending

    def _commit(self, type_, res, ns, name, new, old):
        """Records one change: bumps the rv, stores (or drops) the object,
        keeps the owner index and the history, wakes watchers."""
        self._rv += 1
        gvr = res.gvr
        self._encoded.pop((gvr, ns, name), None)
        if type_ == "DELETED":
            obj = dict(old)
            obj["metadata"] = dict(old["metadata"], resourceVersion=str(self._rv))
            self._data[gvr][ns].pop(name, None)
            self._index_owners(gvr, ns, name, old, None)
        else:
            obj = new
            obj["metadata"]["resourceVersion"] = str(self._rv)
            self._data.setdefault(gvr, {}).setdefault(ns, {})[name] = obj
            self._index_owners(gvr, ns, name, old, obj)
        if gvr == CRD_GVR:
            self._crd_stamp = self._rv
        self._history.append(Change(self._rv, type_, gvr, ns, obj, old))
        while len(self._history) > self._history_size:
            self._evicted_rv = self._history.popleft().rv
        self._pending().append((type_, gvr, obj))
        self.changed.notify_all()
        return obj

    def _index_owners(self, gvr, ns, name, old, new):
        key = (gvr, ns, name)
        for ref in (old or {}).get("metadata", {}).get("ownerReferences") or []:
            deps = self._owners.get(ref.get("uid"))
            if deps is not None:
                deps.discard(key)
                if not deps:
                    del self._owners[ref.get("uid")]
        for ref in (new or {}).get("metadata", {}).get("ownerReferences") or []:
            if ref.get("uid"):
                self._owners.setdefault(ref["uid"], set()).add(key)

    def _flush(self):
        """Calls the listeners for the changes this thread made."""
        pending = self._pending()
        while pending:
            type_, gvr, obj = pending.pop(0)
            for fn in list(self._listeners):
                try:
                    fn(type_, gvr, clone(obj))
                except Exception:  # a listener bug must not break the API
                    traceback.print_exc()

    def add_listener(self, fn):
        self._listeners.append(fn)

    # --- reads ------------------------------------------------------------

    def get_ref(self, gvr, namespace, name):
        """The stored object itself (do not modify), or None."""
        res = self._resource(gvr)
        with self.lock:
            return self._bucket(gvr, self._ns_key(res, namespace)).get(name)

    def get(self, gvr, namespace, name):
        obj = self.get_ref(gvr, namespace, name)
        return clone(obj) if obj is not None else None

    def select(self, gvr, namespace=None, label_selector=None, field_selector=None):
        """Stored objects (not copies), sorted by namespace and name.

        Selectors may be strings or parsed selector objects.
        """
        res = self._resource(gvr)
        if isinstance(label_selector, str) or label_selector is None:
            label_selector = LabelSelector(label_selector)
        if isinstance(field_selector, str) or field_selector is None:
            field_selector = FieldSelector(field_selector, res.plural)
        with self.lock:
            by_ns = self._data.get(tuple(gvr), {})
            if res.namespaced and namespace:
                spaces = [namespace]
            else:
                spaces = sorted(by_ns)
            out = []
            only = field_selector.only_name()
            for ns in spaces:
                bucket = by_ns.get(ns, {})
                names = [only] if only is not None else sorted(bucket)
                for name in names:
                    obj = bucket.get(name)
                    if obj is None:
                        continue
                    if label_selector and not label_selector.matches(
                            obj["metadata"].get("labels")):
                        continue
                    if field_selector and not field_selector.matches(obj):
                        continue
                    out.append(obj)
            return out

    def encoded(self, gvr, obj, encode):
        """encode(obj), computed once per stored version of obj: a list
        joins the cached bytes of its items instead of serialising every
        object again. Safe because a write stores a fresh dict (the entry
        is used only while it holds that very dict) and drops the entry."""
        meta = obj["metadata"]
        key = (gvr, meta.get("namespace", ""), meta["name"])
        hit = self._encoded.get(key)
        if hit is not None and hit[0] is obj:
            return hit[1]
        data = encode(obj)
        self._encoded[key] = (obj, data)
        return data

    def list(self, gvr, namespace=None, label_selector=None, field_selector=None):
        return [clone(o) for o in self.select(gvr, namespace, label_selector, field_selector)]

    def count(self):
        with self.lock:
            return sum(len(b) for by_ns in self._data.values() for b in by_ns.values())

    # --- writes -----------------------------------------------------------

    def create(self, gvr, namespace, obj, dry_run=False, keep_meta=False):
        """Stores a new object; fills in metadata. Raises ApiError.

        keep_meta: keep a given uid/creationTimestamp (seeding fixtures).
        """
        with self.lock:
            out = self._create(gvr, namespace, obj, dry_run, keep_meta)
        self._flush()
        return clone(out)

    def _create(self, gvr, namespace, obj, dry_run=False, keep_meta=False):
        res = self._resource(gvr)
        ns = self._ns_key(res, namespace)
        new = _typed(res, clone(obj))
        meta = new.setdefault("metadata", {})
        if res.namespaced:
            if not ns:
                raise ApiError(400, "BadRequest", "the namespace of the object is required")
            meta["namespace"] = ns
            if self._bucket(NAMESPACES, "").get(ns) is None:
                raise not_found("namespaces", ns)
        else:
            meta.pop("namespace", None)
        if not meta.get("name") and meta.get("generateName"):
            meta["name"] = meta["generateName"] + _random_suffix()
        self._default(res, new)
        admission.on_create(self, res, new)
        validation.validate(res, new)
        name = meta["name"]
        if self._bucket(gvr, ns).get(name) is not None:
            raise already_exists(res.plural, name, res.group)
        if not (keep_meta and meta.get("uid")):
            meta["uid"] = str(uuid.uuid4())
        if not (keep_meta and meta.get("creationTimestamp")):
            meta["creationTimestamp"] = now_rfc3339()
        meta.pop("resourceVersion", None)
        meta.pop("deletionTimestamp", None)
        if "spec" in new and res.plural not in ("namespaces", "nodes", "services"):
            meta.setdefault("generation", 1)
        if dry_run:
            return new
        return self._commit("ADDED", res, ns, name, new, None)

    def _default(self, res, obj):
        """The server-side defaults clients rely on."""
        meta, spec = obj["metadata"], obj.get("spec")
        if res.plural == "namespaces":
            meta.setdefault("labels", {})["kubernetes.io/metadata.name"] = meta.get("name", "")
            obj.setdefault("spec", {}).setdefault("finalizers", ["kubernetes"])
            obj.setdefault("status", {}).setdefault("phase", "Active")
        elif res.plural == "pods":
            if isinstance(spec, dict):
                spec.setdefault("restartPolicy", "Always")
                spec.setdefault("schedulerName", "default-scheduler")
                spec.setdefault("dnsPolicy", "ClusterFirst")
            status = obj.setdefault("status", {})
            if isinstance(status, dict):
                status.setdefault("phase", "Pending")
        elif res.plural == "services" and isinstance(spec, dict):
            self._default_service(spec)
        elif res.plural == "persistentvolumeclaims" and isinstance(spec, dict):
            spec.setdefault("volumeMode", "Filesystem")
            status = obj.setdefault("status", {})
            if isinstance(status, dict):
                status.setdefault("phase", "Pending")
        elif res.group == "batch" and res.plural == "jobs" and isinstance(spec, dict):
            spec.setdefault("completions", 1)
            spec.setdefault("parallelism", 1)
            spec.setdefault("backoffLimit", 6)

    def _default_service(self, spec):
        """A clusterIP (not for ExternalName) and the v1 defaults; node ports
        are the allocator's (admission.py)."""
        spec.setdefault("type", "ClusterIP")
        spec.setdefault("sessionAffinity", "None")
        if spec["type"] != "ExternalName":
            if not spec.get("clusterIP"):
                self._ip_counter += 1
                spec["clusterIP"] = "10.96.%d.%d" % (self._ip_counter // 250,
                                                     self._ip_counter % 250 + 1)
            spec.setdefault("clusterIPs", [spec["clusterIP"]])
            spec.setdefault("ipFamilies", ["IPv4"])
            spec.setdefault("ipFamilyPolicy", "SingleStack")
        for port in spec.get("ports") or []:
            if isinstance(port, dict):
                port.setdefault("protocol", "TCP")
                port.setdefault("targetPort", port.get("port"))

    def update(self, gvr, namespace, obj, check_rv=False, dry_run=False,
               status_only=False, keep_status=False):
        """Replaces an object. Raises 404 if absent, 409 if `check_rv` and the
        object's resourceVersion is stale.

        status_only: take only .status from `obj` (the /status subresource).
        keep_status: ignore .status in `obj` (PUT on a resource that has a
        status subresource).
        """
        with self.lock:
            out = self._update(gvr, namespace, obj, check_rv, dry_run, status_only,
                               keep_status)
        self._flush()
        return clone(out)

    def _update(self, gvr, namespace, obj, check_rv=False, dry_run=False,
                status_only=False, keep_status=False):
        res = self._resource(gvr)
        ns = self._ns_key(res, namespace)
        name = (obj.get("metadata") or {}).get("name", "")
        old = self._bucket(gvr, ns).get(name)
        if old is None:
            raise not_found(res.plural, name, res.group)
        given_rv = (obj.get("metadata") or {}).get("resourceVersion")
        if check_rv and given_rv and given_rv != old["metadata"].get("resourceVersion"):
            raise conflict(res.plural, name, res.group)
        new = self._merge_update(res, old, obj, status_only, keep_status)
        admission.on_update(self, res, old, new, status_only)
        validation.validate(res, new)
        if _without_rv(new) == _without_rv(old):
            return old  # a no-op write changes nothing, not even the rv
        if dry_run:
            return new
        meta = new["metadata"]
        if meta.get("deletionTimestamp") and not meta.get("finalizers"):
            # the last finalizer is gone: the pending deletion completes
            self._commit("DELETED", res, ns, name, None, old)
            return new
        return self._commit("MODIFIED", res, ns, name, new, old)

    def _merge_update(self, res, old, obj, status_only, keep_status):
        if status_only:
            new = clone(old)
            if "status" in obj:
                new["status"] = clone(obj["status"])
            return new
        new = _typed(res, clone(obj))
        if keep_status:
            if "status" in old:
                new["status"] = clone(old["status"])
            else:
                new.pop("status", None)
        meta = new.setdefault("metadata", {})
        for key in ("uid", "creationTimestamp", "deletionTimestamp", "namespace",
                    "generateName"):
            if key in old["metadata"]:
                meta[key] = old["metadata"][key]
            else:
                meta.pop(key, None)
        if "generation" in old["metadata"]:
            gen = old["metadata"]["generation"]
            meta["generation"] = gen + 1 if new.get("spec") != old.get("spec") else gen
        return new

    def delete(self, gvr, namespace, name, propagation="Background", dry_run=False,
               preconditions=None):
        """Deletes an object and (unless Orphan) its dependents.

        propagation: Background, Foreground, Orphan, or None for the
        resource's API default (batch/v1 Jobs orphan their pods).
        Returns the deleted object, or None if there was none. An object with
        finalizers is only marked (deletionTimestamp) and returned.
        """
        with self.lock:
            out = self._delete(gvr, namespace, name, propagation, dry_run, preconditions)
        self._flush()
        return clone(out) if out is not None else None

    def _delete(self, gvr, namespace, name, propagation, dry_run, preconditions):
        res = self._resource(gvr)
        ns = self._ns_key(res, namespace)
        old = self._bucket(gvr, ns).get(name)
        if old is None:
            return None
        self._check_preconditions(res, old, preconditions)
        if dry_run:
            return old
        meta = old["metadata"]
        if meta.get("finalizers"):
            if meta.get("deletionTimestamp"):
                return old
            new = clone(old)
            new["metadata"]["deletionTimestamp"] = now_rfc3339()
            new["metadata"]["deletionGracePeriodSeconds"] = 0
            return self._commit("MODIFIED", res, ns, name, new, old)
        propagation = propagation or res.default_propagation
        if res.gvr == NAMESPACES:
            self._empty_namespace(name)
        if propagation == "Foreground":
            self._delete_dependents(meta.get("uid"), propagation)
        self._commit("DELETED", res, ns, name, None, old)
        if propagation == "Background":
            self._delete_dependents(meta.get("uid"), propagation)
        elif propagation == "Orphan":
            self._orphan_dependents(meta.get("uid"))
        return old

    def _check_preconditions(self, res, old, pre):
        if not pre:
            return
        meta = old["metadata"]
        for key, label in (("uid", "UID"), ("resourceVersion", "ResourceVersion")):
            want = pre.get(key)
            if want and want != meta.get(key):
                raise ApiError(409, "Conflict",
                               "Operation cannot be fulfilled on %s \"%s\": Precondition "
                               "failed: %s in precondition: %s, %s in object meta: %s"
                               % (res.qualified(), meta.get("name"), label, want, label,
                                  meta.get(key)),
                               {"name": meta.get("name"), "group": res.group,
                                "kind": res.plural})

    def _dependents(self, uid):
        return sorted(self._owners.get(uid, ()))

    def _delete_dependents(self, uid, propagation):
        for gvr, ns, name in self._dependents(uid):
            self._delete(gvr, ns, name, propagation, False, None)

    def _orphan_dependents(self, uid):
        for gvr, ns, name in self._dependents(uid):
            dep = self._bucket(gvr, ns).get(name)
            if dep is None:
                continue
            new = clone(dep)
            refs = [r for r in new["metadata"].get("ownerReferences") or []
                    if r.get("uid") != uid]
            if refs:
                new["metadata"]["ownerReferences"] = refs
            else:
                new["metadata"].pop("ownerReferences", None)
            self._commit("MODIFIED", self._resource(gvr), ns, name, new, dep)

    def _empty_namespace(self, ns):
        """Deleting a namespace deletes everything in it."""
        for gvr in list(self._data):
            objs = self._data[gvr].get(ns)
            if not objs:
                continue
            res = self._resource(gvr)
            if not res.namespaced:
                continue
            for name in sorted(objs):
                if name in objs:
                    self._delete(gvr, ns, name, "Background", False, None)
                    obj = objs.get(name)
                    if obj is not None:  # held by a finalizer: drop it anyway
                        self._commit("DELETED", res, ns, name, None, obj)

    # --- conveniences for the runtime and /_sim ---------------------------

    def add_event(self, namespace, involved_obj, reason, message, type="Normal",
                  component="runai-scheduler"):
        """Creates a core/v1 Event about `involved_obj`; None if the
        namespace is gone (the object was deleted meanwhile)."""
        meta = involved_obj.get("metadata") or {}
        now = now_rfc3339()
        event = {
            "metadata": {"name": "%s.%x" % (meta.get("name", "event"),
                                            random.getrandbits(60)),
                         "namespace": namespace},
            "involvedObject": {"kind": involved_obj.get("kind", ""),
                               "apiVersion": involved_obj.get("apiVersion", ""),
                               "name": meta.get("name", ""),
                               "namespace": meta.get("namespace", namespace),
                               "uid": meta.get("uid", ""),
                               "resourceVersion": meta.get("resourceVersion", "")},
            "reason": reason, "message": message, "type": type,
            "firstTimestamp": now, "lastTimestamp": now, "count": 1,
            "source": {"component": component},
            "reportingComponent": component, "reportingInstance": "",
        }
        try:
            return self.create(EVENTS, namespace, event)
        except ApiError:
            return None

    def create_many(self, items, keep_meta=True):
        """Creates (gvr, namespace, obj) triples under one lock hold; returns
        the number created. Used by /_sim/bulk for speed."""
        with self.lock:
            for gvr, ns, obj in items:
                self._create(gvr, ns, obj, keep_meta=keep_meta)
        self._flush()
        return len(items)

    def put(self, gvr, namespace, obj):
        """Create-or-replace, keeping given metadata and status (seeding)."""
        res = self._resource(gvr)
        name = (obj.get("metadata") or {}).get("name")
        with self.lock:
            if name and self._bucket(gvr, self._ns_key(res, namespace)).get(name):
                out = self._update(gvr, namespace, obj)
            else:
                out = self._create(gvr, namespace, obj, keep_meta=True)
        self._flush()
        return clone(out)

    # --- watch support ----------------------------------------------------

    def compact(self):
        """Forgets the whole history, like an etcd compaction: watches and
        continue tokens from before now get 410 Gone."""
        with self.lock:
            self._history.clear()
            self._evicted_rv = self._rv
            return self._rv

    def compacted_rv(self):
        with self.lock:
            return self._evicted_rv

    def changes_since(self, rv, gvr=None):
        """Changes after `rv` (optionally of one gvr). Raises Gone when
        some of them have been forgotten. Call with the lock held."""
        if rv < self._evicted_rv:
            raise Gone()
        out = []
        for ch in reversed(self._history):
            if ch.rv <= rv:
                break
            if gvr is None or ch.gvr == gvr:
                out.append(ch)
        out.reverse()
        return out

    def wait_changes(self, rv, gvr=None, timeout=1.0):
        """Blocks up to `timeout` s for changes after `rv`; returns
        (changes, newest rv seen)."""
        with self.changed:
            if self._rv <= rv:
                self.changed.wait(timeout)
            return self.changes_since(rv, gvr), self._rv
