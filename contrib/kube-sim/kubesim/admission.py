"""Server-side steps of a write that look at other objects, as the real
API server does them before it stores an object:

- Services: the service REST storage's node port allocator (one pool,
  30000-32767, unique cluster-wide), the fields it drops when the type
  changes, the values it keeps when an update omits them (clusterIP,
  nodePorts), and the defaults of the v1 API;
- PersistentVolumeClaims: the DefaultStorageClass admission plugin, which
  names the default StorageClass in a new claim that names none;
- Secrets: the v1 conversion that writes stringData into data (base64,
  a key in both takes stringData's value) and never stores stringData.

The store calls `on_create` and `on_update` under its lock, after its own
defaults and before validation; they change the new object in place or
raise the ApiError the real server answers.
"""

import base64
import random

from kubesim.errors import ApiError, invalid

SERVICES = ("", "v1", "services")
SECRETS = ("", "v1", "secrets")
STORAGECLASSES = ("storage.k8s.io", "v1", "storageclasses")

NODE_PORT_MIN, NODE_PORT_MAX = 30000, 32767
NODE_PORT_RANGE = "%d-%d" % (NODE_PORT_MIN, NODE_PORT_MAX)
NOT_IN_RANGE = ("provided port is not in the valid range. The range of valid ports is %s"
                % NODE_PORT_RANGE)
ALREADY_ALLOCATED = "provided port is already allocated"
DEFAULT_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class"
BETA_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"


def on_create(store, res, obj):
    if res.gvr == SERVICES:
        _service_create(store, obj)
    elif res.plural == "persistentvolumeclaims" and not res.group:
        _default_storage_class(store, obj)
    elif res.gvr == SECRETS:
        _string_data(obj)


def on_update(store, res, old, new, status_only=False):
    if res.gvr == SECRETS:
        _string_data(new)
    if res.gvr != SERVICES:
        return
    if status_only:
        _default_ip_mode(new)
    else:
        _service_update(store, old, new)


# --- secrets ------------------------------------------------------------------

def _string_data(secret):
    strings = secret.pop("stringData", None)
    if not isinstance(strings, dict) or not strings:
        return
    data = secret.get("data")
    if not isinstance(data, dict):
        data = secret["data"] = {}
    for key, value in strings.items():
        data[key] = base64.b64encode(str(value).encode()).decode()


# --- services -----------------------------------------------------------------

def _spec(svc):
    spec = svc.get("spec")
    return spec if isinstance(spec, dict) else {}


def _type(svc):
    return _spec(svc).get("type") or "ClusterIP"


def _ports(svc):
    return [p for p in _spec(svc).get("ports") or [] if isinstance(p, dict)]


def _node_port(port):
    n = port.get("nodePort")
    return n if isinstance(n, int) and not isinstance(n, bool) else 0


def needs_node_ports(svc):
    """NodePort and LoadBalancer services own node ports."""
    return _type(svc) in ("NodePort", "LoadBalancer")


def _allocates(svc):
    """Whether ports without a nodePort get one (a LoadBalancer may opt out
    with allocateLoadBalancerNodePorts: false)."""
    if _type(svc) == "NodePort":
        return True
    return _type(svc) == "LoadBalancer" and \
        _spec(svc).get("allocateLoadBalancerNodePorts") is not False


def _ports_in_use(store, svc):
    """Node ports held by every other service: the allocator's bitmap."""
    meta = svc.get("metadata") or {}
    me = (meta.get("namespace"), meta.get("name"))
    used = set()
    for other in store.select(SERVICES):
        ometa = other.get("metadata") or {}
        if (ometa.get("namespace"), ometa.get("name")) == me:
            continue
        used.update(_node_port(p) for p in _ports(other))
        hc = _spec(other).get("healthCheckNodePort")
        if isinstance(hc, int):
            used.add(hc)
    used.discard(0)
    return used


