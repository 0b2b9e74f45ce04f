"""The runtime's controller: one reconcile pass (`Controller.step`) that
runs every `--tick` seconds, or on demand through POST /_sim/tick, and
drives the parts that make the cluster move, each in its own module.

One step, under the store lock:
  1. the kubelet (kubelet.py): pods bound in an earlier step start
     Running; Running pods whose `kube-sim/duration` (seconds) has elapsed
     finish with `kube-sim/exit-code` (default 0): Succeeded or Failed;
  1b. the taint manager (taints.py): a pod bound to a node with a
     NoExecute taint it does not tolerate is deleted (after the smallest
     matching tolerationSeconds, counted from when it was first seen so),
     with a TaintManagerEviction event;
  2. the job controller (workloads.py): workloads (run.ai/v1 RunaiJobs,
     batch/v1 Jobs) get the pods they lack, lose them when suspended,
     retry failed ones up to backoffLimit;
  2b. the training operator (training.py): PyTorchJobs, TFJobs,
     XGBoostJobs and MPIJobs get all their pods at once (one gang) and
     their headless Services, failed pods are replaced as restartPolicy
     allows, finished jobs are cleaned by cleanPodPolicy;
  2c. the LeaderWorkerSet controller (lws.py): each group of a leader
     and its workers gets its pods (the workers at once or once the
     leader is Ready), groups come and go with spec.replicas, a group
     whose pod restarted is made again whole;
  3. persistent volume claims are bound (volumes.py: the PV controller
     and a dynamic provisioner): a claim of an existing StorageClass gets
     a volume, one of a WaitForFirstConsumer class once a pod using it is
     scheduled;
  4. the scheduler (scheduler.py) places pending pods on nodes: whole
     GPUs and fractions, node capacity, taints, selectors, the pod's
     claims, a workload's pods all together or not at all, and Run:ai
     fair share (fairshare.py: quota, lending over quota, interactive
     work within quota, preempting over-share work for a project under
     its share); then claims waiting for a pod just placed are bound;
  5. pods the kubelet started print a log line;
  6. workloads, training jobs and LeaderWorkerSets get their status and
     the Run:ai scheduler annotations (runai-calculated-status, runai-running-pods, ...);
  7. LoadBalancer services get an ingress IP (127.0.0.N) one step after
     they are first seen (services.py);
  8. each node's GPU files (nodegpus.py) say which pods hold its GPUs,
     for the node's own nvidia-smi that rntop reads over SSH.

This module owns the order of the parts, the thread, the idle-step skip,
and the test knobs that cut across parts; the parts never import it.

Writes happen only when something changed, so resourceVersions mean
something to watchers. GPU use is recomputed from the pods each step, so
deleting a workload (the store cascades to its pods) frees its GPUs for
the next step.

Test knobs: POST /_sim/tick {"steps": N}, POST /_sim/controller
{"paused": true|false}, POST /_sim/phase (force a pod's or a workload's
phase). A pod forced to Pending is held (annotation kube-sim/hold) until
forced again.
"""

import threading
import time
import traceback

from kubesim import scheduler
from kubesim.cluster import World, store_write
from kubesim.errors import ApiError, bad_request, not_found
from kubesim.kubelet import Kubelet
from kubesim.nodegpus import NodeGpuFiles
from kubesim.lws import LeaderWorkerSetController
from kubesim.objutil import (CLAIMS, HOLD, LEADERWORKERSETS, NODES, PODS, PROJECTS, SERVICES,
                             STORAGECLASSES, TRAINING, WORKLOADS, annotation_of, clone, controller_uid,
                             is_active, key_of, meta_of, node_name_of, phase_of, rfc3339,
                             runai_pod_status, set_condition)
from kubesim.services import LoadBalancers
from kubesim.taints import TaintManager
from kubesim.training import TrainingController
from kubesim.volumes import VolumeBinder
from kubesim.workloads import WorkloadController, finished_workload

MAX_TICK_STEPS = 1000


