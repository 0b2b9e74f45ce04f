"""The emulated control plane's HTTP side: its own loopback port (plain
HTTP: the client allows that only to a loopback address), bearer checks,
the routes, the error envelope, the request log (control-plane-
requests.jsonl, secrets left out) and the judge around every exchange."""

import base64
import json
import os
import re
import threading
import time
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import yaml

from kubesim import prometheus
from kubesim.errors import ApiError
from kubesim.objutil import CLAIMS, SERVICES, meta_of
from kubesim.reqlog import open_private
from kubesim.store import now_rfc3339
from kubesim.workloads import name_suffix

from kubesim.controlplane import assets, clusterapi, realm, views
from kubesim.controlplane.distinf import DistributedInferences
from kubesim.controlplane.errors import CpError
from kubesim.controlplane.objects import (FRAMEWORKS, ingress, new_claims, runaijob,
                                          service, training_job)
from kubesim.controlplane.judge import Judge, query_of
from kubesim.controlplane.profiles import profile
from kubesim.controlplane.state import TENANT_ID, TYPES, State, Workload, set_suspended
from kubesim.controlplane.tokens import Identity

INGRESSES = ("networking.k8s.io", "v1", "ingresses")
MAX_BODY = 1024 * 1024
MAX_LIMIT = 500
UUID_RX = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
VIOLATIONS_FILE = "control-plane-violations.jsonl"
REQUESTS_FILE = "control-plane-requests.jsonl"
# the operators of the filter grammar, longest first
FILTER_OPS = ("==", "!=", "<=", ">=", "=@", "!@", "=^", "=$")


class ControlPlane:
    def __init__(self, sim, version, state_dir, token_ttl=3600):
        self.sim = sim
        self.profile = profile(version)
        self.state = State(sim.store, str(uuid.uuid5(uuid.NAMESPACE_URL, state_dir)))
        self.judge = Judge(version, os.path.join(state_dir, VIOLATIONS_FILE))
        # emptied for this run, and made 0600 (the state directory's files are private)
        open_private(self.judge.path, truncate=True).close()
        self.requests_path = os.path.join(state_dir, REQUESTS_FILE)
        open_private(self.requests_path, truncate=True).close()
        self.log_lock = threading.Lock()
        self.identity = None
        self.token_ttl = token_ttl
        self.down_until = 0.0
        self.metrics_down = False
        self.policy = {"compute.gpuDevicesRequest": {"max": 4}}
        # workload templates: {name, workloadType, scope ("tenant", or
        # "project:NAME"), spec}, set through /_sim/controlplane
        self.templates = []
        # more clusters of the tenant ({name}, through /_sim/controlplane):
        # listed, with no projects, nodes or workloads of their own
        self.clusters = []
        # assets (assets.py), set through /_sim/controlplane
        self.assets = []
        # a faulty list: the project list's next names the page just given
        self.stuck_paging = False
        self.url = None
        # a request that breaks the document is refused (400), as a real
        # server does; False: only recorded (a test that needs it)
        self.validate = True
        # a server that ignores filterBy (a test of what runai trusts)
        self.ignore_filter = False
        # lists that never end: "repeat" (offset ignored, always more),
        # "stuck" (next stays at 1); None: as documented
        self.paging = None
        # a create answer's name: "absent", "null"; None: the name
        self.create_name = None

    def start(self, host, port=0):
        self.server = ThreadingHTTPServer((host, port), Handler)
        self.server.daemon_threads = True
        self.server.cp = self
        shown = "[%s]" % host if ":" in host else host
        self.url = "http://%s:%d" % (shown, self.server.server_address[1])
        self.identity = Identity(self.sim.state_dir, self.url + "/auth/realms/runai",
                                 self.token_ttl)
        threading.Thread(target=self.server.serve_forever, name="control-plane",
                         daemon=True).start()
        return self.url

    def stop(self):
        """Stops serving; a request still in a handler thread (the
        cluster API logs after it answers) writes nothing more to the
        state directory, which the caller may be about to remove."""
        self.server.shutdown()
        self.server.server_close()
        with self.log_lock:
            self.requests_path = None
        self.judge.close()

    def template_view(self, t):
        """A template as the list gives it (SupersetTemplate)."""
        meta = {"id": t["id"], "name": t["name"], "workloadType": t["workloadType"],
                "createdBy": "admin@run.ai", "createdAt": t["createdAt"]}
        scope = t.get("scope") or "tenant"
        if scope.startswith("project:"):
            project = next((p for p in self.state.projects()
                            if p["name"] == scope.split(":", 1)[1]), None)
            pid = project["id"] if project else "0"
            meta.update(scopeType="project", scopeId=pid, projectId=int(pid),
                        clusterId=self.state.cluster_id)
        else:
            meta.update(scopeType="tenant", scopeId=str(TENANT_ID))
        return {"meta": meta, "spec": t.get("spec") or {}}

    def log(self, entry):
        with self.log_lock:
            if self.requests_path is None:
                return
            with open(self.requests_path, "a") as f:
                f.write(json.dumps(entry, separators=(",", ":")) + "\n")

    # ---- the /_sim/controlplane settings (on the Kubernetes port) ----

    def settings(self, body):
        body = body or {}
        if "tokenTtl" in body:
            self.identity.ttl = self.token_ttl = int(body["tokenTtl"])
        if "policy" in body:
            self.policy = dict(body["policy"])
        if "metricsDown" in body:
            self.metrics_down = bool(body["metricsDown"])
        if "templates" in body:
            self.templates = [dict(t, id=str(uuid.uuid4()), createdAt=now_rfc3339())
                              for t in body["templates"]]
        if "clusters" in body:
            self.clusters = [{"id": str(uuid.uuid5(uuid.NAMESPACE_URL, "%s/%d/%s" % (
                self.url, i, c["name"]))), "name": c["name"]}
                for i, c in enumerate(body["clusters"])]
        if "assets" in body:
            self.assets = assets.plant(self.state, body["assets"])
        if "stuckPaging" in body:
            self.stuck_paging = bool(body["stuckPaging"])
        if "downSeconds" in body:
            self.down_until = time.monotonic() + float(body["downSeconds"])
        if "validate" in body:
            self.validate = bool(body["validate"])
        if "ignoreFilterBy" in body:
            self.ignore_filter = bool(body["ignoreFilterBy"])
        if "opaqueTokens" in body:
            self.identity.opaque = bool(body["opaqueTokens"])
        if "expiresIn" in body:
            self.profile["expires_in"] = bool(body["expiresIn"])
        if "paging" in body:
            self.paging = body["paging"] if body["paging"] in ("repeat", "stuck") else None
        if "createName" in body:
            self.create_name = body["createName"] if body["createName"] in (
                "absent", "null") else None
        if "bulkWorkloads" in body:
            self.bulk_workloads(body["bulkWorkloads"])
        return {"tokenTtl": self.token_ttl, "policy": self.policy,
                "metricsDown": self.metrics_down, "assets": len(self.assets),
                "version": self.profile["version"], "violations": self.judge.count,
                "validate": self.validate, "ignoreFilterBy": self.ignore_filter,
                "opaqueTokens": self.identity.opaque,
                "expiresIn": self.profile["expires_in"], "paging": self.paging,
                "createName": self.create_name}

    def bulk_workloads(self, b):
        """{count, project, prefix, start}: that many training workloads
        of the project at once, in the control plane's records only (no
        cluster objects: they stay Creating), for bench/cp-list.sh: a
        submit each would take minutes for 10,000."""
        name = b.get("project", "team-a")
        project = next((p for p in self.state.projects() if p["name"] == name), None)
        if project is None:
            raise ApiError(400, "BadRequest", "no project %s" % name)
        prefix, start = b.get("prefix", "bulk-"), int(b.get("start", 0))
        with self.state.lock:
            for i in range(start, start + int(b.get("count", 1))):
                wl = Workload("Training", "%s%d" % (prefix, i), project,
                              self.state.cluster_id, "bench@run.ai", {"image": "python"})
                self.state.workloads[wl.id] = wl


