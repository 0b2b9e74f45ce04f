"""Decoding of Kubernetes protobuf request bodies, for a few kinds.

kubectl's typed commands (`kubectl create configmap|secret|namespace|
serviceaccount`, the evictions of `kubectl drain`) send their bodies as
`application/vnd.kubernetes.protobuf` and do not fall back to JSON. The
wire format is the "k8s\\0" magic, then a runtime.Unknown envelope whose
`raw` field is the object. Each kind below is described by its field
numbers (from the published k8s.io/api generated.proto files); other kinds
get a 415 asking for JSON. Zero values are dropped, as JSON's omitempty
would. Responses are always JSON, which every client accepts.
"""

import base64
import time

from kubesim.errors import ApiError, unsupported_media_type

MAGIC = b"k8s\x00"
CONTENT_TYPE = "application/vnd.kubernetes.protobuf"


class _Reader:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def varint(self):
        shift = result = 0
        while True:
            if self.pos >= len(self.data):
                raise ValueError("truncated varint")
            b = self.data[self.pos]
            self.pos += 1
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                return result
            shift += 7

    def fields(self):
        """Yields (field number, wire type, value) until the end."""
        while self.pos < len(self.data):
            key = self.varint()
            num, wire = key >> 3, key & 7
            if wire == 0:
                yield num, wire, self.varint()
            elif wire == 2:
                n = self.varint()
                value = self.data[self.pos:self.pos + n]
                if len(value) != n:
                    raise ValueError("truncated field")
                self.pos += n
                yield num, wire, value
            elif wire == 1:
                self.pos += 8
                yield num, wire, self.data[self.pos - 8:self.pos]
            elif wire == 5:
                self.pos += 4
                yield num, wire, self.data[self.pos - 4:self.pos]
            else:
                raise ValueError("unsupported wire type %d" % wire)


def _signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


# Field types: "string", "bytes" (base64 in JSON), "int", "bool", "time",
# a dict (a nested message), ("map", value type), ("list", element type).
TIME = "time"
OWNER_REF = {1: ("kind", "string"), 3: ("name", "string"), 4: ("uid", "string"),
             5: ("apiVersion", "string"), 6: ("controller", "bool"),
             7: ("blockOwnerDeletion", "bool")}
OBJECT_META = {
    1: ("name", "string"), 2: ("generateName", "string"), 3: ("namespace", "string"),
    5: ("uid", "string"), 6: ("resourceVersion", "string"), 7: ("generation", "int"),
    8: ("creationTimestamp", TIME), 9: ("deletionTimestamp", TIME),
    10: ("deletionGracePeriodSeconds", "int"), 11: ("labels", ("map", "string")),
    12: ("annotations", ("map", "string")), 13: ("ownerReferences", ("list", OWNER_REF)),
    14: ("finalizers", ("list", "string")),
}
OBJECT_REF = {1: ("kind", "string"), 2: ("namespace", "string"), 3: ("name", "string"),
              4: ("uid", "string"), 5: ("apiVersion", "string"),
              6: ("resourceVersion", "string"), 7: ("fieldPath", "string")}
DELETE_OPTIONS = {
    1: ("gracePeriodSeconds", "int"),
    2: ("preconditions", {1: ("uid", "string"), 2: ("resourceVersion", "string")}),
    3: ("orphanDependents", "bool"), 4: ("propagationPolicy", "string"),
    5: ("dryRun", ("list", "string")),
}
# authorization.k8s.io/v1, which `kubectl auth can-i` sends as protobuf
RESOURCE_ATTRIBUTES = {1: ("namespace", "string"), 2: ("verb", "string"),
                       3: ("group", "string"), 4: ("version", "string"),
                       5: ("resource", "string"), 6: ("subresource", "string"),
                       7: ("name", "string")}
