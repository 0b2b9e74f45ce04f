"""Services and Ingresses reachable on loopback, as kube-proxy and an
ingress controller make them reachable on a cluster.

- A NodePort service's node ports are served at 127.0.0.1:NODEPORT.
- A LoadBalancer service is served at its load balancer address (a
  127.0.0.N of its own, services.py) on each of its ports, and at its
  node ports.
- Ingresses: one HTTP port on 127.0.0.1, picked at start (`ingress_port`
  in ready.json), is the ingress controller. Every Ingress gets
  `status.loadBalancer.ingress[0].ip` 127.0.0.1; a request is routed by
  its Host header and path (rules without a host match any; the longest
  matching path wins; Exact before Prefix) to the backend service's
  port, the path kept as nginx keeps it. A connection stays with the
  backend its first request chose. With --demo, the Service
  `kube-system/ingress-nginx-controller` (label app=nginx-ingress,
  type LoadBalancer at 127.0.0.1 on that port) says where it is, as the
  controller's Service does on a cluster.

A connection goes to a Running pod the service selects (the first in
namespace/name order), at the pod's own loopback address or 127.0.0.1
(podnet.connect), on the port's targetPort (a number, or the name of a
container port). With no such pod it is closed at once (an ingress
answers 503).
"""

import select
import socket
import threading
import time
import traceback

from kubesim import podnet
from kubesim.errors import ApiError
from kubesim.objutil import PODS, SERVICES, clone, key_of, meta_of, phase_of
from kubesim.selectors import LabelSelector

INGRESSES = ("networking.k8s.io", "v1", "ingresses")
NAMESPACES = ("", "v1", "namespaces")
CONTROLLER_NS, CONTROLLER_NAME = "kube-system", "ingress-nginx-controller"
INGRESS_ADDRESS = "127.0.0.1"
RECONCILE_SECONDS = 0.5
RETRY_SECONDS = 5.0             # a port another program holds is tried again
HEAD_MAX = 65536


def target_port(svc, port, pod):
    """The pod's port number behind a service port."""
    target = port.get("targetPort", port.get("port"))
    if isinstance(target, int) or (isinstance(target, str) and target.isdigit()):
        return int(target)
    for c in (pod.get("spec") or {}).get("containers") or []:
        for p in c.get("ports") or []:
            if p.get("name") == target:
                return int(p.get("containerPort"))
    return None


def backend_pod(store, svc):
    """The first Running pod the service selects, or None."""
    selector = (svc.get("spec") or {}).get("selector") or {}
    if not selector:
        return None
    lsel = LabelSelector(",".join("%s=%s" % kv for kv in sorted(selector.items())))
    for pod in store.select(PODS, meta_of(svc).get("namespace"), lsel):
        if phase_of(pod) == "Running":
            return pod
    return None


def _path_matches(path_type, prefix, path):
    if path_type == "Exact":
        return path == prefix
    prefix = prefix.rstrip("/")
    return prefix == "" or path == prefix or path.startswith(prefix + "/")


def route(ingresses, host, path):
    """(namespace, service name, service port number or name) of the
    ingress rule that takes `host` and `path`, or None."""
    best = None
    host = (host or "").split(":", 1)[0].lower()
    for ing in ingresses:
        ns = meta_of(ing).get("namespace")
        for rule in (ing.get("spec") or {}).get("rules") or []:
            if rule.get("host") and rule["host"].lower() != host:
                continue
            for p in ((rule.get("http") or {}).get("paths") or []):
                prefix = p.get("path") or "/"
                ptype = p.get("pathType") or "Prefix"
                if not _path_matches(ptype, prefix, path):
                    continue
                rank = (ptype == "Exact", len(prefix))
                svc = (p.get("backend") or {}).get("service") or {}
                port = (svc.get("port") or {})
                if best is None or rank > best[0]:
                    best = (rank, (ns, svc.get("name"), port.get("number", port.get("name"))))
    return best[1] if best else None


def _pump(a, b, stopping):
    """Moves bytes both ways until either side closes."""
    socks = [a, b]
    try:
        while not stopping():
            ready, _, _ = select.select(socks, [], [], 0.5)
            for s in ready:
                data = s.recv(65536)
                if not data:
                    return
                (b if s is a else a).sendall(data)
    except OSError:
        return
    finally:
        for s in socks:
            try:
                s.close()
            except OSError:
                pass


class Listener:
    """One listening socket and its accept loop; `dial(conn)` returns the
    backend connection (None: closed at once)."""

    def __init__(self, host, port, dial, stopping):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((host, port))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.dial = dial
        self.stopping = stopping
        self.closed = False
        threading.Thread(target=self._accept, daemon=True,
                         name="netproxy-%s:%d" % (host, self.port)).start()

    def _accept(self):
        while not self.closed:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn):
        try:
            backend = self.dial(conn)
        except Exception:
            traceback.print_exc()
            backend = None
        if backend is None:
            conn.close()
            return
        _pump(conn, backend, lambda: self.stopping() or self.closed)

    def close(self):
        self.closed = True
        try:
            self.sock.close()
        except OSError:
            pass


