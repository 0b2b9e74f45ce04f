#!/usr/bin/env python3
"""Checks that #include lines follow the library's layers.

    tests/lint/layers.py [TOP]

The layers, lowest first (docs/ARCHITECTURE.md explains each):

    core  <  oidc  <  kube  <  runai, adm, rntop  <  cli  <  cmd/*

A file may include headers of its own folder and of folders below it,
never of a folder above it or beside it (runai, adm and rntop do not
include each other; one program's cmd/ folder does not include
another's). Inside one folder the files must not include each other in
a circle (a .c and its .h count as one file). Every library source has a
header of its own name. Prints one line per violation and exits 1 when
there is any; exits 0 and prints nothing when the tree is clean.
"""
import os
import re
import sys

RANK = {"core": 0, "oidc": 1, "kube": 2, "runai": 3, "adm": 3, "rntop": 3,
        "cli": 4}
CMD_RANK = 5
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_rank(folder):
    if folder.startswith("cmd/"):
        return CMD_RANK
    return RANK.get(folder.split("/", 1)[1] if folder.startswith("lib/")
                    else folder)


def sources(top):
    for base in ("lib", "cmd"):
        for root, _dirs, names in os.walk(os.path.join(top, base)):
            for name in sorted(names):
                if name.endswith((".c", ".h")):
                    path = os.path.join(root, name)
                    yield os.path.relpath(path, top)


def target_folder(src_folder, inc):
    """The folder an include names: "core/buf.h" is lib/core; a bare
    "runai.h" is the including file's own folder."""
    if "/" in inc:
        return "lib/" + inc.split("/", 1)[0]
    return src_folder


def find_cycle(graph):
    state = {}
    stack = []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def check(top):
    problems = []
    graphs = {}
    for path in sources(top):
        folder = os.path.dirname(path)
        rank = folder_rank(folder)
        if rank is None:
            problems.append(f"{path}: folder {folder} has no layer")
            continue
        with open(os.path.join(top, path), encoding="utf-8") as f:
            text = f.read()
        me = os.path.splitext(os.path.basename(path))[0]
        if path.startswith("lib/") and path.endswith(".c") and \
                not os.path.exists(os.path.join(top, folder, me + ".h")):
            problems.append(f"{path}: no header {folder}/{me}.h")
        for inc in INCLUDE.findall(text):
            tfolder = target_folder(folder, inc)
            trank = folder_rank(tfolder)
            if tfolder == folder:
                other = os.path.splitext(os.path.basename(inc))[0]
                if other != me:
                    graphs.setdefault(folder, {}).setdefault(
                        me, set()).add(other)
                continue
            if trank is None:
                problems.append(f"{path}: includes \"{inc}\" from outside "
                                "the layers")
            elif trank >= rank:
                where = "beside" if trank == rank else "above"
                problems.append(f"{path}: includes \"{inc}\", a layer "
                                f"{where} its own ({folder})")
    for folder in sorted(graphs):
        cycle = find_cycle(graphs[folder])
        if cycle:
            problems.append(f"{folder}: include circle "
                            + " -> ".join(cycle))
    return problems


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..")
    problems = check(top)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
