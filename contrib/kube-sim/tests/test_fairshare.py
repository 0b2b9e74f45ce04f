"""Run:ai fair share (fairshare.py), rule by rule as FAIRSHARE.md states
them, on a small model cluster that applies each decision the way the
scheduler part does: placed jobs hold GPUs, preempted ones wait again."""

import random
import unittest

import support  # noqa: F401  (sys.path)
from kubesim import fairshare, gpus
from kubesim.objutil import clone
from kubesim.placement import NodeState
from test_scheduler import node, pod

DEMO = {"team-a": 4.0, "team-b": 2.0, "team-c": 2.0, "team-d": 8.0}


class Model:
    """Two 8-GPU nodes (or the given ones), projects, and jobs that move
    between pending and running as the decisions say."""

    def __init__(self, nodes=None, deserved=None):
        self.nodes = nodes or [node("node-1"), node("node-2")]
        self.deserved = dict(DEMO if deserved is None else deserved)
        self.pending = []
        self.running = {}          # key -> Job with bound pods
        self.clock = 0
        self.log = []              # every Decision

    def submit(self, name, project, gpu_count=1, pods=1, kind="train", fraction=None):
        self.clock += 1
        ps = [pod("%s-%d" % (name, i), gpu_count=None if fraction else gpu_count,
                  fraction=fraction, ns="runai-" + project) for i in range(pods)]
        per = fraction if fraction else gpu_count
        job = fairshare.Job(name, project, ps, per * pods, preemptible=kind != "build",
                            priority=fairshare.PRIORITY[kind], created="%06d" % self.clock,
                            name=name)
        self.pending.append(job)
        return job

    def states(self):
        states = {n["metadata"]["name"]: NodeState(n) for n in self.nodes}
        for job in self.running.values():
            for p in job.pods:
                st = states[p["spec"]["nodeName"]]
                whole, frac = gpus.gpu_request(p, st.gpu_memory)
                idx = p["metadata"]["annotations"].get("runai-gpu")
                st.take(whole, frac, int(idx) if idx is not None else None)
        return states

    def step(self):
        d = fairshare.decide(self.states(), self.deserved,
                             list(self.running.values()) + self.pending)
        for victim, _, _ in d.preemptions:
            job = self.running.pop(victim.key)
            for p in job.pods:
                p["spec"].pop("nodeName", None)
                p["metadata"]["annotations"].pop("runai-gpu", None)
            job.running = False
            self.pending.append(job)
        for job, placed in d.placements:
            bound = []
            for p, n, idx in placed:
                p = clone(p)
                p["spec"]["nodeName"] = n
                if idx is not None:
                    p["metadata"]["annotations"]["runai-gpu"] = str(idx)
                bound.append(p)
            job.pods, job.running = bound, True
            self.pending.remove(job)
            self.running[job.key] = job
        self.log.append(d)
        return d

    def settle(self, limit=20):
        """Steps until a step changes nothing; the number of steps taken."""
        for n in range(1, limit + 1):
            d = self.step()
            if not d.placements and not d.preemptions:
                return n
        raise AssertionError("no steady state after %d steps" % limit)

    def alloc(self):
        out = {}
        for job in self.running.values():
            out[job.project] = out.get(job.project, 0) + job.gpus
        return out


class FairShares(unittest.TestCase):
    def test_deserved_first_then_the_rest_by_deserved_ratio(self):
        shares = fairshare.fair_shares(16, DEMO, {"team-a": 12, "team-b": 12})
        self.assertAlmostEqual(shares["team-a"], 4 + 10 * 4 / 6)
        self.assertAlmostEqual(shares["team-b"], 2 + 10 * 2 / 6)
        self.assertEqual((shares["team-c"], shares["team-d"]), (0, 0))

    def test_no_more_than_asked_the_rest_goes_on(self):
        shares = fairshare.fair_shares(16, DEMO, {"team-a": 10, "team-b": 12})
        self.assertAlmostEqual(shares["team-a"], 10)
        self.assertAlmostEqual(shares["team-b"], 6)

    def test_everyone_asking_gets_exactly_the_quota(self):
        shares = fairshare.fair_shares(16, DEMO, {p: 16 for p in DEMO})
        for p, d in DEMO.items():
            self.assertAlmostEqual(shares[p], d)

    def test_projects_without_quota_split_equally(self):
        shares = fairshare.fair_shares(6, {"x": 0, "y": 0}, {"x": 6, "y": 6})
        self.assertEqual(shares, {"x": 3, "y": 3})


