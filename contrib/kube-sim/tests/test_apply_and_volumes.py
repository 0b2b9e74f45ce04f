"""Server-side apply's plan (conflicts, removal, keyed lists), the
volumes' host paths (hostPath names, key files never written through a
link), the ingress controller's routing and the notebook's options."""

import os
import tempfile
import unittest

import support  # noqa: F401 (puts kubesim on the path)

from kubesim import applyserver, netproxy, notebook, podvolumes


def cm(data, managers=None):
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": data}
    if managers is not None:
        obj["metadata"]["managedFields"] = managers
    return obj


class Apply(unittest.TestCase):
    def test_create_records_the_managers_fields(self):
        new, conflicts = applyserver.plan(None, cm({"a": "1"}), "m1", False)
        self.assertEqual(conflicts, [])
        self.assertEqual([(e["manager"], e["operation"], e["fieldsV1"])
                          for e in new["metadata"]["managedFields"]],
                         [("m1", "Apply", {"f:data": {"f:a": {}}})])

    def test_another_managers_different_value_conflicts_unless_forced(self):
        live, _ = applyserver.plan(None, cm({"a": "1", "b": "2"}), "m1", False)
        _, conflicts = applyserver.plan(live, cm({"a": "9"}), "m2", False)
        self.assertEqual(conflicts, [("m1", ("f:data", "f:a"))])
        err = applyserver.conflict_error(type("R", (), {"group": "", "plural": "configmaps"}),
                                         "c", conflicts)
        self.assertEqual(err.message,
                         'Apply failed with 1 conflict: conflict with "m1": .data.a')
        # the same value is shared, no conflict
        _, conflicts = applyserver.plan(live, cm({"a": "1"}), "m2", False)
        self.assertEqual(conflicts, [])
        new, _ = applyserver.plan(live, cm({"a": "9"}), "m2", True)
        self.assertEqual(new["data"], {"a": "9", "b": "2"})
        owners = {e["manager"]: applyserver.leaves(e["fieldsV1"])
                  for e in new["metadata"]["managedFields"]}
        self.assertEqual(owners, {"m1": {("f:data", "f:b")}, "m2": {("f:data", "f:a")}})

    def test_a_field_no_longer_applied_goes_unless_another_holds_it(self):
        live, _ = applyserver.plan(None, cm({"a": "1", "b": "2"}), "m1", False)
        live, _ = applyserver.plan(live, cm({"b": "2"}), "m2", False)
        new, _ = applyserver.plan(live, cm({}), "m1", False)
        self.assertEqual(new["data"], {"b": "2"})

    def test_containers_merge_by_name(self):
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
               "spec": {"containers": [{"name": "a", "image": "x"}]}}
        live, _ = applyserver.plan(None, pod, "m1", False)
        side = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                "spec": {"containers": [{"name": "b", "image": "y"}]}}
        new, conflicts = applyserver.plan(live, side, "m2", False)
        self.assertEqual(conflicts, [])
        self.assertEqual([c["name"] for c in new["spec"]["containers"]], ["a", "b"])
        self.assertIn('k:{"name":"b"}',
                      new["metadata"]["managedFields"][1]["fieldsV1"]["f:spec"]["f:containers"])


class Volumes(unittest.TestCase):
    def test_a_hostpath_is_one_name_whatever_it_climbs(self):
        self.assertEqual(podvolumes.hostpath_name("/srv/data"), "%2Fsrv%2Fdata")
        self.assertEqual(podvolumes.hostpath_name("/../../etc/"), "%2Fetc")
        self.assertEqual(podvolumes.hostpath_name("//x//y"), "%2Fx%2Fy")
        self.assertIsNone(podvolumes.hostpath_name("relative"))
        for path in ("/a/../../..", "/a%2F..", "/.."):
            self.assertNotIn("/", podvolumes.hostpath_name(path))
            self.assertNotIn(podvolumes.hostpath_name(path), ("", ".", ".."))

    def test_key_files_never_leave_their_directory_nor_follow_links(self):
        with tempfile.TemporaryDirectory() as top:
            outside = os.path.join(top, "outside")
            os.mkdir(outside)
            vol = os.path.join(top, "vol")
            os.mkdir(vol)
            os.symlink(outside, os.path.join(vol, "sub"))  # as if planted
            podvolumes.write_files(vol, [("sub/f", b"x", 0o644), ("../escape", b"x", 0o644),
                                         ("/abs", b"x", 0o644), ("ok/conf", b"y", 0o400)])
            self.assertEqual(os.listdir(outside), [])
            self.assertFalse(os.path.exists(os.path.join(top, "escape")))
            self.assertEqual(sorted(os.listdir(vol)), ["ok", "sub"])
            self.assertFalse(os.path.islink(os.path.join(vol, "sub")))
            self.assertEqual(os.stat(os.path.join(vol, "ok", "conf")).st_mode & 0o777, 0o400)

    def test_state_dirs_refuse_links_and_odd_names(self):
        with tempfile.TemporaryDirectory() as top:
            os.symlink("/", os.path.join(top, "volumes"))
            with self.assertRaises(OSError):
                podvolumes.state_dir_for(top, ["volumes", "ns", "v"])
            with self.assertRaises(OSError):
                podvolumes.state_dir_for(top, ["hostpath", ".."])


class Ingress(unittest.TestCase):
    ING = [{"metadata": {"namespace": "ns"}, "spec": {"rules": [
        {"http": {"paths": [
            {"path": "/team-a-nb", "pathType": "Prefix",
             "backend": {"service": {"name": "nb", "port": {"number": 8888}}}},
            {"path": "/team-a-nb/api", "pathType": "Exact",
             "backend": {"service": {"name": "api", "port": {"number": 80}}}}]}},
        {"host": "x.example", "http": {"paths": [
            {"path": "/", "pathType": "Prefix",
             "backend": {"service": {"name": "x", "port": {"name": "web"}}}}]}}]}}]

    def test_routes_by_host_and_longest_path(self):
        self.assertEqual(netproxy.route(self.ING, "127.0.0.1:4000", "/team-a-nb/lab"),
                         ("ns", "nb", 8888))
        self.assertEqual(netproxy.route(self.ING, "", "/team-a-nb/api"), ("ns", "api", 80))
        self.assertIsNone(netproxy.route(self.ING, "", "/team-a-nbx"))
        self.assertEqual(netproxy.route(self.ING, "X.example", "/any"), ("ns", "x", "web"))
        self.assertIsNone(netproxy.route(self.ING, "y.example", "/any"))


class Notebook(unittest.TestCase):
    def test_options_as_a_notebook_image_passes_them(self):
        opts = notebook.options(["--NotebookApp.base_url=/team-a-nb1", "--port", "9000"],
                                {"KUBE_SIM_POD_ADDRESS": "127.130.1.2"})
        self.assertEqual((opts["base_url"], opts["port"], opts["ip"]),
                         ("/team-a-nb1/", 9000, "127.130.1.2"))
        self.assertRegex(opts["token"], "^[0-9a-f]{48}$")
        self.assertEqual(notebook.options(["lab", "--ServerApp.token=abc"], {})["token"], "abc")
        self.assertEqual(notebook.options([], {"JUPYTER_TOKEN": "t"})["token"], "t")


if __name__ == "__main__":
    unittest.main()
