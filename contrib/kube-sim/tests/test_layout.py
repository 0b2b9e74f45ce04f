"""The module layout of kubesim: every module says what it owns, imports
only go one way (no circles), and the runtime's layers stay in order."""

import ast
import importlib
import os
import unittest

import support

PACKAGE = os.path.join(support.KUBESIM_ROOT, "kubesim")


def modules():
    return sorted(f[:-3] for f in os.listdir(PACKAGE)
                  if f.endswith(".py") and f != "__init__.py")


def packages():
    """Sub-packages (kubesim/controlplane/): imported as one name."""
    return sorted(d for d in os.listdir(PACKAGE)
                  if os.path.isfile(os.path.join(PACKAGE, d, "__init__.py")))


def imports_of(name):
    """The kubesim modules `name` imports, at any depth of its code."""
    with open(os.path.join(PACKAGE, name + ".py"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "kubesim":
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("kubesim."):
            out.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            out |= {a.name.split(".")[1] for a in node.names if a.name.startswith("kubesim.")}
    return out


def graph():
    return {name: imports_of(name) for name in modules()}


def reaches(g, start):
    seen, todo = set(), list(g.get(start, ()))
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += g.get(name, ())
    return seen


class Layout(unittest.TestCase):
    def test_no_import_circles(self):
        g = graph()
        circles = [name for name in g if name in reaches(g, name)]
        self.assertEqual(circles, [])

    def test_every_import_names_an_existing_module(self):
        known = set(modules()) | set(packages())
        for name, deps in graph().items():
            self.assertLessEqual(deps, known, name)

    def test_controller_parts_never_reach_the_controller(self):
        g = graph()
        for part in ("objutil", "gpus", "cluster", "kubelet", "taints", "volumes",
                     "scheduler", "workloads", "training", "lws", "services"):
            self.assertNotIn("controller", reaches(g, part), part)

    def test_shared_ground_imports_no_part(self):
        g = graph()
        parts = {"kubelet", "taints", "volumes", "scheduler", "workloads", "training", "lws",
                 "services", "controller", "logs", "podproc", "channels", "attach", "podexec"}
        for ground in ("objutil", "gpus", "cluster", "podreq"):
            self.assertEqual(reaches(g, ground) & parts, set(), ground)
        self.assertEqual(g["objutil"], set())

    def test_pod_io_layers(self):
        g = graph()
        self.assertEqual(reaches(g, "logs") & {"podproc", "channels", "attach", "podexec"},
                         set())
        self.assertNotIn("podexec", reaches(g, "attach"))
        self.assertEqual(reaches(g, "channels") & {"attach", "podexec"}, set())
        self.assertEqual(reaches(g, "podproc") & {"attach", "podexec", "channels"}, set())

    def test_the_api_does_not_import_the_runtime(self):
        # api.py and main.py load the runtime by name, so the API runs without it
        g = graph()
        runtime = {"controller", "kubelet", "scheduler", "workloads", "lws",
                   "logs", "podexec", "attach", "podproc", "channels"}
        for core in ("api", "server", "store", "main", "sim"):
            self.assertEqual(reaches(g, core) & runtime, set(), core)

    def test_every_module_has_a_docstring_and_imports(self):
        for name in modules():
            with self.subTest(module=name):
                module = importlib.import_module("kubesim." + name)
                self.assertTrue((module.__doc__ or "").strip(), name)


if __name__ == "__main__":
    unittest.main()
