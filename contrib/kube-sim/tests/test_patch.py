"""The PATCH flavours (kubesim/patch.py): JSON merge patch, strategic merge
patch and JSON patch, with the errors each answers."""

import copy
import unittest

import support  # noqa: F401  (sys.path)
from kubesim import patch
from kubesim.errors import ApiError
from kubesim.patch import json_patch, merge_patch, strategic_merge_patch


class MergePatch(unittest.TestCase):
    def test_maps_merge_and_null_deletes(self):
        target = {"a": "b", "c": {"d": "e", "f": "g"}}
        self.assertEqual(merge_patch(target, {"a": "z", "c": {"f": None}}),
                         {"a": "z", "c": {"d": "e"}})

    def test_lists_replace(self):
        self.assertEqual(merge_patch({"l": [1, 2, 3]}, {"l": [4]}), {"l": [4]})

    def test_object_replaces_a_scalar_and_the_reverse(self):
        self.assertEqual(merge_patch({"a": "x"}, {"a": {"b": 1}}), {"a": {"b": 1}})
        self.assertEqual(merge_patch({"a": {"b": 1}}, {"a": "x"}), {"a": "x"})

    def test_null_inside_a_new_map_leaves_an_empty_map(self):
        self.assertEqual(merge_patch({}, {"a": {"b": None}}), {"a": {}})

    def test_deleting_a_missing_key_is_a_no_op(self):
        self.assertEqual(merge_patch({"a": 1}, {"zz": None}), {"a": 1})

    def test_non_object_patch_replaces_everything(self):
        self.assertEqual(merge_patch({"a": 1}, ["x"]), ["x"])
        self.assertEqual(merge_patch({"a": 1}, "s"), "s")
        self.assertEqual(merge_patch("old", {"a": 1}), {"a": 1})

    def test_inputs_are_not_modified(self):
        target, p = {"a": {"b": [1]}}, {"a": {"c": 2}}
        before = copy.deepcopy((target, p))
        out = merge_patch(target, p)
        out["a"]["b"].append(9)
        self.assertEqual((target, p), before)


class StrategicMergePatch(unittest.TestCase):
    POD = {"spec": {"containers": [{"name": "a", "image": "a:1", "env": [{"name": "X",
                                                                          "value": "1"}]},
                                   {"name": "b", "image": "b:1"}],
                    "volumes": [{"name": "v1"}]},
           "metadata": {"finalizers": ["f1"], "labels": {"k": "v"}}}

    def test_containers_merge_by_name(self):
        out = strategic_merge_patch(self.POD, {"spec": {"containers": [
            {"name": "b", "image": "b:2"}, {"name": "c", "image": "c:1"}]}})
        self.assertEqual(out["spec"]["containers"], [
            {"name": "a", "image": "a:1", "env": [{"name": "X", "value": "1"}]},
            {"name": "b", "image": "b:2"},
            {"name": "c", "image": "c:1"}])

    def test_nested_lists_merge_by_their_own_key(self):
        out = strategic_merge_patch(self.POD, {"spec": {"containers": [
            {"name": "a", "env": [{"name": "Y", "value": "2"}, {"name": "X", "value": "3"}]}]}})
        self.assertEqual(out["spec"]["containers"][0]["env"],
                         [{"name": "X", "value": "3"}, {"name": "Y", "value": "2"}])

    def test_delete_directive_in_a_list(self):
        out = strategic_merge_patch(self.POD, {"spec": {"containers": [
            {"name": "a", "$patch": "delete"}, {"name": "zz", "$patch": "delete"}]}})
        self.assertEqual([c["name"] for c in out["spec"]["containers"]], ["b"])

    def test_replace_directive_in_a_list(self):
        out = strategic_merge_patch(self.POD, {"spec": {"volumes": [
            {"name": "v9"}, {"$patch": "replace"}]}})
        self.assertEqual(out["spec"]["volumes"], [{"name": "v9"}])

    def test_replace_and_delete_directives_on_a_map(self):
        out = strategic_merge_patch(self.POD, {"metadata": {"labels": {
            "$patch": "replace", "new": "1"}}})
        self.assertEqual(out["metadata"]["labels"], {"new": "1"})
        out = strategic_merge_patch(self.POD, {"metadata": {"labels": {"$patch": "delete"}}})
        self.assertNotIn("labels", out["metadata"])

    def test_primitive_lists_merge_as_sets(self):
        out = strategic_merge_patch(self.POD, {"metadata": {"finalizers": ["f2", "f1"]}})
        self.assertEqual(out["metadata"]["finalizers"], ["f1", "f2"])

    def test_delete_from_primitive_list(self):
        out = strategic_merge_patch(self.POD, {"metadata": {
            "$deleteFromPrimitiveList/finalizers": ["f1", "nope"]}})
        self.assertEqual(out["metadata"]["finalizers"], [])

    def test_set_element_order_and_retain_keys_are_dropped(self):
        out = strategic_merge_patch({"spec": {"a": 1}}, {"spec": {
            "$setElementOrder/containers": [{"name": "a"}], "$retainKeys": ["a"], "b": 2}})
        self.assertEqual(out, {"spec": {"a": 1, "b": 2}})

    def test_ports_key_depends_on_the_list(self):
        container = {"ports": [{"containerPort": 80, "name": "http"}]}
        out = strategic_merge_patch(container, {"ports": [{"containerPort": 80, "name": "web"}]})
        self.assertEqual(out["ports"], [{"containerPort": 80, "name": "web"}])
        service = {"ports": [{"port": 80, "targetPort": 8080}, {"port": 443}]}
        out = strategic_merge_patch(service, {"ports": [{"port": 80, "targetPort": 9090}]})
        self.assertEqual(out["ports"], [{"port": 80, "targetPort": 9090}, {"port": 443}])

    def test_unkeyed_lists_replace_and_null_deletes(self):
        out = strategic_merge_patch({"args": ["a", "b"], "x": 1}, {"args": ["c"], "x": None})
        self.assertEqual(out, {"args": ["c"]})

    def test_elements_without_their_key_are_appended(self):
        out = strategic_merge_patch({"containers": [{"name": "a"}]},
                                    {"containers": [{"image": "i"}]})
        self.assertEqual(out["containers"], [{"name": "a"}, {"image": "i"}])

    def test_inputs_are_not_modified(self):
        before = copy.deepcopy(self.POD)
        strategic_merge_patch(self.POD, {"spec": {"containers": [{"name": "a", "image": "x"}]}})
        self.assertEqual(self.POD, before)


