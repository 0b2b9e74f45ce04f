"""Server-side apply: PATCH with `application/apply-patch+yaml`, as
`kubectl apply --server-side` sends it.

Each manager's fields are kept in `metadata.managedFields` (FieldsV1, one
entry per manager and operation "Apply"). An apply sets the fields it
names and removes those its manager set before and no longer names
(unless another manager holds them too). A field another manager holds
with a different value is a conflict: 409 with one cause per field,
unless `force=true`, which moves the field to the applying manager. An
apply to an object that does not exist creates it.

Lists are merged by key where Kubernetes marks them so (containers, env,
volumes... by name, volumeMounts by mountPath, ports by port); any other
list is one value, replaced whole.
"""

import copy
import json
import time

from kubesim.errors import ApiError, bad_request, invalid

CONTENT_TYPE = "application/apply-patch+yaml"
# list field name -> the item field that keys it
LIST_KEYS = {"containers": "name", "initContainers": "name", "ephemeralContainers": "name",
             "env": "name", "volumes": "name", "imagePullSecrets": "name",
             "volumeMounts": "mountPath", "volumeDevices": "devicePath",
             "conditions": "type", "ports": ("containerPort", "port")}
UNTRACKED_META = ("name", "namespace", "uid", "resourceVersion", "generation",
                  "creationTimestamp", "managedFields", "selfLink", "deletionTimestamp")


def _list_key(name, items):
    """The key field of a list called `name`, or None when it is atomic."""
    keys = LIST_KEYS.get(name)
    if keys is None or not items or not all(isinstance(i, dict) for i in items):
        return None
    for key in (keys if isinstance(keys, tuple) else (keys,)):
        if all(key in i for i in items):
            return key
    return None


def _item_token(key, item):
    return "k:" + json.dumps({key: item[key]}, separators=(",", ":"), sort_keys=True)


def fields_of(obj):
    """The FieldsV1 set of an applied configuration, as a tree."""
    tree = {}
    for k, v in obj.items():
        if k in ("apiVersion", "kind", "status"):
            continue
        if k == "metadata" and isinstance(v, dict):
            v = {mk: mv for mk, mv in v.items() if mk not in UNTRACKED_META}
            if not v:
                continue
        tree["f:" + k] = _fields_of_value(k, v)
    return tree


def _fields_of_value(name, value):
    if isinstance(value, dict) and value:
        return {"f:" + k: _fields_of_value(k, v) for k, v in value.items()}
    if isinstance(value, list):
        key = _list_key(name, value)
        if key:
            out = {}
            for item in value:
                sub = {"f:" + k: _fields_of_value(k, v) for k, v in item.items()}
                sub["."] = {}
                out[_item_token(key, item)] = sub
            return out
    return {}


def leaves(tree, prefix=()):
    """Every path of the set, as tuples of tokens."""
    out = set()
    for token, sub in tree.items():
        path = prefix + (token,)
        if sub:
            out |= leaves(sub, path)
        else:
            out.add(path)
    return out


def tree_of(paths):
    tree = {}
    for path in paths:
        node = tree
        for token in path:
            node = node.setdefault(token, {})
    return tree


_MISSING = object()


def value_at(obj, path):
    """The value an object has at a path of tokens, or _MISSING."""
    cur = obj
    for token in path:
        if token == ".":
            return cur
        if token.startswith("f:") and isinstance(cur, dict):
            cur = cur.get(token[2:], _MISSING)
        elif token.startswith("k:") and isinstance(cur, list):
            want = json.loads(token[2:])
            cur = next((i for i in cur if isinstance(i, dict) and
                        all(i.get(k) == v for k, v in want.items())), _MISSING)
        else:
            return _MISSING
        if cur is _MISSING:
            return _MISSING
    return cur


def remove_at(obj, path):
    """Removes the field (or list item, for a "." path) at `path`."""
    parent, cur = None, obj
    for i, token in enumerate(path):
        if token == ".":
            if isinstance(parent, list):
                parent.remove(cur)
            return
        last = i == len(path) - 1
        if token.startswith("f:") and isinstance(cur, dict):
            if last:
                cur.pop(token[2:], None)
                return
            parent, cur = cur, cur.get(token[2:])
        elif token.startswith("k:") and isinstance(cur, list):
            want = json.loads(token[2:])
            item = next((x for x in cur if isinstance(x, dict) and
                         all(x.get(k) == v for k, v in want.items())), None)
            if item is None:
                return
            if last:
                cur.remove(item)
                return
            parent, cur = cur, item
        else:
            return
        if cur is None:
            return


def merge(old, config, name=""):
    """The applied configuration laid over the live object."""
    if isinstance(old, dict) and isinstance(config, dict):
        out = dict(old)
        for k, v in config.items():
            out[k] = merge(old.get(k), v, k) if k in old else copy.deepcopy(v)
        return out
    if isinstance(old, list) and isinstance(config, list):
        key = _list_key(name, config)
        if key and _list_key(name, old) == key:
            by_key = {i[key]: i for i in config}
            out = [merge(i, by_key.pop(i[key]), "") if i[key] in by_key else i for i in old]
            return out + [copy.deepcopy(i) for i in config if i[key] in by_key]
    return copy.deepcopy(config)


