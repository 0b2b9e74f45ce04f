"""The judge: every request a client sends to the emulated control plane
and every answer the emulator gives, checked against the profile's
published OpenAPI 3.0 document.

The document's `components/schemas` are turned into JSON Schema (draft 4,
which shares OpenAPI 3.0's boolean exclusiveMinimum): `nullable` becomes
a null type, `allOf` is flattened into one object, readOnly properties
are dropped from requests and writeOnly ones from answers. Then the
judge is strict where the document is lax: an object that lists its
properties allows no others, so a misspelt or invented field fails.

Besides bodies it checks that the path and method are in the document,
that every query parameter is one the operation declares and its value
fits, and that the answer's status is one the operation documents.

A request that breaks the document is refused (`refusal`: 400 with the
violations, 404 for a path the document lacks) before the emulator acts
on it, as a server that validates its requests does; the control
plane's `validate` setting can make the judge only record instead.
"""

import json
import os
import re
import threading
import urllib.parse

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
OPENAPI_DIR = os.path.join(os.path.dirname(os.path.dirname(HERE)), "openapi")

_COPIED = ("type", "enum", "format", "minimum", "maximum", "exclusiveMinimum",
           "exclusiveMaximum", "multipleOf", "pattern", "minLength", "maxLength",
           "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties")


def document_path(version):
    for name in ("openapi-%s.json" % version, "openapi-%s.yaml" % version):
        path = os.path.join(OPENAPI_DIR, name)
        if os.path.exists(path):
            return path
    raise ValueError("no OpenAPI document for control plane %s" % version)


def load_document(path):
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".json"):
        return json.loads(data)
    import yaml
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(data, Loader=loader)


class Converter:
    """OpenAPI 3.0 schemas → strict JSON Schema, one direction ("request"
    or "response"); named schemas become shared definitions."""

    def __init__(self, schemas, direction):
        self.schemas = schemas
        self.direction = direction
        self.defs = {}

    def _hidden(self, prop):
        key = "readOnly" if self.direction == "request" else "writeOnly"
        return isinstance(prop, dict) and prop.get(key) is True

    def define(self, name):
        if name not in self.defs:
            self.defs[name] = {}  # a cycle sees the placeholder
            self.defs[name].update(self.convert(self.schemas.get(name, {})))
        return self.defs[name]

    def convert(self, s):
        if not isinstance(s, dict):
            return {}
        if "$ref" in s:
            name = s["$ref"].rsplit("/", 1)[-1]
            self.define(name)
            ref = {"$ref": "#/definitions/" + name}
            return {"anyOf": [ref, {"type": "null"}]} if s.get("nullable") else ref
        if "allOf" in s:
            out = self._flatten(s)
        else:
            out = self._plain(s)
        if s.get("nullable"):
            out = self._nullable(out)
        return out

    def _nullable(self, out):
        if "type" in out:
            types = out["type"] if isinstance(out["type"], list) else [out["type"]]
            out["type"] = types + ["null"]
            if "enum" in out:
                out["enum"] = list(out["enum"]) + [None]
            return out
        return {"anyOf": [out, {"type": "null"}]}

    def _plain(self, s):
        out = {k: s[k] for k in _COPIED if k in s}
        props = s.get("properties")
        if isinstance(props, dict):
            kept = {k: v for k, v in props.items() if not self._hidden(v)}
            out["properties"] = {k: self.convert(v) for k, v in kept.items()}
            required = [r for r in s.get("required", []) if r in kept]
            if required:
                out["required"] = required
        elif s.get("required"):
            out["required"] = list(s["required"])
        if "items" in s:
            out["items"] = self.convert(s["items"])
        extra = s.get("additionalProperties")
        if isinstance(extra, dict):
            out["additionalProperties"] = self.convert(extra)
        elif isinstance(extra, bool):
            out["additionalProperties"] = extra
        elif isinstance(props, dict):
            out["additionalProperties"] = False  # the strict mode
        for key in ("oneOf", "anyOf"):
            if key in s:
                out[key] = [self.convert(x) for x in s[key]]
        if "not" in s:
            out["not"] = self.convert(s["not"])
        return out

    def _flatten(self, s):
        """allOf of object parts → one object with every part's properties,
        so the strict mode sees the whole set. A part that is no plain
        object keeps the allOf as it is (and lax)."""
        merged = {"type": "object", "properties": {}, "required": []}
        rest = {k: v for k, v in s.items() if k not in ("allOf", "nullable")}
        for part in s["allOf"] + ([rest] if rest else []):
            conv = _unwrap_null(self.convert(part))
            if "$ref" in conv:
                conv = _unwrap_null(self.define(conv["$ref"].rsplit("/", 1)[-1]))
            if not conv:
                continue
            if set(conv) - {"type", "properties", "required", "additionalProperties"} or \
                    conv.get("type", "object") not in ("object", ["object", "null"]):
                return {"allOf": [self.convert(p) for p in s["allOf"]]}
            merged["properties"].update(conv.get("properties", {}))
            merged["required"] += [r for r in conv.get("required", [])
                                   if r not in merged["required"]]
        for name in merged["required"]:
            # a name the document requires is one it knows, even where
            # no part declares it (2.18's project list does this)
            merged["properties"].setdefault(name, {})
        if not merged["required"]:
            del merged["required"]
        merged["additionalProperties"] = False
        return merged