class Controller:
    def __init__(self, sim):
        self.sim = sim
        self.store = sim.store
        self.clock = time.time          # tests may replace it
        self.paused = False
        self.steps = 0
        self._thread = None
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._local = threading.local()  # marks the thread doing a step
        # a step that changed nothing, with nothing waiting on the clock,
        # leaves the store's resourceVersion here: while the store stays
        # at it, the next step would do nothing too and is skipped
        self._idle_rv = None
        self.timed = False              # this step saw work that waits on the clock
        self.kubelet = Kubelet(self)
        self.taints = TaintManager(self)
        self.workloads = WorkloadController(self)
        self.training = TrainingController(self)
        self.leader_worker_sets = LeaderWorkerSetController(self)
        self.volumes = VolumeBinder(self)
        self.scheduler = scheduler.Scheduler(self)
        self.load_balancers = LoadBalancers(self)
        self.node_gpus = NodeGpuFiles(getattr(sim, "state_dir", None), self.store)
        self._parts = (self.kubelet, self.taints, self.workloads, self.training,
                       self.leader_worker_sets, self.volumes, self.scheduler,
                       self.load_balancers)
        self.store.add_listener(self._on_change)

    # thread ---------------------------------------------------------------

    @property
    def tick(self):
        return float(getattr(self.sim.options, "tick", 1.0) or 1.0)

    def start(self):
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="kube-sim-controller",
                                        daemon=True)
        self._thread.start()

    def stop(self):
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(5)
        # the pod processes (exec, attach) end with the cluster
        for name in ("processes", "logs"):
            part = getattr(self.sim, name, None)
            if part is not None and hasattr(part, "shutdown"):
                part.shutdown()

    def _run(self):
        while not self._stop.is_set():
            woken = self._wake.wait(self.tick)
            if self._stop.is_set():
                return
            if woken:
                self._wake.clear()
                self._stop.wait(0.05)  # let a burst of changes settle first
            if self.paused:
                continue
            try:
                self.step()
            except Exception:  # a bug in one step must not stop the cluster
                traceback.print_exc()

    def _on_change(self, event_type, gvr, obj):
        """Store listener: forget deleted objects; wake up early when a
        client (not this controller) changes a workload, a node or a
        project."""
        gvr = tuple(gvr)
        if event_type == "DELETED":
            uid = meta_of(obj).get("uid")
            for part in self._parts:
                part.forget(uid)
        if getattr(self._local, "active", False):
            return
        if gvr in WORKLOADS or gvr in TRAINING or gvr in (
                LEADERWORKERSETS, NODES, PROJECTS, SERVICES, CLAIMS, STORAGECLASSES) or \
                (gvr == PODS and event_type in ("ADDED", "DELETED")):
            self._wake.set()

    # one reconcile pass ---------------------------------------------------

    def step(self):
        with self.store.lock:
            self.steps += 1
            rv_before = self._store_rv()
            if rv_before is not None and rv_before == self._idle_rv:
                return
            self._local.active = True
            self.timed = False
            try:
                now = self.clock()
                world = World(self.store)
                self.kubelet.progress_pods(world, now)
                self.taints.evict_tainted(world, now)
                self.workloads.reconcile(world, now)
                self.training.reconcile(world, now)
                self.leader_worker_sets.reconcile(world, now)
                self.volumes.bind_claims(world, now)
                self.scheduler.schedule(world, now)
                self.volumes.bind_claims(world, now)   # claims waiting for a pod just placed
                self.kubelet.print_logs(world)
                self.workloads.update_status(world, now)
                self.training.update_status(world, now)
                self.leader_worker_sets.update_status(world, now)
                self.workloads.annotate_pods(world)
                self.load_balancers.assign(now)
                self.node_gpus.write(now)
            finally:
                self._local.active = False
            rv_after = self._store_rv()
            self._idle_rv = rv_after if rv_after == rv_before and not self.timed else None

    def _store_rv(self):
        current = getattr(self.store, "current_rv", None)
        return current() if current is not None else None

    # /_sim/phase -----------------------------------------------------------

    def force_phase(self, body):
        if not isinstance(body, dict) or not (body.get("pod") or body.get("workload")):
            raise bad_request('expected {"namespace": NS, "pod": NAME | "workload": NAME, '
                              '"phase": "Pending|Running|Succeeded|Failed", "exit_code": N, '
                              '"reason": R}')
        phase = body.get("phase")
        if phase not in ("Pending", "Running", "Succeeded", "Failed"):
            raise bad_request("phase must be one of Pending, Running, Succeeded, Failed")
        ns = body.get("namespace") or "default"
        code = body.get("exit_code")
        code = int(code) if code is not None else (0 if phase != "Failed" else 1)
        if phase == "Succeeded":
            code = 0
        elif phase == "Failed" and code == 0:
            code = 1
        with self.store.lock:
            self._local.active = True
            try:
                return self._force(ns, body, phase, code)
            finally:
                self._local.active = False

    def _force(self, ns, body, phase, code):
        now = self.clock()
        world = World(self.store)
        workload = None
        if body.get("pod"):
            pod = world.pods.get((ns, body["pod"]))
            if pod is None:
                raise not_found("pods", body["pod"])
            targets = [pod]
        else:
            gvr, workload = self._find_workload(world, ns, body["workload"])
            pods = world.owned().get(meta_of(workload).get("uid"), [])
            if not pods and not finished_workload(workload):
                self.workloads.create_missing(world, gvr, workload, [])
                pods = world.owned().get(meta_of(workload).get("uid"), [])
            targets = [p for p in pods if is_active(p)] or pods
        for pod in sorted(targets, key=key_of):
            self._force_pod(world, world.pods[key_of(pod)], phase, code, body.get("reason"), now)
        if workload is not None:
            self._force_workload(world, gvr, workload, phase, now)
        else:
            self._refresh_owner(world, targets[0], now)
        return {"kind": "List", "apiVersion": "v1",
                "items": [world.pods[key_of(p)] for p in sorted(targets, key=key_of)
                          if key_of(p) in world.pods]}

    def _find_workload(self, world, ns, name):
        for gvr in WORKLOADS:
            for g, wl in world.workloads:
                if g == gvr and key_of(wl) == (ns, name):
                    return gvr, wl
        raise not_found("runaijobs", name, "run.ai")

    def _force_pod(self, world, pod, phase, code, reason, now):
        if phase == "Pending":
            new = clone(pod)
            new["metadata"].setdefault("annotations", {})[HOLD] = "true"
            new["metadata"]["annotations"].pop("runai-gpu", None)
            (new.get("spec") or {}).pop("nodeName", None)
            new["status"] = {"phase": "Pending"}
            runai_pod_status(new, "Pending")
            self.kubelet.stopped(meta_of(pod).get("uid"))
            store_write(self.store, world, PODS, new)
            return
        if annotation_of(pod, HOLD):
            new = clone(pod)
            new["metadata"]["annotations"].pop(HOLD)
            pod = store_write(self.store, world, PODS, new) or pod
        if phase == "Running":
            if phase_of(pod) == "Running":
                return
            if not node_name_of(pod):
                node, idx, _ = scheduler.place(pod, scheduler.node_states(world))
                if node is None:  # forced: any node will do
                    node, idx = (sorted(world.nodes) or ["node-1"])[0], None
                self.scheduler.bind(world, pod, node, idx, now)
                pod = world.pods[key_of(pod)]
            self.kubelet.start(world, pod, now)
            return
        self.kubelet.finish(world, pod, code, reason, now)

    def _refresh_owner(self, world, pod, now):
        """A forced pod's workload shows the change at once, not next step."""
        found = world.by_uid.get(controller_uid(pod))
        if found is None:
            return
        gvr, wl = found
        if gvr in TRAINING:
            self.training.update_status(World(self.store), now)
            return
        if gvr == LEADERWORKERSETS:
            self.leader_worker_sets.update_status(World(self.store), now)
            return
        current = self.store.get(gvr, *key_of(wl))
        if current is not None:
            pods = world.owned().get(meta_of(wl).get("uid"), [])
            new = self.workloads.workload_state(world, gvr, current, pods, now)
            if new != current:
                store_write(self.store, world, gvr, new)

    def _force_workload(self, world, gvr, wl, phase, now):
        """A workload forced to a final phase is final (no retries)."""
        current = self.store.get(gvr, *key_of(wl))
        if current is None:
            return
        if phase in ("Succeeded", "Failed") and not finished_workload(current):
            status = current.setdefault("status", {})
            conds = status.setdefault("conditions", [])
            if phase == "Succeeded":
                set_condition(conds, "Complete", "True", now)
            else:
                set_condition(conds, "Failed", "True", now, "BackoffLimitExceeded",
                              "Job has reached the specified backoff limit")
            status["completionTime"] = rfc3339(now)
        pods = world.owned().get(meta_of(wl).get("uid"), [])
        new = self.workloads.workload_state(world, gvr, current, pods, now)
        store_write(self.store, world, gvr, new)


