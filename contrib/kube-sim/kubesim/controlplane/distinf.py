"""Distributed inferences (2.24+): POST /api/v1/workloads/distributed-
inferences, and GET, PATCH and DELETE /{id}, where the release's
document has them (an older release answers 404, as for any path it does
not serve).

A distributed inference is spec.replicas groups of one leader and
spec.workers workers, each role with its own container fields
(spec.leader, spec.worker). It becomes a LeaderWorkerSet of the same
name (objects.py; lws.py runs it) and, with a serving port, a ClusterIP
Service `<name>-serving` on the leaders. PATCH's spec.replicas is the
number of groups: the set's spec.replicas follows, and its controller
adds or removes whole groups. It is deleted, never suspended.

The answers are the submit-shaped DistributedInference (views.submitted):
the spec as sent, with the document's defaults filled in (replicas 1,
workers 0, startupPolicy LeaderCreated, restartPolicy
RecreateGroupOnPodRestart)."""

from kubesim.errors import ApiError
from kubesim.objutil import LEADERWORKERSETS, SERVICES

from kubesim.controlplane import views
from kubesim.controlplane.errors import CpError
from kubesim.controlplane.objects import leader_worker_set, serving_service

KIND = "DistributedInference"
DEFAULTS = (("replicas", 1), ("workers", 0), ("startupPolicy", "LeaderCreated"),
            ("restartPolicy", "RecreateGroupOnPodRestart"))


def with_defaults(spec):
    """spec with the document's defaults where a field is absent or null."""
    out = dict(spec)
    for key, value in DEFAULTS:
        if out.get(key) is None:
            out[key] = value
    return out


def check(spec):
    """What the API refuses beyond what its schema says: a leader without
    an image, workers without a worker spec, a serving port without its
    number, both kinds of authorized callers at once."""
    for key in ("replicas", "workers"):
        value = spec[key]
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 1000:
            raise CpError(400, "spec.%s must be an integer from 0 to 1000" % key)
    leader = spec.get("leader")
    if not isinstance(leader, dict) or not leader.get("image"):
        raise CpError(400, "spec.leader.image is required")
    worker = spec.get("worker")
    if spec["workers"] > 0 and (not isinstance(worker, dict) or not worker.get("image")):
        raise CpError(400, "spec.worker.image is required when spec.workers is above 0")
    port = spec.get("servingPort")
    if isinstance(port, dict):
        if port.get("port") is None:
            raise CpError(400, "spec.servingPort.port is required")
        if port.get("authorizedUsers") and port.get("authorizedGroups"):
            raise CpError(400, "spec.servingPort.authorizedUsers and authorizedGroups "
                          "cannot be used together")


class DistributedInferences:
    """The routes' part for distributed inferences (a mixin of
    server.Routes: self.cp, self.st, self.body, create helpers)."""

    def distributed_inferences(self, rest, m):
        if not self.cp.judge.has_path(m, self.path.rstrip("/")):
            raise CpError(404, "no such endpoint: %s %s" % (m, self.path))
        if not rest and m == "POST":
            return self.create_distributed_inference()
        if len(rest) == 1 and m in ("GET", "DELETE", "PATCH"):
            wl = self.workload(rest[0], KIND)
            if m == "DELETE":
                return self.delete(wl)
            if m == "PATCH":
                return self.scale_distributed_inference(wl)
            self.st.refresh_phase(wl)
            return 200, views.submitted(wl)
        raise CpError(404, "no such endpoint: %s %s" % (m, self.path))

    def role_compliance(self, spec):
        """The policy's rules on the leader's and the workers' container
        fields, their fields named under leader. and worker."""
        roles = [("leader", spec["leader"])]
        if spec["workers"] > 0:
            roles.append(("worker", spec["worker"]))
        return [dict(issue, field="%s.%s" % (role, issue["field"]))
                for role, fields in roles for issue in self.compliance(fields)]

    def create_distributed_inference(self):
        b = self.body if isinstance(self.body, dict) else {}
        name, project = self.creation_target(b)
        spec = with_defaults(self.with_template(KIND, b.get("templateId"), b.get("spec") or {}))
        check(spec)
        issues = self.role_compliance(spec)
        if issues:
            # answered as a plain Error, as the inferences path does
            raise CpError(400, "the workload does not comply with the policy: %s" % "; ".join(
                "%s: %s" % (i["field"], i["details"]) for i in issues))
        wl = self.add_workload(KIND, name, project, spec, b.get("useGivenNameAsPrefix"))
        wl.gvr = LEADERWORKERSETS
        store = self.cp.sim.store
        try:
            made = store.create(wl.gvr, wl.namespace, leader_worker_set(wl))
            svc = serving_service(wl, made)
            if svc is not None:
                store.create(SERVICES, wl.namespace, svc)
        except ApiError as e:
            self.st.workloads.pop(wl.id, None)
            try:
                store.delete(wl.gvr, wl.namespace, wl.name)
            except ApiError:
                pass
            raise CpError(400 if e.code < 500 else 503, e.message)
        return self.cp.profile["create_status"], views.submitted(wl)

    def scale_distributed_inference(self, wl):
        """PATCH: spec.replicas (null or absent: unchanged) becomes the
        workload's and its LeaderWorkerSet's number of groups."""
        if wl.deleted_at is not None:
            raise CpError(404, "workload %s not found" % wl.id)
        given = (self.body or {}).get("spec") if isinstance(self.body, dict) else None
        replicas = given.get("replicas") if isinstance(given, dict) else None
        if replicas is not None:
            wl.spec = dict(wl.spec, replicas=replicas)
            lws = self.st.kube_object(wl)
            if lws is not None and (lws.get("spec") or {}).get("replicas") != replicas:
                lws.setdefault("spec", {})["replicas"] = replicas
                self.cp.sim.store.update(wl.gvr, wl.namespace, lws)
        self.st.refresh_phase(wl)
        return self.cp.profile["update_status"], views.submitted(wl)
