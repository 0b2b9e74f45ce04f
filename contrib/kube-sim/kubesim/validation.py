"""Object validation on create/update: names, labels, a few required fields.

The checks and their messages follow the real API server's, so a client
tested here meets the same 422 Invalid answers on a cluster. This is not
the full OpenAPI validation: only what clients commonly get wrong.

One check comes first and answers 400, not 422: a resource quantity the
server cannot parse (`cpu: abc`). The real server fails to decode such a
body into its Go types before any validation runs.
"""

import re

from kubesim import quantity
from kubesim.errors import ApiError, invalid

_SUBDOMAIN = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1035 = r"[a-z]([-a-z0-9]*[a-z0-9])?"
_QNAME = r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE = r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?"

_MSG_SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                  "characters, '-' or '.', and must start and end with an alphanumeric "
                  "character (e.g. 'example.com', regex used for validation is '%s')"
                  % _SUBDOMAIN)
_MSG_LABEL = ("a lowercase RFC 1123 label must consist of lower case alphanumeric "
              "characters or '-', and must start and end with an alphanumeric character "
              "(e.g. 'my-name',  or '123-abc', regex used for validation is '%s')" % _LABEL)
_MSG_DNS1035 = ("a DNS-1035 label must consist of lower case alphanumeric characters or "
                "'-', start with an alphabetic character, and end with an alphanumeric "
                "character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
                "'%s')" % _DNS1035)
_MSG_QNAME = ("name part must consist of alphanumeric characters, '-', '_' or '.', and "
              "must start and end with an alphanumeric character (e.g. 'MyName',  or "
              "'my.name',  or '123-abc', regex used for validation is '%s')" % _QNAME)
_MSG_LABEL_VALUE = ("a valid label must be an empty string or consist of alphanumeric "
                    "characters, '-', '_' or '.', and must start and end with an "
                    "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
                    "regex used for validation is '%s')" % _LABEL_VALUE)

# Which name rule each kind uses; the rest are DNS-1123 subdomains.
_NAME_RULES = {
    "namespaces": (_LABEL, 63, _MSG_LABEL),
    "services": (_DNS1035, 63, _MSG_DNS1035),
}


def _full(pattern, text):
    return re.fullmatch(pattern, text) is not None


def _quote(value):
    return '"%s"' % value


def name_errors(plural, name):
    pattern, limit, msg = _NAME_RULES.get(plural, (_SUBDOMAIN, 253, _MSG_SUBDOMAIN))
    errs = []
    if len(name) > limit:
        errs.append(("metadata.name", "FieldValueInvalid",
                     "Invalid value: %s: must be no more than %d characters"
                     % (_quote(name), limit)))
    if not _full(pattern, name):
        errs.append(("metadata.name", "FieldValueInvalid",
                     "Invalid value: %s: %s" % (_quote(name), msg)))
    return errs


def _label_key_errors(field, key):
    prefix, slash, name = key.rpartition("/")
    errs = []
    if slash and (not prefix or len(prefix) > 253 or not _full(_SUBDOMAIN, prefix)):
        errs.append((field, "FieldValueInvalid",
                     "Invalid value: %s: prefix part %s" % (_quote(key), _MSG_SUBDOMAIN)))
    if not name or len(name) > 63 or not _full(_QNAME, name):
        errs.append((field, "FieldValueInvalid",
                     "Invalid value: %s: %s" % (_quote(key), _MSG_QNAME)))
    return errs


def label_errors(labels):
    errs = []
    if labels is None:
        return errs
    if not isinstance(labels, dict):
        return [("metadata.labels", "FieldValueInvalid", "Invalid value: must be a map")]
    for key, value in labels.items():
        errs += _label_key_errors("metadata.labels", key)
        if not isinstance(value, str):
            errs.append(("metadata.labels", "FieldValueInvalid",
                         "Invalid value: %r: label values must be strings" % (value,)))
        elif len(value) > 63 or not _full(_LABEL_VALUE, value):
            errs.append(("metadata.labels", "FieldValueInvalid",
                         "Invalid value: %s: %s" % (_quote(value), _MSG_LABEL_VALUE)))
    return errs


