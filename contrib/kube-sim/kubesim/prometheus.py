"""A small Prometheus for `runai top`, reached as real clients reach
kube-prometheus-stack: through the API server's service proxy,

    GET /api/v1/namespaces/monitoring/services/http:<svc>:9090/proxy/api/v1/query?query=..&time=..

It answers only while a Service <svc> exists in that namespace with label
app=kube-prometheus-stack-prometheus (seed one with /_sim/seed), and only
instant queries of one metric, optionally with equality matchers
(`name` or `name{k="v",...}`), as a vector.

Metrics are computed from the store (see _computed), GPU ones from the
load model that the pods' nvidia-smi shows too (gpuview, gpuload), unless
a test set explicit samples for that metric:

    POST   /_sim/metrics   {"metric": M, "labels": {...}, "value": V}, or a list
                           (a metric given here replaces its computed samples);
                           {"metric": M, "error": TEXT}: queries of M answer
                           Prometheus's error with that text
    GET    /_sim/metrics   the explicit samples
    DELETE /_sim/metrics   forget them
"""

import re
import threading
import time

from kubesim import gpuview
from kubesim.errors import ApiError, bad_request, not_found

PROM_NS = "monitoring"
PROM_LABEL = ("app", "kube-prometheus-stack-prometheus")
PROM_PORT = "9090"
SERVICES = ("", "v1", "services")
NODES = ("", "v1", "nodes")
PODS = ("", "v1", "pods")
_SUFFIX = {"Ki": 2 ** 10, "Mi": 2 ** 20, "Gi": 2 ** 30, "Ti": 2 ** 40,
           "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "m": 1e-3, "": 1}
_QUERY = re.compile(r'^\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(?:\{(.*)\})?\s*$')
_MATCHER = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*(?:,|$)')

_lock = threading.Lock()
_explicit = {}   # metric -> [(labels, value)]
_errors = {}     # metric -> the error text its queries answer


def _quantity(text):
    m = re.match(r"^([0-9.eE+-]+)([A-Za-z]*)$", str(text or "0").strip())
    if not m or m.group(2) not in _SUFFIX:
        return 0.0
    try:
        return float(m.group(1)) * _SUFFIX[m.group(2)]
    except ValueError:
        return 0.0


def _requests(pod, key):
    total = 0.0
    for c in (pod.get("spec") or {}).get("containers") or []:
        res = c.get("resources") or {}
        total += _quantity((res.get("requests") or {}).get(key, (res.get("limits") or {}).get(key)))
    return total


def _owner_uid(pod):
    for ref in pod["metadata"].get("ownerReferences") or []:
        if ref.get("controller"):
            return ref.get("uid")
    return None


def _running_pods(store):
    return [p for p in store.select(PODS)
            if (p.get("status") or {}).get("phase") == "Running" and
            (p.get("spec") or {}).get("nodeName")]


def _gpu_use(store, pods, now):
    """Per node, per device: (utilization %, used bytes, total bytes); per
    pod: [(share, MiB, utilization %, share of memory used)] -- all from
    the load model (gpuview, gpuload), as the pods' nvidia-smi shows it."""
    nodes, per_pod = {}, {}
    for node in store.select(NODES):
        name = node["metadata"]["name"]
        count, _, mib, _, _ = gpuview.node_gpus(node)
        mine = [p for p in pods if p["spec"]["nodeName"] == name]
        held = gpuview.devices(node, mine)
        devs = [[0.0, 0.0, mib * 2.0 ** 20] for _ in range(count)]
        for p in mine:
            key = (p["metadata"]["namespace"], p["metadata"]["name"])
            util, mem = gpuview.load(p, now)
            for index, share in held.get(key, ()):
                devs[index][0] = min(100.0, devs[index][0] + util * share)
                devs[index][1] += mem * share * mib * 2.0 ** 20
                per_pod.setdefault(key, []).append((share, mib, util, mem))
        nodes[name] = devs
    return nodes, per_pod


def _computed(sim, metric, at=None):
    """A running pod uses the CPU and memory it requested; its GPUs follow
    the load model. at: the query's evaluation time; no sample is from
    after it (a GPU busy now was last busy then, not later)."""
    store, now = sim.store, time.time() if at is None else min(time.time(), at)
    pods = _running_pods(store)
    gpu_nodes, gpu_pods = _gpu_use(store, pods, now) if "gpu" in metric else ({}, {})
    out = []
    if metric.startswith("runai_node_"):
        for node in store.select(NODES):
            name = node["metadata"]["name"]
            st = node.get("status") or {}
            alloc = st.get("allocatable") or st.get("capacity") or {}
            mine = [p for p in pods if p["spec"]["nodeName"] == name]
            cpu = _quantity(alloc.get("cpu"))
            used_cpu = sum(_requests(p, "cpu") for p in mine)
            labels = {"node": name}
            if metric == "runai_node_cpu_utilization":
                out.append((labels, 100.0 * used_cpu / cpu if cpu else 0.0))
            elif metric == "runai_node_memory_used_bytes":
                out.append((labels, sum(_requests(p, "memory") for p in mine)))
            for g, (util, used, total) in enumerate(gpu_nodes.get(name, ())):
                gl = {"node": name, "gpu": str(g)}
                value = {
                    "runai_node_gpu_utilization": util,
                    "runai_node_gpu_total_memory": total,
                    "runai_node_gpu_used_memory": used,
                    "runai_node_gpu_last_not_idle_time": now if util else min(sim.started, now),
                }.get(metric)
                if value is not None:
                    out.append((gl, value))
        return out
    groups = {}
    for p in pods:
        uid = _owner_uid(p)
        if uid:
            groups.setdefault(uid, []).append(p)
    for uid, mine in sorted(groups.items()):
        held = [d for p in mine for d in gpu_pods.get(
            (p["metadata"]["namespace"], p["metadata"]["name"]), ())]
        shares = sum(d[0] for d in held)
        cpu = sum(_requests(p, "cpu") for p in mine)
        mem = sum(_requests(p, "memory") for p in mine)
        value = {
            "runai_pod_group_gpu_utilization":
                sum(d[0] * d[2] for d in held) / shares if shares else 0.0,
            "runai_pod_group_gpu_memory_allocated_bytes":
                sum(d[0] * d[1] * 2.0 ** 20 for d in held),
            "runai_pod_group_gpu_memory_used_bytes":
                sum(d[0] * d[1] * d[3] * 2.0 ** 20 for d in held),
            "runai_active_job_cpu_requested_cores": cpu,
            "runai_pod_group_cpu_usage_cores": cpu,
            "runai_active_job_memory_requested_bytes": mem,
            "runai_pod_group_memory_used_bytes": mem,
        }.get(metric)
        if value is not None:
            out.append(({"pod_group_uuid": uid}, value))
    return out


def _parse_query(text):
    m = _QUERY.match(text or "")
    if not m:
        return None
    matchers, rest = {}, m.group(2) or ""
    while rest.strip():
        mm = _MATCHER.match(rest)
        if not mm:
            return None
        matchers[mm.group(1)] = mm.group(2)
        rest = rest[mm.end():]
    return m.group(1), matchers


def _fmt(value):
    if value != value:
        return "NaN"
    return repr(float(value)) if value != int(value) else str(int(value))


def samples(sim, metric):
    """(labels, value) of a metric as a query answers it: the samples set
    through /_sim/metrics, else the computed ones. Raises ValueError with
    the error set for it."""
    with _lock:
        explicit = list(_explicit.get(metric, [])) if metric in _explicit else None
        error = _errors.get(metric)
    if error is not None:
        raise ValueError(error)
    return explicit if explicit is not None else _computed(sim, metric)


def _answer_query(handler, sim):
    query = (handler.query.get("query") or [""])[0]
    at = (handler.query.get("time") or [""])[0]
    try:
        at = float(at) if at else time.time()
    except ValueError:
        return _prom_error(handler, "bad_data", 'invalid parameter "time": cannot parse "%s"' % at)
    parsed = _parse_query(query)
    if parsed is None:
        return _prom_error(handler, "bad_data",
                           'invalid parameter "query": 1:1: parse error: unsupported by kube-sim: %s' % query)
    metric, matchers = parsed
    with _lock:
        samples = list(_explicit.get(metric, []))
        error = _errors.get(metric)
    if error is not None:
        return _prom_error(handler, "execution", error)
    if metric not in _explicit:
        samples = _computed(sim, metric, at)
    result = []
    for labels, value in samples:
        if all(labels.get(k) == v for k, v in matchers.items()):
            result.append({"metric": dict({"__name__": metric}, **labels),
                           "value": [at, _fmt(value)]})
    handler.send_json(200, {"status": "success",
                            "data": {"resultType": "vector", "result": result}})
    return True


def _prom_error(handler, etype, message):
    handler.send_json(400, {"status": "error", "errorType": etype, "error": message})
    return True


def handle_proxy(handler, sim, req):
    """services/<[scheme:]name[:port]>/proxy/<path>."""
    parts = (req.name or "").split(":")
    name = parts[1] if len(parts) == 3 or (len(parts) == 2 and parts[0] in ("http", "https")) \
        else parts[0]
    port = parts[-1] if len(parts) == 3 or (len(parts) == 2 and parts[0] not in ("http", "https")) \
        else ""
    svc = sim.store.get(SERVICES, req.namespace, name)
    if svc is None:
        raise not_found("services", name)
    labels = svc["metadata"].get("labels") or {}
    if req.namespace != PROM_NS or labels.get(PROM_LABEL[0]) != PROM_LABEL[1] or \
            port not in ("", PROM_PORT):
        raise ApiError(503, "ServiceUnavailable",
                       'no endpoints available for service "%s"' % req.name)
    path = req.subresource[len("proxy"):].strip("/")
    if path != "api/v1/query" or handler.command not in ("GET", "POST"):
        handler.send_text(404, "404 page not found\n")
        return True
    return _answer_query(handler, sim)


def _set_metrics(body):
    items = body if isinstance(body, list) else [body]
    with _lock:
        for item in items:
            if not isinstance(item, dict) or not isinstance(item.get("metric"), str):
                raise bad_request('each sample needs "metric", "labels" and "value"')
            if "error" in item:
                _errors[item["metric"]] = str(item["error"])
                continue
            labels = {str(k): str(v) for k, v in (item.get("labels") or {}).items()}
            value = float(item.get("value", 0))
            # one sample per label set, as in a Prometheus vector: a new
            # value for the same labels replaces the old
            samples = [(l, v) for l, v in _explicit.get(item["metric"], []) if l != labels]
            _explicit[item["metric"]] = samples + [(labels, value)]
    return _list_metrics()


def _list_metrics():
    return [{"metric": m, "labels": l, "value": v}
            for m, samples in sorted(_explicit.items()) for l, v in samples]


def _clear_metrics():
    with _lock:
        _explicit.clear()
        _errors.clear()
    return {"cleared": True}


NAMESPACES = ("", "v1", "namespaces")
PROM_SERVICE = "kube-prometheus-stack-prometheus"


def install_demo(store):
    """The --demo cluster's Prometheus: namespace `monitoring` and the
    kube-prometheus-stack Service that `runai top` looks for."""
    if store.get(NAMESPACES, None, PROM_NS) is None:
        store.put(NAMESPACES, None, {"apiVersion": "v1", "kind": "Namespace",
                                     "metadata": {"name": PROM_NS}})
    store.put(SERVICES, PROM_NS, {
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": PROM_SERVICE, "namespace": PROM_NS,
                     "labels": {PROM_LABEL[0]: PROM_LABEL[1]}},
        "spec": {"ports": [{"name": "http-web", "port": int(PROM_PORT),
                            "targetPort": int(PROM_PORT)}],
                 "selector": {"app.kubernetes.io/name": "prometheus"}}})


def register_sim_routes(sim):
    """GET|POST|DELETE /_sim/metrics."""
    def route(handler, method, path, body):
        if path.rstrip("/") != "/_sim/metrics":
            return False
        try:
            if method == "POST":
                result = _set_metrics(body)
            elif method == "DELETE":
                result = _clear_metrics()
            elif method == "GET":
                with _lock:
                    result = _list_metrics()
            else:
                return False
        except (TypeError, ValueError) as e:
            handler.send_api_error(bad_request(str(e)))
            return True
        except ApiError as e:
            handler.send_api_error(e)
            return True
        handler.send_json(200, result)
        return True

    sim.add_sim_route(route)