def _number(x):
    """A telemetry value's text: whole numbers (bytes) exact, else to
    the thousandth."""
    x = round(x, 3)
    return "%d" % x if x == int(x) else "%.15g" % x


def _whole(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _split_filters(raw):
    out = []
    for item in [x for x in raw.split(",") if x]:
        for op in FILTER_OPS:
            i = item.find(op)
            if i > 0:
                out.append((item[:i], op, item[i + len(op):]))
                break
        else:
            raise CpError(400, "invalid filter %r" % item)
    return out


def _matches(value, op, want):
    value = "" if value is None else str(value)
    return {"==": value == want, "!=": value != want, "<=": value <= want,
            ">=": value >= want, "=@": want in value, "!@": want not in value,
            "=^": value.startswith(want), "=$": value.endswith(want)}[op]


def _page(items, query):
    """offset/limit paging; next is the following offset while more remain."""
    try:
        offset = int(query.get("offset", ["0"])[0])
        limit = int(query.get("limit", ["50"])[0])
    except ValueError:
        raise CpError(400, "offset and limit are integers")
    if offset < 0 or limit < 1 or limit > MAX_LIMIT:
        raise CpError(400, "limit must be 1..%d and offset not negative" % MAX_LIMIT)
    page = items[offset:offset + limit]
    nxt = offset + limit if offset + limit < len(items) else None
    return page, nxt


def _filtered(items, query, field=dict.get):
    """filterBy, search and sortBy on items; field(item, name) is the
    item's value of a field (an item is the entry itself by default)."""
    for name, op, want in _split_filters(",".join(query.get("filterBy", []))):
        items = [x for x in items if _matches(field(x, name), op, want)]
    search = query.get("search", [""])[0]
    if search:
        items = [x for x in items if search.lower() in (field(x, "name") or "").lower()]
    sort_by = query.get("sortBy", [""])[0]
    if sort_by:
        desc = query.get("sortOrder", ["asc"])[0] == "desc"
        items = sorted(items, key=lambda x: str(field(x, sort_by) or ""), reverse=desc)
    return items


def _on_stored_fields(query):
    """Whether the query filters and sorts on views.STORED_FIELDS alone."""
    names = [f for f, _, _ in _split_filters(",".join(query.get("filterBy", [])))]
    names.append(query.get("sortBy", [""])[0] or "name")
    return all(n in views.STORED_FIELDS for n in names)


def served_query(cp, query):
    """The query the routes act on: without filterBy where the control
    plane is set to ignore it, without offset where its lists repeat
    (the judge saw the query as sent)."""
    dropped = (("filterBy",) if cp.ignore_filter else ()) + \
        (("offset",) if cp.paging == "repeat" else ())
    return {k: v for k, v in query.items() if k not in dropped}


def served_answer(cp, method, query, status, answer):
    """An answer as the settings bend it: a list's next that never ends
    it (paging), a create answer without its name (createName)."""
    if not isinstance(answer, dict) or status >= 300:
        return answer
    if cp.paging and method == "GET" and any(
            isinstance(answer.get(k), list) and answer[k] for k in
            ("projects", "workloads", "pods", "events")):
        try:
            offset = int(query.get("offset", ["0"])[0])
            limit = int(query.get("limit", ["50"])[0])
        except ValueError:
            return answer
        answer["next"] = offset + limit if cp.paging == "repeat" else 1
    if cp.create_name and method == "POST" and "workloadId" in answer:
        if cp.create_name == "null":
            answer["name"] = None
        else:
            answer.pop("name", None)
    return answer


class Routes(DistributedInferences):
    """One request's work; raises CpError for an error answer."""

    def __init__(self, cp, method, path, query, body, claims):
        self.cp, self.st = cp, cp.state
        self.method, self.path, self.query, self.body = method, path, query, body
        self.claims = claims

    def dispatch(self):
        if self.path.startswith("/v1/k8s/"):
            return self.k8s_dispatch()
        if self.path.startswith("/api/v2/"):
            return self.v2_dispatch()
        p = self.path.rstrip("/").split("/")[3:]   # after /api/v1
        m = self.method
        if p[:1] == ["asset"] and len(p) == 2 and p[1] in assets.GROUPS and m == "GET":
            return 200, assets.listing(self.st, self.cp.assets, p[1], self.query)
        if p == ["node-pools"] and m == "GET" and views.since(self.cp.profile, "2.19"):
            return self.node_pools()
        if p == ["clusters"] and m == "GET":
            return 200, [views.cluster(self.st, self.cp.profile, self.cp.url)] + \
                [views.other_cluster(self.st, self.cp.profile, c) for c in self.cp.clusters]
        if p == ["org-unit", "projects"] and m == "GET":
            return self.projects()
        if len(p) == 3 and p[0] == "clusters" and p[2] == "nodes" and m == "GET":
            return self.nodes(p[1])
        if p == ["nodes"] and m == "GET" and self.cp.profile["tenant_nodes"]:
            return self.nodes(self.st.cluster_id)
        if p == ["nodes", "telemetry"] and m == "GET":
            return self.node_telemetry()
        if p == ["workload-templates"] and m == "GET" and views.since(self.cp.profile, "2.23"):
            return self.templates()
        if p == ["workloads"] and m == "GET":
            return self.workloads()
        if p == ["workloads", "pods"] and m == "GET":
            return self.all_pods()
        if p[:2] == ["workloads", "inferences"]:
            return self.inferences(p[2:], m)
        if p[:2] == ["workloads", "distributed-inferences"]:
            return self.distributed_inferences(p[2:], m)
        if p[:1] == ["workloads"] and len(p) == 2 and p[1] in TYPES and m == "POST":
            return self.create(TYPES[p[1]])
        if p[:1] == ["workloads"] and len(p) == 2 and m == "GET":
            return 200, views.workload(self.st, self.cp.profile, self.workload(p[1]), detailed=True)
        if len(p) == 3 and p[0] == "nodes" and p[2] == "metrics" and m == "GET" and \
                views.since(self.cp.profile, "2.21"):
            return self.node_metrics(p[1])
        if p[:1] == ["workloads"] and len(p) == 3 and p[2] == "metrics" and m == "GET":
            return self.workload_metrics(p[1])
        if p[:1] == ["workloads"] and len(p) == 3 and p[2] in ("events", "pods") and m == "GET":
            return self.events(p[1]) if p[2] == "events" else self.pods(p[1])
        if p[:1] == ["workloads"] and len(p) == 3 and p[1] in TYPES:
            wl = self.workload(p[2], TYPES[p[1]])
            if m == "GET":
                self.st.refresh_phase(wl)
                return 200, views.submitted(wl)
            if m == "DELETE":
                return self.delete(wl)
        if p[:1] == ["workloads"] and len(p) == 4 and p[1] in TYPES and m == "POST" \
                and p[3] in ("suspend", "resume"):
            return self.suspend(self.workload(p[2], TYPES[p[1]]), p[3] == "suspend")
        raise CpError(404, "no such endpoint: %s %s" % (m, self.path))

    # ---- inference workloads ----

    def inferences(self, rest, m):
        """POST /workloads/inferences, GET, PATCH (2.21+) and DELETE
        /{id}: where the release's document has them; a release without
        them answers 404 as for any path it does not serve. Inferences
        are not suspended."""
        if not self.cp.judge.has_path(m, self.path.rstrip("/")):
            raise CpError(404, "no such endpoint: %s %s" % (m, self.path))
        if not rest and m == "POST":
            return self.create("Inference")
        if len(rest) == 1 and m in ("GET", "DELETE", "PATCH"):
            wl = self.workload(rest[0], "Inference")
            if m == "DELETE":
                return self.delete(wl)
            if m == "PATCH":
                return self.update_inference(wl)
            self.st.refresh_phase(wl)
            return 200, views.submitted(wl)
        raise CpError(404, "no such endpoint: %s %s" % (m, self.path))

    def update_inference(self, wl):
        """PATCH /workloads/inferences/{id}: each field of the body's spec
        replaces the workload's whole (the document's InferenceUpdateSpec;
        the judge has checked the names and types), judged as a create's
        spec is. The cluster object takes the new pod template and
        replica count; the pods running keep theirs (the emulator has no
        Knative to roll a new revision out)."""
        if wl.deleted_at is not None:
            raise CpError(404, "workload %s not found" % wl.id)
        given = (self.body or {}).get("spec") if isinstance(self.body, dict) else None
        if not isinstance(given, dict):
            raise CpError(400, "spec is required")
        spec = dict(wl.spec)
        for key, value in given.items():
            if value is None:
                spec.pop(key, None)
            else:
                spec[key] = value
        self.check_inference(spec)
        issues = self.compliance(spec)
        if issues:
            raise CpError(400, "the workload does not comply with the policy: %s" % "; ".join(
                "%s: %s" % (i["field"], i["details"]) for i in issues))
        if not spec.get("image"):
            raise CpError(400, "spec.image is required")
        wl.spec = spec
        job = self.st.kube_object(wl)
        if job is not None:
            fresh = runaijob(wl)
            job["spec"]["template"] = fresh["spec"]["template"]
            job["spec"]["parallelism"] = fresh["spec"]["parallelism"]
            job["spec"]["completions"] = fresh["spec"]["completions"]
            self.cp.sim.store.update(wl.gvr, wl.namespace, job)
        return self.cp.profile["update_status"], views.submitted(wl)

    # ---- manifests (Workloads V2, 2.24+) ----

    def v2_dispatch(self):
        """POST /api/v2/workloads, GET and DELETE /{id}: a Kubernetes
        manifest as a workload, where the release's document has them."""
        m, path = self.method, self.path.rstrip("/")
        p = path.split("/")[3:]     # after /api/v2
        if not self.cp.judge.has_path(m, path):
            raise CpError(404, "no such endpoint: %s %s" % (m, self.path))
        if p == ["workloads"] and m == "POST":
            return self.create_manifest()
        if len(p) == 2 and p[0] == "workloads" and m in ("GET", "DELETE"):
            wl = self.workload(p[1])
            if getattr(wl, "manifest", None) is None:
                raise CpError(404, "workload %s not found" % wl.id)
            if m == "DELETE":
                self.delete(wl)
                return 202, views.manifest_workload(self.st, wl, "Deleted")
            return 200, views.manifest_workload(self.st, wl)
        raise CpError(404, "no such endpoint: %s %s" % (m, self.path))

    def _manifest_of(self, b):
        manifest = b.get("manifest")
        if manifest is None and isinstance(b.get("manifestBase64Encoded"), str):
            try:
                manifest = yaml.safe_load(base64.b64decode(b["manifestBase64Encoded"]))
            except (ValueError, yaml.YAMLError) as e:
                raise CpError(400, "manifestBase64Encoded: %s" % str(e).splitlines()[0])
        if not isinstance(manifest, dict):
            raise CpError(400, "manifest or manifestBase64Encoded is required")
        return manifest

    def create_manifest(self):
        """The manifest's object made in the project's namespace, named as
        the metadata says, labelled with the project's queue; the workload
        is listed with the manifest's kind as its type."""
        b = self.body if isinstance(self.body, dict) else {}
        meta = b.get("metadata") if isinstance(b.get("metadata"), dict) else {}
        name, pid = meta.get("name"), str(meta.get("projectId") or "")
        if not isinstance(name, str) or not re.match(r"^[a-z]([-a-z0-9]*[a-z0-9])?$", name):
            raise CpError(400, "metadata.name must be a DNS label starting with a letter")
        if meta.get("clusterId") != self.st.cluster_id:
            raise CpError(400, "cluster %s not found" % meta.get("clusterId"))
        project = self.st.project_by_id(pid)
        if project is None:
            raise CpError(400, "project %s not found" % pid)
        manifest = self._manifest_of(b)
        res = self.cp.sim.store.registry.by_kind(str(manifest.get("apiVersion") or ""),
                                                 str(manifest.get("kind") or ""))
        if res is None or not res.namespaced:
            raise CpError(400, "the cluster has no namespaced kind %s in %s" % (
                manifest.get("kind"), manifest.get("apiVersion")))
        if meta.get("useGivenNameAsPrefix"):
            name = "%s-%s" % (name, name_suffix())
        wl = Workload(res.kind, name, project, self.st.cluster_id, self._user(), {})
        wl.gvr, wl.manifest = res.gvr, manifest
        wl.v2_meta = {k: meta[k] for k in ("priority", "category", "preemptibility")
                      if meta.get(k) is not None}
        try:
            self.st.add(wl)
        except ApiError as e:
            raise CpError(409, e.message)
        obj = json.loads(json.dumps(manifest))
        obj_meta = obj.setdefault("metadata", {})
        obj_meta.pop("generateName", None)
        obj_meta.update(name=name, namespace=wl.namespace)
        labels = obj_meta.setdefault("labels", {})
        labels.update({"runai/queue": project["name"], "runai/workload-id": wl.id})
        if wl.v2_meta.get("priority"):
            labels["priorityClassName"] = wl.v2_meta["priority"]
        try:
            self.cp.sim.store.create(wl.gvr, wl.namespace, obj)
        except ApiError as e:
            self.st.workloads.pop(wl.id, None)
            raise CpError(400 if e.code < 500 else 503, e.message)
        return 202, views.manifest_workload(self.st, wl)

    @staticmethod
    def check_inference(spec):
        """What the API refuses in an inference's serving port and
        autoscaling, beyond what its schema says."""
        port = spec.get("servingPort")
        if port is not None and not _whole(port.get("container") if isinstance(port, dict)
                                           else None):
            raise CpError(400, "spec.servingPort.container is required")
        auto = spec.get("autoscaling") or {}
        if not isinstance(auto, dict):
            raise CpError(400, "spec.autoscaling must be an object")
        for key in ("minReplicas", "maxReplicas", "metricThreshold",
                    "scaleToZeroRetentionSeconds"):
            if auto.get(key) is not None and not _whole(auto[key]):
                raise CpError(400, "spec.autoscaling.%s must be an integer" % key)
        low = 1 if auto.get("minReplicas") is None else auto["minReplicas"]
        high = auto["maxReplicas"] if auto.get("maxReplicas") is not None else max(low, 1)
        if high < low:
            raise CpError(400, "spec.autoscaling.maxReplicas must not be below minReplicas")
        # 0..1 scales on network activity alone, with no metric
        if low < high and (low, high) != (0, 1) and not auto.get("metric"):
            raise CpError(400, "spec.autoscaling.metric is required when minReplicas is "
                          "below maxReplicas")
        if auto.get("metric") and auto.get("metricThreshold") is None:
            raise CpError(400, "spec.autoscaling.metricThreshold is required with a metric")
        if auto.get("scaleToZeroRetentionSeconds") is not None and low != 0:
            raise CpError(400, "spec.autoscaling.scaleToZeroRetentionSeconds needs "
                          "minReplicas 0")

    def k8s_dispatch(self):
        """The older /v1/k8s paths: a cluster's node pools (2.18 lists
        them here only)."""
        p = self.path.rstrip("/").split("/")[3:]   # after /v1/k8s
        if len(p) == 3 and p[0] == "clusters" and p[2] == "node-pools" and \
                self.method == "GET":
            if any(c["id"] == p[1] for c in self.cp.clusters):
                return 200, []
            if p[1] != self.st.cluster_id:
                raise CpError(404, "cluster %s not found" % p[1])
            return 200, [views.node_pool(self.st, x, legacy=True)
                         for x in self.st.node_pools()]
        raise CpError(404, "no such endpoint: %s %s" % (self.method, self.path))

    def node_pools(self):
        """The tenant's node pools (this cluster's; the others have none
        emulated), filtered, paged by offset/limit: the answer has no
        next, so a page shorter than the limit is the last."""
        items = [views.node_pool(self.st, x) for x in self.st.node_pools()]
        page, _ = _page(_filtered(items, self.query), self.query)
        return 200, {"nodepools": page}

    def workload(self, wid, kind=None):
        self.st.forget_deleted()
        wl = self.st.get(wid) if UUID_RX.match(wid) else None
        if wl is None or (kind and wl.type != kind) or wl.phase == "Deleted":
            raise CpError(404, "workload %s not found" % wid)
        return wl

    def templates(self):
        """The workload templates (2.23+), filtered by meta's fields;
        paged by offset/limit with pagination.nextOffset."""
        items = [self.cp.template_view(t) for t in self.cp.templates]
        flat = [dict(t["meta"], _t=t) for t in items]
        page, nxt = _page(_filtered(flat, self.query), self.query)
        pagination = {"offset": int(self.query.get("offset", ["0"])[0]),
                      "limit": int(self.query.get("limit", ["50"])[0])}
        if nxt:
            pagination["nextOffset"] = nxt
        return 200, {"entries": [x["_t"] for x in page], "pagination": pagination}

    def projects(self):
        items = [views.project(self.st, self.cp.profile, p) for p in self.st.projects()]
        page, nxt = _page(_filtered(items, self.query), self.query)
        if nxt and self.cp.stuck_paging:
            nxt = int(self.query.get("offset", ["0"])[0])  # no progress
        return 200, dict({"projects": page}, **({"next": nxt} if nxt else {}))

    def nodes(self, cluster_id):
        if any(c["id"] == cluster_id for c in self.cp.clusters):
            return 200, {"nodes": []}   # another cluster's: none emulated
        if cluster_id != self.st.cluster_id:
            raise CpError(404, "cluster %s not found" % cluster_id)
        pool_of = {n: p["name"] for p in self.st.node_pools() for n in p["nodes"]}
        items = [views.node(self.st, self.cp.profile, n, pool_of.get(meta_of(n)["name"]))
                 for n in self.st.nodes()]
        return 200, {"nodes": _filtered(items, self.query)}

    def node_telemetry(self):
        """One telemetry type, per node (groupBy=Node) or the cluster's
        sum; numbers as strings, as the document has them."""
        kind = self.query.get("telemetryType", [""])[0]
        if kind not in self.cp.profile["node_telemetry"]:
            raise CpError(400, "telemetryType %r is not supported" % kind)
        cluster = self.query.get("clusterId", [self.st.cluster_id])[0]
        usage = self.st.node_usage() if cluster == self.st.cluster_id else {}
        groups = ",".join(self.query.get("groupBy", [])).split(",")
        if "Node" in groups:
            values = [{"value": _number(u[kind]), "groups": [{"key": "Node", "value": name}]}
                      for name, u in sorted(usage.items())]
        else:
            values = [{"value": _number(sum(u[kind] for u in usage.values()))}]
        return 200, {"type": kind, "timestamp": now_rfc3339(), "values": values}

    # ---- metrics: the emulator's Prometheus numbers, the latest sample ----

    def _metrics(self, pick):
        """measurements for the metricType list; pick(type) gives
        [(labels or None, value)] (none: the type has no data here)."""
        if "start" not in self.query or "end" not in self.query:
            raise CpError(400, "start and end are required")
        if self.cp.metrics_down:
            raise CpError(503, "the metrics service is not available")
        out, now = [], now_rfc3339()
        for kind in ",".join(self.query.get("metricType", [])).split(","):
            if not kind:
                continue
            series = pick(kind)
            if not series:
                out.append({"type": kind, "values": []})
            for labels, value in series:
                out.append({"type": kind, "labels": labels,
                            "values": [{"value": _number(value), "timestamp": now}]})
        return 200, {"measurements": out}

    def _prom(self, metric, **match):
        try:
            found = prometheus.samples(self.cp.sim, metric)
        except ValueError:
            return []
        return [(lb, v) for lb, v in found if all(lb.get(k) == w for k, w in match.items())]

    NODE_METRICS = {"CPU_UTILIZATION": "runai_node_cpu_utilization",
                    "CPU_MEMORY_USAGE_BYTES": "runai_node_memory_used_bytes",
                    "GPU_UTILIZATION_PER_GPU": "runai_node_gpu_utilization",
                    "GPU_MEMORY_USAGE_BYTES_PER_GPU": "runai_node_gpu_used_memory"}

    def node_metrics(self, nid):
        node = next((n for n in self.st.nodes() if meta_of(n).get("uid") == nid), None)
        if node is None:
            raise CpError(404, "node %s not found" % nid)
        name = meta_of(node)["name"]

        def pick(kind):
            metric = self.NODE_METRICS.get(kind)
            if metric is None:
                return []
            per_gpu = kind.endswith("_PER_GPU")
            return [({"gpu": lb["gpu"]} if per_gpu else None, v)
                    for lb, v in self._prom(metric, node=name) if per_gpu == ("gpu" in lb)]
        return self._metrics(pick)

    WORKLOAD_METRICS = {
        "GPU_UTILIZATION": "runai_pod_group_gpu_utilization",
        "GPU_MEMORY_REQUEST_BYTES": "runai_pod_group_gpu_memory_allocated_bytes",
        "GPU_MEMORY_USAGE_BYTES": "runai_pod_group_gpu_memory_used_bytes",
        "CPU_REQUEST_CORES": "runai_active_job_cpu_requested_cores",
        "CPU_USAGE_CORES": "runai_pod_group_cpu_usage_cores",
        "CPU_MEMORY_REQUEST_BYTES": "runai_active_job_memory_requested_bytes",
        "CPU_MEMORY_USAGE_BYTES": "runai_pod_group_memory_used_bytes"}

    def workload_metrics(self, wid):
        wl = self.workload(wid)
        job = self.st.kube_object(wl)
        uid = meta_of(job).get("uid") if job else None

        def pick(kind):
            metric = self.WORKLOAD_METRICS.get(kind)
            if metric is None or uid is None:
                return []
            return [(None, v) for _, v in self._prom(metric, pod_group_uuid=uid)]
        return self._metrics(pick)

    def workloads(self):
        self.st.forget_deleted()
        deleted = self.query.get("deleted", ["false"])[0] == "true"
        listed = [wl for wl in self.st.all() if (wl.phase == "Deleted") == deleted]
        with self.st.pods_read_once():
            page, nxt = self._stored_page(listed) if _on_stored_fields(self.query) \
                else self._full_page(listed)
        return 200, dict({"workloads": page}, **({"next": nxt} if nxt else {}))

    def _full_page(self, listed):
        """The page, filtered and sorted on the full entries of all."""
        items = [views.workload(self.st, self.cp.profile, wl) for wl in listed]
        items.sort(key=lambda w: w["createdAt"])
        return _page(_filtered(items, self.query), self.query)

    def _stored_page(self, listed):
        """The page as the full entries would give it, filtered and sorted
        on the workloads' own fields, with entries built for the page
        alone: 10,000 workloads in pages of 500 cost 500 entries a page,
        not 10,000."""
        rows = [(views.stored(self.st, wl), wl) for wl in listed]
        rows.sort(key=lambda r: r[0]["createdAt"])
        rows = _filtered(rows, self.query, field=lambda r, name: r[0].get(name))
        page, nxt = _page(rows, self.query)
        return [views.workload(self.st, self.cp.profile, wl) for _, wl in page], nxt

    def events(self, wid):
        wl = self.workload(wid)
        items = [views.event(self.st, e) for e in self.st.events(wl)]
        items.sort(key=lambda e: e["createdAt"] or "",
                   reverse=self.query.get("sortOrder", ["desc"])[0] == "desc")
        page, nxt = _page(items, self.query)
        return 200, dict({"events": page}, **({"next": nxt} if nxt else {}))

    def pods(self, wid):
        wl = self.workload(wid)
        page, nxt = _page([views.pod(self.st, self.cp.profile, wl, p) for p in self.st.pods(wl)], self.query)
        return 200, dict({"pods": page}, **({"next": nxt} if nxt else {}))

    def all_pods(self):
        """The pods of every workload submitted here (filterBy on the
        Pod1 fields, e.g. workloadId==, nodeName==)."""
        self.st.forget_deleted()
        items = [views.pod(self.st, self.cp.profile, wl, p) for wl in self.st.all()
                 if wl.phase != "Deleted" for p in self.st.pods(wl)]
        page, nxt = _page(_filtered(items, self.query), self.query)
        return 200, dict({"pods": page}, **({"next": nxt} if nxt else {}))

    # ---- changes ----

    def _user(self):
        return self.claims.get("email") or self.claims.get("preferred_username") or \
            self.claims.get("sub")

    def creation_target(self, b):
        """The name and project of a create request's body (b), checked."""
        name, pid = b.get("name"), str(b.get("projectId") or "")
        if not isinstance(name, str) or not re.match(r"^[a-z]([-a-z0-9]*[a-z0-9])?$", name):
            raise CpError(400, "name must be a DNS label starting with a letter")
        if b.get("clusterId") != self.st.cluster_id:
            raise CpError(400, "cluster %s not found" % b.get("clusterId"))
        project = self.st.project_by_id(pid)
        if project is None:
            raise CpError(400, "project %s not found" % pid)
        return name, project

    def add_workload(self, kind, name, project, spec, as_prefix):
        """The workload recorded (its name made from name where
        as_prefix); 400 where the project has one of that name."""
        requested = name
        if as_prefix:
            name = "%s-%s" % (name, name_suffix())
        wl = Workload(kind, name, project, self.st.cluster_id, self._user(), spec)
        wl.requested_name = requested
        try:
            self.st.add(wl)
        except ApiError as e:
            raise CpError(400, e.message)
        return wl

    def create(self, kind):
        b = self.body if isinstance(self.body, dict) else {}
        name, project = self.creation_target(b)
        spec = self.with_template(kind, b.get("templateId"), b.get("spec") or {})
        if kind == "Distributed" and spec.get("distributedFramework") not in FRAMEWORKS:
            raise CpError(400, "spec.distributedFramework must be one of %s"
                          % ", ".join(sorted(FRAMEWORKS)))
        if kind == "Inference":
            self.check_inference(spec)
        issues = self.compliance(spec)
        if issues and kind == "Inference":
            # the inferences path answers a 400 as a plain Error: the
            # issues go into its message
            raise CpError(400, "the workload does not comply with the policy: %s" % "; ".join(
                "%s: %s" % (i["field"], i["details"]) for i in issues))
        if issues:
            raise CpError(400, "the workload does not comply with the policy",
                          {"complianceIssues": issues})
        if not spec.get("image"):
            raise CpError(400, "spec.image is required")
        wl = self.add_workload(kind, name, project, spec, b.get("useGivenNameAsPrefix"))
        try:
            for claim in new_claims(wl):
                if self.cp.sim.store.get(CLAIMS, wl.namespace,
                                         claim["metadata"]["name"]) is None:
                    self.cp.sim.store.create(CLAIMS, wl.namespace, claim)
            for gvr, obj in ((SERVICES, service(wl)), (INGRESSES, ingress(wl))):
                if obj is not None:
                    self.cp.sim.store.create(gvr, wl.namespace, obj)
            if kind == "Distributed":
                wl.gvr, obj = training_job(wl, b)
                wl.master_spec = spec if b.get("masterSpecSameAsWorker") else \
                    b.get("masterSpec")
            else:
                obj = runaijob(wl)
            self.cp.sim.store.create(wl.gvr, wl.namespace, obj)
        except ApiError as e:
            self.st.workloads.pop(wl.id, None)
            raise CpError(400 if e.code < 500 else 503, e.message)
        return self.cp.profile["create_status"], views.submitted(wl)

    def with_template(self, kind, tid, spec):
        """spec over the template's (2.23+): the request's fields win, and
        within compute those it gives."""
        if tid is None:
            return spec
        t = next((t for t in self.cp.templates if t["id"] == tid), None)
        if t is None:
            raise CpError(400, "template %s not found" % tid)
        if t["workloadType"] != kind:
            raise CpError(400, "template %s is for a %s, not a %s"
                          % (t["name"], t["workloadType"], kind))
        out = dict(t.get("spec") or {}, **spec)
        if "compute" in spec and "compute" in (t.get("spec") or {}):
            out["compute"] = dict(t["spec"]["compute"], **spec["compute"])
        return out

    def compliance(self, spec):
        """The policy's rules (field → {max|min}) as complianceIssues."""
        out = []
        for field, rule in sorted(self.cp.policy.items()):
            node = spec
            for part in field.split("."):
                node = node.get(part) if isinstance(node, dict) else None
            if not isinstance(node, (int, float)):
                continue
            if "max" in rule and node > rule["max"]:
                out.append(self._issue(field, "max", "value must be no greater than %s"
                                       % rule["max"]))
            if "min" in rule and node < rule["min"]:
                out.append(self._issue(field, "min", "value must be no less than %s"
                                       % rule["min"]))
        return out

    def _issue(self, field, rule, details):
        issue = {"field": field, "details": details}
        if views.since(self.cp.profile, "2.23"):
            issue["rule"] = rule  # SubmissionErrorV2
        return issue

    def delete(self, wl):
        wl.desired, wl.deleted_at = "Deleted", now_rfc3339()
        try:
            self.cp.sim.store.delete(wl.gvr, wl.namespace, wl.name)
        except ApiError:
            pass  # gone from the cluster already
        for gvr in (SERVICES, INGRESSES):
            obj = self.cp.sim.store.get(gvr, wl.namespace, wl.name)
            if obj is not None and (meta_of(obj).get("labels") or {}).get(
                    "runai/workload-id") == wl.id:
                try:
                    self.cp.sim.store.delete(gvr, wl.namespace, wl.name)
                except ApiError:
                    pass
        if self.cp.profile["delete_status"] == 204:
            return 204, None
        return 202, {"code": 202, "message": "Request has been accepted."}

    def suspend(self, wl, stop):
        if wl.deleted_at is not None:
            raise CpError(404, "workload %s not found" % wl.id)
        wl.desired = "Stopped" if stop else "Running"
        job = self.st.kube_object(wl)
        if job is not None:
            set_suspended(job, stop)
            self.cp.sim.store.update(wl.gvr, wl.namespace, job)
        return 202, {"code": 202, "message": "Request has been accepted."}


def _judged(path):
    """The API's paths, which the documents describe: /api/..., and the
    older /v1/k8s/... ones."""
    return path.startswith(("/api/", "/v1/k8s/"))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "kube-sim-control-plane"

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.handle_api()

    do_POST = do_DELETE = do_PUT = do_PATCH = do_GET

    def _body(self):
        n = int(self.headers.get("Content-Length") or 0)
        if n > MAX_BODY:
            raise CpError(413, "request body too large")
        raw = self.rfile.read(n) if n else b""
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            raise CpError(400, "the body is not JSON")

    def handle_api(self):
        cp = self.server.cp
        url = urllib.parse.urlsplit(self.path)
        path, query = url.path, query_of(url.query)
        if time.monotonic() < cp.down_until:
            self.close_connection = True
            self.connection.close()  # as a control plane that is not there
            return
        if realm.is_realm_path(path):
            self.handle_realm(cp, path, query)
            return
        entry = {"method": self.command, "path": path, "query": url.query}
        if clusterapi.handles(path):
            try:
                self.bearer(cp)
                entry["status"] = clusterapi.answer(self, cp, path)
            except CpError as e:
                self.send_text(e.code, e.message)
                entry["status"] = e.code
            cp.log(entry)
            return
        try:
            body = self._body()
        except CpError as e:
            body = None
            status, answer = e.code, dict({"code": e.code, "message": e.message}, **e.extra)
        else:
            violations = cp.judge.check_request(self.command, path, query, body) \
                if _judged(path) else []
            if violations and cp.validate:
                status, answer = cp.judge.refusal(self.command, path, violations)
            else:
                status, answer = self.answer(cp, path, served_query(cp, query), body,
                                             entry)
                answer = served_answer(cp, self.command, query, status, answer)
        if _judged(path):
            cp.judge.check_response(self.command, path, status, answer)
        entry["status"] = status
        cp.log(entry)
        self.send(status, answer)

    def handle_realm(self, cp, path, query):
        """The identity provider's pages (realm.py); logged without the
        query or form, which carry codes and passwords."""
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(min(n, realm.MAX_FORM + 1)) if n else b""
        status, ctype, text, headers = realm.handle(cp, self.command, path, query, raw)
        cp.log({"method": self.command, "path": path, "status": status})
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def answer(self, cp, path, query, body, entry):
        try:
            if path == "/api/v1/token" and self.command == "POST":
                return self.token(cp, body, entry)
            if not path.startswith(("/api/v1/", "/api/v2/", "/v1/k8s/")):
                raise CpError(404, "not found")
            claims = self.bearer(cp)
            entry["user"] = claims.get("sub")
            return Routes(cp, self.command, path, query, body, claims).dispatch()
        except CpError as e:
            return e.code, dict({"code": e.code, "message": e.message}, **e.extra)

    def bearer(self, cp):
        auth = self.headers.get("Authorization") or ""
        claims = cp.identity.verify(auth[7:]) if auth.startswith("Bearer ") else None
        if claims is None:
            raise CpError(401, "Issuer is not familiar." if auth else "missing bearer token")
        return claims

    def token(self, cp, body, entry):
        body = body if isinstance(body, dict) else {}
        grant = next((v for k, v in body.items() if k.lower() == "granttype"), None)
        entry["grant"] = grant
        if grant not in cp.profile["grants"]:
            raise CpError(400, "unsupported grant type %r" % grant)
        subject = cp.identity.login(grant, body)
        if subject is None:
            raise CpError(400, "invalid credentials")
        out = cp.identity.issue(subject)
        if cp.profile["expires_in"]:
            out["expiresIn"] = cp.token_ttl
        return 200, out

    def send_text(self, status, text):
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def send(self, status, obj):
        data = b"" if obj is None else json.dumps(obj).encode()
        self.send_response(status)
        if obj is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if data:
            self.wfile.write(data)


def register_sim_routes(sim, cp):
    """GET|POST /_sim/controlplane on the Kubernetes port: the settings
    tests change (token lifetime, policy, an outage)."""
    def route(handler, method, path, body):
        if path.rstrip("/") != "/_sim/controlplane" or method not in ("GET", "POST"):
            return False
        try:
            handler.send_json(200, cp.settings(body if method == "POST" else None))
        except assets.AssetError as e:
            handler.send_json(400, {"message": str(e)})
        return True
    sim.add_sim_route(route)