def _annotation_errors(annotations):
    if annotations is None:
        return []
    if not isinstance(annotations, dict):
        return [("metadata.annotations", "FieldValueInvalid", "Invalid value: must be a map")]
    errs = []
    for key, value in annotations.items():
        errs += _label_key_errors("metadata.annotations", key)
        if not isinstance(value, str):
            errs.append(("metadata.annotations", "FieldValueInvalid",
                         "Invalid value: %r: annotation values must be strings" % (value,)))
    return errs


# --- quantities the decoder reads ---------------------------------------------

# Kinds whose bodies carry a pod spec, and where.
_TEMPLATED = {("apps", "deployments"), ("apps", "statefulsets"), ("apps", "replicasets"),
              ("apps", "daemonsets"), ("batch", "jobs")}


def _quantity_maps(spec):
    """Every {resource name: quantity} map a pod spec holds."""
    if not isinstance(spec, dict):
        return
    for key in ("containers", "initContainers"):
        for c in spec.get(key) or []:
            res = c.get("resources") if isinstance(c, dict) else None
            if isinstance(res, dict):
                yield res.get("limits")
                yield res.get("requests")
    yield spec.get("overhead")
    res = spec.get("resources")
    if isinstance(res, dict):
        yield res.get("limits")
        yield res.get("requests")
    for v in spec.get("volumes") or []:
        if not isinstance(v, dict):
            continue
        if isinstance(v.get("emptyDir"), dict):
            yield {"sizeLimit": v["emptyDir"].get("sizeLimit")}
        tmpl = (v.get("ephemeral") or {}).get("volumeClaimTemplate") \
            if isinstance(v.get("ephemeral"), dict) else None
        if isinstance(tmpl, dict):
            yield from _claim_maps(tmpl.get("spec"))


def _claim_maps(spec):
    res = spec.get("resources") if isinstance(spec, dict) else None
    if isinstance(res, dict):
        yield res.get("limits")
        yield res.get("requests")


def _body_quantities(resource, obj):
    spec = obj.get("spec")
    if not resource.group and resource.plural == "pods":
        yield from _quantity_maps(spec)
    elif (resource.group, resource.plural) in _TEMPLATED and isinstance(spec, dict):
        tmpl = spec.get("template")
        if isinstance(tmpl, dict):
            yield from _quantity_maps(tmpl.get("spec"))
        for claim in spec.get("volumeClaimTemplates") or []:
            if isinstance(claim, dict):
                yield from _claim_maps(claim.get("spec"))
    elif not resource.group and resource.plural == "persistentvolumeclaims":
        yield from _claim_maps(spec)
        status = obj.get("status")
        if isinstance(status, dict):
            yield status.get("capacity")


def check_decodable(resource, obj):
    """Raises the 400 a real server answers for an unparsable quantity:
    `Pod in version "v1" cannot be handled as a Pod: quantities must ...`."""
    for values in _body_quantities(resource, obj):
        if not isinstance(values, dict):
            continue
        for value in values.values():
            if value is None:
                continue
            try:
                quantity.parse(value)
            except quantity.QuantityError as e:
                raise ApiError(400, "BadRequest", '%s in version "%s" cannot be handled as a '
                               '%s: %s' % (resource.kind, resource.version, resource.kind, e))


# --- pod specs ------------------------------------------------------------------

_STANDARD_CONTAINER_RESOURCES = ("cpu", "memory", "ephemeral-storage")


def _native(name):
    return "/" not in name or "kubernetes.io/" in name


def _extended(name):
    """Extended resources (nvidia.com/gpu): whole numbers, never overcommitted."""
    return not _native(name) and not name.startswith("requests.")


def _overcommit(name):
    return _native(name) and not name.startswith("hugepages-")


def _resource_name_errors(name, where):
    if "/" not in name and name not in _STANDARD_CONTAINER_RESOURCES and \
            not name.startswith("hugepages-"):
        return [(where, "FieldValueInvalid", "Invalid value: %s: must be a standard resource "
                 "for containers" % _quote(name))]
    return []


def _quantity_value_errors(name, value, where):
    amount, fmt = quantity.parse(value)
    text = quantity.canonical(amount, fmt)
    if amount < 0:
        return [(where, "FieldValueInvalid",
                 "Invalid value: %s: must be greater than or equal to 0" % _quote(text))]
    if _extended(name) and amount.denominator != 1:
        return [(where, "FieldValueInvalid", "Invalid value: %s: must be an integer"
                 % _quote(text))]
    return []


