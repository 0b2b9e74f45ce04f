"""The cluster objects a workload submitted to the emulated control plane
becomes: a RunaiJob (trainings, workspaces), a training-operator job
(distributed) or a LeaderWorkerSet (distributed inferences), the claims
it asks to be made, a Service for its ports and an Ingress for its
exposed URLs. The emulator's own controllers then run them as any other.

An inference is served by Knative on a real cluster, which the emulator
does not have (nor a Deployment controller). Its closest runnable kind
is a RunaiJob whose parallelism and completions are the replicas it
starts with, with a ClusterIP Service for the serving port: its pods
run, log and take exec and port-forward as any other, and it does not
scale."""

import shlex

from kubesim import lws, training
from kubesim.objutil import LEADERWORKERSETS, MPIJOBS, PYTORCHJOBS, TFJOBS, XGBOOSTJOBS


def _split_words(text):
    try:
        return shlex.split(text or "")
    except ValueError:
        return (text or "").split()


def claim_name(wl, i, pvc):
    """A claim's name: the one given, else one made from the workload's."""
    return pvc.get("claimName") or "%s-pvc-%d" % (wl.name, i)


def _volumes(wl, spec=None):
    """The pod's volumes and mounts for the storage of spec (the
    workload's by default): claims by name, host directories (path on
    the node, mountPath in the container)."""
    storage = (wl.spec if spec is None else spec).get("storage") or {}
    volumes, mounts = [], []
    for i, pvc in enumerate(storage.get("pvc") or []):
        name = "pvc-%d" % i
        volumes.append({"name": name, "persistentVolumeClaim": {
            "claimName": claim_name(wl, i, pvc), "readOnly": bool(pvc.get("readOnly"))}})
        mounts.append({"name": name, "mountPath": pvc.get("path"),
                       "readOnly": bool(pvc.get("readOnly"))})
    for i, git in enumerate(storage.get("git") or []):
        # where the repository is cloned; the clone itself is not emulated
        name = "git-%d" % i
        volumes.append({"name": name, "emptyDir": {}})
        mounts.append({"name": name, "mountPath": git.get("path")})
    for i, hp in enumerate(storage.get("hostPath") or []):
        name = "host-%d" % i
        volumes.append({"name": name, "hostPath": {"path": hp.get("path")}})
        mounts.append({"name": name, "mountPath": hp.get("mountPath"),
                       "readOnly": bool(hp.get("readOnly"))})
    return volumes, mounts


def new_claims(wl):
    """The PersistentVolumeClaims the control plane makes for claims that
    do not exist yet (existingPvc false)."""
    out = []
    for i, pvc in enumerate((wl.spec.get("storage") or {}).get("pvc") or []):
        if pvc.get("existingPvc"):
            continue
        info = pvc.get("claimInfo") or {}
        claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                 "metadata": {"name": claim_name(wl, i, pvc),
                              "labels": {"runai/workload-id": wl.id}},
                 "spec": {"accessModes": ["ReadWriteOnce"],
                          "resources": {"requests": {"storage": info.get("size") or "1Gi"}}}}
        if info.get("storageClass"):
            claim["spec"]["storageClassName"] = info["storageClass"]
        out.append(claim)
    return out


def _exposed(wl):
    """The container ports of spec.exposedUrls."""
    return [u["container"] for u in wl.spec.get("exposedUrls") or [] if u.get("container")]


def _serving(spec):
    """An inference's serving port, as a list (empty without one)."""
    port = (spec.get("servingPort") or {}).get("container")
    return [port] if port else []


def inference_replicas(spec):
    """The pods an inference starts with: initialReplicas, else
    minReplicas, else 1 (the API's defaults). At least one: the emulator
    does not scale, and a RunaiJob of none would count as completed."""
    auto = spec.get("autoscaling") or {}
    for key in ("initialReplicas", "minReplicas"):
        if isinstance(auto.get(key), int) and not isinstance(auto.get(key), bool):
            return max(auto[key], 1)
    return 1


def service(wl):
    """One Service for spec.ports, of the first port's type, or a
    ClusterIP one behind the ingress of spec.exposedUrls."""
    ports = [p for p in wl.spec.get("ports") or [] if p.get("container")]
    ports = ports or [{"container": c, "serviceType": "ClusterIP"}
                      for c in _exposed(wl) + _serving(wl.spec)]
    if not ports:
        return None
    kind = ports[0].get("serviceType") or "ClusterIP"
    out = []
    for p in ports:
        port = {"name": "port-%d" % p["container"], "protocol": "TCP",
                "port": p.get("external") or p["container"], "targetPort": p["container"]}
        if kind == "NodePort" and p.get("external"):
            port["nodePort"] = p["external"]
        out.append(port)
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": wl.name, "labels": {"runai/workload-id": wl.id}},
            "spec": {"type": kind, "selector": {"release": wl.name}, "ports": out}}