class JsonPatch(unittest.TestCase):
    DOC = {"a": {"b": 1, "c": [1, 2]}, "t": True, "x/y": {"~": 0}}

    def apply(self, *ops):
        return json_patch(self.DOC, list(ops))

    def assert_error(self, code, message, *ops, doc=None):
        with self.assertRaises(ApiError) as cm:
            json_patch(self.DOC if doc is None else doc, list(ops))
        self.assertEqual((cm.exception.code, cm.exception.message), (code, message))
        self.assertEqual(cm.exception.reason, "Invalid" if code == 422 else "BadRequest")

    def test_add(self):
        self.assertEqual(self.apply({"op": "add", "path": "/a/d", "value": [3]})["a"]["d"], [3])
        self.assertEqual(self.apply({"op": "add", "path": "/a/c/0", "value": 0})["a"]["c"],
                         [0, 1, 2])
        self.assertEqual(self.apply({"op": "add", "path": "/a/c/2", "value": 3})["a"]["c"],
                         [1, 2, 3])
        self.assertEqual(self.apply({"op": "add", "path": "/a/c/-", "value": 9})["a"]["c"],
                         [1, 2, 9])
        self.assertEqual(self.apply({"op": "add", "path": "", "value": {"new": 1}}), {"new": 1})

    def test_remove_replace(self):
        out = self.apply({"op": "remove", "path": "/a/c/0"},
                         {"op": "replace", "path": "/a/b", "value": {"z": 1}})
        self.assertEqual(out["a"], {"b": {"z": 1}, "c": [2]})
        self.assertEqual(self.apply({"op": "replace", "path": "/a/c/1", "value": 7})["a"]["c"],
                         [1, 7])

    def test_move_and_copy(self):
        out = self.apply({"op": "move", "from": "/a/b", "path": "/moved"})
        self.assertEqual((out["moved"], "b" in out["a"]), (1, False))
        out = self.apply({"op": "copy", "from": "/a/c", "path": "/copied"})
        out["copied"].append(3)
        self.assertEqual((out["a"]["c"], out["copied"]), ([1, 2], [1, 2, 3]))

    def test_pointer_escapes(self):
        out = self.apply({"op": "replace", "path": "/x~1y/~0", "value": 5})
        self.assertEqual(out["x/y"], {"~": 5})

    def test_ops_apply_in_order_and_test_passes(self):
        out = self.apply({"op": "test", "path": "/a/b", "value": 1},
                         {"op": "add", "path": "/n", "value": 1},
                         {"op": "test", "path": "/n", "value": 1.0},
                         {"op": "test", "path": "/a", "value": {"b": 1, "c": [1, 2]}})
        self.assertEqual(out["n"], 1)

    def test_failed_test_is_422(self):
        self.assert_error(422, "the server rejected our request due to an error in our "
                          "request: testing value /a/b failed",
                          {"op": "test", "path": "/a/b", "value": 2})

    def test_test_keeps_booleans_and_numbers_apart(self):
        for value in (1, [1]):
            with self.subTest(value=value):
                doc = {"t": True} if value == 1 else {"t": [True]}
                self.assert_error(422, "the server rejected our request due to an error in our "
                                  "request: testing value /t failed",
                                  {"op": "test", "path": "/t", "value": value}, doc=doc)
        self.assert_error(422, "the server rejected our request due to an error in our "
                          "request: testing value /z failed",
                          {"op": "test", "path": "/z", "value": False}, doc={"z": 0})

    def test_a_failure_applies_nothing(self):
        before = copy.deepcopy(self.DOC)
        with self.assertRaises(ApiError):
            self.apply({"op": "add", "path": "/new", "value": 1},
                       {"op": "remove", "path": "/missing"})
        self.assertEqual(self.DOC, before)

    def test_malformed_operations_are_400(self):
        cases = [
            ({"op": "add"}, "invalid json patch operation: {'op': 'add'}"),
            ({"path": "/a"}, "invalid json patch operation: {'path': '/a'}"),
            ("str", "invalid json patch operation: 'str'"),
            ({"op": "add", "path": "/x"}, "jsonpatch add operation: missing value"),
            ({"op": "replace", "path": "/a"}, "jsonpatch replace operation: missing value"),
            ({"op": "test", "path": "/a"}, "jsonpatch test operation: missing value"),
            ({"op": "move", "path": "/x"}, "jsonpatch move operation: missing from"),
            ({"op": "copy", "path": "/x"}, "jsonpatch copy operation: missing from"),
            ({"op": "frob", "path": "/a"}, "unexpected jsonpatch operation 'frob'"),
            ({"op": "add", "path": "a", "value": 1}, "invalid JSON pointer: 'a'"),
        ]
        for op, message in cases:
            with self.subTest(op=op):
                self.assert_error(400, message, op)

    def test_not_a_list(self):
        for body in ({"op": "add"}, "x", None):
            with self.assertRaises(ApiError) as cm:
                json_patch(self.DOC, body)
            self.assertEqual((cm.exception.code, cm.exception.message),
                             (400, "json patch must be a list of operations"))

    def test_paths_that_do_not_apply_are_422(self):
        cases = [
            ({"op": "add", "path": "/nope/x", "value": 1},
             "jsonpatch: the path '/nope/x' does not exist"),
            ({"op": "add", "path": "/a/c/5", "value": 1},
             "jsonpatch add: index out of range in '/a/c/5'"),
            ({"op": "add", "path": "/a/b/x", "value": 1},
             "jsonpatch add: '/a/b/x' is not a container"),
            ({"op": "remove", "path": "/zz"},
             "jsonpatch remove operation does not apply: doc is missing path: /zz"),
            ({"op": "remove", "path": "/a/c/-"},
             "jsonpatch remove operation does not apply: doc is missing path: /a/c/-"),
            ({"op": "remove", "path": ""}, "jsonpatch remove: cannot remove the root"),
            ({"op": "replace", "path": "/zz", "value": 1},
             "jsonpatch: the path '/zz' does not exist"),
            ({"op": "replace", "path": "/a/c/2", "value": 1},
             "jsonpatch: the path '/a/c/2' does not exist"),
            ({"op": "copy", "from": "/zz", "path": "/x"},
             "jsonpatch: the path '/zz' does not exist"),
            ({"op": "test", "path": "/a/c/x", "value": 1},
             "jsonpatch: the path '/a/c/x' does not exist"),
        ]
        for op, message in cases:
            with self.subTest(op=op):
                self.assert_error(422, message, op)


