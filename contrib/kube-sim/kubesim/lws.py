"""The LeaderWorkerSet controller (leaderworkerset.x-k8s.io/v1), which
runs a Run:ai distributed inference.

A LeaderWorkerSet asks for spec.replicas groups of
spec.leaderWorkerTemplate.size pods each: one leader (from leaderTemplate,
or workerTemplate where it has none) and size - 1 workers (from
workerTemplate). Group g's leader is `<set>-<g>`, its workers
`<set>-<g>-<w>` for w in 1..size-1, as the real controller names them,
labelled with the set's name, the group's index and key and the pod's
worker index (0: the leader), and told where their leader is
(LWS_LEADER_ADDRESS, LWS_GROUP_SIZE, LWS_WORKER_INDEX). The pods are the
set's own (controller owner reference), run with restartPolicy Always as
a StatefulSet's do, and find each other through the headless Service
named after the set (hostname = pod name, subdomain = set name).

startupPolicy LeaderCreated makes a group's pods in one step (the
scheduler then places the group whole, or none of it); LeaderReady makes
the workers once the leader is Ready. A changed spec.replicas adds or
removes whole groups (the highest indexes go first), a smaller size
removes the workers past it. leaderWorkerTemplate.restartPolicy
RecreateGroupOnPodRestart deletes a whole group once any of its pods
restarted a container or failed, and makes it again; with any other
policy a failed pod alone is replaced.

The status follows the pods: replicas (groups with a leader),
readyReplicas (groups whose pods are all Ready), updatedReplicas, the
Available and Progressing conditions, hpaPodSelector, and the
annotations Run:ai's scheduler keeps on a workload. Deleting a set takes
its pods and its Service with it (owner references)."""

import hashlib

from kubesim.cluster import Part, runai_annotations
from kubesim.errors import ApiError
from kubesim.objutil import (LEADERWORKERSETS, LWS_GROUP_INDEX, PODS, SERVICES, annotation_of,
                             clone, condition_true, is_active, key_of, meta_of, number,
                             phase_of, set_condition)

LABEL = "leaderworkerset.sigs.k8s.io/"
GROUP_INDEX = LWS_GROUP_INDEX
SET_NAME, GROUP_KEY, WORKER_INDEX = (LABEL + "name", LABEL + "group-key",
                                     LABEL + "worker-index")
SIZE, LEADER_NAME = LABEL + "size", LABEL + "leader-name"
RECREATE = "RecreateGroupOnPodRestart"
COMPONENT = "lws-controller-manager"


# --- the pure part: groups, names, pods ----------------------------------------

def _spec(lws):
    return lws.get("spec") or {}


def _template_spec(lws):
    return _spec(lws).get("leaderWorkerTemplate") or {}


def group_count(lws):
    return max(0, int(number(_spec(lws).get("replicas"), 1)))


def group_size(lws):
    return max(1, int(number(_template_spec(lws).get("size"), 1)))


def pod_name(set_name, group, worker):
    if worker == 0:
        return "%s-%d" % (set_name, group)
    return "%s-%d-%d" % (set_name, group, worker)


def members(lws):
    """[(group, worker index, pod name)] of the whole set, leaders first
    within each group."""
    name = meta_of(lws).get("name")
    return [(g, w, pod_name(name, g, w))
            for g in range(group_count(lws)) for w in range(group_size(lws))]


def group_key(namespace, leader):
    """The label that tells one group's pods from another's: a digest of
    the leader's namespace and name, as the controller makes it."""
    return hashlib.sha1(("%s/%s" % (namespace, leader)).encode()).hexdigest()


def _owner_ref(lws):
    return {"apiVersion": "%s/%s" % LEADERWORKERSETS[:2], "kind": "LeaderWorkerSet",
            "name": meta_of(lws).get("name"), "uid": meta_of(lws).get("uid", ""),
            "controller": True, "blockOwnerDeletion": True}


def _template(lws, worker):
    lwt = _template_spec(lws)
    if worker == 0 and lwt.get("leaderTemplate"):
        return lwt["leaderTemplate"]
    return lwt.get("workerTemplate") or {}


def _add_env(container, env):
    have = container.setdefault("env", [])
    names = {e.get("name") for e in have if isinstance(e, dict)}
    have.extend({"name": k, "value": v} for k, v in env if k not in names)