def _scheduling_security(spec, pod_spec, container):
    """nodeType as the node selector Run:ai's node types use; security's
    host IPC and network, and privilege escalation."""
    if spec.get("nodeType"):
        pod_spec["nodeSelector"] = {"run.ai/type": spec["nodeType"]}
    sec = spec.get("security") or {}
    if sec.get("hostIpc"):
        pod_spec["hostIPC"] = True
    if sec.get("hostNetwork"):
        pod_spec["hostNetwork"] = True
    if sec.get("allowPrivilegeEscalation") is False:
        container["securityContext"] = {"allowPrivilegeEscalation": False}


def ingress(wl):
    """The Ingress of spec.exposedUrls: one path per exposed port, under
    the project's namespace and the workload's name (the URL the control
    plane makes when none is given)."""
    exposed = _exposed(wl)
    if not exposed:
        return None
    paths = [{"path": "/%s/%s/%d" % (wl.namespace, wl.name, c), "pathType": "Prefix",
              "backend": {"service": {"name": wl.name, "port": {"number": c}}}}
             for c in exposed]
    return {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
            "metadata": {"name": wl.name, "labels": {"runai/workload-id": wl.id}},
            "spec": {"rules": [{"http": {"paths": paths}}]}}


def _pairs(spec, key):
    """spec's labels or annotations ([{name, value, exclude}]) as a map."""
    return {p["name"]: p.get("value") or "" for p in spec.get(key) or []
            if p.get("name") and not p.get("exclude")}


def pod_template(wl, spec, container_name, labels, storage=None):
    """The pod template of a submitted spec: its container (image,
    command, environment, GPUs as the emulator's RunaiJobs take them,
    CPU and memory, console, ports, volumes), the labels given and the
    submitter's annotation. The volumes are those of the workload's
    storage, or of storage (a spec) where given."""
    compute = spec.get("compute") or {}
    container = {"name": container_name, "image": spec.get("image"),
                 "imagePullPolicy": spec.get("imagePullPolicy") or "Always",
                 "env": [{"name": e.get("name"), "value": e.get("value") or ""}
                         for e in spec.get("environmentVariables") or [] if e.get("name")]}
    if spec.get("command"):
        container["command"] = _split_words(spec["command"])
    if spec.get("args"):
        container["args"] = _split_words(spec["args"])
    limits, annotations = {}, {"user": wl.created_by or ""}
    gpus = compute.get("gpuDevicesRequest")
    if compute.get("gpuRequestType") == "portion":
        annotations["gpu-fraction"] = str(compute.get("gpuPortionRequest"))
    elif gpus:
        limits["nvidia.com/gpu"] = str(gpus)
    requests = {}
    if compute.get("cpuCoreRequest"):
        requests["cpu"] = str(compute["cpuCoreRequest"])
    if compute.get("cpuMemoryRequest"):
        requests["memory"] = compute["cpuMemoryRequest"]
    container["resources"] = {k: v for k, v in (("limits", limits), ("requests", requests))
                              if v}
    if spec.get("tty"):
        container["tty"] = True
    if spec.get("stdin"):
        container["stdin"] = True
    ports = [{"containerPort": p["container"]} for p in spec.get("ports") or []
             if p.get("container")] + [{"containerPort": c} for c in _serving(spec)]
    if ports:
        container["ports"] = ports
    volumes, mounts = _volumes(wl, storage)
    pod_spec = {"schedulerName": "runai-scheduler", "restartPolicy": "Never",
                "containers": [container]}
    _scheduling_security(spec, pod_spec, container)
    if volumes:
        container["volumeMounts"] = mounts
        pod_spec["volumes"] = volumes
    # the submitter's own come first, so they never replace the emulator's
    return {"metadata": {"labels": dict(_pairs(spec, "labels"), **labels),
                         "annotations": dict(_pairs(spec, "annotations"), **annotations)},
            "spec": pod_spec}


def runaijob(wl):
    """The cluster object of a submitted training, workspace or inference
    (its replicas as parallel pods), shaped as the RunaiJobs the emulator
    already runs."""
    labels = {"app": "runaijob", "release": wl.name, "createdBy": "RunaiJob",
              "runai/workload-id": wl.id}
    if wl.type in PRIORITY_CLASSES:
        labels["priorityClassName"] = PRIORITY_CLASSES[wl.type]
    if wl.spec.get("priorityClass"):
        labels["priorityClassName"] = wl.spec["priorityClass"]
    tmpl = pod_template(wl, wl.spec, wl.name, labels)
    pods = inference_replicas(wl.spec) if wl.type == "Inference" else 1
    return {"apiVersion": "run.ai/v1", "kind": "RunaiJob",
            "metadata": {"name": wl.name, "labels": labels,
                         "annotations": dict(tmpl["metadata"]["annotations"])},
            "spec": {"completions": pods, "parallelism": pods,
                     "backoffLimit": 0 if wl.type == "Workspace" else 6,
                     "template": tmpl}}


# the pods' priority class by workload type, where it is not "train"
PRIORITY_CLASSES = {"Workspace": "build", "Inference": "inference",
                    "DistributedInference": "inference"}