def _unwrap_null(conv):
    """A nullable part's object schema: an allOf part's own null-ness does
    not make the whole nullable."""
    any_of = conv.get("anyOf")
    if len(conv) == 1 and any_of and len(any_of) == 2 and any_of[1] == {"type": "null"}:
        return any_of[0]
    return conv


class Operation:
    def __init__(self, template, method, op, doc):
        self.template, self.method, self.op, self.doc = template, method, op, doc

    def resolve(self, obj):
        while isinstance(obj, dict) and "$ref" in obj:
            node = self.doc
            for part in obj["$ref"].lstrip("#/").split("/"):
                node = node.get(part, {})
            obj = node
        return obj

    def parameters(self, where):
        out = {}
        for p in self.op.get("parameters", []):
            p = self.resolve(p)
            if p.get("in") == where:
                out[p["name"]] = p
        return out

    def body_schema(self):
        rb = self.resolve(self.op.get("requestBody"))
        if not rb:
            return None, False
        content = rb.get("content", {})
        media = content.get("application/json") or next(iter(content.values()), {})
        return media.get("schema"), bool(rb.get("required"))

    def response(self, status):
        responses = self.op.get("responses", {})
        resp = responses.get(str(status)) or responses.get("%dXX" % (status // 100)) or \
            responses.get("default")
        return self.resolve(resp) if resp is not None else None


def _template_regex(template):
    parts = [("[^/]+" if seg.startswith("{") else re.escape(seg))
             for seg in template.split("/")]
    return re.compile("^" + "/".join(parts) + "$")


def _coerce(value, schema):
    """A query string's text as the parameter schema's type."""
    kind = schema.get("type")
    try:
        if kind == "integer":
            return int(value)
        if kind == "number":
            return float(value)
    except ValueError:
        return value
    if kind == "boolean":
        return {"true": True, "false": False}.get(value, value)
    if kind == "array":
        return [_coerce(v, schema.get("items", {})) for v in value.split(",")]
    return value


class Judge:
    """Checks one profile's traffic; violations go to a JSON-lines file."""

    def __init__(self, version, violations_path=None):
        self.version = version
        self.doc = load_document(document_path(version))
        schemas = self.doc.get("components", {}).get("schemas", {})
        self.conv = {d: Converter(schemas, d) for d in ("request", "response")}
        self.ops = []
        for template, item in self.doc.get("paths", {}).items():
            literal = sum(1 for seg in template.split("/") if not seg.startswith("{"))
            for method, op in item.items():
                if method in ("get", "put", "post", "delete", "patch"):
                    self.ops.append((literal, _template_regex(template),
                                     Operation(template, method.upper(), op, self.doc)))
        self.ops.sort(key=lambda t: -t[0])  # /workloads/count before /{id}
        self.path = violations_path
        self.lock = threading.Lock()
        self.count = 0

    def has_path(self, method, path):
        return self.operation(method, path) is not None

    def operation(self, method, path):
        for _, rx, op in self.ops:
            if op.method == method and rx.match(path):
                return op
        return None

    def _validate(self, schema, value, direction, where):
        conv = self.conv[direction]
        with self.lock:
            root = conv.convert(schema)
            root = dict(root, definitions=conv.defs)
        v = jsonschema.Draft4Validator(root, format_checker=jsonschema.FormatChecker())
        return ["%s: %s at %s" % (where, e.message[:300], "/".join(map(str, e.absolute_path))
                                  or "(root)")
                for e in sorted(v.iter_errors(value), key=lambda e: list(e.absolute_path))]

    def check_request(self, method, path, query, body):
        """query: {name: [values]} as parse_qs gives; body: parsed JSON or
        None. Returns the list of violations (also recorded)."""
        op = self.operation(method, path)
        if op is None:
            return self.record(method, path, "request",
                               ["%s %s is not in the %s document" % (method, path,
                                                                    self.version)])
        out = []
        declared = op.parameters("query")
        for name, values in query.items():
            p = declared.get(name)
            if p is None:
                out.append("query parameter %r is not declared" % name)
                continue
            for value in values:
                out += self._validate(p.get("schema", {}), _coerce(value, p.get("schema", {})),
                                      "request", "query %s" % name)
        for name, p in declared.items():
            if p.get("required") and name not in query:
                out.append("required query parameter %r is missing" % name)
        schema, required = op.body_schema()
        if schema is None and body is not None:
            out.append("a body where the operation takes none")
        elif schema is not None and body is None and required:
            out.append("the required body is missing")
        elif schema is not None and body is not None:
            out += self._validate(schema, body, "request", "body")
        return self.record(method, path, "request", out)

    def check_response(self, method, path, status, body):
        op = self.operation(method, path)
        if op is None:
            return []  # the request was reported already
        resp = op.response(status)
        if resp is None:
            return self.record(method, path, "response",
                               ["status %d is not documented for %s %s" %
                                (status, method, op.template)])
        content = resp.get("content") or {}
        media = content.get("application/json") or next(iter(content.values()), None)
        schema = media.get("schema") if media else None
        if schema is None:
            out = [] if body is None else ["status %d documents no body" % status]
        elif body is None:
            out = ["status %d documents a body; none was sent" % status]
        else:
            out = self._validate(schema, body, "response", "body %d" % status)
        return self.record(method, path, "response", out)

    def refusal(self, method, path, violations):
        """The answer a server that validates gives a request with these
        violations: 404 for a path the document does not have, else 400
        with the first violation as the message and all as details (the
        document's Error)."""
        if self.operation(method, path) is None:
            return 404, {"code": 404, "message": violations[0]}
        return 400, {"code": 400,
                     "message": "the request does not fit the %s API: %s" % (
                         self.version, violations[0]),
                     "details": "; ".join(violations)}

    def close(self):
        """No more records in the file (its directory may go next)."""
        with self.lock:
            self.path = None

    def record(self, method, path, direction, violations):
        if violations and self.path:
            with self.lock:
                if self.path is None:  # closed meanwhile
                    return violations
                self.count += len(violations)
                with open(self.path, "a") as f:
                    for v in violations:
                        f.write(json.dumps({"method": method, "path": path,
                                            "direction": direction, "violation": v}) + "\n")
        return violations


def query_of(raw):
    return urllib.parse.parse_qs(raw, keep_blank_values=True)