def build_pod(lws, group, worker, project=None):
    """One member's pod, from its template (not stored here)."""
    meta = meta_of(lws)
    name, ns = meta.get("name"), meta.get("namespace")
    leader = pod_name(name, group, 0)
    me = pod_name(name, group, worker)
    tmpl = _template(lws, worker)
    tmeta = tmpl.get("metadata") or {}
    labels = dict(tmeta.get("labels") or {})
    labels.update({SET_NAME: name, GROUP_INDEX: str(group), GROUP_KEY: group_key(ns, leader),
                   WORKER_INDEX: str(worker)})
    if project:
        labels["project"] = project
    annotations = dict(tmeta.get("annotations") or {})
    annotations[SIZE] = str(group_size(lws))
    if worker:
        annotations[LEADER_NAME] = leader
    annotations["pod-group-name"] = "pg-%s-%d-%s" % (name, group, meta.get("uid", "")[:8])
    pspec = clone(tmpl.get("spec") or {})
    pspec["restartPolicy"] = "Always"   # a StatefulSet's pods take no other
    pspec["hostname"], pspec["subdomain"] = me, name
    env = [("LWS_LEADER_ADDRESS", "%s.%s.%s" % (leader, name, ns)),
           ("LWS_GROUP_SIZE", str(group_size(lws))), ("LWS_WORKER_INDEX", str(worker))]
    for c in pspec.get("containers") or []:
        if isinstance(c, dict):
            _add_env(c, env)
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": me, "namespace": ns, "labels": labels,
                         "annotations": annotations, "ownerReferences": [_owner_ref(lws)]},
            "spec": pspec, "status": {"phase": "Pending"}}


def build_service(lws):
    """The headless Service the pods are found by (<pod>.<set>.<ns>)."""
    meta = meta_of(lws)
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": meta.get("name"), "namespace": meta.get("namespace"),
                         "labels": {SET_NAME: meta.get("name")},
                         "ownerReferences": [_owner_ref(lws)]},
            "spec": {"clusterIP": "None", "publishNotReadyAddresses": True,
                     "selector": {SET_NAME: meta.get("name")}}}


def restarted(pod):
    """A pod that failed or restarted a container: what makes a group
    under RecreateGroupOnPodRestart start over."""
    if phase_of(pod) == "Failed":
        return True
    status = pod.get("status") or {}
    return any(int(number(cs.get("restartCount"), 0)) > 0
               for cs in (status.get("initContainerStatuses") or []) +
               (status.get("containerStatuses") or []))


def index_of(pod, label):
    value = (meta_of(pod).get("labels") or {}).get(label)
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def by_group(pods):
    """group index -> {worker index: pod}."""
    out = {}
    for pod in pods:
        g, w = index_of(pod, GROUP_INDEX), index_of(pod, WORKER_INDEX)
        if g is not None and w is not None:
            out.setdefault(g, {})[w] = pod
    return out


def ready_groups(lws, pods):
    """How many groups have every one of their pods Ready."""
    size, groups = group_size(lws), by_group(pods)
    return sum(1 for g in range(group_count(lws))
               if all(w in groups.get(g, {}) and phase_of(groups[g][w]) == "Running" and
                      condition_true(groups[g][w], "Ready") for w in range(size)))


# --- the controller part -------------------------------------------------------

