"""Each pod's own loopback address. Pods share this host's network (no
network namespace), but Linux answers every address of 127.0.0.0/8 on
loopback, so each pod gets one of its own, 127.A.B.C with A in 128..191
(made from its namespace and name: stable, and apart from the load
balancers' 127.0.0.N). A pod's server that binds its address (the
notebook does; the pod finds it in KUBE_SIM_POD_ADDRESS) never meets
another pod's on the same port, nor a program of this host's.

Port forwarding and the service proxies dial the pod's address first,
then 127.0.0.1, where a server that bound every address or loopback
alone (a pod's own `python3 -m http.server`) answers.
"""

import hashlib
import socket

ENV = "KUBE_SIM_POD_ADDRESS"


def address_of(namespace, name):
    h = hashlib.sha256(("%s/%s" % (namespace, name)).encode()).digest()
    return "127.%d.%d.%d" % (128 + h[0] % 64, h[1], 1 + h[2] % 254)


def pod_address(pod):
    meta = pod.get("metadata") or {}
    return address_of(meta.get("namespace") or "", meta.get("name") or "")


def connect(pod, port, timeout):
    """A connection to the pod's `port`: at its own address, else at
    127.0.0.1; raises the last OSError."""
    error = None
    for host in (pod_address(pod), "127.0.0.1"):
        try:
            return socket.create_connection((host, port), timeout)
        except OSError as e:
            error = e
    raise error