class NetProxy:
    def __init__(self, sim):
        self.sim = sim
        self.store = sim.store
        self.listeners = {}             # (host, port) -> Listener
        self.failed = {}                # (host, port) that could not be bound -> when
        stopping = lambda: sim.stopping  # noqa: E731
        self.ingress = Listener(INGRESS_ADDRESS, 0, self._dial_ingress, stopping)
        self.ingress_port = self.ingress.port
        self._stopping = stopping

    # ---- services ----

    def _dial_service(self, ns, name, port_value):
        def dial(conn):
            svc = self.store.get(SERVICES, ns, name)
            if svc is None:
                return None
            port = next((p for p in (svc.get("spec") or {}).get("ports") or []
                         if p.get("port") == port_value or p.get("name") == port_value), None)
            pod = backend_pod(self.store, svc) if port else None
            number = target_port(svc, port, pod) if pod else None
            if number is None:
                return None
            try:
                return podnet.connect(pod, number, 5.0)
            except OSError:
                return None
        return dial

    def wanted(self):
        """{(host, port): (namespace, service, service port)} to serve now."""
        want = {}
        for svc in self.store.select(SERVICES):
            spec, (ns, name) = svc.get("spec") or {}, key_of(svc)
            if (ns, name) == (CONTROLLER_NS, CONTROLLER_NAME):
                continue        # the ingress listener itself
            kind = spec.get("type")
            if kind not in ("NodePort", "LoadBalancer"):
                continue
            ips = [i.get("ip") for i in ((svc.get("status") or {}).get("loadBalancer") or {})
                   .get("ingress") or [] if isinstance(i, dict) and i.get("ip")]
            for p in spec.get("ports") or []:
                if not isinstance(p, dict):
                    continue
                if p.get("nodePort"):
                    want[("127.0.0.1", int(p["nodePort"]))] = (ns, name, p.get("port"))
                if kind == "LoadBalancer":
                    for ip in ips:
                        if ip.startswith("127.") and ip != INGRESS_ADDRESS:
                            want[(ip, int(p.get("port") or 0))] = (ns, name, p.get("port"))
        return want

    def _serve_services(self):
        want = self.wanted()
        for key in list(self.listeners):
            if key not in want or self.listeners[key].target != want[key]:
                self.listeners.pop(key).close()
        for key, target in want.items():
            if key in self.listeners or time.time() - self.failed.get(key, 0) < RETRY_SECONDS:
                continue
            try:
                lst = Listener(key[0], key[1], self._dial_service(*target), self._stopping)
            except OSError as e:
                if key not in self.failed:  # said once, tried again now and then
                    print("kube-sim: service %s/%s: cannot serve %s:%d: %s"
                          % (target[0], target[1], key[0], key[1], e.strerror), flush=True)
                self.failed[key] = time.time()
                continue
            self.failed.pop(key, None)
            lst.target = target
            self.listeners[key] = lst
        for key in set(self.failed) - set(want):
            del self.failed[key]

    # ---- ingresses ----

    def _dial_ingress(self, conn):
        head = b""
        conn.settimeout(10.0)
        while b"\r\n\r\n" not in head and len(head) < HEAD_MAX:
            data = conn.recv(65536)
            if not data:
                return None
            head += data
        conn.settimeout(None)
        lines = head.split(b"\r\n")
        parts = lines[0].decode("latin-1").split(" ")
        path = parts[1].split("?", 1)[0] if len(parts) > 1 else "/"
        host = next((ln.split(b":", 1)[1].strip().decode("latin-1") for ln in lines[1:]
                     if ln.lower().startswith(b"host:")), "")
        target = route(self.store.select(INGRESSES), host, path)
        if target is None:
            return self._answer(conn, 404, "Not Found")
        backend = self._dial_service(*target)(conn)
        if backend is None:
            return self._answer(conn, 503, "Service Temporarily Unavailable")
        backend.sendall(head)
        return backend

    @staticmethod
    def _answer(conn, code, text):
        body = ("<html>\r\n<head><title>%d %s</title></head>\r\n<body>\r\n<center><h1>%d %s"
                "</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
                % (code, text, code, text)).encode()
        try:
            conn.sendall(b"HTTP/1.1 %d %s\r\nContent-Type: text/html\r\nContent-Length: %d\r\n"
                         b"Connection: close\r\n\r\n" % (code, text.encode(), len(body)) + body)
        except OSError:
            pass
        return None

    def _address_ingresses(self):
        for ing in self.store.select(INGRESSES):
            if ((ing.get("status") or {}).get("loadBalancer") or {}).get("ingress"):
                continue
            new = clone(ing)
            new["status"] = {"loadBalancer": {"ingress": [{"ip": INGRESS_ADDRESS}]}}
            try:
                self.store.update(INGRESSES, key_of(ing)[0], new, status_only=True)
            except (ApiError, TypeError):
                traceback.print_exc()

    # ---- the loop ----

    def install_controller_service(self):
        """The demo's ingress controller Service, where runai looks for it."""
        if self.store.get(NAMESPACES, None, CONTROLLER_NS) is None:
            self.store.create(NAMESPACES, None, {"apiVersion": "v1", "kind": "Namespace",
                                                 "metadata": {"name": CONTROLLER_NS}})
        self.store.put(SERVICES, CONTROLLER_NS, {
            "apiVersion": "v1", "kind": "Service",
            "metadata": {"name": CONTROLLER_NAME, "namespace": CONTROLLER_NS,
                         "labels": {"app": "nginx-ingress",
                                    "app.kubernetes.io/name": "ingress-nginx",
                                    "app.kubernetes.io/component": "controller"}},
            "spec": {"type": "LoadBalancer", "loadBalancerClass": "kube-sim/ingress",
                     "ports": [{"name": "http", "port": self.ingress_port,
                                "targetPort": self.ingress_port, "protocol": "TCP"}]},
            "status": {"loadBalancer": {"ingress": [{"ip": INGRESS_ADDRESS}]}}})

    def start(self):
        threading.Thread(target=self._loop, daemon=True, name="netproxy").start()

    def _loop(self):
        while not self.sim.stopping:
            try:
                self._serve_services()
                self._address_ingresses()
            except Exception:
                traceback.print_exc()
            time.sleep(RECONCILE_SECONDS)
        self.ingress.close()
        for lst in self.listeners.values():
            lst.close()