class LeaderWorkerSetController(Part):
    """Pods, the headless Service and the status of LeaderWorkerSets."""

    def __init__(self, runtime):
        super().__init__(runtime)
        # set uid -> fingerprint of the set and its pods when last seen to
        # need nothing; likewise for the status writer
        self._settled = {}
        self._status_seen = {}

    def forget(self, uid):
        self._settled.pop(uid, None)
        self._status_seen.pop(uid, None)

    def reconcile(self, world, now):
        for gvr, lws, pods in world.live(world.leader_worker_sets):
            uid = meta_of(lws).get("uid")
            seen = world.fingerprint(lws, pods)
            if self._settled.get(uid) == seen:
                continue
            self._ensure_service(lws)
            kept = self._remove_extra(world, lws, pods)
            kept = self._restart_groups(world, lws, kept)
            if self._create_missing(world, lws, kept) or len(kept) < len(pods):
                continue    # its pods changed: look again next step
            self._settled[uid] = seen

    def _ensure_service(self, lws):
        ns, name = key_of(lws)
        if self.store.get(SERVICES, ns, name) is not None:
            return
        try:
            self.store.create(SERVICES, ns, build_service(lws))
        except ApiError:
            pass    # made meanwhile, or refused: tried again next step

    def _remove_extra(self, world, lws, pods):
        """Deletes the pods of groups past spec.replicas and of workers
        past the size; answers the pods kept."""
        count, size = group_count(lws), group_size(lws)
        keep = []
        for pod in pods:
            g, w = index_of(pod, GROUP_INDEX), index_of(pod, WORKER_INDEX)
            if g is None or w is None or g >= count or w >= size:
                self._delete(world, lws, pod)
            else:
                keep.append(pod)
        return keep

    def _restart_groups(self, world, lws, pods):
        """A group with a pod that restarted goes whole under
        RecreateGroupOnPodRestart; otherwise a failed pod goes alone. The
        missing pods are made again after."""
        recreate = (_template_spec(lws).get("restartPolicy") or RECREATE) == RECREATE
        doomed = set()
        for g, group in by_group(pods).items():
            bad = sorted(meta_of(p).get("name") for p in group.values()
                         if (restarted(p) if recreate else phase_of(p) == "Failed"))
            if not bad:
                continue
            if recreate:
                self.event(lws, "RecreateGroupOnPodRestart", "Recreating group %d: pod %s "
                           "restarted" % (g, bad[0]), "Warning", component=COMPONENT)
                doomed.update(meta_of(p).get("name") for p in group.values())
            else:
                doomed.update(bad)
        keep = []
        for pod in pods:
            if meta_of(pod).get("name") in doomed:
                self._delete(world, lws, pod)
            else:
                keep.append(pod)
        return keep

    def _create_missing(self, world, lws, pods):
        """Makes the pods the set lacks: a group's leader, and its workers
        once the startup policy allows. True while any is missing."""
        ns = meta_of(lws).get("namespace")
        project = world.ns_project.get(ns)
        groups = by_group(pods)
        wait_ready = _spec(lws).get("startupPolicy") == "LeaderReady"
        missing = False
        for g, w, name in members(lws):
            have = groups.get(g, {})
            if w in have:
                continue
            missing = True
            if w and wait_ready and not (0 in have and condition_true(have[0], "Ready")):
                continue    # the workers wait for their leader
            if (ns, name) in world.pods:
                continue    # another owner's pod holds the name
            try:
                out = self.store.create(PODS, ns, build_pod(lws, g, w, project))
            except ApiError as e:
                self.event(lws, "FailedCreate", "Error creating: %s" % e.message, "Warning",
                           component=COMPONENT)
                continue
            world.pods[key_of(out)] = out
            groups.setdefault(g, {})[w] = out
            self.event(lws, "SuccessfulCreate", "Created pod: %s" % name,
                       component=COMPONENT)
        return missing

    def _delete(self, world, lws, pod):
        ns, name = key_of(pod)
        try:
            self.store.delete(PODS, ns, name)
        except ApiError:
            return
        world.pods.pop((ns, name), None)
        self.event(lws, "SuccessfulDelete", "Deleted pod: %s" % name, component=COMPONENT)

    # status ---------------------------------------------------------------

    def update_status(self, world, now):
        owned = world.owned()
        for gvr, lws in world.leader_worker_sets:
            ns, name = key_of(lws)
            uid = meta_of(lws).get("uid")
            current = self.store.get(gvr, ns, name)
            if current is None or meta_of(current).get("uid") != uid:
                continue    # deleted in this step
            pods = owned.get(uid, [])
            if self._status_seen.get(uid) == world.fingerprint(current, pods):
                continue
            new = self.set_state(current, pods, world, now)
            if new != current:
                new = self.write(world, gvr, new) or current
            self._status_seen[uid] = world.fingerprint(new, pods)

    @staticmethod
    def set_state(lws, pods, world, now):
        """The set as its pods say it is now (a copy; not written)."""
        new = clone(lws)
        name = meta_of(lws).get("name")
        status = new.setdefault("status", {})
        conds = status.setdefault("conditions", [])
        wanted, ready = group_count(lws), ready_groups(lws, pods)
        leaders = sum(1 for g, group in by_group(pods).items() if 0 in group and g < wanted)
        status.update(replicas=leaders, readyReplicas=ready, updatedReplicas=leaders,
                      hpaPodSelector="%s=%s,%s=0" % (SET_NAME, name, WORKER_INDEX))
        if ready >= wanted:
            set_condition(conds, "Available", "True", now, "AllGroupsReady",
                          "All replicas are ready")
            set_condition(conds, "Progressing", "False", now, "Ready",
                          "Replicas are ready")
        else:
            set_condition(conds, "Available", "False", now, "GroupsNotReady",
                          "%d of %d replicas are ready" % (ready, wanted))
            set_condition(conds, "Progressing", "True", now, "GroupsProgressing",
                          "Replicas are progressing")
        active = [p for p in pods if is_active(p)]
        requested = sum(world.gpus_of(p) for p in active) if active else number(
            annotation_of(lws, "runai-total-requested-gpus"), 0.0)
        runai_annotations(new, pods, world, False, requested)
        return new
