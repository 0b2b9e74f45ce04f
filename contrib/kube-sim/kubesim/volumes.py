"""Persistent volume claims: which claims a pod uses, whether they let the
pod be scheduled, and their binding, as the PV controller and a dynamic
provisioner do it.

A claim with no class at all first gets the default class; a claim of an
existing class is bound to a new volume `pvc-<uid>` at once, or, for a
WaitForFirstConsumer class, once a pod using it is on a node. There are no
PersistentVolume objects: the volume is only a name on the claim.

The scheduler asks `claims_problem` before it places a pod; binding itself
reads the placement back from the pods, so this module needs nothing of
the scheduler.
"""

from kubesim import admission
from kubesim.cluster import Part
from kubesim.objutil import CLAIMS, bound_active, clone, key_of, meta_of, node_name_of


def claim_names(pod):
    """The persistentVolumeClaims a pod's volumes name."""
    out = []
    for v in (pod.get("spec") or {}).get("volumes") or []:
        claim = (v.get("persistentVolumeClaim") or {}) if isinstance(v, dict) else {}
        if isinstance(claim, dict) and claim.get("claimName"):
            out.append(claim["claimName"])
    return out


def claim_class(pvc):
    spec = pvc.get("spec") or {}
    name = spec.get("storageClassName")
    if name is None:
        name = (meta_of(pvc).get("annotations") or {}).get(admission.BETA_CLASS_ANNOTATION)
    return name


def claim_bound(pvc):
    return bool((pvc.get("spec") or {}).get("volumeName")) or \
        (pvc.get("status") or {}).get("phase") == "Bound"


def claims_problem(world, pod):
    """The volume binding check: every claim the pod names exists, and is
    bound unless its class waits for the first consumer (then it is
    bound once the pod has a node). The scheduler's own wording."""
    unbound = False
    for name in claim_names(pod):
        pvc = world.claim_of(pod, name)
        if pvc is None:
            return 'persistentvolumeclaim "%s" not found' % name
        if meta_of(pvc).get("deletionTimestamp"):
            return 'persistentvolumeclaim "%s" is being deleted' % name
        if claim_bound(pvc):
            continue
        sc = world.classes.get(claim_class(pvc) or "")
        if sc is None or sc.get("volumeBindingMode") != "WaitForFirstConsumer":
            unbound = True
    return "pod has unbound immediate PersistentVolumeClaims" if unbound else None


def consumer_node(world, pvc):
    """The node of the first running or pending pod that uses the claim."""
    ns, name = key_of(pvc)
    for (pns, _), pod in sorted(world.pods.items()):
        if pns == ns and bound_active(pod) and name in claim_names(pod):
            return node_name_of(pod)
    return None


class VolumeBinder(Part):
    """The PV controller and a dynamic provisioner."""

    def __init__(self, runtime):
        super().__init__(runtime)
        self._claim_said = {}           # claim uid -> reason of the last event about it

    def forget(self, uid):
        self._claim_said.pop(uid, None)

    def bind_claims(self, world, now):
        """Binds pending claims as a cluster with a dynamic provisioner does:
        a claim with no class at all first gets the default class (the PV
        controller's retroactive assignment); a claim of an existing class is
        bound to a new volume `pvc-<uid>` at once, or, for a
        WaitForFirstConsumer class, once a pod using it is on a node. A
        missing class is a ProvisioningFailed warning; "" (no class) waits
        for a static volume, which never comes here."""
        for key in sorted(world.claims):
            pvc = world.claims[key]
            if meta_of(pvc).get("deletionTimestamp") or claim_bound(pvc):
                continue
            if claim_class(pvc) is None:
                pvc = self._assign_default_class(world, pvc)
            name = claim_class(pvc)
            sc = world.classes.get(name) if name else None
            if not name:
                self._claim_event(pvc, "FailedBinding", "no persistent volumes available for "
                                  "this claim and no storage class is set")
            elif sc is None:
                self._claim_event(pvc, "ProvisioningFailed",
                                  'storageclass.storage.k8s.io "%s" not found' % name, "Warning")
            elif sc.get("volumeBindingMode") == "WaitForFirstConsumer":
                node = consumer_node(world, pvc)
                if node is None:
                    self._claim_event(pvc, "WaitForFirstConsumer", "waiting for first consumer "
                                      "to be created before binding")
                else:
                    self._provision(world, pvc, sc, node)
            else:
                self._provision(world, pvc, sc, None)

    def _assign_default_class(self, world, pvc):
        default = admission.default_storage_class(self.store)
        if not default:
            return pvc
        new = clone(pvc)
        new.setdefault("spec", {})["storageClassName"] = default
        out = self.write(world, CLAIMS, new)
        if out is None:
            return pvc
        world.claims[key_of(out)] = out
        return out

    def _claim_event(self, pvc, reason, message, type_="Normal",
                     component="persistentvolume-controller"):
        """An event about a claim, once per reason (not every step)."""
        uid = meta_of(pvc).get("uid")
        if self._claim_said.get(uid) == reason:
            return
        self._claim_said[uid] = reason
        self.event(pvc, reason, message, type_, component=component)

    def _provision(self, world, pvc, sc, node):
        """The claim bound to a freshly provisioned volume of its size."""
        new = clone(pvc)
        meta, spec = new["metadata"], new.setdefault("spec", {})
        provisioner = sc.get("provisioner") or ""
        ann = meta.setdefault("annotations", {})
        ann.update({"pv.kubernetes.io/bind-completed": "yes",
                    "pv.kubernetes.io/bound-by-controller": "yes",
                    "volume.beta.kubernetes.io/storage-provisioner": provisioner,
                    "volume.kubernetes.io/storage-provisioner": provisioner})
        if node:
            ann["volume.kubernetes.io/selected-node"] = node
        volume = "pvc-%s" % meta.get("uid", "")
        spec["volumeName"] = volume
        storage = ((spec.get("resources") or {}).get("requests") or {}).get("storage")
        new["status"] = {"phase": "Bound", "accessModes": list(spec.get("accessModes") or []),
                         "capacity": {"storage": storage}}
        out = self.write(world, CLAIMS, new)
        if out is None:
            return
        world.claims[key_of(out)] = out
        ns, name = key_of(out)
        self._claim_event(out, "ExternalProvisioning", "Waiting for a volume to be created "
                          "either by the external provisioner '%s' or manually by the system "
                          "administrator. If volume creation is delayed, please verify that the "
                          "provisioner is running and correctly registered." % provisioner)
        self.event(out, "Provisioning", 'External provisioner is provisioning volume for '
                   'claim "%s/%s"' % (ns, name), component=provisioner)
        self.event(out, "ProvisioningSucceeded", "Successfully provisioned volume %s" % volume,
                   component=provisioner)
