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