def _resources_errors(res, where):
    """ValidateContainerResourceRequirements: names, values, requests
    against limits. Extended resources need a limit equal to the request."""
    if not isinstance(res, dict):
        return []
    limits = res.get("limits") if isinstance(res.get("limits"), dict) else {}
    requests = res.get("requests") if isinstance(res.get("requests"), dict) else {}
    errs = []
    for name in sorted(limits):
        if limits[name] is None:
            continue
        key = "%s.limits[%s]" % (where, name)
        errs += _resource_name_errors(name, key) + _quantity_value_errors(name, limits[name], key)
    for name in sorted(requests):
        if requests[name] is None:
            continue
        key = "%s.requests[%s]" % (where, name)
        errs += _resource_name_errors(name, key) + _quantity_value_errors(
            name, requests[name], key)
        errs += _request_vs_limit(name, requests[name], limits.get(name), where)
    return errs


def _request_vs_limit(name, request, limit, where):
    req, req_fmt = quantity.parse(request)
    if limit is None:
        if not _overcommit(name):
            return [(where + ".limits", "FieldValueRequired", "Required value: Limit must be set "
                     "for non overcommitable resources")]
        return []
    lim, lim_fmt = quantity.parse(limit)
    shown, bound = quantity.canonical(req, req_fmt), quantity.canonical(lim, lim_fmt)
    if req != lim and not _overcommit(name):
        return [(where + ".requests", "FieldValueInvalid", "Invalid value: %s: must be equal "
                 "to %s limit of %s" % (_quote(shown), name, bound))]
    if req > lim:
        return [(where + ".requests", "FieldValueInvalid", "Invalid value: %s: must be less "
                 "than or equal to %s limit of %s" % (_quote(shown), name, bound))]
    return []


def _env_errors(env, where):
    """Environment variable names: since 1.32 (RelaxedEnvironmentVariableValidation,
    beta and on) any printable ASCII but '='."""
    errs = []
    for i, var in enumerate(env if isinstance(env, list) else []):
        name = var.get("name") if isinstance(var, dict) else None
        path = "%s.env[%d].name" % (where, i)
        if not name:
            errs.append((path, "FieldValueRequired", "Required value"))
        elif not isinstance(name, str) or any(
                ord(ch) < 32 or ord(ch) > 126 or ch == "=" for ch in name):
            errs.append((path, "FieldValueInvalid", "Invalid value: %s: a valid environment "
                         "variable name must consist only of printable ASCII characters other "
                         "than '='" % _quote(name)))
    return errs


def _mount_errors(mounts, volumes, where):
    """Each volumeMount names a volume of the pod; mount paths are unique."""
    errs, seen = [], set()
    for i, m in enumerate(mounts if isinstance(mounts, list) else []):
        if not isinstance(m, dict):
            continue
        path = "%s.volumeMounts[%d]" % (where, i)
        name, mount_path = m.get("name") or "", m.get("mountPath") or ""
        if not name:
            errs.append((path + ".name", "FieldValueRequired", "Required value"))
        if name not in volumes:
            errs.append((path + ".name", "FieldValueNotFound", "Not found: %s" % _quote(name)))
        if not mount_path:
            errs.append((path + ".mountPath", "FieldValueRequired", "Required value"))
        elif mount_path in seen:
            errs.append((path + ".mountPath", "FieldValueInvalid",
                         "Invalid value: %s: must be unique" % _quote(mount_path)))
        seen.add(mount_path)
    return errs


def _container_errors(c, where, volumes):
    if not isinstance(c, dict):
        return [(where, "FieldValueInvalid", "Invalid value: must be an object")]
    errs = []
    name = c.get("name")
    if not name:
        errs.append((where + ".name", "FieldValueRequired", "Required value"))
    elif not isinstance(name, str) or len(name) > 63 or not _full(_LABEL, name):
        errs.append((where + ".name", "FieldValueInvalid",
                     "Invalid value: %s: %s" % (_quote(name), _MSG_LABEL)))
    if not c.get("image"):
        errs.append((where + ".image", "FieldValueRequired", "Required value"))
    errs += _env_errors(c.get("env"), where)
    errs += _mount_errors(c.get("volumeMounts"), volumes, where)
    errs += _resources_errors(c.get("resources"), where + ".resources")
    return errs