def _port_error(svc, index, port, message):
    name = (svc.get("metadata") or {}).get("name", "")
    return invalid("Service", name, [("spec.ports[%d].nodePort" % index, "FieldValueInvalid",
                                      "Invalid value: %d: %s" % (port, message))])


def _claim(svc, index, port, busy):
    """Takes one given node port, or raises the allocator's 422."""
    if not NODE_PORT_MIN <= port <= NODE_PORT_MAX:
        raise _port_error(svc, index, port, NOT_IN_RANGE)
    if port in busy:
        raise _port_error(svc, index, port, ALREADY_ALLOCATED)
    busy.add(port)


def _next_free(busy, asked):
    """A random free port, as the real allocator hands them out; never one
    that a port of the same service asks for by number (so the outcome does
    not depend on luck)."""
    avoid = busy | asked
    free = NODE_PORT_MAX - NODE_PORT_MIN + 1 - sum(
        1 for p in avoid if NODE_PORT_MIN <= p <= NODE_PORT_MAX)
    if free <= 0:
        raise ApiError(500, "InternalError", "Internal error occurred: failed to allocate a "
                       "nodePort: range is full")
    while True:
        port = random.randint(NODE_PORT_MIN, NODE_PORT_MAX)
        if port not in avoid:
            busy.add(port)
            return port


def _requested_for(number, ports):
    """A nodePort some entry with the same port number asks for (TCP and
    UDP on one port share one node port)."""
    for p in ports:
        if p.get("port") == number and _node_port(p):
            return _node_port(p)
    return 0


def _allocate_create(store, svc):
    """initNodePorts: given ports are claimed, missing ones allocated; entries
    with the same port number share one node port."""
    if not needs_node_ports(svc):
        return
    busy = _ports_in_use(store, svc)
    ports = _ports(svc)
    asked = {_node_port(p) for p in ports}
    by_number = {}
    for i, port in enumerate(ports):
        given = _node_port(port)
        if not given and not _allocates(svc):
            continue
        shared = by_number.get(port.get("port"))
        if shared is None:
            want = given or _requested_for(port.get("port"), ports[i:])
            if want:
                _claim(svc, i, want, busy)
            else:
                want = _next_free(busy, asked)
            port["nodePort"] = by_number[port.get("port")] = want
        elif not given:
            port["nodePort"] = shared
        elif given != shared:
            _claim(svc, i, given, busy)


def _allocate_update(store, old, new):
    """updateNodePorts: ports the service held stay its own; new ones are
    claimed; missing ones allocated."""
    if not needs_node_ports(new):
        return
    busy = _ports_in_use(store, new)
    held = {_node_port(p) for p in _ports(old)} if needs_node_ports(old) else set()
    asked = {_node_port(p) for p in _ports(new)}
    taken = set()
    for i, port in enumerate(_ports(new)):
        given = _node_port(port)
        if given:
            if given not in held and given not in taken:
                _claim(svc=new, index=i, port=given, busy=busy)
            taken.add(given)
        elif _allocates(new):
            port["nodePort"] = _next_free(busy, asked | taken)
            taken.add(port["nodePort"])


def _drop_type_dependent(old, new):
    """What the service strategy wipes when the type changes and the client
    left the old value alone: node ports, external traffic policy,
    allocateLoadBalancerNodePorts, and the load balancer status."""
    spec, ospec = _spec(new), _spec(old)
    if needs_node_ports(old) and not needs_node_ports(new):
        given = {_node_port(p) for p in _ports(new)} - {0}
        if given <= {_node_port(p) for p in _ports(old)}:
            for port in _ports(new):
                port.pop("nodePort", None)
    if _type(old) == "LoadBalancer" and _type(new) != "LoadBalancer":
        for key in ("allocateLoadBalancerNodePorts", "loadBalancerClass"):
            if key in spec and spec.get(key) == ospec.get(key):
                spec.pop(key)
    if needs_node_ports(old) and not needs_node_ports(new) and \
            spec.get("externalTrafficPolicy") == ospec.get("externalTrafficPolicy"):
        spec.pop("externalTrafficPolicy", None)
    if _type(new) != "LoadBalancer" and isinstance(new.get("status"), dict):
        new["status"]["loadBalancer"] = {}


