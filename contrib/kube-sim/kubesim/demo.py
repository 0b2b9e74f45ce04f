"""Start-up contents, and builders of realistic Run:ai objects.

Always: namespaces default, kube-system, runai and the run.ai CRDs.
With --demo: two 8-GPU nodes, four projects (team-a..team-d) with their
namespaces, a RunaiConfig, a default StorageClass and an IngressClass.
The builders here also serve /_sim/bulk (many jobs, pods or nodes fast).
"""

import hashlib
import uuid

from kubesim.resources import CRD_GVR, default_crds
from kubesim.store import now_rfc3339

NS = ("", "v1", "namespaces")
NODES = ("", "v1", "nodes")
PODS = ("", "v1", "pods")
PROJECTS = ("run.ai", "v1", "projects")
RUNAIJOBS = ("run.ai", "v1", "runaijobs")
RUNAICONFIGS = ("run.ai", "v1", "runaiconfigs")
STORAGECLASSES = ("storage.k8s.io", "v1", "storageclasses")
INGRESSCLASSES = ("networking.k8s.io", "v1", "ingressclasses")

GPU_PRODUCT = "NVIDIA-A100-SXM4-80GB"

# name, deserved GPUs, extra spec
DEMO_PROJECTS = [
    ("team-a", 4, {}),
    ("team-b", 2, {"interactiveJobTimeLimitSecs": 3600}),
    ("team-c", 2, {"nodeAffinityTrain": ["a100"]}),
    ("team-d", 8, {}),
]


def node(name, ip, gpus=8, product=GPU_PRODUCT):
    alloc = {"cpu": "64", "memory": "512Gi", "nvidia.com/gpu": str(gpus), "pods": "110",
             "ephemeral-storage": "1Ti"}
    now = now_rfc3339()
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": {
            "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
            "kubernetes.io/arch": "amd64", "nvidia.com/gpu.product": product,
            "nvidia.com/gpu.count": str(gpus), "nvidia.com/gpu.present": "true",
            "node-role.kubernetes.io/runai-gpu-worker": ""}},
        "spec": {"podCIDR": "10.244.%s.0/24" % ip.rsplit(".", 1)[1]},
        "status": {
            "capacity": dict(alloc), "allocatable": dict(alloc),
            "conditions": [
                {"type": "MemoryPressure", "status": "False", "reason": "KubeletHasSufficientMemory",
                 "lastHeartbeatTime": now, "lastTransitionTime": now},
                {"type": "DiskPressure", "status": "False", "reason": "KubeletHasNoDiskPressure",
                 "lastHeartbeatTime": now, "lastTransitionTime": now},
                {"type": "PIDPressure", "status": "False", "reason": "KubeletHasSufficientPID",
                 "lastHeartbeatTime": now, "lastTransitionTime": now},
                {"type": "Ready", "status": "True", "reason": "KubeletReady",
                 "message": "kubelet is posting ready status",
                 "lastHeartbeatTime": now, "lastTransitionTime": now}],
            "addresses": [{"type": "InternalIP", "address": ip},
                          {"type": "Hostname", "address": name}],
            "nodeInfo": {"machineID": _node_id(name, "machine"),
                         "systemUUID": str(uuid.UUID(_node_id(name, "system"))),
                         "bootID": str(uuid.UUID(_node_id(name, "boot"))),
                         "kubeletVersion": "v1.32.5", "kubeProxyVersion": "v1.32.5",
                         "osImage": "Ubuntu 22.04.4 LTS", "kernelVersion": "5.15.0-119-generic",
                         "containerRuntimeVersion": "containerd://1.7.22",
                         "operatingSystem": "linux", "architecture": "amd64"},
        },
    }


def _node_id(name, what):
    """A node's machine, system or boot id: 32 stable hex digits (the
    official clients require all three)."""
    return hashlib.sha256(("%s/%s" % (name, what)).encode()).hexdigest()[:32]


def namespace(name, project=None):
    meta = {"name": name}
    if project:
        meta["labels"] = {"runai/queue": project}
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": meta}


def project(name, deserved, extra=None):
    spec = {"deservedGpus": deserved, "department": "default"}
    spec.update(extra or {})
    return {"apiVersion": "run.ai/v1", "kind": "Project", "metadata": {"name": name},
            "spec": spec}