# the API's framework names -> the training operator's resource, its
# container name and the replica type that leads
FRAMEWORKS = {"PyTorch": (PYTORCHJOBS, "pytorch", "Master"),
              "TF": (TFJOBS, "tensorflow", "Chief"),
              "XGBoost": (XGBOOSTJOBS, "xgboost", "Master"),
              "MPI": (MPIJOBS, "mpi", "Launcher")}


def training_job(wl, body):
    """The training-operator job of a distributed workload: the workers
    from spec, the master (launcher, chief) from masterSpec, or a copy of
    the worker's with masterSpecSameAsWorker, or none."""
    spec = wl.spec
    gvr, container, lead = FRAMEWORKS[spec["distributedFramework"]]
    labels = {"app": "runai", "release": wl.name, "runai/workload-id": wl.id}
    replicas = {"Worker": {"replicas": int(spec.get("numWorkers") or 1),
                           "restartPolicy": "Never",
                           "template": pod_template(wl, spec, container, labels)}}
    master = spec if body.get("masterSpecSameAsWorker") else body.get("masterSpec")
    if master:
        replicas[lead] = {"replicas": 1, "restartPolicy": "Never",
                          "template": pod_template(wl, master, container, labels)}
    job_spec = {FRAMEWORKS_KEYS[gvr]: replicas, "runPolicy": {}}
    if spec.get("cleanPodPolicy"):
        job_spec["runPolicy"]["cleanPodPolicy"] = spec["cleanPodPolicy"]
    if gvr == MPIJOBS:
        job_spec["slotsPerWorker"] = int(spec.get("slotsPerWorker") or 1)
    return gvr, {"apiVersion": "/".join(gvr[:2]), "kind": training.FRAMEWORKS[gvr].kind,
                 "metadata": {"name": wl.name, "labels": labels},
                 "spec": job_spec}


FRAMEWORKS_KEYS = {gvr: training.FRAMEWORKS[gvr].specs_key for gvr in training.FRAMEWORKS}


# --- distributed inferences --------------------------------------------------

def _member_template(wl, spec, labels, port):
    """A leader's or a worker's pod template: the role's own container
    fields and storage, its working directory, the serving port (port,
    on the leader)."""
    tmpl = pod_template(wl, spec, wl.name, labels, storage=spec)
    container = tmpl["spec"]["containers"][0]
    if spec.get("workingDir"):
        container["workingDir"] = spec["workingDir"]
    if port:
        container.setdefault("ports", []).append({"containerPort": port})
    return tmpl


def serving_port(spec):
    return (spec.get("servingPort") or {}).get("port")


def leader_worker_set(wl):
    """The LeaderWorkerSet of a distributed inference: spec.replicas
    groups of a leader and spec.workers workers, the leader's template
    from spec.leader, the workers' from spec.worker (the leader's where
    there are no workers: the kind requires a worker template)."""
    spec = wl.spec
    labels = {"app": "runai", "release": wl.name, "runai/workload-id": wl.id,
              "priorityClassName": spec.get("priorityClass") or
              PRIORITY_CLASSES["DistributedInference"]}
    leader = spec.get("leader") or {}
    worker = spec.get("worker") or leader
    lwt = {"size": 1 + int(spec.get("workers") or 0),
           "restartPolicy": spec.get("restartPolicy") or lws.RECREATE,
           "leaderTemplate": _member_template(wl, leader, labels, serving_port(spec)),
           "workerTemplate": _member_template(wl, worker, labels, None)}
    return {"apiVersion": "/".join(LEADERWORKERSETS[:2]), "kind": "LeaderWorkerSet",
            "metadata": {"name": wl.name, "labels": labels},
            "spec": {"replicas": int(spec.get("replicas") or 0),
                     "startupPolicy": spec.get("startupPolicy") or "LeaderCreated",
                     "leaderWorkerTemplate": lwt}}


def serving_service_name(wl):
    """The name of a distributed inference's serving Service: the
    workload's own is the LeaderWorkerSet's headless Service."""
    return "%s-serving" % wl.name


def serving_service(wl, owner):
    """A ClusterIP Service for spec.servingPort, on the leaders of every
    group, owned by the LeaderWorkerSet (owner, as stored): it goes with
    it. None without a serving port."""
    port = serving_port(wl.spec)
    if not port:
        return None
    meta = owner["metadata"]
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": serving_service_name(wl),
                         "labels": {"runai/workload-id": wl.id, "release": wl.name},
                         "ownerReferences": [{
                             "apiVersion": owner["apiVersion"], "kind": owner["kind"],
                             "name": meta["name"], "uid": meta["uid"],
                             "blockOwnerDeletion": True}]},
            "spec": {"type": "ClusterIP",
                     "selector": {lws.SET_NAME: wl.name, lws.WORKER_INDEX: "0"},
                     "ports": [{"name": "serving", "protocol": "TCP", "port": port,
                                "targetPort": port}]}}
