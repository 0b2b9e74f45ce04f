"""The three PATCH flavours kube-apiserver accepts (server-side apply aside).

- JSON merge patch (RFC 7386): maps merge, `null` deletes, lists replace.
- Strategic merge patch: like merge patch, except that some lists are
  merged element by element on a key (containers by `name`, volumeMounts
  by `mountPath`, ...), and the `$patch` / `$deleteFromPrimitiveList` /
  `$setElementOrder` directives are honoured (the last only stripped).
- JSON patch (RFC 6902): add/remove/replace/move/copy/test on JSON pointers.

All functions return a new document; inputs are not modified.
"""

import copy

from kubesim.errors import ApiError, bad_request, unsupported_media_type

MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_PATCH = "application/strategic-merge-patch+json"
JSON_PATCH = "application/json-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"

# List fields merged by key in a strategic merge patch (the patchMergeKey
# tags of the core types that matter here). Lists not named here replace.
MERGE_KEYS = {
    "containers": "name", "initContainers": "name", "ephemeralContainers": "name",
    "env": "name", "volumes": "name", "volumeMounts": "mountPath",
    "volumeDevices": "devicePath", "ports": "containerPort",
    "imagePullSecrets": "name", "ownerReferences": "uid", "conditions": "type",
    "hostAliases": "ip", "taints": "key", "addresses": "type",
    "containerStatuses": "name", "initContainerStatuses": "name",
}
# Lists of scalars merged as sets.
MERGE_PRIMITIVES = {"finalizers"}


def merge_patch(target, patch):
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = merge_patch(out.get(key), value)
    return out


def strategic_merge_patch(target, patch):
    return _smp_map(target if isinstance(target, dict) else {}, patch)


def _smp_map(target, patch):
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    directive = patch.get("$patch")
    if directive == "replace":
        return {k: copy.deepcopy(v) for k, v in patch.items() if k != "$patch"}
    if directive == "delete":
        return None
    out = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if key == "$patch" or key == "$retainKeys" or key.startswith("$setElementOrder/"):
            continue
        if key.startswith("$deleteFromPrimitiveList/"):
            field = key.split("/", 1)[1]
            drop = set(_hashable(v) for v in value or [])
            out[field] = [v for v in out.get(field) or [] if _hashable(v) not in drop]
            continue
        if value is None:
            out.pop(key, None)
        elif isinstance(value, dict):
            merged = _smp_map(out.get(key), value)
            if merged is None:
                out.pop(key, None)
            else:
                out[key] = merged
        elif isinstance(value, list) and key in MERGE_KEYS:
            out[key] = _smp_list_by_key(out.get(key) or [], value,
                                        _merge_key(key, out.get(key) or [], value))
        elif isinstance(value, list) and key in MERGE_PRIMITIVES:
            cur = list(out.get(key) or [])
            out[key] = cur + [v for v in value if v not in cur]
        else:
            out[key] = copy.deepcopy(value)
    return out


def _merge_key(key, current, patch):
    """The merge key of a list; `ports` is a container's (containerPort) or
    a Service's (port), told apart by the elements."""
    if key != "ports":
        return MERGE_KEYS[key]
    items = [i for i in list(current) + list(patch) if isinstance(i, dict)]
    if any("port" in i for i in items) and not any("containerPort" in i for i in items):
        return "port"
    return MERGE_KEYS[key]


def _hashable(v):
    return repr(v)


def _smp_list_by_key(current, patch, key):
    # A `{"$patch": "replace"}` element replaces the whole list.
    if any(isinstance(p, dict) and p.get("$patch") == "replace" for p in patch):
        return [copy.deepcopy(p) for p in patch
                if not (isinstance(p, dict) and p.get("$patch") == "replace")]
    out = [copy.deepcopy(c) for c in current]
    for item in patch:
        if not isinstance(item, dict) or key not in item:
            out.append(copy.deepcopy(item))
            continue
        idx = next((i for i, c in enumerate(out)
                    if isinstance(c, dict) and c.get(key) == item[key]), None)
        if item.get("$patch") == "delete":
            if idx is not None:
                del out[idx]
        elif idx is None:
            out.append(_smp_map({}, item))
        else:
            out[idx] = _smp_map(out[idx], item)
    return out


# --- RFC 6902 ---------------------------------------------------------------

