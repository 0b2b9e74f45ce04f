"""What a pod's sandbox is made of (sandbox.py) and how podproc finds a
pod's programs and decides which commands run for real: checked on the
bwrap options and paths, without starting anything."""

import os
import shutil
import stat
import tempfile
import unittest

import support
from kubesim import podproc, sandbox

CHECKOUT = os.path.dirname(os.path.dirname(support.KUBESIM_ROOT))


def pairs(options, flag):
    """(source, destination) of every `flag SRC DEST` in bwrap's options."""
    return [(options[i + 1], options[i + 2]) for i, a in enumerate(options) if a == flag]


class Wrap(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.scratch = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def view(self, **kw):
        v = sandbox.View("train1-0", self.scratch, **kw)
        return v

    def test_namespaces_hostname_and_a_minimal_root(self):
        line, opts = self.view().wrap(["sh", "-c", "true"], {"PATH": "/usr/bin"})
        for flag in ("--unshare-pid", "--unshare-uts", "--unshare-ipc", "--die-with-parent"):
            self.assertIn(flag, opts)
        self.assertEqual(opts[opts.index("--hostname") + 1], "train1-0")
        self.assertEqual(line[1:4], ["--args", "{fd}", "--"])
        self.assertEqual(line[-3:], ["sh", "-c", "true"])
        binds = pairs(opts, "--bind")
        self.assertEqual(sorted(d for _, d in binds), ["/root", "/tmp"])
        for src, _ in binds:
            self.assertTrue(src.startswith(self.scratch + "/"), src)
        ro = pairs(opts, "--ro-bind")
        dests = [d for _, d in ro]
        self.assertIn("/usr", dests)
        for d in dests:
            self.assertTrue(d == "/usr" or d.startswith("/etc/") or d in ("/bin", "/lib"), d)
        self.assertNotIn("/etc/shadow", dests)
        for src, _ in binds + ro:
            self.assertFalse(src.startswith(CHECKOUT + "/") and
                             not src.startswith(self.scratch), src)
            self.assertNotIn(src, ("/", "/root", "/home", "/etc", "/tmp"))
        self.assertEqual(opts[opts.index("--chdir") + 1], "/root")
        self.assertIn("--clearenv", opts)

    def test_root_keeps_only_a_runtimes_capabilities(self):
        _, opts = self.view().wrap(["true"], {})
        self.assertEqual(opts[opts.index("--cap-drop") + 1], "ALL")
        caps = [opts[i + 1] for i, a in enumerate(opts) if a == "--cap-add"]
        self.assertNotIn("CAP_SYS_ADMIN", caps)
        self.assertNotIn("CAP_MKNOD", caps)

    def test_run_as_user_working_dir_and_limits(self):
        v = self.view(uid=1234, gid=2345, workdir="/work/dir",
                      limits={"memory": 1 << 30, "ephemeral-storage": 1 << 32})
        line, opts = v.wrap(["id"], {})
        self.assertEqual(line[0], sandbox.PRLIMIT)
        self.assertIn("--as=%d" % (1 << 30), line)
        self.assertIn("--fsize=%d" % (1 << 32), line)
        i = line.index(sandbox.SETPRIV)
        self.assertEqual(line[i + 1:i + 3], ["--reuid=1234", "--regid=2345"])
        self.assertEqual(sorted(d for _, d in pairs(opts, "--bind")),
                         ["/home/user", "/tmp", "/work/dir"])
        self.assertEqual(opts[opts.index("--chdir") + 1], "/work/dir")

    def test_prepare_writes_the_pods_own_etc(self):
        v = self.view(uid=1234)
        v.prepare()
        with open(os.path.join(self.scratch, ".etc", "passwd")) as f:
            self.assertIn("user:x:1234:1234:user:/home/user:/bin/sh", f.read())
        with open(os.path.join(self.scratch, ".etc", "hostname")) as f:
            self.assertEqual(f.read(), "train1-0\n")
        # the pod's /tmp is not the host's other users' (no 1777)
        self.assertEqual(os.stat(os.path.join(self.scratch, "tmp")).st_mode & 0o7777, 0o700)
        self.assertEqual(os.stat(os.path.join(self.scratch, "home")).st_mode & 0o7777, 0o755)

    def test_prepare_follows_no_link_of_the_pods(self):
        outside = tempfile.TemporaryDirectory()
        self.addCleanup(outside.cleanup)
        victim = outside.name
        os.chmod(victim, 0o750)
        before = os.stat(victim)
        v = self.view(uid=4242, workdir="/tmp/evil/made-by-pod")
        v.prepare()
        self.assertTrue(os.path.isdir(os.path.join(self.scratch, "tmp", "evil", "made-by-pod")))
        # the pod replaces a directory of its path by a link to the host's
        shutil.rmtree(os.path.join(self.scratch, "tmp", "evil"))
        os.symlink(victim, os.path.join(self.scratch, "tmp", "evil"))
        v.prepare()
        self.assertEqual(os.listdir(victim), [])
        after = os.stat(victim)
        self.assertEqual((after.st_uid, after.st_gid, after.st_mode),
                         (before.st_uid, before.st_gid, before.st_mode))
        self.assertTrue(os.path.islink(os.path.join(self.scratch, "tmp", "evil")))
        # and at the working directory itself
        v = self.view(uid=4242, workdir="/tmp/evil")
        v.prepare()
        after = os.stat(victim)
        self.assertEqual((after.st_uid, after.st_mode), (before.st_uid, before.st_mode))

    def test_parents_of_mounts_are_0755(self):
        # bwrap would make /etc, /home and /opt 0700: a pod's user could
        # not read its /etc/passwd or reach its home
        v = self.view(uid=1234, workdir="/data/work",
                      nvidia=("/nonexistent/nvidia", "/nonexistent/pod.json"))
        _, opts = v.wrap(["id"], {})
        dirs = [opts[i + 3] for i, a in enumerate(opts) if a == "--perms"]
        self.assertEqual(dirs, ["/data", "/etc", "/home", "/opt", "/run", "/run/nvidia"])
        self.assertEqual(opts[opts.index("--perms") + 1], "0755")
        self.assertLess(opts.index("--dir"), opts.index("--ro-bind"))

    def test_paths_as_the_pod_sees_them(self):
        v = self.view()
        v.prepare()
        with open(os.path.join(self.scratch, "tmp", "x"), "w"):
            pass
        self.assertTrue(stat.S_ISREG(v.stat("/tmp/x").st_mode))
        self.assertTrue(stat.S_ISDIR(v.stat("/root").st_mode))
        self.assertEqual(v.stat("/usr/bin/env"), os.stat("/usr/bin/env"))
        self.assertEqual(v.stat("/bin/sh"), os.stat("/bin/sh"))  # /bin: the host's link or bind
        self.assertIsNone(v.stat("/etc/shadow"))
        self.assertIsNone(v.stat("/root/a.sh"))
        self.assertTrue(stat.S_ISDIR(v.stat("/etc").st_mode))     # made by bwrap for /etc/*
        # the checkout is not there: nothing, or (a checkout under /tmp)
        # the pod's own empty /tmp at that path
        self.assertIsNone(v.stat(CHECKOUT + "/Makefile"))
        self.assertIsNone(v.stat("/opt/nvidia/bin/nvidia-smi"))  # not a GPU pod
        self.assertIsNone(v.stat("relative"))

    def test_links_are_followed_in_the_pod_never_on_the_host(self):
        v = self.view()
        v.prepare()
        tmp = os.path.join(self.scratch, "tmp")
        os.symlink(CHECKOUT + "/Makefile", os.path.join(tmp, "host-file"))
        os.symlink(CHECKOUT, os.path.join(tmp, "host-dir"))
        os.symlink("/usr/bin/env", os.path.join(tmp, "env"))
        os.symlink("env", os.path.join(tmp, "rel"))
        os.symlink("../tmp/rel", os.path.join(tmp, "up"))
        os.symlink("loop", os.path.join(tmp, "loop"))
        os.mkdir(os.path.join(tmp, "d"))
        self.assertIsNone(v.stat("/tmp/host-file"))
        self.assertIsNone(v.stat("/tmp/host-dir/Makefile"))
        self.assertEqual(v.stat("/tmp/env"), os.stat("/usr/bin/env"))
        self.assertEqual(v.stat("/tmp/rel"), os.stat("/usr/bin/env"))
        self.assertEqual(v.stat("/tmp/d/../up"), os.stat("/usr/bin/env"))
        self.assertIsNone(v.stat("/tmp/loop"))
        self.assertIsNone(v.stat("/tmp/x/.."))  # no x: no way through it

    def test_lookup_finds_programs_only_where_the_pod_has_them(self):
        v = self.view()
        self.assertEqual(podproc.lookup("sh", "/usr/bin:/bin", v), "/usr/bin/sh")
        v.prepare()
        with self.assertRaises(podproc.ExecNotFound):
            podproc.lookup(CHECKOUT + "/contrib/demo.sh", "/usr/bin", v)
        # a link of the pod's to a host directory of programs is no use
        os.symlink(CHECKOUT + "/contrib", os.path.join(self.scratch, "tmp", "bin"))
        with self.assertRaises(podproc.ExecNotFound):
            podproc.lookup("demo.sh", "/tmp/bin", v)
        with self.assertRaises(podproc.ExecNotFound):
            podproc.lookup("/tmp/bin/demo.sh", "/usr/bin", v)
        with self.assertRaises(podproc.ExecNotFound) as cm:
            podproc.lookup("no-such-tool", "/usr/bin:/bin", v)
        self.assertEqual(str(cm.exception),
                         'exec: "no-such-tool": executable file not found in $PATH')


class Policy(unittest.TestCase):
    def test_modes(self):
        self.assertEqual(sandbox.Policy(False, None).mode, "sandbox")
        refused = sandbox.Policy(False, "no bwrap")
        self.assertEqual(refused.mode, "refuse")
        self.assertIn("--unsandboxed", refused.refusal())
        self.assertEqual(sandbox.Policy(True, None).mode, "host")

    def test_a_missing_bwrap_is_a_reason(self):
        self.assertIn("not installed", sandbox.probe("/nonexistent/bwrap"))

    def test_start_policy_says_it_once(self):
        said = []
        sandbox.start_policy(True, said.append)
        self.assertEqual(len(said), 1)
        self.assertIn("--unsandboxed", said[0])


class Runnable(unittest.TestCase):
    def pod(self, image, **container):
        return {"spec": {"containers": [dict(name="main", image=image, **container)]}}

    def test_images_the_host_can_run_with_a_command(self):
        self.assertEqual(podproc.runnable_argv(self.pod("ubuntu:22.04", args=["sleep", "1"]),
                                               "main"), ["sleep", "1"])
        self.assertEqual(podproc.runnable_argv(
            self.pod("docker.io/library/python:3.11", command=["python3"], args=["-V"]),
            "main"), ["python3", "-V"])

    def test_other_images_and_no_command_stay_simulated(self):
        self.assertIsNone(podproc.runnable_argv(
            self.pod("pytorch/pytorch", args=["python3", "train.py"]), "main"))
        self.assertIsNone(podproc.runnable_argv(self.pod("busybox"), "main"))


if __name__ == "__main__":
    unittest.main()
