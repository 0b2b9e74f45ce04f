#!/usr/bin/python3
"""Runs kube-sim's unit tests (test_*.py here) and prints one line per test
case, `ok NAME` or `not ok NAME` (with the traceback as `# ` lines), then
`N passed, N failed`. tests/run counts those lines; the exit status is 0
only when at least one test ran and none failed.

    /usr/bin/python3 contrib/kube-sim/tests/run.py [-k PATTERN]
"""

import argparse
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


class LineResult(unittest.TestResult):
    """A result that reports each test case as it ends."""

    def __init__(self, out):
        super().__init__()
        self.out = out
        self.passed = self.failed = 0
        self._bad_before = None

    def _bad(self):
        return len(self.failures) + len(self.errors) + len(self.unexpectedSuccesses)

    def _line(self, text):
        self.out.write(text + "\n")
        self.out.flush()

    def _details(self, entries, name=None):
        for test, trace in entries:
            if test.id() != name:
                self._line("# " + test.id())  # which subtest
            for line in trace.rstrip("\n").split("\n"):
                self._line("# " + line)

    def startTest(self, test):
        super().startTest(test)
        self._bad_before = (len(self.failures), len(self.errors), self._bad())
        self._skipped_before = len(self.skipped)

    def stopTest(self, test):
        super().stopTest(test)
        nfail, nerr, nbad = self._bad_before
        self._bad_before = None
        if self._bad() > nbad:
            self.failed += 1
            self._line("not ok %s" % test.id())
            self._details(self.failures[nfail:] + self.errors[nerr:], test.id())
        elif len(self.skipped) > self._skipped_before:
            self._line("ok %s # skip %s" % (test.id(), self.skipped[-1][1]))
        else:
            self.passed += 1
            self._line("ok %s" % test.id())

    def addError(self, test, err):
        super().addError(test, err)
        if self._bad_before is None:
            # a class or module fixture failed: no test case is running
            self.failed += 1
            self._line("not ok %s" % test.id())
            self._details(self.errors[-1:], test.id())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-k", dest="patterns", action="append",
                        help="only tests whose name contains this (unittest's -k)")
    args = parser.parse_args(argv)
    loader = unittest.TestLoader()
    if args.patterns:
        loader.testNamePatterns = ["*%s*" % p for p in args.patterns]
    suite = loader.discover(HERE, pattern="test_*.py", top_level_dir=HERE)
    result = LineResult(sys.stdout)
    suite.run(result)
    print("%d passed, %d failed" % (result.passed, result.failed))
    return 0 if result.passed and not result.failed else 1


if __name__ == "__main__":
    sys.exit(main())
