"""Run:ai fair share, pure: in which order waiting jobs are tried, which
may borrow idle GPUs over quota, and which running jobs are preempted so
that a project under its fair share gets its GPUs back.

The rules are in FAIRSHARE.md beside this package; the tests in
tests/test_fairshare.py follow them one by one. Inputs are node states
(placement.py), the projects' deserved GPUs and the jobs, pending and
running; the answer is a `Decision` (placements, preemptions, and why
the rest waits). Nothing is written here: the scheduler part
(scheduler.py) applies the decision, so every rule can be tested
without a server, and a whole cluster's life in a loop.
"""

from kubesim.gpus import EPS, GPU, fmt_gpus, gpu_request
from kubesim.placement import copy_states, most_free, place, release

# Run:ai's priority classes, as runai submit labels the workload
# (priorityClassName); training work has none.
PRIORITY = {"build": 100, "interactive-preemptible": 75, "train": 50}


class Job:
    """One gang: the pods of one workload that wait for a node together
    (pending) or hold GPUs (running). `project` is None for work outside
    fair share (no Project object): placed first come, first served,
    never preempted. Only `owned` running jobs (pods of a workload, which
    makes them again) are preempted."""

    def __init__(self, key, project, pods, gpus, preemptible=True, priority=50, created="",
                 running=False, owned=True, name=None):
        self.key = key
        self.project = project
        self.pods = pods
        self.gpus = gpus
        self.preemptible = preemptible
        self.priority = priority
        self.created = created
        self.running = running
        self.owned = owned
        self.name = name or str(key)

    def __repr__(self):
        return "Job(%s, %s, %s)" % (self.name, self.project, fmt_gpus(self.gpus))


class Decision:
    """What one scheduling pass decided: `placements` [(job, [(pod, node,
    gpu index)])], `preemptions` [(victim, reclaiming job, why)], `waiting`
    [(job, why)], and the fair `shares` and `allocated` GPUs it ended
    with, per project."""

    def __init__(self):
        self.placements = []
        self.preemptions = []
        self.waiting = []
        self.shares = {}
        self.allocated = {}


def fair_shares(capacity, deserved, demand):
    """project -> fair share of `capacity` GPUs. Each project first gets
    its deserved GPUs (no more than it asks for); what is left is split
    among the projects that ask for more, in proportion to their deserved
    GPUs (equally when none of them deserves any), again no more than
    each asks for, until nothing is left or nobody asks."""
    share = {p: min(deserved.get(p, 0.0), demand.get(p, 0.0)) for p in deserved}
    left = capacity - sum(share.values())
    while left > EPS:
        hungry = [p for p in share if demand.get(p, 0.0) - share[p] > EPS]
        if not hungry:
            break
        weights = {p: deserved.get(p, 0.0) for p in hungry}
        total = sum(weights.values())
        if total <= EPS:
            weights, total = {p: 1.0 for p in hungry}, float(len(hungry))
        given = 0.0
        for p in hungry:
            more = min(demand[p] - share[p], left * weights[p] / total)
            share[p] += more
            given += more
        left -= given
        if given <= EPS:
            break
    return share


def _place_all(pods, states):
    """A gang on `states` (changed only when all its pods fit)."""
    trial = copy_states(states)
    placed = []
    for pod in pods:
        node, idx, why = place(pod, trial)
        if node is None:
            return None, why
        placed.append((pod, node, idx))
    states.update(trial)
    return placed, None


def _gang_room(pods, states):
    """How many of a gang's pods the nodes have room for, each placed in
    turn on a trial copy (one that does not fit is skipped)."""
    trial = copy_states(states)
    return sum(1 for pod in pods if place(pod, trial)[0] is not None)


def _fits(pods, states, freed):
    trial = copy_states(states)
    for victim in freed:
        for pod in victim.pods:
            release(pod, trial)
    return _place_all(pods, trial)[0] is not None