class Quota(unittest.TestCase):
    def test_jobs_within_quota_run_at_once(self):
        m = Model()
        for p, d in DEMO.items():
            m.submit(p + "-job", p, int(d))
        d = m.step()
        self.assertEqual(len(d.placements), 4)
        self.assertEqual(m.alloc(), DEMO)
        self.assertEqual(d.preemptions, [])

    def test_idle_gpus_are_lent_over_quota_by_deserved_ratio(self):
        m = Model()
        for i in range(16):
            m.submit("a%d" % i, "team-a")
            m.submit("b%d" % i, "team-b")
        m.settle()
        # fair shares 10.67 and 5.33: whole jobs round the bigger up
        self.assertEqual(m.alloc(), {"team-a": 11, "team-b": 5})
        self.assertFalse(any(d.preemptions for d in m.log))

    def test_one_project_alone_may_use_the_whole_cluster(self):
        m = Model()
        for i in range(3):
            m.submit("big%d" % i, "team-a", 8)
        m.settle()
        self.assertEqual(m.alloc(), {"team-a": 16})
        self.assertEqual([j.name for j in m.pending], ["big2"])


class Preemption(unittest.TestCase):
    def over_quota_ab(self):
        m = Model()
        for i in range(10):
            m.submit("a%d" % i, "team-a")
        for i in range(6):
            m.submit("b%d" % i, "team-b")
        m.settle()
        self.assertEqual(m.alloc(), {"team-a": 10, "team-b": 6})
        return m

    def test_an_under_quota_project_reclaims_from_those_over_their_share(self):
        m = self.over_quota_ab()
        for i in range(8):
            m.submit("d%d" % i, "team-d")
        d = m.step()
        self.assertEqual(len(d.preemptions), 8)
        self.assertEqual(m.alloc(), {"team-a": 5, "team-b": 3, "team-d": 8})
        victim, by, why = d.preemptions[0]
        self.assertEqual((victim.project, by.project), ("team-a", "team-d"))
        self.assertRegex(why, r"^Preempted by project team-d to reclaim its fair share of GPUs "
                              r"for d0: project team-a had 10 GPUs allocated, over its fair "
                              r"share of 5\.3333 \(deserved 4\)$")
        # the preempted wait: nobody is under its share with room for a job
        self.assertEqual(m.settle(), 1)
        self.assertEqual(m.alloc(), {"team-a": 5, "team-b": 3, "team-d": 8})

    def test_everyone_asking_ends_exactly_at_quota(self):
        m = self.over_quota_ab()
        for i in range(8):
            m.submit("d%d" % i, "team-d")
        m.submit("c0", "team-c", 2)
        m.settle()
        self.assertEqual(m.alloc(), {"team-a": 4, "team-b": 2, "team-c": 2, "team-d": 8})

    def test_no_reclaim_beyond_the_askers_fair_share(self):
        m = self.over_quota_ab()
        m.submit("b-more", "team-b")
        d = m.step()
        self.assertEqual((d.preemptions, d.placements), ([], []))
        self.assertEqual(d.waiting[0][1],
                         "Project team-b would go over its fair share: 6 GPUs allocated and "
                         "1 requested, fair share 6 (deserved 2); no GPUs are taken back for "
                         "it. 0/2 nodes are available: 2 Insufficient nvidia.com/gpu. Most "
                         "free GPUs on one node: 0 (node-1); a pod requests 1.")

    def test_the_lowest_priority_and_newest_go_first(self):
        m = Model()
        m.submit("old", "team-a", 6)
        m.submit("ip", "team-a", 2, kind="interactive-preemptible")
        m.submit("new", "team-a", 6)
        m.settle()
        m.submit("d", "team-d", 6)
        d = m.step()
        self.assertEqual([v.name for v, _, _ in d.preemptions], ["new"])

    def test_only_what_is_needed_is_preempted(self):
        # a 1-GPU job on node-1 and 7 on node-2; team-d asks a 7-GPU job
        m = Model()
        m.submit("small", "team-a", 1)
        m.submit("n1", "team-a", 7)
        m.submit("n2", "team-a", 8)
        m.settle()
        m.submit("d", "team-d", 7)
        d = m.step()
        self.assertEqual([v.name for v, _, _ in d.preemptions], ["n2"])


