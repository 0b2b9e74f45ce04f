"""Why a job waits, as the emulator tells it outside the scheduler's
messages (test_fairshare.py has those): the most free GPUs one node has
for a pod, the images kubelet cannot pull, and the control plane's
phaseMessage, phaseReason and conditions per release."""

import unittest

import support  # noqa: F401  (sys.path)
from kubesim import kubelet
from kubesim.controlplane import why
from kubesim.objutil import PREEMPTED
from kubesim.placement import NodeState, most_free
from test_scheduler import node, pod


class MostFree(unittest.TestCase):
    def states(self, *nodes):
        return {n["metadata"]["name"]: NodeState(n) for n in nodes}

    def test_whole_gpus_on_the_nodes_that_take_the_pod(self):
        st = self.states(node("n1", gpu_count=8), node("n2", gpu_count=8),
                         node("n3", gpu_count=8, unschedulable=True))
        st["n1"].take(6, 0)
        st["n2"].take(3, 0)
        self.assertEqual(most_free(pod("p", gpu_count=6), st), (5.0, "n2"))

    def test_a_fraction_counts_the_room_on_a_shared_gpu(self):
        st = self.states(node("n1", gpu_count=1))
        st["n1"].take(0, 0.7)
        free, name = most_free(pod("p", fraction=0.5), st)
        self.assertAlmostEqual(free, 0.3)
        self.assertEqual(name, "n1")

    def test_none_for_a_pod_without_gpus_or_no_node_at_all(self):
        st = self.states(node("n1", unschedulable=True))
        self.assertIsNone(most_free(pod("p", gpu_count=1), st))
        self.assertIsNone(most_free(pod("p"), self.states(node("n1"))))


class ImagePull(unittest.TestCase):
    def test_only_registries_under_invalid(self):
        self.assertTrue(kubelet.unpullable("registry.invalid/nope:1"))
        self.assertTrue(kubelet.unpullable("x.invalid:5000/a/b@sha256:00"))
        self.assertFalse(kubelet.unpullable("ubuntu"))
        self.assertFalse(kubelet.unpullable("invalid/ubuntu"))
        self.assertFalse(kubelet.unpullable("registry.example.com/invalid:1"))

    def test_err_image_pull_then_back_off(self):
        c = {"name": "c", "image": "registry.invalid/nope:1"}
        first = kubelet.pull_failing_status(c, False)["state"]["waiting"]
        self.assertEqual(first["reason"], "ErrImagePull")
        self.assertIn("lookup registry.invalid: no such host", first["message"])
        later = kubelet.pull_failing_status(c, True)["state"]["waiting"]
        self.assertEqual(later, {"reason": "ImagePullBackOff",
                                 "message": 'Back-off pulling image "registry.invalid/nope:1"'})


class FakeWorkload:
    name = "w"


class FakeState:
    def __init__(self, job=None, pods=(), events=()):
        self.job, self._pods, self._events = job, list(pods), list(events)

    def kube_object(self, wl):
        return self.job

    def pods(self, wl):
        return self._pods

    def events(self, wl):
        return self._events


OVER = ("Non-preemptible workload is over quota: project team-c has 2 deserved GPUs, "
        "2 allocated, and the workload requests 3 more")


def waiting(message):
    p = pod("w-0")
    p["status"]["conditions"] = [{"type": "PodScheduled", "status": "False",
                                  "reason": "Unschedulable", "message": message,
                                  "lastTransitionTime": "2024-03-01T10:00:00Z"}]
    return p