class ContentTypes(unittest.TestCase):
    ALL = ("application/json-patch+json, application/merge-patch+json, "
           "application/strategic-merge-patch+json")

    def test_apply_dispatches_by_type(self):
        target = {"l": [{"name": "a", "v": 1}], "m": 1}
        body = {"l": [{"name": "b"}]}
        self.assertEqual(patch.apply(patch.MERGE_PATCH, target, body)["l"], [{"name": "b"}])
        self.assertEqual(patch.apply(patch.STRATEGIC_PATCH, target, {"containers": []}),
                         {"l": [{"name": "a", "v": 1}], "m": 1, "containers": []})
        self.assertEqual(patch.apply(patch.JSON_PATCH, target,
                                     [{"op": "remove", "path": "/m"}]),
                         {"l": [{"name": "a", "v": 1}]})

    def test_other_types_are_415(self):
        for ctype in ("application/json", patch.APPLY_PATCH, None):
            with self.subTest(ctype=ctype):
                with self.assertRaises(ApiError) as cm:
                    patch.apply(ctype, {}, {})
                self.assertEqual(cm.exception.code, 415)
                self.assertEqual(cm.exception.reason, "UnsupportedMediaType")
                self.assertEqual(cm.exception.message, "the body of the request was in an "
                                 "unknown format - accepted media types include: " + self.ALL)

    def test_custom_resources_refuse_strategic_merge(self):
        patch.check_type(patch.MERGE_PATCH, custom_resource=True)
        with self.assertRaises(ApiError) as cm:
            patch.check_type(patch.STRATEGIC_PATCH, custom_resource=True)
        self.assertEqual(cm.exception.code, 415)
        self.assertTrue(cm.exception.message.endswith(
            "application/json-patch+json, application/merge-patch+json"))


if __name__ == "__main__":
    unittest.main()
