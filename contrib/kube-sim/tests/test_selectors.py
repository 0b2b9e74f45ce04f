"""Label and field selectors (kubesim/selectors.py): parsing, matching, and
the 400s for what the API server cannot parse."""

import unittest

import support  # noqa: F401  (sys.path)
from kubesim.errors import ApiError
from kubesim.selectors import FieldSelector, LabelSelector

PARSE_ERROR = ("unable to parse requirement: found '%s', expected: in, notin, =, ==, !=, "
               "gt, lt")


class LabelSelectorParse(unittest.TestCase):
    def test_equality_terms(self):
        self.assertEqual(LabelSelector("a=b,c!=d,e==f").reqs,
                         [("=", "a", "b"), ("!=", "c", "d"), ("=", "e", "f")])

    def test_whitespace_around_terms_and_operators(self):
        self.assertEqual(LabelSelector(" a = b ,  c ").reqs,
                         [("=", "a", "b"), ("exists", "c", None)])

    def test_set_terms_keep_commas_inside_parentheses(self):
        self.assertEqual(LabelSelector("env in (prod, dev),tier notin (x)").reqs,
                         [("in", "env", {"prod", "dev"}), ("notin", "tier", {"x"})])

    def test_existence_terms(self):
        self.assertEqual(LabelSelector("k,!j").reqs,
                         [("exists", "k", None), ("!exists", "j", None)])

    def test_empty_value_is_allowed(self):
        self.assertEqual(LabelSelector("a=").reqs, [("=", "a", "")])

    def test_empty_and_missing_selectors_select_everything(self):
        for text in ("", None, " , "):
            sel = LabelSelector(text)
            self.assertEqual(sel.reqs, [])
            self.assertFalse(sel)
            self.assertTrue(sel.matches({"any": "thing"}))
        self.assertTrue(LabelSelector("a"))

    def test_invalid_terms_are_400_with_the_servers_text(self):
        for term in ("a=b=c", "a b", "!", "=v", "x in (a", "a!=(b)", "a=b c", "k gt 3",
                     "a in b"):
            with self.subTest(term=term):
                with self.assertRaises(ApiError) as cm:
                    LabelSelector(term)
                self.assertEqual(cm.exception.code, 400)
                self.assertEqual(cm.exception.reason, "BadRequest")
                self.assertEqual(cm.exception.message, PARSE_ERROR % term)

    def test_the_bad_term_is_named_not_the_whole_selector(self):
        with self.assertRaises(ApiError) as cm:
            LabelSelector("ok=1,bad term,k")
        self.assertEqual(cm.exception.message, PARSE_ERROR % "bad term")


class LabelSelectorMatch(unittest.TestCase):
    LABELS = {"app": "web", "tier": "front", "empty": ""}

    def check(self, text, expected, labels=LABELS):
        self.assertIs(LabelSelector(text).matches(labels), expected, text)

    def test_equality(self):
        self.check("app=web", True)
        self.check("app==web", True)
        self.check("app=db", False)
        self.check("missing=web", False)
        self.check("empty=", True)
        self.check("missing=", False)

    def test_inequality_matches_a_missing_key(self):
        self.check("app!=db", True)
        self.check("app!=web", False)
        self.check("missing!=web", True)

    def test_in_and_notin(self):
        self.check("app in (web,db)", True)
        self.check("app in (db)", False)
        self.check("missing in (web)", False)
        self.check("app notin (db)", True)
        self.check("app notin (db,web)", False)
        self.check("missing notin (web)", True)

    def test_existence(self):
        self.check("app", True)
        self.check("missing", False)
        self.check("!missing", True)
        self.check("!app", False)

    def test_terms_are_anded(self):
        self.check("app=web,tier=front", True)
        self.check("app=web,tier=back", False)
        self.check("app,!missing,tier in (front)", True)

    def test_no_labels(self):
        self.assertTrue(LabelSelector("!a,b!=c").matches(None))
        self.assertFalse(LabelSelector("a").matches(None))


class FieldSelectorTest(unittest.TestCase):
    POD = {"metadata": {"name": "p1", "namespace": "ns"},
           "spec": {"nodeName": "node-1", "hostNetwork": True},
           "status": {"phase": "Running"}}

    def test_parse(self):
        sel = FieldSelector("status.phase!=Running, spec.nodeName==node-1", "pods")
        self.assertEqual(sel.reqs, [(True, "status.phase", "Running"),
                                    (False, "spec.nodeName", "node-1")])

    def test_metadata_fields_work_for_every_kind(self):
        self.assertEqual(FieldSelector("metadata.namespace=x", "anything").reqs,
                         [(False, "metadata.namespace", "x")])
        self.assertEqual(FieldSelector("metadata.name=x").reqs, [(False, "metadata.name", "x")])

    def test_match(self):
        def match(text):
            return FieldSelector(text, "pods").matches(self.POD)
        self.assertTrue(match("metadata.name=p1,status.phase=Running"))
        self.assertFalse(match("metadata.name=p1,status.phase!=Running"))
        self.assertTrue(match("spec.nodeName!=node-2"))
        self.assertTrue(match("spec.hostNetwork=true"))   # booleans as Go prints them
        self.assertTrue(match("status.podIP="))            # absent reads as ""
        self.assertFalse(match("status.podIP!="))

    def test_event_source_is_the_component(self):
        event = {"source": {"component": "kubelet"}}
        self.assertTrue(FieldSelector("source=kubelet", "events").matches(event))
        self.assertFalse(FieldSelector("source=kubelet", "events").matches({}))

    def test_unsupported_field_is_400(self):
        for text, plural in (("spec.nodeName=n", "nodes"), ("a=b", "pods"),
                             ("status.phase=Running", None)):
            with self.subTest(text=text):
                with self.assertRaises(ApiError) as cm:
                    FieldSelector(text, plural)
                self.assertEqual(cm.exception.code, 400)
                self.assertEqual(cm.exception.message,
                                 "field label not supported: %s" % text.split("=")[0])

    def test_term_without_operator_is_400(self):
        with self.assertRaises(ApiError) as cm:
            FieldSelector("metadata.name=x,foo", "pods")
        self.assertEqual(cm.exception.code, 400)
        self.assertEqual(cm.exception.message,
                         "invalid selector: 'metadata.name=x,foo'; can't understand 'foo'")

    def test_only_name(self):
        self.assertEqual(FieldSelector("metadata.name=x").only_name(), "x")
        self.assertIsNone(FieldSelector("metadata.name!=x").only_name())
        self.assertIsNone(FieldSelector("metadata.name=x,metadata.namespace=y").only_name())
        self.assertIsNone(FieldSelector("").only_name())
        self.assertFalse(FieldSelector(""))


if __name__ == "__main__":
    unittest.main()