class Interactive(unittest.TestCase):
    def test_interactive_work_stays_within_quota(self):
        m = Model()
        m.submit("i1", "team-b", 2, kind="build")
        m.submit("i2", "team-b", 1, kind="build")
        m.submit("t1", "team-b", 1)
        d = m.step()
        self.assertEqual(sorted(j.name for j, _ in d.placements), ["i1", "t1"])
        self.assertEqual(d.waiting[0][1],
                         "Non-preemptible workload is over quota: project team-b has 2 "
                         "deserved GPUs, 2 allocated, and the workload requests 1 more")

    def test_interactive_work_is_never_preempted(self):
        m = Model()
        for i in range(8):
            m.submit("ai%d" % i, "team-a", kind="build" if i < 4 else "train")
        m.submit("big", "team-a", 8)
        m.settle()
        m.submit("d", "team-d", 8)
        d = m.step()
        self.assertTrue(d.preemptions)
        self.assertTrue(all(v.preemptible for v, _, _ in d.preemptions))
        names = {j.name for j in m.running.values()}
        self.assertLessEqual({"ai0", "ai1", "ai2", "ai3", "d"}, names)

    def test_interactive_within_quota_reclaims(self):
        m = Model()
        m.submit("a-all", "team-a", 8, pods=2)
        m.settle()
        m.submit("c-int", "team-c", 1, kind="build")
        d = m.step()
        self.assertEqual([v.name for v, _, _ in d.preemptions], ["a-all"])
        self.assertIn("c-int", {j.name for j in m.running.values()})


class Fractions(unittest.TestCase):
    def test_fractions_are_packed_on_shared_gpus(self):
        m = Model(nodes=[node("node-1", gpu_count=2)])
        for i in range(4):
            m.submit("f%d" % i, "team-a", fraction=0.5)
        m.submit("whole", "team-a", 1)
        d = m.step()
        idx = sorted(p["metadata"]["annotations"]["runai-gpu"]
                     for j in m.running.values() for p in j.pods if j.name.startswith("f"))
        self.assertEqual(idx, ["0", "0", "1", "1"])
        self.assertEqual([j.name for j, _ in d.waiting], ["whole"])
        self.assertEqual(m.alloc(), {"team-a": 2})

    def test_a_fraction_reclaims_a_shared_gpu(self):
        m = Model(nodes=[node("node-1", gpu_count=1)], deserved={"team-a": 0.5, "team-b": 0.5})
        m.submit("a1", "team-a", fraction=0.5)
        m.submit("a2", "team-a", fraction=0.5)
        m.settle()
        m.submit("b1", "team-b", fraction=0.5)
        d = m.step()
        self.assertEqual([v.name for v, _, _ in d.preemptions], ["a2"])
        self.assertEqual(m.alloc(), {"team-a": 0.5, "team-b": 0.5})


class Gangs(unittest.TestCase):
    def test_a_gang_runs_all_or_nothing(self):
        m = Model(nodes=[node("node-1", gpu_count=4)])
        m.submit("trio", "team-a", 2, pods=3)
        m.submit("pair", "team-a", 2, pods=2)
        d = m.step()
        self.assertEqual([j.name for j, _ in d.placements], ["pair"])
        self.assertEqual(d.waiting[0][0].name, "trio")
        self.assertEqual(d.waiting[0][1],
                         "Project team-a would go over its fair share: 0 GPUs allocated and "
                         "6 requested, fair share 4 (deserved 4); no GPUs are taken back for "
                         "it. Gang of 3 pods: room for 2 now, and all must start together. "
                         "0/1 nodes are available: 1 Insufficient nvidia.com/gpu. Most free "
                         "GPUs on one node: 4 (node-1); a pod requests 2.")

    def test_a_gang_reclaims_for_all_its_pods_or_none(self):
        m = Model()
        for i in range(16):
            m.submit("a%d" % i, "team-a")
        m.settle()
        m.submit("dist", "team-d", 4, pods=2)
        d = m.step()
        self.assertEqual(len(d.preemptions), 8)
        self.assertEqual(m.alloc(), {"team-a": 8, "team-d": 8})
        # a gang bigger than the asker's share preempts nothing
        m.submit("huge", "team-c", 2, pods=2)
        d = m.step()
        self.assertEqual(d.preemptions, [])


