"""Label and field selectors, parsed from their query-string form.

Label selectors: `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`,
`!k`, joined by commas (AND). Field selectors: `f=v`, `f==v`, `f!=v`,
joined by commas, over the fields the real server supports per kind;
anything else is a 400, as there.
"""

import re

from kubesim.errors import bad_request

_SET_OP = re.compile(r"^\s*([^\s!=()]+)\s+(in|notin)\s+\(([^)]*)\)\s*$")


def _split_terms(text):
    """Split on commas that are not inside parentheses."""
    terms, depth, cur = [], 0, []
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            terms.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    terms.append("".join(cur))
    return [t.strip() for t in terms if t.strip()]


class LabelSelector:
    def __init__(self, text):
        self.text = text or ""
        self.reqs = [self._parse(t) for t in _split_terms(self.text)]

    @staticmethod
    def _parse(term):
        m = _SET_OP.match(term)
        if m:
            values = {v.strip() for v in m.group(3).split(",") if v.strip()}
            return (m.group(2), m.group(1), values)
        for op in ("!=", "==", "="):
            if op in term:
                key, _, value = term.partition(op)
                key, value = key.strip(), value.strip()
                if not key or any(c in value for c in "=!() "):
                    break
                return ("!=" if op == "!=" else "=", key, value)
        else:
            if term.startswith("!"):
                key = term[1:].strip()
                if key and _plain(key):
                    return ("!exists", key, None)
            elif _plain(term):
                return ("exists", term, None)
        raise bad_request("unable to parse requirement: found '%s', expected: "
                          "in, notin, =, ==, !=, gt, lt" % term)

    def matches(self, labels):
        labels = labels or {}
        for op, key, val in self.reqs:
            have = key in labels
            cur = labels.get(key)
            if op == "=" and cur != val:
                return False
            if op == "!=" and have and cur == val:
                return False
            if op == "in" and cur not in val:
                return False
            if op == "notin" and have and cur in val:
                return False
            if op == "exists" and not have:
                return False
            if op == "!exists" and have:
                return False
        return True

    def __bool__(self):
        return bool(self.reqs)


def _plain(key):
    return bool(key) and not any(c in key for c in "=!() ,")


# Field paths each kind accepts besides metadata.name / metadata.namespace.
_FIELDS = {
    "pods": ["spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
             "spec.serviceAccountName", "spec.hostNetwork", "status.phase",
             "status.podIP", "status.nominatedNodeName"],
    "events": ["involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
               "involvedObject.uid", "involvedObject.apiVersion",
               "involvedObject.resourceVersion", "involvedObject.fieldPath",
               "reason", "reportingComponent", "source", "type"],
    "nodes": ["spec.unschedulable"],
    "namespaces": ["status.phase"],
    "secrets": ["type"],
    "jobs": ["status.successful"],
    "replicasets": ["status.replicas"],
    "persistentvolumeclaims": [],
}


def _field_value(obj, path):
    if path == "source":  # events: the source component
        return (obj.get("source") or {}).get("component", "")
    cur = obj
    for part in path.split("."):
        if not isinstance(cur, dict):
            return ""
        cur = cur.get(part)
    if cur is None:
        return ""
    if isinstance(cur, bool):
        return "true" if cur else "false"
    return str(cur)


class FieldSelector:
    def __init__(self, text, plural=None):
        self.text = text or ""
        allowed = {"metadata.name", "metadata.namespace"} | set(_FIELDS.get(plural, []))
        self.reqs = []
        for term in _split_terms(self.text):
            for op in ("!=", "==", "="):
                if op in term:
                    field, _, value = term.partition(op)
                    field = field.strip()
                    break
            else:
                raise bad_request("invalid selector: '%s'; can't understand '%s'"
                                  % (self.text, term))
            if field not in allowed:
                raise bad_request('field label not supported: %s' % field)
            self.reqs.append((op == "!=", field, value.strip()))

    def matches(self, obj):
        for negate, field, value in self.reqs:
            if (_field_value(obj, field) == value) == negate:
                return False
        return True

    def __bool__(self):
        return bool(self.reqs)

    def only_name(self):
        """The name when the selector is exactly metadata.name=X (a fast path)."""
        if len(self.reqs) == 1 and not self.reqs[0][0] and self.reqs[0][1] == "metadata.name":
            return self.reqs[0][2]
        return None