def _pod_spec_errors(spec, prefix):
    if not isinstance(spec, dict):
        return [(prefix, "FieldValueRequired", "Required value")]
    containers = spec.get("containers")
    if not containers:
        return [(prefix + ".containers", "FieldValueRequired", "Required value")]
    volumes = {v.get("name") for v in spec.get("volumes") or [] if isinstance(v, dict)}
    errs = []
    for key in ("containers", "initContainers"):
        for i, c in enumerate(spec.get(key) or []):
            errs += _container_errors(c, "%s.%s[%d]" % (prefix, key, i), volumes)
    return errs


def _job_errors(obj):
    """A Job's pod template: the pod checks, and a restartPolicy of OnFailure
    or Never (an unset one defaults to Always)."""
    tmpl = (obj.get("spec") or {}).get("template") if isinstance(obj.get("spec"), dict) \
        else None
    spec = tmpl.get("spec") if isinstance(tmpl, dict) else None
    errs = _pod_spec_errors(spec, "spec.template.spec")
    policy = (spec or {}).get("restartPolicy") or "Always" if isinstance(spec, dict) else None
    if policy is not None and policy not in ("OnFailure", "Never"):
        errs.append(("spec.template.spec.restartPolicy", "FieldValueNotSupported",
                     'Unsupported value: %s: supported values: "OnFailure", "Never"'
                     % _quote(policy)))
    return errs


# --- services and claims --------------------------------------------------------

_SERVICE_TYPES = ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")


def _service_errors(obj):
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    stype = spec.get("type") or "ClusterIP"
    if stype not in _SERVICE_TYPES:
        return [("spec.type", "FieldValueNotSupported", "Unsupported value: %s: supported "
                 "values: %s" % (_quote(stype), ", ".join(_quote(t) for t in _SERVICE_TYPES)))]
    ports = spec.get("ports") or []
    errs = []
    if not ports and stype != "ExternalName" and spec.get("clusterIP") != "None":
        errs.append(("spec.ports", "FieldValueRequired", "Required value"))
    if stype == "ClusterIP":
        for i, p in enumerate(ports):
            if isinstance(p, dict) and p.get("nodePort"):
                errs.append(("spec.ports[%d].nodePort" % i, "FieldValueForbidden",
                             "Forbidden: may not be used when `type` is 'ClusterIP'"))
    return errs


def _claim_errors(obj):
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    errs = []
    if not spec.get("accessModes"):
        errs.append(("spec.accessModes", "FieldValueRequired",
                     "Required value: at least 1 access mode is required"))
    requests = (spec.get("resources") or {}).get("requests") \
        if isinstance(spec.get("resources"), dict) else None
    storage = requests.get("storage") if isinstance(requests, dict) else None
    if storage is None:
        errs.append(("spec.resources[storage]", "FieldValueRequired", "Required value"))
    else:
        amount, fmt = quantity.parse(storage)
        if amount <= 0:
            errs.append(("spec.resources.requests[storage]", "FieldValueInvalid",
                         "Invalid value: %s: must be greater than zero"
                         % _quote(quantity.canonical(amount, fmt))))
    return errs


def _spec_errors(resource, obj):
    if resource.group == "":
        if resource.plural == "pods":
            return _pod_spec_errors(obj.get("spec"), "spec")
        if resource.plural == "services":
            return _service_errors(obj)
        if resource.plural == "persistentvolumeclaims":
            return _claim_errors(obj)
    elif resource.group == "batch" and resource.plural == "jobs":
        return _job_errors(obj)
    return []


def validate(resource, obj):
    """Raises a 422 Invalid ApiError when `obj` breaks a rule."""
    check_decodable(resource, obj)
    meta = obj.get("metadata") or {}
    name = meta.get("name") or ""
    errs = []
    if not name:
        errs.append(("metadata.name", "FieldValueRequired",
                     "Required value: name or generateName is required"))
    else:
        errs += name_errors(resource.plural, name)
    errs += label_errors(meta.get("labels"))
    errs += _annotation_errors(meta.get("annotations"))
    errs += _spec_errors(resource, obj)
    if errs:
        raise invalid(resource.kind, name, errs, resource.group)