def _pointer(path):
    if path == "":
        return []
    if not path.startswith("/"):
        raise bad_request("invalid JSON pointer: %r" % path)
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def _failed(message):
    return ApiError(422, "Invalid", message)


def _parent(doc, parts, path):
    cur = doc
    for p in parts[:-1]:
        if isinstance(cur, dict) and p in cur:
            cur = cur[p]
        elif isinstance(cur, list) and p.isdigit() and int(p) < len(cur):
            cur = cur[int(p)]
        else:
            raise _failed("jsonpatch: the path %r does not exist" % path)
    return cur


def _get(doc, path):
    parts = _pointer(path)
    if not parts:
        return doc
    parent = _parent(doc, parts, path)
    last = parts[-1]
    if isinstance(parent, dict) and last in parent:
        return parent[last]
    if isinstance(parent, list) and last.isdigit() and int(last) < len(parent):
        return parent[int(last)]
    raise _failed("jsonpatch: the path %r does not exist" % path)


def _add(doc, path, value):
    parts = _pointer(path)
    if not parts:
        return value
    parent = _parent(doc, parts, path)
    last = parts[-1]
    if isinstance(parent, dict):
        parent[last] = value
    elif isinstance(parent, list):
        if last == "-":
            parent.append(value)
        elif last.isdigit() and int(last) <= len(parent):
            parent.insert(int(last), value)
        else:
            raise _failed("jsonpatch add: index out of range in %r" % path)
    else:
        raise _failed("jsonpatch add: %r is not a container" % path)
    return doc


def _remove(doc, path):
    parts = _pointer(path)
    if not parts:
        raise _failed("jsonpatch remove: cannot remove the root")
    parent = _parent(doc, parts, path)
    last = parts[-1]
    if isinstance(parent, dict) and last in parent:
        return parent.pop(last)
    if isinstance(parent, list) and last.isdigit() and int(last) < len(parent):
        return parent.pop(int(last))
    raise _failed("jsonpatch remove operation does not apply: doc is missing path: %s" % path)


def _json_equal(a, b):
    """Equality of JSON values: Python's == takes True for 1 and False for
    0, but a JSON boolean never equals a number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b))
    return a == b


def json_patch(doc, ops):
    if not isinstance(ops, list):
        raise bad_request("json patch must be a list of operations")
    doc = copy.deepcopy(doc)
    for op in ops:
        if not isinstance(op, dict) or "op" not in op or "path" not in op:
            raise bad_request("invalid json patch operation: %r" % (op,))
        kind, path = op["op"], op["path"]
        if kind in ("add", "replace", "test") and "value" not in op:
            raise bad_request("jsonpatch %s operation: missing value" % kind)
        if kind == "add":
            doc = _add(doc, path, copy.deepcopy(op["value"]))
        elif kind == "remove":
            _remove(doc, path)
        elif kind == "replace":
            _get(doc, path)  # must exist
            if _pointer(path):
                _remove(doc, path)
            doc = _add(doc, path, copy.deepcopy(op["value"]))
        elif kind == "test":
            if not _json_equal(_get(doc, path), op["value"]):
                raise _failed("the server rejected our request due to an error in our "
                              "request: testing value %s failed" % path)
        elif kind in ("move", "copy"):
            if "from" not in op:
                raise bad_request("jsonpatch %s operation: missing from" % kind)
            value = copy.deepcopy(_get(doc, op["from"]))
            if kind == "move":
                _remove(doc, op["from"])
            doc = _add(doc, path, value)
        else:
            raise bad_request("unexpected jsonpatch operation %r" % kind)
    return doc


def check_type(content_type, custom_resource=False):
    """Raises 415 unless the PATCH content type is one we apply. Custom
    resources reject strategic merge patches, as on a real cluster."""
    accepted = [JSON_PATCH, MERGE_PATCH]
    if not custom_resource:
        accepted.append(STRATEGIC_PATCH)
    if content_type not in accepted:
        raise unsupported_media_type(content_type, accepted)


def apply(content_type, target, patch, custom_resource=False):
    """Applies a PATCH body by its content type; raises 415 for others."""
    check_type(content_type, custom_resource)
    if content_type == MERGE_PATCH:
        return merge_patch(target, patch)
    if content_type == JSON_PATCH:
        return json_patch(target, patch)
    return strategic_merge_patch(target, patch)