class _Pass:
    """One decision's working state."""

    def __init__(self, states, deserved, jobs):
        self.states = copy_states(states)
        self.deserved = {p: (d or 0.0) for p, d in deserved.items()}
        self.running = [j for j in jobs if j.running]
        self.pending = [j for j in jobs if not j.running]
        self.alloc = {p: 0.0 for p in self.deserved}
        self.nonpre = {p: 0.0 for p in self.deserved}
        outside = 0.0
        for j in self.running:
            if j.project in self.alloc:
                self.alloc[j.project] += j.gpus
                if not j.preemptible:
                    self.nonpre[j.project] += j.gpus
            else:
                outside += j.gpus
        capacity = sum(s.gpus for s in self.states.values() if s.usable()) - outside
        demand = dict(self.alloc)
        room = {p: self.deserved[p] - self.nonpre[p] for p in self.deserved}
        for j in sorted(self.pending, key=self.job_order):
            if j.project not in demand:
                continue
            if not j.preemptible:
                if j.gpus > room[j.project] + EPS:
                    continue  # over quota: it will not run, it claims nothing
                room[j.project] -= j.gpus
            demand[j.project] += j.gpus
        demand = {p: min(d, max(capacity, 0.0)) for p, d in demand.items()}
        self.shares = fair_shares(max(capacity, 0.0), self.deserved, demand)
        self.decision = Decision()

    @staticmethod
    def job_order(job):
        """Within a project: higher priority first, then the older."""
        return (-job.priority, job.created, str(job.key))

    def project_order(self, project):
        """Outside work first; then the project furthest below its
        deserved GPUs (allocated/deserved), those at or over it last."""
        if project is None:
            return (0, 0, 0.0, "")
        d, a = self.deserved.get(project, 0.0), self.alloc.get(project, 0.0)
        return (1, a >= d - EPS, a / d if d > EPS else float("inf"), project)

    def run(self):
        queues = {}
        for j in sorted(self.pending, key=self.job_order):
            p = j.project if j.project in self.deserved else None
            queues.setdefault(p, []).append(j)
        if None in queues:  # first come, first served
            queues[None].sort(key=lambda j: (j.created, str(j.key)))
        while queues:
            p = min(queues, key=self.project_order)
            job = queues[p].pop(0)
            if not queues[p]:
                del queues[p]
            self.try_job(job, p)
        self.decision.shares = self.shares
        self.decision.allocated = self.alloc
        return self.decision

    def try_job(self, job, p):
        if p is not None and not job.preemptible and \
                self.nonpre[p] + job.gpus > self.deserved[p] + EPS:
            self.decision.waiting.append((job, (
                "Non-preemptible workload is over quota: project %s has %s deserved GPUs, "
                "%s allocated, and the workload requests %s more"
                % (p, fmt_gpus(self.deserved[p]), fmt_gpus(self.nonpre[p]),
                   fmt_gpus(job.gpus)))))
            return
        placed, why = _place_all(job.pods, self.states)
        if placed is None and p is not None and job.gpus > EPS and \
                self.alloc[p] + job.gpus <= self.shares[p] + EPS:
            victims = self.victims_for(job, p)
            if victims:
                self.preempt(victims, job)
                placed, why = _place_all(job.pods, self.states)
        if placed is None:
            self.decision.waiting.append((job, self.why_waiting(job, p, why)))
            return
        self.decision.placements.append((job, placed))
        if p is not None:
            self.alloc[p] += job.gpus
            if not job.preemptible:
                self.nonpre[p] += job.gpus

    def why_waiting(self, job, p, nodes_why):
        """The scheduler's words for a job that does not fit, with the
        numbers: its project over its fair share (so nothing is taken
        back for it), a gang with room for only some of its pods, kube's
        per-node summary, and the most GPUs one node has free for it."""
        said, short = [], "Insufficient " + GPU in nodes_why
        # taking GPUs back helps only a job that lacks GPUs
        if short and p is not None and job.gpus > EPS and \
                self.alloc[p] + job.gpus > self.shares[p] + EPS:
            said.append("Project %s would go over its fair share: %s GPUs allocated and %s "
                        "requested, fair share %s (deserved %s); no GPUs are taken back "
                        "for it." % (p, fmt_gpus(self.alloc[p]), fmt_gpus(job.gpus),
                                     fmt_gpus(self.shares[p]), fmt_gpus(self.deserved[p])))
        if len(job.pods) > 1:
            said.append("Gang of %d pods: room for %d now, and all must start together."
                        % (len(job.pods), _gang_room(job.pods, self.states)))
        said.append(nodes_why)
        free = most_free(job.pods[0], self.states) if short else None
        if free is not None:
            whole, frac = gpu_request(job.pods[0])
            said.append("Most free GPUs on one node: %s (%s); a pod requests %s."
                        % (fmt_gpus(free[0]), free[1], fmt_gpus(whole or frac)))
        return " ".join(said)

    def over(self, project, alloc):
        return alloc[project] - self.shares.get(project, 0.0)

    def victims_for(self, job, p):
        """Running preemptible jobs of projects over their fair share,
        taken from the project most over it first (within it the lowest
        priority, then the newest), until `job` fits; then those it did
        not need are given back. [] when it cannot fit even so."""
        alloc = dict(self.alloc)
        cands = [r for r in self.running if r.preemptible and r.owned and
                 r.project in self.deserved and r.project != p and
                 self.over(r.project, alloc) > EPS]
        if not cands or not _fits(job.pods, self.states, cands):
            return []  # not even with all of them gone: spare the search
        queues = {}
        cands.sort(key=lambda r: (r.created, str(r.key)), reverse=True)   # newest first
        for r in sorted(cands, key=lambda r: r.priority):                 # stable
            queues.setdefault(r.project, []).append(r)
        freed = copy_states(self.states)
        chosen = []
        while True:
            over = [q for q in queues if queues[q] and self.over(q, alloc) > EPS]
            if not over:
                return []
            q = max(over, key=lambda q: (self.over(q, alloc), -queues[q][0].priority,
                                         queues[q][0].created, str(queues[q][0].key)))
            r = queues[q].pop(0)
            chosen.append(r)
            alloc[q] -= r.gpus
            for pod in r.pods:
                release(pod, freed)
            if _place_all(job.pods, dict(freed))[0] is not None:
                break
        if len(chosen) <= 64:  # more only where bulk-seeded nodes are overcommitted
            for r in list(reversed(chosen[:-1])):
                rest = [c for c in chosen if c is not r]
                if _fits(job.pods, self.states, rest):
                    chosen = rest
        return chosen

    def preempt(self, victims, job):
        for r in victims:
            q = r.project
            why = ("Preempted by project %s to reclaim its fair share of GPUs for %s: project "
                   "%s had %s GPUs allocated, over its fair share of %s (deserved %s)"
                   % (job.project, job.name, q, fmt_gpus(self.alloc[q]),
                      fmt_gpus(self.shares[q]), fmt_gpus(self.deserved[q])))
            self.decision.preemptions.append((r, job, why))
            for pod in r.pods:
                release(pod, self.states)
            self.alloc[q] -= r.gpus
            self.running.remove(r)


def decide(states, deserved, jobs):
    """One scheduling pass. `states`: node name -> NodeState with the
    GPUs of the running pods taken (not changed here); `deserved`:
    project -> deserved GPUs (the projects under fair share); `jobs`:
    running and pending `Job`s. Returns a `Decision`."""
    return _Pass(states, deserved, jobs).run()
