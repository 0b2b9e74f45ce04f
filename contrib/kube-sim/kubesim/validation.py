"""Object validation on create/update: names, labels, a few required fields.

The checks and their messages follow the real API server's, so a client
tested here meets the same 422 Invalid answers on a cluster. This is not
the full OpenAPI validation: only what clients commonly get wrong.
"""

import re

from kubesim.errors import invalid

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


def _pod_spec_errors(spec, prefix):
    if not isinstance(spec, dict):
        return [(prefix, "FieldValueRequired", "Required value")]
    containers = spec.get("containers")
    if not containers:
        return [(prefix + ".containers", "FieldValueRequired", "Required value")]
    errs = []
    for i, c in enumerate(containers):
        where = "%s.containers[%d]" % (prefix, i)
        if not isinstance(c, dict):
            errs.append((where, "FieldValueInvalid", "Invalid value: must be an object"))
            continue
        if not c.get("name"):
            errs.append((where + ".name", "FieldValueRequired", "Required value"))
        if not c.get("image"):
            errs.append((where + ".image", "FieldValueRequired", "Required value"))
    return errs


def _spec_errors(plural, obj):
    if plural == "pods":
        return _pod_spec_errors(obj.get("spec"), "spec")
    return []


def validate(resource, obj):
    """Raises a 422 Invalid ApiError when `obj` breaks a rule."""
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
    errs += _spec_errors(resource.plural, obj)
    if errs:
        raise invalid(resource.kind, name, errs, resource.group)