def _job_labels(name):
    return {"app": "runaijob", "chart": "runaijob-1.0.1", "release": name,
            "heritage": "Helm", "createdBy": "RunaiJob"}


def runaijob(name, ns, index=None, node_name="node-1", user="demo-user", gpus=1):
    """A running RunaiJob as `runai submit` makes it (the chart's labels,
    the user and job-index labels, one GPU limit) and the scheduler
    annotates it."""
    labels = _job_labels(name)
    if index is not None:
        labels["runai/job-index"] = str(index)
    template_labels = _job_labels(name)
    return {
        "apiVersion": "run.ai/v1", "kind": "RunaiJob",
        "metadata": {"name": name, "namespace": ns, "labels": labels, "annotations": {
            "runai-cli-command": "runai submit %s -i gcr.io/run-ai-demo/quickstart -g %s"
                                 % (name, gpus),
            "user": user,
            "runai-calculated-status": "Running",
            "runai-running-pods": "1", "runai-pending-pods": "0",
            "runai-used-nodes": node_name,
            "runai-current-allocated-gpus": str(gpus),
            "runai-current-requested-gpus": str(gpus),
            "runai-total-requested-gpus": str(gpus),
            "runai-podgroup-requested-gpus": str(gpus)}},
        "spec": {
            "completions": 1, "parallelism": 1, "backoffLimit": 6,
            "template": {
                "metadata": {"labels": template_labels, "annotations": {"user": user}},
                "spec": {
                    "schedulerName": "runai-scheduler", "restartPolicy": "Never",
                    "hostIPC": False, "hostNetwork": False, "securityContext": {},
                    "containers": [{
                        "name": name, "image": "gcr.io/run-ai-demo/quickstart",
                        "imagePullPolicy": "Always",
                        "resources": {"limits": {"nvidia.com/gpu": str(gpus)}}}]}}},
        "status": {"active": 1, "startTime": now_rfc3339()},
    }


def pytorchjob(name, ns, workers=3, node_names=("node-1",), user="demo-user", gpus=1):
    """A running PyTorchJob as `runai submit-dist pytorch` makes it (a
    master and `workers` workers, `gpus` each), as the training operator
    and the scheduler leave it; its pods come from `pytorchjob_pods`."""
    tmpl = {"metadata": {"labels": _job_labels(name), "annotations": {"user": user}},
            "spec": {"schedulerName": "runai-scheduler", "restartPolicy": "Never",
                     "containers": [{"name": "pytorch", "image": "pytorch/pytorch",
                                     "imagePullPolicy": "Always",
                                     "resources": {"limits": {"nvidia.com/gpu": str(gpus)}}}]}}
    pods, now = 1 + workers, now_rfc3339()
    conds = [{"type": t, "status": "True", "reason": "PyTorchJob" + t,
              "lastTransitionTime": now} for t in ("Created", "Running")]
    return {
        "apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
        "metadata": {"name": name, "namespace": ns, "labels": _job_labels(name), "annotations": {
            "runai-cli-command": "runai submit-dist pytorch %s -i pytorch/pytorch --workers %d "
                                 "-g %s" % (name, workers, gpus),
            "user": user,
            "runai-calculated-status": "Running",
            "runai-running-pods": str(pods), "runai-pending-pods": "0",
            "runai-used-nodes": ", ".join(sorted(set(node_names))),
            "runai-current-allocated-gpus": str(gpus * pods),
            "runai-current-requested-gpus": str(gpus * pods),
            "runai-total-requested-gpus": str(gpus * pods),
            "runai-podgroup-requested-gpus": str(gpus * pods)}},
        "spec": {"runPolicy": {"cleanPodPolicy": "Running"}, "pytorchReplicaSpecs": {
            "Master": {"replicas": 1, "restartPolicy": "Never", "template": tmpl},
            "Worker": {"replicas": workers, "restartPolicy": "Never", "template": tmpl}}},
        "status": {"conditions": conds, "startTime": now,
                   "replicaStatuses": {"Master": {"active": 1}, "Worker": {"active": workers}}},
    }


