"""Load balancers: what a cloud's service controller does for a Service of
type LoadBalancer. One step after it is first seen (so clients see
<pending> first, as on a cloud) it gets `status.loadBalancer.ingress[0].ip`,
a loopback address 127.0.0.N of its own, with the EnsuringLoadBalancer and
EnsuredLoadBalancer events. A Service with a loadBalancerClass belongs to
some other controller and is left alone.

Nothing answers at those addresses, and there are no Endpoints; node
ports and type changes are admission's (admission.py), not this module's.
"""

import traceback

from kubesim.cluster import Part, stored
from kubesim.errors import ApiError
from kubesim.objutil import SERVICES, clone, key_of, meta_of


class LoadBalancers(Part):
    def __init__(self, runtime):
        super().__init__(runtime)
        self._lb_seen = {}              # LoadBalancer service uid -> step first seen

    def forget(self, uid):
        self._lb_seen.pop(uid, None)

    def assign(self, now):
        """A LoadBalancer service (without a loadBalancerClass, which names
        some other controller) gets `status.loadBalancer.ingress[0].ip`, a
        loopback address of its own, one step after this controller first
        sees it: clients see <pending> first, as on a cloud."""
        services = stored(self.store, SERVICES)
        taken = {ing.get("ip") for svc in services
                 for ing in ((svc.get("status") or {}).get("loadBalancer") or {}).get("ingress")
                 or [] if isinstance(ing, dict)}
        for svc in services:
            uid, spec = meta_of(svc).get("uid"), svc.get("spec") or {}
            if spec.get("type") != "LoadBalancer" or spec.get("loadBalancerClass"):
                self._lb_seen.pop(uid, None)
                continue
            if ((svc.get("status") or {}).get("loadBalancer") or {}).get("ingress"):
                continue
            self.waits_on_clock()
            if uid not in self._lb_seen:
                self._lb_seen[uid] = self.runtime.steps
                self.event(svc, "EnsuringLoadBalancer", "Ensuring load balancer",
                           component="service-controller")
                continue
            ip = next(("127.0.0.%d" % n for n in range(2, 255)
                       if "127.0.0.%d" % n not in taken), None)
            if ip is None:
                continue
            new = clone(svc)
            new["status"] = {"loadBalancer": {"ingress": [{"ip": ip, "ipMode": "VIP"}]}}
            try:
                self.store.update(SERVICES, key_of(svc)[0], new, status_only=True)
            except (ApiError, TypeError):
                traceback.print_exc()
                continue
            taken.add(ip)
            self.event(svc, "EnsuredLoadBalancer", "Ensured load balancer",
                       component="service-controller")
