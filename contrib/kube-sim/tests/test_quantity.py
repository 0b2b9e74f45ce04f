"""Resource quantities (kubesim/quantity.py): the values and formats the
server reads, the canonical text it prints, and its two decode errors."""

from fractions import Fraction
import unittest

import support  # noqa: F401  (sys.path)
from kubesim import quantity
from kubesim.quantity import (BAD_SUFFIX, BINARY_SI, DECIMAL_EXPONENT, DECIMAL_SI,
                              FORMAT_WRONG, QuantityError, canonical, parse)


class Parse(unittest.TestCase):
    def check(self, text, value, fmt):
        self.assertEqual(parse(text), (Fraction(value), fmt), text)

    def test_decimal_si(self):
        self.check("100", 100, DECIMAL_SI)
        self.check("500m", Fraction(1, 2), DECIMAL_SI)
        self.check("0.5", Fraction(1, 2), DECIMAL_SI)
        self.check("+2k", 2000, DECIMAL_SI)
        self.check("-1", -1, DECIMAL_SI)
        self.check("1n", Fraction(1, 10 ** 9), DECIMAL_SI)
        self.check("1u", Fraction(1, 10 ** 6), DECIMAL_SI)
        self.check("3E", 3 * 10 ** 18, DECIMAL_SI)   # E alone is exa, not an exponent
        self.check("1.", 1, DECIMAL_SI)
        self.check(".5", Fraction(1, 2), DECIMAL_SI)
        self.check(" 2 ", 2, DECIMAL_SI)             # JSON strings are trimmed

    def test_binary_si(self):
        self.check("1Ki", 1024, BINARY_SI)
        self.check("1Gi", 1 << 30, BINARY_SI)
        self.check("1.5Gi", 3 << 29, BINARY_SI)
        self.check("2Ei", 2 << 60, BINARY_SI)

    def test_decimal_exponent(self):
        self.check("1e3", 1000, DECIMAL_EXPONENT)
        self.check("1E+3", 1000, DECIMAL_EXPONENT)
        self.check("12e-3", Fraction(12, 1000), DECIMAL_EXPONENT)

    def test_precision_is_nano_rounded_up(self):
        self.check("0.0000000001", Fraction(1, 10 ** 9), DECIMAL_SI)
        self.check("1.0000000001", 1 + Fraction(1, 10 ** 9), DECIMAL_SI)
        self.check("-0.0000000001", Fraction(-1, 10 ** 9), DECIMAL_SI)

    def test_missing_digits_read_as_zero(self):
        # the split mirrors the server's: an empty number part is 0
        self.check("Gi", 0, BINARY_SI)
        self.check("+.", 0, DECIMAL_SI)
        self.check("e3", 0, DECIMAL_EXPONENT)

    def test_json_numbers(self):
        self.assertEqual(parse(2), (Fraction(2), DECIMAL_SI))
        self.assertEqual(parse(0.25), (Fraction(1, 4), DECIMAL_SI))
        self.assertEqual(parse(1e3), (Fraction(1000), DECIMAL_SI))   # repr "1000.0"
        self.assertEqual(parse(1e22), (Fraction(10 ** 22), DECIMAL_EXPONENT))  # "1e+22"

    def test_format_errors(self):
        for bad in ("", "abc", "1 Gi", "1.2.3", "1Mb", "1Gi1x", "0x10"):
            with self.subTest(text=bad):
                with self.assertRaises(QuantityError) as cm:
                    parse(bad)
                self.assertEqual(str(cm.exception), FORMAT_WRONG)

    def test_suffix_errors(self):
        for bad in ("1ki", "1mm", "1e", "1e+", "--1", "1Mi3", "1Kie", "1-"):
            with self.subTest(text=bad):
                with self.assertRaises(QuantityError) as cm:
                    parse(bad)
                self.assertEqual(str(cm.exception), BAD_SUFFIX)

    def test_error_texts_are_the_servers(self):
        self.assertEqual(FORMAT_WRONG, "quantities must match the regular expression "
                         "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
        self.assertEqual(BAD_SUFFIX, "unable to parse quantity's suffix")

    def test_non_quantity_json_values(self):
        for bad in (True, None, [1], {"a": 1}, float("inf"), float("nan")):
            with self.subTest(value=bad):
                with self.assertRaises(QuantityError) as cm:
                    parse(bad)
                self.assertEqual(str(cm.exception), FORMAT_WRONG)

    def test_quantity_error_is_a_value_error(self):
        self.assertTrue(issubclass(QuantityError, ValueError))

    def test_huge_quantities_are_refused_quickly(self):
        # exact arithmetic on these would hang the whole emulator
        for bad in ("1e1000000000000", "1e-1000000000000", "1" + "0" * 5000,
                    "1e%d" % (quantity.MAX_EXPONENT + 1), "1" * (quantity.MAX_DIGITS + 1)):
            with self.subTest(text=bad[:24]):
                with self.assertRaises(QuantityError) as cm:
                    parse(bad)
                self.assertEqual(str(cm.exception), quantity.TOO_BIG)

    def test_limits_themselves_are_accepted(self):
        value, fmt = parse("1e%d" % quantity.MAX_EXPONENT)
        self.assertEqual((value, fmt), (Fraction(10) ** quantity.MAX_EXPONENT, DECIMAL_EXPONENT))
        self.assertEqual(parse("9" * quantity.MAX_DIGITS)[0], 10 ** quantity.MAX_DIGITS - 1)


class Canonical(unittest.TestCase):
    def check(self, text, shown):
        self.assertEqual(canonical(*parse(text)), shown, text)

    def test_decimal_si(self):
        self.check("0.5", "500m")
        self.check("1000", "1k")
        self.check("1500", "1500")
        self.check("1000000", "1M")
        self.check("0.1m", "100u")
        self.check("-0.5", "-500m")
        self.check("0", "0")
        self.check("0Gi", "0")
        self.check("12000E", "12000E")   # nothing above exa

    def test_binary_si(self):
        self.check("1024Mi", "1Gi")
        self.check("1.5Gi", "1536Mi")
        self.check("1536Mi", "1536Mi")
        self.check("2048Ki", "2Mi")
        self.check("-1Ki", "-1Ki")
        self.check("1024Ei", "1024Ei")   # nothing above exbi

    def test_small_or_fractional_binary_prints_decimal(self):
        self.check("0.5Ki", "512")
        self.check("1000Ki", "1000Ki")
        self.check("0.001Ki", "1024m")

    def test_decimal_exponent(self):
        self.check("1e3", "1e3")
        self.check("1e4", "10e3")
        self.check("12e-3", "12e-3")
        self.check("1000e0", "1e3")
        self.check("5e0", "5")


if __name__ == "__main__":
    unittest.main()
