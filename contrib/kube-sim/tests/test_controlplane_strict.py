"""The emulated control plane as a server that validates: a request that
breaks the release's document is refused with 400 and its violations
(404 for a path the document lacks) and never acted on, unless the
`validate` setting makes the judge only record; and the settings that
make it a harder server for runai: filterBy ignored, opaque access
tokens, lists that never end, a create answer without its name."""

import json
import tempfile
import unittest

from test_controlplane import Client, FakeSim
import support  # noqa: F401  (sys.path)
from kubesim.controlplane import server as cpserver
from kubesim.objutil import RUNAIJOBS


class StrictCase:
    VERSION = None

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.sim = FakeSim(self.dir.name)
        self.cp = cpserver.ControlPlane(self.sim, self.VERSION, self.dir.name)
        self.c = Client(self.cp.start("127.0.0.1"))
        creds = self.cp.identity.creds
        status, body = self.c.call("POST", "/api/v1/token", {
            "grantType": "password", "clientID": "runai-cli",
            "username": creds["username"], "password": creds["password"]})
        self.assertEqual(status, 200, body)
        self.c.token = body["accessToken"]
        self.cluster = self.c.call("GET", "/api/v1/clusters")[1][0]["uuid"]

    def tearDown(self):
        self.cp.stop()
        self.dir.cleanup()

    def training(self, name, **spec):
        return {"name": name, "projectId": "1", "clusterId": self.cluster,
                "spec": dict({"image": "ubuntu"}, **spec)}

    def test_an_invalid_body_is_refused_and_nothing_is_made(self):
        status, body = self.c.call("POST", "/api/v1/workloads/trainings", self.training(
            "bad1", bogus=1, compute={"gpuDevicesRequest": 1, "gpuRequestType": "banana"}))
        self.assertEqual(status, 400)
        self.assertEqual(body["code"], 400)
        self.assertIn("does not fit the %s API" % self.VERSION, body["message"])
        self.assertIn("'bogus' was unexpected", body["details"])
        self.assertIn("banana", body["details"])
        self.assertIsNone(self.sim.store.get(RUNAIJOBS, "runai-team-a", "bad1"))

    def test_an_invalid_query_and_an_unknown_path(self):
        status, body = self.c.call("GET", "/api/v1/workloads?filterBy=bogus==x")
        self.assertEqual(status, 400)
        self.assertIn("filterBy", body["details"])
        self.assertEqual(self.c.call("GET", "/api/v1/nosuch")[0], 404)

    def test_log_only_acts_on_what_it_records(self):
        self.cp.settings({"validate": False})
        status, _ = self.c.call("POST", "/api/v1/workloads/trainings",
                                self.training("lax1", bogus=1))
        self.assertIn(status, (200, 202))
        with open(self.cp.judge.path) as f:
            seen = [json.loads(line) for line in f]
        self.assertTrue(any(v["direction"] == "request" and "bogus" in v["violation"]
                            for v in seen), seen)
        self.assertTrue(self.cp.settings({"validate": True})["validate"])

    def test_filter_ignored(self):
        for name in ("a1", "a2"):
            self.assertIn(self.c.call("POST", "/api/v1/workloads/trainings",
                                      self.training(name))[0], (200, 202))
        q = "/api/v1/workloads?filterBy=name==a1"
        self.assertEqual(len(self.c.call("GET", q)[1]["workloads"]), 1)
        self.cp.settings({"ignoreFilterBy": True})
        self.assertEqual(len(self.c.call("GET", q)[1]["workloads"]), 2)

    def test_opaque_tokens(self):
        self.cp.settings({"opaqueTokens": True, "expiresIn": True, "tokenTtl": 60})
        creds = self.cp.identity.creds
        status, body = self.c.call("POST", "/api/v1/token", {
            "grantType": "password", "clientID": "runai-cli",
            "username": creds["username"], "password": creds["password"]})
        self.assertEqual(status, 200)
        self.assertTrue(body["accessToken"].startswith("at-"))
        self.assertNotIn(".", body["accessToken"])
        self.assertEqual(body["expiresIn"], 60)
        self.c.token = body["accessToken"]
        self.assertEqual(self.c.call("GET", "/api/v1/clusters")[0], 200)
        self.c.token = "at-forged"
        self.assertEqual(self.c.call("GET", "/api/v1/clusters")[0], 401)

    def test_lists_that_never_end(self):
        self.cp.settings({"paging": "repeat"})
        first = self.c.call("GET", "/api/v1/org-unit/projects?offset=0&limit=1")[1]
        again = self.c.call("GET", "/api/v1/org-unit/projects?offset=1&limit=1")[1]
        self.assertEqual(first["projects"], again["projects"])
        self.assertEqual((first["next"], again["next"]), (1, 2))
        self.cp.settings({"paging": "stuck"})
        page = self.c.call("GET", "/api/v1/org-unit/projects?offset=1&limit=1")[1]
        self.assertEqual(page["next"], 1)

    def test_a_create_answer_without_its_name(self):
        self.cp.settings({"createName": "null"})
        body = self.c.call("POST", "/api/v1/workloads/trainings", self.training("n1"))[1]
        self.assertIsNone(body["name"])
        self.cp.settings({"createName": "absent"})
        body = self.c.call("POST", "/api/v1/workloads/trainings", self.training("n2"))[1]
        self.assertNotIn("name", body)
        self.assertIn("workloadId", body)


class Strict218(StrictCase, unittest.TestCase):
    VERSION = "2.18"


class Strict224(StrictCase, unittest.TestCase):
    VERSION = "2.24"


if __name__ == "__main__":
    unittest.main()
