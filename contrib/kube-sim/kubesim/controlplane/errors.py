"""The control plane's error answer, raised by its routes."""


class CpError(Exception):
    """code, message, and extra fields of the answer's body."""

    def __init__(self, code, message, extra=None):
        super().__init__(message)
        self.code, self.message, self.extra = code, message, extra or {}
