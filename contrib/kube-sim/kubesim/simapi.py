"""The /_sim control API for tests and benchmarks (loopback only; every
request needs the state directory's sim-token, see auth.py).

    GET    /_sim/health            liveness and counters
    POST   /_sim/seed              create-or-replace objects (object, array or List)
    POST   /_sim/bulk              many realistic objects at once
    GET    /_sim/requests          the request log as a JSON array
    POST   /_sim/requests/clear    empty the request log (also DELETE /_sim/requests)
    POST   /_sim/crd               {"runai": false|true}: hide or restore run.ai
    POST   /_sim/compact           forget the watch history (older rvs get 410)
    POST   /_sim/users             add a bearer token for a user and groups
    GET    /_sim/faults            the armed faults
    POST   /_sim/faults            arm a fault
    DELETE /_sim/faults            disarm all faults
    POST   /_sim/outage            {"seconds": N}: an API server restart with
                                   state kept: open connections (watches, logs,
                                   exec) are cut, new ones closed for N seconds

Routes the runtime registers (phase, logs, tick, controller) are tried
after these; see Sim.route_sim.
"""

import os
import secrets
import time
import uuid

from kubesim import demo
from kubesim.errors import ApiError, bad_request
from kubesim.resources import CRD_GVR, default_crds

NS = ("", "v1", "namespaces")


def _items(body):
    if isinstance(body, list):
        return body
    if isinstance(body, dict) and isinstance(body.get("items"), list) and \
            (body.get("kind") == "List" or body.get("kind", "").endswith("List")):
        return body["items"]
    if isinstance(body, dict):
        return [body]
    raise bad_request("seed takes an object, a JSON array or a List")


def _ensure_namespace(store, ns):
    if ns and store.get_ref(NS, None, ns) is None:
        project = ns[len("runai-"):] if ns.startswith("runai-") else None
        store.create(NS, None, demo.namespace(ns, project))


def seed(sim, body):
    """Create-or-replace each object by apiVersion/kind; namespaces that do
    not exist yet are created. Given uid, creationTimestamp and status are
    kept, so fixtures are deterministic."""
    store, out = sim.store, []
    for obj in _items(body):
        if not isinstance(obj, dict):
            raise bad_request("seed items must be objects")
        res = sim.registry.by_kind(obj.get("apiVersion", ""), obj.get("kind", ""))
        if res is None:
            raise bad_request("unknown apiVersion/kind %s/%s"
                              % (obj.get("apiVersion"), obj.get("kind")))
        ns = (obj.get("metadata") or {}).get("namespace") or "default" \
            if res.namespaced else None
        _ensure_namespace(store, ns)
        out.append(store.put(res.gvr, ns, obj))
    return {"kind": "List", "apiVersion": "v1", "items": out}


# --- bulk ---------------------------------------------------------------------

def _node_names(store):
    names = [n["metadata"]["name"] for n in store.select(("", "v1", "nodes"))]
    return names or ["node-1"]


