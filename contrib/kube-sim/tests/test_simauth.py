"""The /_sim credential (kubesim/auth.py): the token file in the state
directory (0600, kept across restarts) and the header check."""

import os
import stat
import tempfile
import unittest

import support  # noqa: F401  (sys.path)
from kubesim.auth import ensure_sim_token, sim_authorized


class SimTokenFile(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "sim-token")

    def tearDown(self):
        self.dir.cleanup()

    def mode(self):
        return stat.S_IMODE(os.stat(self.path).st_mode)

    def test_made_random_and_private(self):
        token = ensure_sim_token(self.path)
        self.assertGreaterEqual(len(token), 32)
        self.assertEqual(self.mode(), 0o600)
        with open(self.path) as f:
            self.assertEqual(f.read().strip(), token)
        other = os.path.join(self.dir.name, "other")
        self.assertNotEqual(ensure_sim_token(other), token)

    def test_kept_across_restarts_and_made_private_again(self):
        token = ensure_sim_token(self.path)
        os.chmod(self.path, 0o644)
        self.assertEqual(ensure_sim_token(self.path), token)
        self.assertEqual(self.mode(), 0o600)

    def test_a_file_without_a_token_is_replaced(self):
        with open(self.path, "w") as f:
            f.write("short\n")
        token = ensure_sim_token(self.path)
        self.assertNotEqual(token, "short")
        self.assertEqual(self.mode(), 0o600)


class SimAuthorized(unittest.TestCase):
    T = "a" * 64

    def test_only_the_bearer_token(self):
        self.assertTrue(sim_authorized("Bearer " + self.T, self.T))
        self.assertTrue(sim_authorized("bearer  %s " % self.T, self.T))
        for header in (None, "", "Bearer", "Bearer " + self.T[:-1], "Basic " + self.T,
                       "Bearer " + self.T + "x", self.T):
            self.assertFalse(sim_authorized(header, self.T), header)

    def test_nothing_passes_without_a_token(self):
        self.assertFalse(sim_authorized("Bearer ", None))
        self.assertFalse(sim_authorized("Bearer ", ""))


if __name__ == "__main__":
    unittest.main()