def _keep_allocated(old, new):
    """patchAllocatedValues: an update that omits the clusterIP or a port's
    nodePort keeps the allocated one (matched by port name)."""
    spec, ospec = _spec(new), _spec(old)
    if "spec" not in new:
        return
    if _type(new) != "ExternalName" and _type(old) != "ExternalName":
        if not spec.get("clusterIP") and ospec.get("clusterIP"):
            spec["clusterIP"] = ospec["clusterIP"]
        if not spec.get("clusterIPs") and ospec.get("clusterIPs"):
            spec["clusterIPs"] = list(ospec["clusterIPs"])
    if needs_node_ports(old) and needs_node_ports(new):
        given = {_node_port(p) for p in _ports(new)}
        by_name = {p.get("name", ""): _node_port(p) for p in _ports(old)}
        for port in _ports(new):
            keep = by_name.get(port.get("name", ""), 0)
            if not _node_port(port) and keep and keep not in given:
                port["nodePort"] = keep


def _api_defaults(svc):
    """SetDefaults_Service for the fields that depend on the type."""
    spec = svc.get("spec")
    if not isinstance(spec, dict):
        return
    if needs_node_ports(svc):
        spec.setdefault("externalTrafficPolicy", "Cluster")
    if _type(svc) == "LoadBalancer":
        spec.setdefault("allocateLoadBalancerNodePorts", True)
    if _type(svc) != "ExternalName":
        spec.setdefault("internalTrafficPolicy", "Cluster")
    _default_ip_mode(svc)


def _default_ip_mode(svc):
    """A load balancer ingress with an IP gets ipMode VIP (LoadBalancerIPMode,
    on by default since 1.30)."""
    status = svc.get("status")
    if not isinstance(status, dict):
        return
    for ing in (status.get("loadBalancer") or {}).get("ingress") or []:
        if isinstance(ing, dict) and ing.get("ip"):
            ing.setdefault("ipMode", "VIP")


def _service_create(store, svc):
    if not isinstance(svc.get("status"), dict):
        svc["status"] = {}
    svc["status"].setdefault("loadBalancer", {})
    _api_defaults(svc)
    _allocate_create(store, svc)


def _service_update(store, old, new):
    _drop_type_dependent(old, new)
    _keep_allocated(old, new)
    _api_defaults(new)
    _allocate_update(store, old, new)


# --- persistent volume claims -------------------------------------------------

def default_storage_class(store):
    """The default StorageClass: of several, the newest (then by name), as
    the admission plugin and the PV controller pick it since 1.28."""
    try:
        classes = store.select(STORAGECLASSES)
    except ApiError:
        return None
    defaults = [c for c in classes
                if ((c.get("metadata") or {}).get("annotations") or {}).get(
                    DEFAULT_CLASS_ANNOTATION) == "true"]
    if not defaults:
        return None
    defaults.sort(key=lambda c: c["metadata"].get("name", ""))
    defaults.sort(key=lambda c: c["metadata"].get("creationTimestamp") or "", reverse=True)
    return defaults[0]["metadata"]["name"]


def _default_storage_class(store, pvc):
    """A claim with no storageClassName at all (not "": that means no class)
    gets the default class's name, when there is a default."""
    spec = pvc.get("spec")
    if not isinstance(spec, dict) or spec.get("storageClassName") is not None:
        return
    if BETA_CLASS_ANNOTATION in ((pvc.get("metadata") or {}).get("annotations") or {}):
        return
    name = default_storage_class(store)
    if name:
        spec["storageClassName"] = name