def _ip(base, i):
    return "%s.%d.%d" % (base, (i // 250) % 250, i % 250 + 1)


def _bulk_runaijobs(store, ns, names, start):
    nodes = _node_names(store)
    items = []
    for i, name in enumerate(names):
        node = nodes[i % len(nodes)]
        job = demo.runaijob(name, ns, index=start + i, node_name=node)
        job["metadata"]["uid"] = str(uuid.uuid4())
        pod = demo.running_pod(job, node, _ip("10.244", start + i),
                               host_ip="10.0.0.%d" % (11 + nodes.index(node) % 200))
        items += [(demo.RUNAIJOBS, ns, job), (demo.PODS, ns, pod)]
    return items


def _bulk_pytorchjobs(store, ns, names, start):
    """PyTorchJobs of a master and 3 workers, one GPU each, spread over
    the nodes (two nodes each when there are two)."""
    nodes = _node_names(store)
    items = []
    for i, name in enumerate(names):
        on = [nodes[(i + k) % len(nodes)] for k in range(4)]
        job = demo.pytorchjob(name, ns, workers=3, node_names=on)
        job["metadata"]["uid"] = str(uuid.uuid4())
        ips = [_ip("10.245", 4 * (start + i) + k) for k in range(4)]
        hosts = ["10.0.0.%d" % (11 + nodes.index(n) % 200) for n in on]
        items.append((("kubeflow.org", "v1", "pytorchjobs"), ns, job))
        items += [(demo.PODS, ns, pod) for pod in demo.pytorchjob_pods(job, on, ips, hosts)]
    return items


def _bulk_nodes(store, ns, names, start):
    return [(demo.NODES, None, demo.node(n, _ip("10.1", start + i)))
            for i, n in enumerate(names)]


def _bulk_pods(store, ns, names, start):
    nodes = _node_names(store)
    items = []
    for i, name in enumerate(names):
        job = demo.runaijob(name, ns)
        pod = demo.running_pod(job, nodes[i % len(nodes)], _ip("10.244", start + i))
        pod["metadata"]["name"] = name
        pod["metadata"].pop("ownerReferences")
        items.append((demo.PODS, ns, pod))
    return items


def _bulk_configmaps(store, ns, names, start):
    return [(("", "v1", "configmaps"), ns,
             {"metadata": {"name": n, "labels": {"bulk": "true"}}, "data": {"i": str(start + i)}})
            for i, n in enumerate(names)]


_BULK = {"runaijobs": _bulk_runaijobs, "nodes": _bulk_nodes, "pods": _bulk_pods,
         "configmaps": _bulk_configmaps, "pytorchjobs": _bulk_pytorchjobs}


def bulk(sim, body):
    if not isinstance(body, dict) or body.get("plural") not in _BULK:
        raise bad_request("bulk needs plural, one of: %s" % ", ".join(sorted(_BULK)))
    count = int(body.get("count", 1))
    start = int(body.get("start", 0))
    prefix = body.get("prefix", body["plural"].rstrip("s") + "-")
    ns = body.get("namespace") or "runai-team-a"
    if body["plural"] == "nodes":
        ns = None
    else:
        _ensure_namespace(sim.store, ns)
    names = ["%s%d" % (prefix, start + i) for i in range(count)]
    t0 = time.monotonic()
    items = _BULK[body["plural"]](sim.store, ns, names, start)
    created = sim.store.create_many(items)
    return {"created": created, "resourceVersion": str(sim.store.current_rv()),
            "seconds": round(time.monotonic() - t0, 3)}


# --- the rest -----------------------------------------------------------------

def set_runai_crds(sim, body):
    """Deletes or recreates the run.ai CRD objects. Custom objects stay
    stored while their CRD is gone (unlike a real cluster), so a test can
    hide run.ai and bring it back intact."""
    if not isinstance(body, dict) or not isinstance(body.get("runai"), bool):
        raise bad_request('expected {"runai": true|false}')
    for crd in default_crds():
        name = crd["metadata"]["name"]
        present = sim.store.get_ref(CRD_GVR, None, name) is not None
        if body["runai"] and not present:
            sim.store.create(CRD_GVR, None, crd)
        elif not body["runai"] and present:
            sim.store.delete(CRD_GVR, None, name)
    return {"runai": body["runai"]}


def add_user(sim, body):
    if not isinstance(body, dict) or not body.get("user"):
        raise bad_request('expected {"user": NAME, "groups": [...], "token": optional}')
    groups = body.get("groups") or []
    if isinstance(groups, str):
        groups = [g for g in groups.split(",") if g]
    token = body.get("token") or secrets.token_hex(24)
    if "," in token or "\n" in token:
        raise bad_request("a token cannot contain commas or newlines")
    sim.tokens.add(token, body["user"], body.get("uid") or body["user"], groups)
    return {"user": body["user"], "groups": groups, "token": token}


def health(sim):
    return {"ok": True, "pid": os.getpid(), "url": sim.url,
            "resourceVersion": str(sim.store.current_rv()), "objects": sim.store.count(),
            "uptimeSeconds": round(time.time() - sim.started, 1),
            "runtime": sim.controller is not None}


def _routes(sim, body):
    return {
        ("GET", "/_sim/health"): lambda: health(sim),
        ("POST", "/_sim/seed"): lambda: seed(sim, body),
        ("POST", "/_sim/bulk"): lambda: bulk(sim, body),
        ("GET", "/_sim/requests"): lambda: sim.reqlog.read_all(),
        ("POST", "/_sim/requests/clear"): lambda: (sim.reqlog.clear(), {"cleared": True})[1],
        ("DELETE", "/_sim/requests"): lambda: (sim.reqlog.clear(), {"cleared": True})[1],
        ("POST", "/_sim/crd"): lambda: set_runai_crds(sim, body),
        ("POST", "/_sim/compact"): lambda: {"compactedResourceVersion": str(sim.store.compact())},
        ("POST", "/_sim/users"): lambda: add_user(sim, body),
        ("GET", "/_sim/faults"): lambda: sim.faults.list(),
        ("POST", "/_sim/faults"): lambda: sim.faults.add(body).to_json(),
        ("DELETE", "/_sim/faults"): lambda: (sim.faults.clear(), {"cleared": True})[1],
    }


def outage(handler, body):
    seconds = body.get("seconds", 2) if isinstance(body, dict) else None
    if not isinstance(seconds, (int, float)) or not 0 <= seconds <= 600:
        raise bad_request("an outage needs {\"seconds\": 0..600}")
    cut = handler.server.outage(float(seconds), spare=handler.connection)
    return {"cut": cut, "seconds": seconds}


def handle(sim, handler, method, path, body):
    """Answers the /_sim request if it is one of ours; True if so."""
    routes = _routes(sim, body)
    routes[("POST", "/_sim/outage")] = lambda: outage(handler, body)
    route = routes.get((method, path.rstrip("/")))
    if route is None:
        return False
    try:
        result = route()
    except ApiError as e:
        handler.send_api_error(e)
        return True
    handler.send_json(200, result)
    return True
