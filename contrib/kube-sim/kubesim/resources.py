"""The resource registry: which (group, version, plural) the server knows.

Built-in kinds are one table, `TABLE`. Rows marked `crd` are not served by
themselves: at start-up each becomes a CustomResourceDefinition object in
the store, and a custom resource is served only while its CRD object
exists (that is how `/_sim/crd` hides run.ai to test the batch/v1 Job
fallback, and how a test can add, say, kubeflow.org MPIJobs by creating a
CRD). To add a kind, add one row.
"""

import re
import threading
from collections import namedtuple

# Verb sets, in the order discovery lists them.
RW = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
CREATE_ONLY = ("create",)

# group, version, plural, kind, namespaced, shortNames, verbs, subresources, crd
_Row = namedtuple("_Row", "group version plural kind namespaced short verbs subs crd")

TABLE = [_Row(*r) for r in (
    ("", "v1", "namespaces", "Namespace", False, ["ns"], RW, ["status"], False),
    ("", "v1", "nodes", "Node", False, ["no"], RW, ["status"], False),
    ("", "v1", "pods", "Pod", True, ["po"], RW,
     ["status", "log", "exec", "attach", "portforward", "eviction"], False),
    ("", "v1", "configmaps", "ConfigMap", True, ["cm"], RW, [], False),
    ("", "v1", "secrets", "Secret", True, [], RW, [], False),
    ("", "v1", "services", "Service", True, ["svc"], RW, ["status"], False),
    ("", "v1", "events", "Event", True, ["ev"], RW, [], False),
    ("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", True, ["pvc"], RW,
     ["status"], False),
    ("", "v1", "serviceaccounts", "ServiceAccount", True, ["sa"], RW, [], False),
    ("batch", "v1", "jobs", "Job", True, [], RW, ["status"], False),
    ("apps", "v1", "deployments", "Deployment", True, ["deploy"], RW, ["status"], False),
    ("apps", "v1", "statefulsets", "StatefulSet", True, ["sts"], RW, ["status"], False),
    ("apps", "v1", "replicasets", "ReplicaSet", True, ["rs"], RW, ["status"], False),
    ("apps", "v1", "daemonsets", "DaemonSet", True, ["ds"], RW, ["status"], False),
    ("networking.k8s.io", "v1", "ingresses", "Ingress", True, ["ing"], RW, ["status"], False),
    ("networking.k8s.io", "v1", "ingressclasses", "IngressClass", False, [], RW, [], False),
    ("storage.k8s.io", "v1", "storageclasses", "StorageClass", False, ["sc"], RW, [], False),
    ("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition",
     False, ["crd", "crds"], RW, ["status"], False),
    ("authorization.k8s.io", "v1", "selfsubjectaccessreviews", "SelfSubjectAccessReview",
     False, [], CREATE_ONLY, [], False),
    ("authorization.k8s.io", "v1", "selfsubjectrulesreviews", "SelfSubjectRulesReview",
     False, [], CREATE_ONLY, [], False),
    # metrics-server's API, answered from the load model (metrics.py)
    ("metrics.k8s.io", "v1beta1", "nodes", "NodeMetrics", False, [], ("get", "list"), [],
     False),
    ("metrics.k8s.io", "v1beta1", "pods", "PodMetrics", True, [], ("get", "list"), [],
     False),
    ("run.ai", "v1", "runaijobs", "RunaiJob", True, ["rj"], RW, ["status"], True),
    ("run.ai", "v1", "projects", "Project", False, ["rp"], RW, [], True),
    ("run.ai", "v1", "runaiconfigs", "RunaiConfig", True, [], RW, [], True),
    # Run:ai's node pools as the cluster keeps them: nodes labelled
    # spec.labelKey=spec.labelValue; the default pool takes the rest
    ("run.ai", "v1alpha1", "nodepools", "NodePool", False, [], RW, ["status"], True),
    # the Kubeflow training operator's jobs (training.py runs them)
    ("kubeflow.org", "v1", "pytorchjobs", "PyTorchJob", True, [], RW, ["status"], True),
    ("kubeflow.org", "v1", "tfjobs", "TFJob", True, [], RW, ["status"], True),
    ("kubeflow.org", "v1", "xgboostjobs", "XGBoostJob", True, [], RW, ["status"], True),
    ("kubeflow.org", "v2beta1", "mpijobs", "MPIJob", True, [], RW, ["status"], True),
    # groups of a leader and its workers (lws.py runs them): a distributed inference
    ("leaderworkerset.x-k8s.io", "v1", "leaderworkersets", "LeaderWorkerSet", True, ["lws"],
     RW, ["status"], True),
)]

