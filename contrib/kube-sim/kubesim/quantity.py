"""Kubernetes resource quantities ("500m", "1Gi", "1e3") as the API server
reads and prints them.

A real API server decodes a request body into Go structs before anything
else, so a quantity it cannot parse fails the whole request with a 400
("... cannot be handled as a Pod: quantities must match the regular
expression ..."), while a parsable but wrong one (negative, fractional
GPUs) fails validation with a 422 that quotes the canonical form
(`0.5` prints as `500m`, `1024Mi` as `1Gi`). This module does both: the
parse with the server's two error texts, and the canonical printing.
"""

import functools
from fractions import Fraction

# The texts of resource.ErrFormatWrong and resource.ErrSuffix.
FORMAT_WRONG = ("quantities must match the regular expression "
                "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
BAD_SUFFIX = "unable to parse quantity's suffix"

_SUFFIX_CHARS = set("eEinumkKMGTP")
_DIGITS = set("0123456789")
_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12,
            "P": 15, "E": 18}
_DECIMAL_NAMES = {v: k for k, v in _DECIMAL.items()}
_BINARY_NAMES = {v // 10: k for k, v in _BINARY.items()}

BINARY_SI, DECIMAL_SI, DECIMAL_EXPONENT = "BinarySI", "DecimalSI", "DecimalExponent"

# Exact arithmetic costs time with the size of the number: "1e1000000000"
# would hold the interpreter (and so every connection) for ever, and more
# than 4300 digits is a plain ValueError in Python. Quantities past these
# limits, which no client sends, are refused as undecodable instead.
MAX_DIGITS = 1000
MAX_EXPONENT = 1000
TOO_BIG = ("kube-sim cannot handle quantities of more than %d digits or with an exponent "
           "beyond +-%d" % (MAX_DIGITS, MAX_EXPONENT))


class QuantityError(ValueError):
    """A quantity the server would refuse to decode; str() is its text."""


def _digits_from(text, pos):
    while pos < len(text) and text[pos] in _DIGITS:
        pos += 1
    return pos


def _split(text):
    """(sign, number text, suffix) the way resource.parseQuantityString
    splits a quantity, or QuantityError(FORMAT_WRONG)."""
    pos, sign = 0, 1
    if text[:1] in ("+", "-"):
        sign = -1 if text[0] == "-" else 1
        pos = 1
    start = pos
    pos = _digits_from(text, pos)
    if pos < len(text) and text[pos] == ".":
        pos = _digits_from(text, pos + 1)
    number = text[start:pos]
    suffix_start = pos
    while pos < len(text) and text[pos] in _SUFFIX_CHARS:
        pos += 1
    if pos < len(text) and text[pos] in "+-":
        pos += 1
    pos = _digits_from(text, pos)
    if pos != len(text):
        raise QuantityError(FORMAT_WRONG)
    return sign, number, text[suffix_start:]


def _scale(suffix):
    """(base, exponent, format) for a suffix, or QuantityError(BAD_SUFFIX)."""
    if suffix in _DECIMAL:
        return 10, _DECIMAL[suffix], DECIMAL_SI
    if suffix in _BINARY:
        return 2, _BINARY[suffix], BINARY_SI
    if len(suffix) > 1 and suffix[0] in "eE":
        try:
            return 10, int(suffix[1:]), DECIMAL_EXPONENT
        except ValueError:
            pass
    raise QuantityError(BAD_SUFFIX)


@functools.lru_cache(maxsize=4096)
def _parse_text(text):
    if not text:
        raise QuantityError(FORMAT_WRONG)
    sign, number, suffix = _split(text)
    base, exp, fmt = _scale(suffix)
    digits = number.replace(".", "") or "0"
    if len(digits) > MAX_DIGITS or abs(exp) > MAX_EXPONENT:
        raise QuantityError(TOO_BIG)
    value = Fraction(int(digits), 10 ** (len(number) - number.index(".") - 1)) \
        if "." in number else Fraction(int(digits))
    value *= Fraction(base) ** exp
    # the server keeps nano precision at most, rounding up
    nanos = value * 10 ** 9
    if nanos.denominator != 1:
        value = Fraction(-(-nanos.numerator // nanos.denominator), 10 ** 9)
    return sign * value, fmt


def parse(value):
    """(Fraction value, format) of a quantity as JSON gives it: a string or
    a number (the Go decoder reads a JSON number's text too). Raises
    QuantityError with the server's text."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise QuantityError(FORMAT_WRONG)
    text = value.strip() if isinstance(value, str) else repr(value)
    return _parse_text(text)


def _strip_tens(n, exp):
    while n and n % 10 == 0:
        n //= 10
        exp += 1
    return n, exp


def _decimal_text(value, fmt):
    """resource.Quantity.String() for decimal formats: the mantissa's
    trailing zeros go into the exponent, lowered to a multiple of three."""
    sign = "-" if value < 0 else ""
    value = abs(value)
    exp = 0
    while value.denominator != 1:
        value *= 10
        exp -= 1
    n, exp = _strip_tens(value.numerator, exp)
    shift = exp % 3
    n, exp = n * 10 ** shift, exp - shift
    if fmt == DECIMAL_EXPONENT:
        return "%s%d%s" % (sign, n, "e%d" % exp if exp else "")
    if exp > 18:
        n, exp = n * 10 ** (exp - 18), 18
    return "%s%d%s" % (sign, n, _DECIMAL_NAMES[exp])


def canonical(value, fmt):
    """The canonical text the server prints (`Invalid value: "500m"`)."""
    if value == 0:
        return "0"
    if fmt == BINARY_SI:
        if -1024 < value < 1024 or value.denominator != 1:
            return _decimal_text(value, DECIMAL_SI)
        n, power = abs(value.numerator), 0
        while n % 1024 == 0 and power < 6:
            n //= 1024
            power += 1
        return "%s%d%s" % ("-" if value < 0 else "", n, _BINARY_NAMES.get(power, ""))
    return _decimal_text(value, fmt)