def _managers(obj):
    out = []
    for entry in (obj.get("metadata") or {}).get("managedFields") or []:
        if isinstance(entry, dict):
            out.append(entry)
    return out


def conflict_error(res, name, conflicts):
    """409 as the server words it: the fields and who holds them."""
    by_manager = {}
    for manager, path in conflicts:
        by_manager.setdefault(manager, []).append(_path_text(path))
    n = len(conflicts)
    if n == 1:
        manager, path = conflicts[0]
        text = 'Apply failed with 1 conflict: conflict with "%s": %s' % (manager,
                                                                          _path_text(path))
    else:
        parts = ['conflicts with "%s":\n%s' % (m, "\n".join("- " + p for p in sorted(ps)))
                 for m, ps in sorted(by_manager.items())]
        text = "Apply failed with %d conflicts: %s" % (n, "\n".join(parts))
    causes = [{"reason": "FieldManagerConflict", "message": 'conflict with "%s"' % m,
               "field": _path_text(p)} for m, p in conflicts]
    return ApiError(409, "Conflict", text, {"name": name, "group": res.group,
                                            "kind": res.plural, "causes": causes})


def _path_text(path):
    out = ""
    for token in path:
        if token.startswith("f:"):
            out += "." + token[2:]
        elif token.startswith("k:"):
            out += "[%s]" % ",".join("%s=%s" % (k, json.dumps(v))
                                     for k, v in json.loads(token[2:]).items())
    return out


def plan(live, config, manager, force):
    """(new object, conflicts): the apply of `config` by `manager` to the
    live object (None: it is created)."""
    mine = leaves(fields_of(config))
    others, previous = [], set()
    for entry in _managers(live or {}):
        owned = leaves(entry.get("fieldsV1") or {})
        if entry.get("manager") == manager and entry.get("operation") == "Apply":
            previous = owned
        else:
            others.append((entry, owned))
    conflicts = []
    for entry, owned in others:
        for path in sorted(mine & owned):
            if value_at(live, path) != value_at(config, path):
                conflicts.append((entry.get("manager", ""), path))
    if conflicts and not force:
        return None, conflicts
    base = copy.deepcopy(live) if live else {}
    held_by_others = set().union(*[o for _, o in others]) if others else set()
    for path in sorted(previous - mine - held_by_others, key=len, reverse=True):
        remove_at(base, path)
    new = merge(base, config)
    entries = []
    for entry, owned in others:
        if force:
            owned = owned - mine
        if owned:
            e = dict(entry)
            e["fieldsV1"] = tree_of(owned)
            entries.append(e)
    api_version = config.get("apiVersion") or (live or {}).get("apiVersion", "")
    entries.append({"manager": manager, "operation": "Apply", "apiVersion": api_version,
                    "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                    "fieldsType": "FieldsV1", "fieldsV1": tree_of(mine)})
    new.setdefault("metadata", {})["managedFields"] = entries
    return new, []


def _config(handler, res, req):
    config = handler.body_json()
    if not isinstance(config, dict):
        raise bad_request("the applied configuration must be an object")
    if config.get("kind") and config["kind"] != res.kind:
        raise bad_request("the kind in the request body (%s) does not match the resource "
                          "(%s)" % (config["kind"], res.kind))
    meta = config.setdefault("metadata", {})
    if not isinstance(meta, dict):
        raise bad_request("metadata must be an object")
    if meta.get("name") not in (None, req.name):
        raise bad_request("the name of the object (%s) does not match the name on the URL "
                          "(%s)" % (meta.get("name"), req.name))
    if res.namespaced and meta.get("namespace") not in (None, "", req.namespace):
        raise bad_request("the namespace of the provided object does not match the "
                          "namespace sent on the request")
    meta["name"] = req.name
    meta.pop("managedFields", None)
    return config


def apply(handler, res, req):
    """PATCH ...?fieldManager=M[&force=true] with an applied configuration."""
    manager = (handler.query.get("fieldManager") or [""])[0]
    if not manager:
        raise invalid("PatchOptions", "", [("fieldManager", "FieldValueRequired",
                                            "Required value: is required for apply patch")],
                      "meta.k8s.io")
    force = (handler.query.get("force") or [""])[0].lower() == "true"
    dry = bool(handler.query.get("dryRun"))
    config = _config(handler, res, req)
    store = handler.sim.store
    live = store.get(res.gvr, req.namespace, req.name)
    new, conflicts = plan(live, config, manager, force)
    if conflicts:
        raise conflict_error(res, req.name, conflicts)
    if live is None:
        new.pop("status", None)
        out = store.create(res.gvr, req.namespace, new, dry_run=dry)
        return handler.send_json(201, out)
    new["metadata"]["resourceVersion"] = live["metadata"].get("resourceVersion")
    out = store.update(res.gvr, req.namespace, new, check_rv=True, dry_run=dry,
                       keep_status=res.has_status)
    handler.send_json(200, out)
