"""Injected faults (kubesim/faults.py): matching, using up, and the count
of requests held in a delay at once that tests read a client's
concurrency from."""

import threading
import unittest

import support  # noqa: F401  (sys.path)
from kubesim.errors import ApiError
from kubesim.faults import FaultInjector


class FaultCounts(unittest.TestCase):
    def test_used_up_after_count_and_only_on_its_prefix(self):
        inj = FaultInjector()
        inj.add({"path_prefix": "/api/v1/nodes", "count": 2, "status": 503})
        self.assertIsNone(inj.take("GET", "/api/v1/pods"))
        self.assertIsNotNone(inj.take("GET", "/api/v1/nodes/n1"))
        self.assertIsNotNone(inj.take("GET", "/api/v1/nodes"))
        self.assertIsNone(inj.take("GET", "/api/v1/nodes"))
        self.assertEqual(inj.list(), [])

    def test_query_matches_only_requests_holding_each_parameter(self):
        inj = FaultInjector()
        inj.add({"path_prefix": "/api/v1/namespaces/a/pods/p/log", "count": 1,
                 "query": {"follow": "true"}, "cut_after_bytes": 10})
        path = "/api/v1/namespaces/a/pods/p/log"
        self.assertIsNone(inj.take("GET", path))
        self.assertIsNone(inj.take("GET", path, {"follow": ["false"]}))
        self.assertEqual(inj.list()[0]["query"], {"follow": "true"})
        self.assertIsNotNone(inj.take("GET", path, {"follow": ["true"], "tailLines": ["5"]}))
        self.assertEqual(inj.list(), [])

    def test_query_must_map_names_to_strings(self):
        with self.assertRaises(ApiError):
            FaultInjector().add({"path_prefix": "/x", "query": {"follow": True}})
        with self.assertRaises(ApiError):
            FaultInjector().add({"path_prefix": "/x", "query": ["follow"]})

    def test_most_waiting_is_the_peak_of_requests_inside_the_delay(self):
        inj = FaultInjector()
        fault = inj.add({"path_prefix": "/x", "count": 10, "delay": 5})
        inside, release = threading.Barrier(4), threading.Event()

        def sleep(_seconds):
            inside.wait()      # the three sleepers are in together ...
            release.wait()     # ... until the test lets them go

        threads = [threading.Thread(target=inj.take("GET", "/x").hold, args=(sleep,))
                   for _ in range(3)]
        for t in threads:
            t.start()
        inside.wait()
        self.assertEqual(fault.waiting, 3)
        release.set()
        for t in threads:
            t.join()
        self.assertEqual(fault.waiting, 0)
        listed = inj.list()[0]
        self.assertEqual(listed["most_waiting"], 3)
        self.assertEqual(listed["count"], 7)
        # one more, alone: the peak stays
        fault.hold(lambda _s: None)
        self.assertEqual(inj.list()[0]["most_waiting"], 3)

    def test_until_ends_the_delay_when_the_awaited_request_comes(self):
        inj = FaultInjector()
        fault = inj.add({"path_prefix": "/a", "delay": 30, "until": "/b"})
        self.assertEqual(inj.list()[0]["until"], "/b")
        held = inj.take("GET", "/a")
        self.assertIs(held, fault)
        slept = []

        def sleep(seconds):
            slept.append(seconds)
            if len(slept) == 3:
                inj.take("GET", "/b/x")    # the awaited request comes

        held.hold(sleep)
        self.assertEqual(len(slept), 3)
        self.assertTrue(all(s <= 0.01 for s in slept))

    def test_until_counts_a_request_that_came_before_the_held_one(self):
        inj = FaultInjector()
        fault = inj.add({"path_prefix": "/a", "delay": 30, "until": "/b"})
        inj.take("GET", "/b")
        inj.take("GET", "/a").hold(lambda _s: self.fail("held although /b came"))
        self.assertTrue(fault.arrived.is_set())

    def test_until_is_a_deadline_when_the_request_never_comes(self):
        inj = FaultInjector()
        inj.add({"path_prefix": "/a", "delay": 0.05, "until": "/b"})
        inj.take("GET", "/c")
        slept = []

        def sleep(seconds):
            slept.append(seconds)
            threading.Event().wait(seconds)

        inj.take("GET", "/a").hold(sleep)
        self.assertGreater(len(slept), 1)
        with self.assertRaises(ApiError):
            inj.add({"path_prefix": "/a", "until": "b"})


if __name__ == "__main__":
    unittest.main()