class ControlPlane(unittest.TestCase):
    def fields(self, version, state, phase, detailed=False):
        return why.fields(state, {"version": version}, FakeWorkload(), phase, detailed)

    def test_waiting_over_quota_per_release(self):
        st = FakeState(job={"metadata": {}}, pods=[waiting(OVER)])
        cond = {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                "message": OVER, "lastTransitionTime": "2024-03-01T10:00:00Z"}
        self.assertEqual(self.fields("2.18", st, "Pending", True),
                         {"phaseMessage": OVER, "conditions": [cond]})
        self.assertEqual(self.fields("2.24", st, "Pending", True), {
            "phaseMessage": OVER, "conditions": [cond],
            "phaseReason": "NonPreemptibleOverQuota",
            "pendingSchedulingMessages": [{"nodePool": "default",
                                           "phaseReason": "NonPreemptibleOverQuota",
                                           "reason": OVER}]})
        # another reason has no phaseReason of the release's enum
        other = self.fields("2.24", FakeState(job={}, pods=[waiting("0/2 nodes ...")]),
                            "Pending", True)
        self.assertNotIn("phaseReason", other)
        self.assertEqual(other["pendingSchedulingMessages"], [])

    def test_preempted_says_by_whom_and_when(self):
        job = {"metadata": {"annotations": {PREEMPTED: "team-d"}}}
        ev = [{"reason": "Preempted", "involvedObject": {"name": "w"}, "message": "old",
               "lastTimestamp": "2024-03-01T09:00:00Z"},
              {"reason": "Preempted", "involvedObject": {"name": "w"},
               "message": "Preempted by project team-d ...",
               "lastTimestamp": "2024-03-01T10:02:11Z"},
              {"reason": "Preempted", "involvedObject": {"name": "w-0"}, "message": "pod's",
               "lastTimestamp": "2024-03-01T10:03:00Z"}]
        out = self.fields("2.21", FakeState(job=job, pods=[waiting("0/2")], events=ev),
                          "Pending")
        self.assertEqual(out["phaseMessage"], "Preempted by project team-d ...")
        self.assertEqual(out["conditions"][0], {
            "type": "Preempted", "status": "True", "reason": "Preempted",
            "message": "Preempted by project team-d ...",
            "lastTransitionTime": "2024-03-01T10:02:11Z"})
        self.assertEqual(out["conditions"][1]["type"], "PodScheduled")

    def test_failed_names_the_newest_failed_containers_exit(self):
        def failed(name, created, code):
            p = pod(name, phase="Failed")
            p["metadata"]["creationTimestamp"] = created
            p["status"]["containerStatuses"] = [
                {"name": "c", "state": {"terminated": {"exitCode": code, "reason": "Error"}}}]
            return p
        job = {"status": {"conditions": [{"type": "Failed", "status": "True",
                                          "reason": "BackoffLimitExceeded",
                                          "message": "limit"}]}}
        st = FakeState(job=job, pods=[failed("w-a", "2024-03-01T10:00:00Z", 1),
                                      failed("w-c", "2024-03-01T10:01:00Z", 3),
                                      failed("w-b", "2024-03-01T10:01:00Z", 2)])
        out = self.fields("2.24", st, "Failed")
        self.assertEqual(out["phaseMessage"], "Pod w-c: container c exited with code 3 (Error)")
        self.assertEqual(out["conditions"], [{"type": "Failed", "status": "True",
                                              "reason": "BackoffLimitExceeded",
                                              "message": "limit"}])

    def test_an_image_that_cannot_be_pulled(self):
        p = pod("w-0", node_name="node-1")
        p["status"]["containerStatuses"] = [kubelet.pull_failing_status(
            {"name": "c", "image": "registry.invalid/x"}, True)]
        out = self.fields("2.24", FakeState(job={}, pods=[p]), "Initializing")
        self.assertEqual(out["conditions"], [{
            "type": "ContainersReady", "status": "False", "reason": "ImagePullBackOff",
            "message": 'Back-off pulling image "registry.invalid/x"'}])

    def test_running_has_nothing_to_say(self):
        self.assertEqual(self.fields("2.24", FakeState(job={}), "Running", True),
                         {"conditions": [], "pendingSchedulingMessages": []})


if __name__ == "__main__":
    unittest.main()
