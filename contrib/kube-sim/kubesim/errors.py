"""Errors that become Kubernetes `Status` bodies on the wire."""

import http.client


class ApiError(Exception):
    """An error answered as a `meta/v1 Status` object.

    code:    HTTP status (404, 409, ...)
    reason:  Status.reason (NotFound, AlreadyExists, Conflict, Invalid, ...)
    message: Status.message
    details: Status.details dict, or None (name, group, kind, causes, retryAfterSeconds)
    """

    def __init__(self, code, reason, message, details=None):
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details

    def status(self):
        body = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        }
        if self.details:
            body["details"] = self.details
        return body


def not_found(resource, name, group=""):
    qual = resource if not group else "%s.%s" % (resource, group)
    return ApiError(404, "NotFound", '%s "%s" not found' % (qual, name),
                    {"name": name, "group": group, "kind": resource})


def already_exists(resource, name, group=""):
    qual = resource if not group else "%s.%s" % (resource, group)
    return ApiError(409, "AlreadyExists", '%s "%s" already exists' % (qual, name),
                    {"name": name, "group": group, "kind": resource})


def conflict(resource, name, group=""):
    qual = resource if not group else "%s.%s" % (resource, group)
    return ApiError(409, "Conflict",
                    'Operation cannot be fulfilled on %s "%s": the object has been '
                    'modified; please apply your changes to the latest version and '
                    'try again' % (qual, name),
                    {"name": name, "group": group, "kind": resource})


def bad_request(message):
    return ApiError(400, "BadRequest", message)


def reason_phrase(code):
    return http.client.responses.get(code, "Unknown")


# --- more constructors, each shaped like the real kube-apiserver's answer ---

def unauthorized():
    return ApiError(401, "Unauthorized", "Unauthorized")


def forbidden(user, verb, resource, group, namespace, name=None, subresource=""):
    """The RBAC denial message kubectl users know, word for word."""
    what = resource if not subresource else "%s/%s" % (resource, subresource)
    subject = resource if not name else '%s "%s"' % (resource, name)
    if group:
        subject = subject.replace(resource, "%s.%s" % (resource, group), 1)
    scope = ('in the namespace "%s"' % namespace) if namespace else "at the cluster scope"
    message = ('%s is forbidden: User "%s" cannot %s resource "%s" in API group "%s" %s'
               % (subject, user, verb, what, group, scope))
    details = {"group": group, "kind": resource}
    if name:
        details["name"] = name
    return ApiError(403, "Forbidden", message, details)


def invalid(kind, name, causes, group=""):
    """422 Invalid with one cause per field error.

    causes: list of (field, reason, message) where reason is a kube cause
    type such as FieldValueInvalid or FieldValueRequired and message the
    text after the field name ("Invalid value: ...", "Required value").
    """
    texts = ["%s: %s" % (field, msg) for field, _, msg in causes]
    joined = texts[0] if len(texts) == 1 else "[%s]" % ", ".join(texts)
    qual = kind if not group else "%s.%s" % (kind, group)
    return ApiError(422, "Invalid", '%s "%s" is invalid: %s' % (qual, name, joined),
                    {"name": name, "group": group, "kind": kind,
                     "causes": [{"reason": r, "message": m, "field": f}
                                for f, r, m in causes]})


def method_not_allowed(method):
    return ApiError(405, "MethodNotAllowed",
                    "the server does not allow this method on the requested resource")


def resource_not_found():
    """404 for a URL that names no known resource (not a missing object)."""
    return ApiError(404, "NotFound", "the server could not find the requested resource")


def expired(message="too old resource version"):
    return ApiError(410, "Expired", message)


def too_large(limit):
    return ApiError(413, "RequestEntityTooLarge",
                    "Request entity too large: limit is %d" % limit)


def unsupported_media_type(content_type, accepted):
    return ApiError(415, "UnsupportedMediaType",
                    "the body of the request was in an unknown format - accepted "
                    "media types include: %s" % ", ".join(accepted))


def not_acceptable(accept):
    return ApiError(406, "NotAcceptable",
                    "only the following media types are accepted: application/json, "
                    "application/yaml")


def internal(message):
    return ApiError(500, "InternalError", "Internal error occurred: %s" % message)


# Status.reason for an HTTP code, used for injected faults.
REASONS = {
    400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound",
    405: "MethodNotAllowed", 406: "NotAcceptable", 409: "Conflict", 410: "Gone",
    413: "RequestEntityTooLarge", 415: "UnsupportedMediaType", 422: "Invalid",
    429: "TooManyRequests", 500: "InternalError", 503: "ServiceUnavailable",
    504: "Timeout",
}


def reason_for(code):
    if code in REASONS:
        return REASONS[code]
    return "InternalError" if code >= 500 else "Unknown"
