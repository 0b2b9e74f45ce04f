"""Lists joined from each object's cached serialisation (store.encoded,
api._list_json) are byte for byte what serialising the whole List gives,
and follow every write: update, delete, a built-in kind (no apiVersion or
kind in its items) and a custom one."""

import json
import unittest

import support  # noqa: F401  (sys.path)
from kubesim import api, demo
from kubesim.objutil import CONFIGMAPS, RUNAIJOBS
from kubesim.resources import Registry
from kubesim.store import Store


def whole(res, objs, meta):
    body = {"kind": res.list_kind, "apiVersion": res.api_version, "metadata": meta,
            "items": [api._item(res, o) for o in objs]}
    return json.dumps(body, separators=(",", ":")).encode("utf-8") + b"\n"


class ListCache(unittest.TestCase):
    def setUp(self):
        self.store = Store(Registry())
        demo.install_base(self.store)
        demo.install_demo(self.store)

    def check(self, gvr, ns):
        res = self.store.registry.known(gvr)
        objs = self.store.select(gvr, ns)
        meta = {"resourceVersion": str(self.store.current_rv())}
        got = b"".join(api._list_json(self.store, res, objs, meta))
        self.assertEqual(got, whole(res, objs, meta))
        return json.loads(got)

    def cm(self, name, value):
        return {"metadata": {"name": name}, "data": {"k": value}}

    def test_built_in_kind_follows_updates_and_deletes(self):
        self.store.create(CONFIGMAPS, "runai-team-a", self.cm("one", "ü"))
        self.store.create(CONFIGMAPS, "runai-team-a", self.cm("two", "b"))
        first = self.check(CONFIGMAPS, "runai-team-a")
        self.assertNotIn("kind", first["items"][0])
        self.check(CONFIGMAPS, "runai-team-a")           # from the cache
        self.store.update(CONFIGMAPS, "runai-team-a", self.cm("one", "changed"))
        items = self.check(CONFIGMAPS, "runai-team-a")["items"]
        self.assertEqual([i["data"]["k"] for i in items
                          if i["metadata"]["name"] == "one"], ["changed"])
        self.store.delete(CONFIGMAPS, "runai-team-a", "two")
        names = [i["metadata"]["name"] for i in self.check(CONFIGMAPS, "runai-team-a")["items"]]
        self.assertNotIn("two", names)
        self.assertIn("one", names)

    def test_custom_kind_keeps_kind_and_empty_list(self):
        self.check(RUNAIJOBS, "runai-team-b")
        job = {"apiVersion": "run.ai/v1", "kind": "RunaiJob",
               "metadata": {"name": "j1"},
               "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x"}]}}}}
        self.store.create(RUNAIJOBS, "runai-team-b", job)
        items = self.check(RUNAIJOBS, "runai-team-b")["items"]
        self.assertEqual([(i["kind"], i["metadata"]["name"]) for i in items], [("RunaiJob", "j1")])
        self.check(RUNAIJOBS, None)


if __name__ == "__main__":
    unittest.main()