class WhyWaiting(unittest.TestCase):
    """What a waiting job is told carries the numbers a client turns into
    its reason: the fair share, the gang's room, the most free GPUs."""

    def test_within_its_share_the_nodes_and_the_most_free_gpus(self):
        m = Model()
        m.submit("a", "team-a", 6)
        m.submit("b", "team-b", 6)
        m.settle()
        m.submit("d", "team-d", 3)
        d = m.step()
        self.assertEqual(d.preemptions, [])
        self.assertEqual(d.waiting[0][1], "0/2 nodes are available: 2 Insufficient "
                         "nvidia.com/gpu. Most free GPUs on one node: 2 (node-1); a pod "
                         "requests 3.")

    def test_a_gang_says_how_many_of_its_pods_have_room(self):
        m = Model()
        m.submit("a", "team-a", 5)
        m.submit("b", "team-b", 5)
        m.settle()
        m.submit("gang", "team-d", 2, pods=3)
        d = m.step()
        self.assertEqual(d.preemptions, [])
        self.assertEqual(d.waiting[0][1], "Gang of 3 pods: room for 2 now, and all must "
                         "start together. 0/2 nodes are available: 2 Insufficient "
                         "nvidia.com/gpu. Most free GPUs on one node: 3 (node-1); a pod "
                         "requests 2.")

    def test_no_most_free_gpus_where_no_node_lacks_gpus(self):
        m = Model(nodes=[node("node-1", gpu_count=2)])
        m.nodes[0]["spec"]["unschedulable"] = True
        m.submit("a", "team-a", 1)
        d = m.step()
        self.assertEqual(d.waiting[0][1],
                         "0/1 nodes are available: 1 node(s) were unschedulable.")


class Scale(unittest.TestCase):
    def test_a_job_that_cannot_fit_anyway_preempts_nothing_quickly(self):
        # /_sim/bulk seeds thousands of running 1-GPU jobs on two nodes
        m = Model()
        for i in range(1000):
            job = m.submit("bulk%d" % i, "team-a")
            job.pods[0]["spec"]["nodeName"] = "node-%d" % (1 + i % 2)
            job.running = True
            m.running[job.key] = job
        m.pending = []
        m.submit("nine", "team-d", 9)
        d = m.step()
        self.assertEqual(d.preemptions, [])
        self.assertEqual(d.waiting[0][1], "0/2 nodes are available: 2 Insufficient "
                         "nvidia.com/gpu. Most free GPUs on one node: 0 (node-1); a pod "
                         "requests 9.")
        # one that fits once enough of them go (victims taken newest first,
        # from both nodes): found in one pass
        m.submit("two", "team-d", 2)
        d = m.step()
        self.assertGreaterEqual(len(d.preemptions), 494)  # node-1 down to 6 of 8
        self.assertIn("two", {j.name for j in m.running.values()})


class SteadyState(unittest.TestCase):
    def test_many_submissions_settle_at_the_fair_shares(self):
        rnd = random.Random(18)
        m = Model()
        for n in range(200):
            project = rnd.choice(sorted(DEMO))
            m.submit("j%d" % n, project, rnd.choice((1, 1, 2)))
            if n % 10 == 9:
                m.step()
        steps = m.settle(limit=30)
        self.assertLessEqual(steps, 30)
        # every project asks for more than the cluster: each ends at its quota
        self.assertEqual(m.alloc(), DEMO)
        before = len(m.running)
        self.assertEqual(m.settle(), 1)
        self.assertEqual(len(m.running), before)


if __name__ == "__main__":
    unittest.main()