NON_RESOURCE_ATTRIBUTES = {1: ("path", "string"), 2: ("verb", "string")}
KINDS = {
    "SelfSubjectAccessReview": {
        1: ("metadata", OBJECT_META),
        2: ("spec", {1: ("resourceAttributes", RESOURCE_ATTRIBUTES),
                     2: ("nonResourceAttributes", NON_RESOURCE_ATTRIBUTES)})},
    "SelfSubjectRulesReview": {1: ("metadata", OBJECT_META),
                               2: ("spec", {1: ("namespace", "string")})},
    "ConfigMap": {1: ("metadata", OBJECT_META), 2: ("data", ("map", "string")),
                  3: ("binaryData", ("map", "bytes")), 4: ("immutable", "bool")},
    "Secret": {1: ("metadata", OBJECT_META), 2: ("data", ("map", "bytes")),
               3: ("type", "string"), 4: ("stringData", ("map", "string")),
               5: ("immutable", "bool")},
    "Namespace": {1: ("metadata", OBJECT_META),
                  2: ("spec", {1: ("finalizers", ("list", "string"))}),
                  3: ("status", {1: ("phase", "string")})},
    "ServiceAccount": {1: ("metadata", OBJECT_META), 2: ("secrets", ("list", OBJECT_REF)),
                       3: ("imagePullSecrets", ("list", {1: ("name", "string")})),
                       4: ("automountServiceAccountToken", "bool")},
    "Eviction": {1: ("metadata", OBJECT_META), 2: ("deleteOptions", DELETE_OPTIONS)},
    "DeleteOptions": DELETE_OPTIONS,
}


def _time(data):
    secs = 0
    for num, _, value in _Reader(data).fields():
        if num == 1:
            secs = _signed(value)
    if not secs:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(secs))


def _scalar(ftype, wire, value):
    if ftype == "string":
        return value.decode("utf-8")
    if ftype == "bytes":
        return base64.b64encode(value).decode("ascii")
    if ftype == "int":
        return _signed(value)
    if ftype == "bool":
        return bool(value)
    if ftype == TIME:
        return _time(value)
    if isinstance(ftype, dict):
        return decode_message(value, ftype)
    raise ValueError("bad schema type %r" % (ftype,))


def _map_entry(data, vtype):
    key, val = "", None
    for num, wire, value in _Reader(data).fields():
        if num == 1:
            key = value.decode("utf-8")
        elif num == 2:
            val = _scalar(vtype, wire, value)
    if val is None:
        val = "" if vtype in ("string", "bytes") else val
    return key, val


def _empty(value):
    return value in ("", 0, False, None) or value == {} or value == []


def decode_message(data, schema):
    out = {}
    for num, wire, value in _Reader(data).fields():
        if num not in schema:
            continue  # fields we do not model (managedFields, selfLink, ...)
        name, ftype = schema[num]
        if isinstance(ftype, tuple) and ftype[0] == "map":
            k, v = _map_entry(value, ftype[1])
            out.setdefault(name, {})[k] = v
        elif isinstance(ftype, tuple) and ftype[0] == "list":
            out.setdefault(name, []).append(_scalar(ftype[1], wire, value))
        else:
            out[name] = _scalar(ftype, wire, value)
    return {k: v for k, v in out.items() if not _empty(v)}


def decode(body, content_type):
    """The JSON object for a protobuf request body; 415 for kinds not modelled."""
    if not body.startswith(MAGIC):
        raise ApiError(400, "BadRequest", "protobuf body without the k8s magic prefix")
    try:
        envelope = decode_message(body[len(MAGIC):], {
            1: ("typeMeta", {1: ("apiVersion", "string"), 2: ("kind", "string")}),
            2: ("raw", "bytes")})
        type_meta = envelope.get("typeMeta") or {}
        kind = type_meta.get("kind", "")
        if kind not in KINDS:
            raise unsupported_media_type(content_type, [
                "application/json", "application/yaml",
                "application/vnd.kubernetes.protobuf (only for %s)" % ", ".join(sorted(KINDS))])
        raw = base64.b64decode(envelope.get("raw", ""))
        obj = decode_message(raw, KINDS[kind])
    except ValueError as e:
        raise ApiError(400, "BadRequest", "cannot decode protobuf body: %s" % e)
    out = {"apiVersion": type_meta.get("apiVersion", ""), "kind": kind}
    out.update(obj)
    return out