# The operator's CRDs print the newest condition's type and the age.
_TRAINING_COLUMNS = [
    {"name": "State", "type": "string", "jsonPath": ".status.conditions[-1:].type"},
    {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
]

# Extra columns the default CRDs declare (additionalPrinterColumns), so
# `kubectl get` shows something useful for Run:ai objects.
CRD_COLUMNS = {
    "runaijobs": [
        {"name": "Status", "type": "string",
         "jsonPath": ".metadata.annotations.runai-calculated-status"},
        {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
        {"name": "Node", "type": "string", "priority": 1,
         "jsonPath": ".metadata.annotations.runai-used-nodes"},
    ],
    "nodepools": [
        {"name": "Label Key", "type": "string", "jsonPath": ".spec.labelKey"},
        {"name": "Label Value", "type": "string", "jsonPath": ".spec.labelValue"},
        {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
    ],
    "projects": [
        {"name": "Deserved GPUs", "type": "number", "jsonPath": ".spec.deservedGpus"},
        {"name": "Department", "type": "string", "jsonPath": ".spec.department"},
        {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
    ],
    "pytorchjobs": _TRAINING_COLUMNS, "tfjobs": _TRAINING_COLUMNS,
    "xgboostjobs": _TRAINING_COLUMNS, "mpijobs": _TRAINING_COLUMNS,
}

# Subresources whose response kind is not the resource's own kind.
_SUB_KINDS = {"exec": "PodExecOptions", "attach": "PodAttachOptions",
              "portforward": "PodPortForwardOptions",
              "eviction": "Eviction", "log": "Pod"}
_SUB_VERBS = {"log": ["get"], "exec": ["create", "get"], "attach": ["create", "get"],
              "portforward": ["create", "get"],
              "eviction": ["create"], "status": ["get", "patch", "update"]}

# How deleting an owner treats its dependents when the client says nothing:
# batch/v1 Jobs orphan their pods through the API (kubectl asks for
# Background itself), everything else cascades in the background.
_DEFAULT_PROPAGATION = {("batch", "jobs"): "Orphan"}


class Resource:
    """One served resource: everything routing, discovery and storage need."""

    def __init__(self, group, version, plural, kind, namespaced, short=(), verbs=RW,
                 subresources=(), crd=False, singular=None, columns=None,
                 categories=None):
        self.group = group
        self.version = version
        self.plural = plural
        self.kind = kind
        self.namespaced = namespaced
        self.short_names = list(short)
        self.verbs = list(verbs)
        self.subresources = list(subresources)
        self.crd = crd
        self.singular = singular or kind.lower()
        self.columns = columns  # CRD additionalPrinterColumns, or None
        self.categories = categories if categories is not None else self._categories()

    def _categories(self):
        if self.plural in ("pods", "services", "deployments", "statefulsets", "replicasets",
                           "daemonsets", "jobs"):
            return ["all"]
        return []

    @property
    def gvr(self):
        return (self.group, self.version, self.plural)

    @property
    def api_version(self):
        return self.version if not self.group else "%s/%s" % (self.group, self.version)

    @property
    def list_kind(self):
        return self.kind + "List"

    @property
    def has_status(self):
        return "status" in self.subresources

    @property
    def default_propagation(self):
        return _DEFAULT_PROPAGATION.get((self.group, self.plural), "Background")

    def qualified(self):
        """`pods` or `runaijobs.run.ai`, as error messages name a resource."""
        return self.plural if not self.group else "%s.%s" % (self.plural, self.group)

    def sub_kind(self, sub):
        return _SUB_KINDS.get(sub, self.kind)

    def sub_verbs(self, sub):
        return _SUB_VERBS.get(sub, ["get"])

    def __repr__(self):
        return "<Resource %s>" % "/".join(self.gvr)


def crd_object(row):
    """The CustomResourceDefinition object for a `crd` row of TABLE."""
    names = {"plural": row.plural, "singular": row.kind.lower(), "kind": row.kind,
             "listKind": row.kind + "List"}
    if row.short:
        names["shortNames"] = list(row.short)
    version = {
        "name": row.version, "served": True, "storage": True,
        "schema": {"openAPIV3Schema": {"type": "object",
                                       "x-kubernetes-preserve-unknown-fields": True}},
    }
    if "status" in row.subs:
        version["subresources"] = {"status": {}}
    if row.plural in CRD_COLUMNS:
        version["additionalPrinterColumns"] = CRD_COLUMNS[row.plural]
    return {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "%s.%s" % (row.plural, row.group)},
        "spec": {"group": row.group, "names": names,
                 "scope": "Namespaced" if row.namespaced else "Cluster",
                 "versions": [version]},
        "status": {"acceptedNames": names, "storedVersions": [row.version],
                   "conditions": [{"type": "Established", "status": "True",
                                   "reason": "InitialNamesAccepted"}]},
    }


def default_crds():
    return [crd_object(r) for r in TABLE if r.crd]


def resources_from_crd(crd):
    """The Resources a CRD object serves (one per served version)."""
    spec = crd.get("spec") or {}
    names = spec.get("names") or {}
    group = spec.get("group", "")
    plural = names.get("plural")
    kind = names.get("kind")
    if not group or not plural or not kind:
        return []
    out = []
    for v in spec.get("versions") or []:
        if not v.get("served", True):
            continue
        subs = ["status"] if "status" in (v.get("subresources") or {}) else []
        out.append(Resource(group, v.get("name", "v1"), plural, kind,
                            spec.get("scope", "Namespaced") == "Namespaced",
                            names.get("shortNames") or [], RW, subs, crd=True,
                            singular=names.get("singular"),
                            columns=v.get("additionalPrinterColumns"),
                            categories=names.get("categories") or []))
    return out


CRD_GVR = ("apiextensions.k8s.io", "v1", "customresourcedefinitions")


_VERSION_RX = re.compile(r"^v([0-9]+)(?:(alpha|beta)([0-9]+))?$")


def version_priority(version):
    """A sort key: v2 before v1 before v1beta2 before v1beta1 before
    v1alpha1, then names that are no Kubernetes version, by name."""
    m = _VERSION_RX.match(version)
    if m is None:
        return (3, 0, 0, version)
    stage = {None: 0, "beta": 1, "alpha": 2}[m.group(2)]
    return (stage, -int(m.group(1)), -int(m.group(3) or 0), version)


class Registry:
    """Looks resources up: the static built-ins plus whatever CRDs exist.

    `crd_source` is a callable returning the CRD objects currently stored
    and a version stamp (the store's resourceVersion of the CRD set); the
    derived resources are cached until the stamp changes.
    """

    def __init__(self, crd_source=None):
        self._builtin = [Resource(r.group, r.version, r.plural, r.kind, r.namespaced,
                                  r.short, r.verbs, r.subs)
                         for r in TABLE if not r.crd]
        # Every row, CRD-backed ones too, for the store: objects of a hidden
        # CRD stay stored (and reachable by the runtime) while not served.
        self._static = [Resource(r.group, r.version, r.plural, r.kind, r.namespaced,
                                 r.short, r.verbs, r.subs, crd=r.crd,
                                 columns=CRD_COLUMNS.get(r.plural) if r.crd else None)
                        for r in TABLE]
        self._crd_source = crd_source
        self._cache_stamp = None
        self._cache = []
        self._lock = threading.Lock()

    def set_crd_source(self, fn):
        self._crd_source = fn

    def _custom(self):
        if self._crd_source is None:
            return []
        stamp, crds = self._crd_source()
        with self._lock:
            if stamp != self._cache_stamp:
                out = []
                for crd in crds:
                    out.extend(resources_from_crd(crd))
                self._cache, self._cache_stamp = out, stamp
            return self._cache

    def all(self):
        return self._builtin + self._custom()

    def get(self, group, version, plural):
        for r in self._builtin:
            if r.plural == plural and r.group == group and r.version == version:
                return r
        for r in self._custom():
            if r.plural == plural and r.group == group and r.version == version:
                return r
        return None

    def by_gvr(self, gvr):
        return self.get(*gvr)

    def known(self, gvr):
        """A served resource, or a table row whose CRD is currently absent."""
        r = self.get(*gvr)
        if r is not None:
            return r
        for r in self._static:
            if r.gvr == tuple(gvr):
                return r
        return None

    def by_kind(self, api_version, kind):
        group, _, version = api_version.rpartition("/")
        for r in self.all() + self._static:
            if r.kind == kind and r.group == group and r.version == version:
                return r
        return None

    def group_versions(self):
        """{group: [versions]}, core group first, each group's versions
        in Kubernetes' priority order (GA, then beta, then alpha), so the
        first is the preferred one as an API server prefers it."""
        out = {}
        for r in self.all():
            vs = out.setdefault(r.group, [])
            if r.version not in vs:
                vs.append(r.version)
        return {g: sorted(vs, key=version_priority) for g, vs in out.items()}
