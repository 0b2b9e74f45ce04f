"""What each emulated node's own driver knows, kept in files under the
state directory, so a program run "on the node" (the sshd peer's
nvidia-smi, which rntop reads over SSH) sees the pods' GPU load:

    STATE/nodes/NODE/gpus.json         every GPU of the node and the pods
                                       holding it (gpuview.node_spec); the
                                       node's nvidia-smi reads it
    STATE/nodes/NODE/proc/PID/cgroup   the cgroup line of each pod's GPU
                                       process, shaped as on a real node
                                       (cgroup v2, systemd driver,
                                       containerd): a monitor that maps a
                                       process to its pod reads these
    STATE/nodes/NODE/proc/driver/nvidia/version
                                       the driver's version line

rntop reads the proc files where RNTOP_PROC points (the sshd peer's
session environment), so it names each GPU's pod, job and project.

The controller calls `NodeGpuFiles.write` after every step; a file is
rewritten (atomically) only when what it says changed, since the load
itself is computed by the reader from the pods' start times.
"""

import json
import os
import shutil

from kubesim import gpuload, gpuview
from kubesim.objutil import NODES

QOS_SLICE = {"Guaranteed": "", "Burstable": "burstable", "BestEffort": "besteffort"}


def cgroup_line(uid, container_id, qos="Burstable"):
    """/proc/PID/cgroup of a container's process on a cgroup v2 node with
    the systemd cgroup driver: the pod's slice (uid dashes become
    underscores, as systemd unit names need) under its QoS class's."""
    pod = uid.replace("-", "_")
    klass = QOS_SLICE.get(qos, "burstable")
    if klass:
        path = "/kubepods.slice/kubepods-%s.slice/kubepods-%s-pod%s.slice" % (klass, klass, pod)
    else:
        path = "/kubepods.slice/kubepods-pod%s.slice" % pod
    return "0::%s/cri-containerd-%s.scope\n" % (path, container_id)


def _write_if_changed(path, text):
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except OSError:
        pass
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.rename(path + ".tmp", path)


class NodeGpuFiles:
    def __init__(self, state_dir, store):
        self.top = os.path.join(state_dir, "nodes") if state_dir else None
        self.store = store

    def write(self, now):
        if self.top is None:    # a cluster without a state directory (unit tests)
            return
        for node in self.store.select(NODES):
            name = node["metadata"]["name"]
            if "/" in name or name in ("", ".", ".."):
                continue
            self.write_node(name, now)

    def write_node(self, name, now):
        spec = gpuview.node_spec(self.store, name, now)
        here = os.path.join(self.top, name)
        _write_if_changed(os.path.join(here, "gpus.json"),
                          json.dumps(spec, indent=1, sort_keys=True) + "\n")
        self._write_procs(os.path.join(here, "proc"), spec)

    def _write_procs(self, proc, spec):
        _write_if_changed(os.path.join(proc, "driver", "nvidia", "version"),
                          "NVRM version: NVIDIA UNIX x86_64 Kernel Module  %s  "
                          "Release Build  (kube-sim)\n" % gpuload.DRIVER)
        wanted = {}
        for gpu in spec["gpus"]:
            for t in gpu["tenants"]:
                wanted[str(t["pid"])] = cgroup_line(t["uid"], t["container_id"], t.get("qos"))
        for pid, line in wanted.items():
            _write_if_changed(os.path.join(proc, pid, "cgroup"), line)
        for pid in os.listdir(proc) if os.path.isdir(proc) else ():
            if pid.isdigit() and pid not in wanted:
                shutil.rmtree(os.path.join(proc, pid), ignore_errors=True)