# --- /_sim routes -------------------------------------------------------------

def _tick(controller, body):
    steps = int((body or {}).get("steps", 1)) if isinstance(body or {}, dict) else 1
    if not 0 <= steps <= MAX_TICK_STEPS:
        raise bad_request("steps must be between 0 and %d" % MAX_TICK_STEPS)
    for _ in range(steps):
        controller.step()
    return {"steps": steps, "total": controller.steps, "paused": controller.paused}


def _set_controller(controller, body):
    if body is not None:
        if not isinstance(body, dict):
            raise bad_request('expected {"paused": true|false}')
        if "paused" in body:
            if not isinstance(body["paused"], bool):
                raise bad_request('"paused" must be true or false')
            controller.paused = body["paused"]
            if not controller.paused:
                controller._wake.set()
    return {"paused": controller.paused, "tick": controller.tick, "steps": controller.steps}


def register_sim_routes(sim):
    """POST /_sim/tick, POST /_sim/phase, GET|POST /_sim/controller."""
    def route(handler, method, path, body):
        controller = sim.controller
        path = path.rstrip("/")
        table = {
            ("POST", "/_sim/tick"): lambda: _tick(controller, body),
            ("POST", "/_sim/phase"): lambda: controller.force_phase(body),
            ("POST", "/_sim/controller"): lambda: _set_controller(controller, body),
            ("GET", "/_sim/controller"): lambda: _set_controller(controller, None),
        }
        fn = table.get((method, path))
        if fn is None or controller is None:
            return False
        try:
            result = fn()
        except ApiError as e:
            handler.send_api_error(e)
            return True
        except (TypeError, ValueError) as e:
            handler.send_api_error(bad_request(str(e)))
            return True
        handler.send_json(200, result)
        return True

    if getattr(sim, "sim_routes", None) is None:
        sim.sim_routes = []
    sim.sim_routes.append(route)