def pytorchjob_pods(job, node_names, ips, host_ips):
    """The Running pods of `pytorchjob` (its uid set), on the given nodes."""
    from kubesim import training   # the operator's own pod builder
    out = []
    for i, (rtype, index, _) in enumerate(training.replicas(training.PYTORCHJOBS, job)):
        pod = training.build_pod(training.PYTORCHJOBS, job, rtype, index,
                                 job["metadata"]["namespace"][len("runai-"):])
        pod["spec"]["nodeName"] = node_names[i % len(node_names)]
        pod["status"] = _running_status(pod["spec"]["containers"][0], ips[i], host_ips[i])
        pod["metadata"]["annotations"]["runai-calculated-status"] = "Running"
        out.append(pod)
    return out


def _running_status(container, ip, host_ip):
    now = now_rfc3339()
    return {
        "phase": "Running", "hostIP": host_ip, "podIP": ip, "startTime": now,
        "qosClass": "BestEffort",
        "conditions": [{"type": t, "status": "True", "lastTransitionTime": now}
                       for t in ("PodScheduled", "Initialized", "ContainersReady", "Ready")],
        "containerStatuses": [{
            "name": container["name"], "image": container["image"],
            "imageID": container["image"] + "@sha256:" + "0" * 64,
            "ready": True, "started": True, "restartCount": 0,
            "state": {"running": {"startedAt": now}}}]}


def running_pod(job, node_name, ip, host_ip="10.0.0.11", suffix="0"):
    """The Running pod a RunaiJob owns."""
    meta = job["metadata"]
    name = "%s-%s" % (meta["name"], suffix)
    tmpl = job["spec"]["template"]
    now = now_rfc3339()
    labels = dict(tmpl["metadata"]["labels"])
    labels["project"] = meta["namespace"][len("runai-"):] \
        if meta["namespace"].startswith("runai-") else meta["namespace"]
    annotations = dict(tmpl["metadata"].get("annotations") or {})
    annotations.update({"pod-group-name": "pg-%s-%s" % (meta["name"], meta.get("uid", "")[:8]),
                        "runai-calculated-status": "Running"})
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {
            "name": name, "namespace": meta["namespace"], "labels": labels,
            "annotations": annotations,
            "ownerReferences": [{"apiVersion": job["apiVersion"], "kind": job["kind"],
                                 "name": meta["name"], "uid": meta.get("uid", ""),
                                 "controller": True, "blockOwnerDeletion": True}]},
        "spec": dict(tmpl["spec"], nodeName=node_name),
        "status": _running_status(tmpl["spec"]["containers"][0], ip, host_ip),
    }


def install_base(store):
    """What every cluster has: the system namespaces and the run.ai CRDs."""
    for name in ("default", "kube-system", "runai"):
        if store.get(NS, None, name) is None:
            store.create(NS, None, namespace(name))
    for crd in default_crds():
        if store.get(CRD_GVR, None, crd["metadata"]["name"]) is None:
            store.create(CRD_GVR, None, crd)


def install_demo(store):
    """The --demo profile: nodes, projects and their namespaces."""
    for i, name in enumerate(("node-1", "node-2")):
        n = node(name, "10.0.0.%d" % (11 + i))
        # node ports are served on this host's loopback (netproxy.py): the
        # address Run:ai names in service URLs says so
        n["metadata"]["annotations"] = {"runai/external-node-ip": "127.0.0.1"}
        store.put(NODES, None, n)
    for name, deserved, extra in DEMO_PROJECTS:
        store.put(NS, None, namespace("runai-" + name, name))
        store.put(PROJECTS, None, project(name, deserved, extra))
    store.put(RUNAICONFIGS, "runai", {
        "apiVersion": "run.ai/v1", "kind": "RunaiConfig",
        "metadata": {"name": "runai", "namespace": "runai"},
        "spec": {"global": {"nodeAffinity": {"restrictScheduling": False}}}})
    store.put(STORAGECLASSES, None, {
        "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
        "metadata": {"name": "local-path", "annotations": {
            "storageclass.kubernetes.io/is-default-class": "true"}},
        "provisioner": "rancher.io/local-path", "reclaimPolicy": "Delete",
        "volumeBindingMode": "WaitForFirstConsumer"})
    store.put(INGRESSCLASSES, None, {
        "apiVersion": "networking.k8s.io/v1", "kind": "IngressClass",
        "metadata": {"name": "nginx", "annotations": {
            "ingressclass.kubernetes.io/is-default-class": "true"}},
        "spec": {"controller": "k8s.io/ingress-nginx"}})
