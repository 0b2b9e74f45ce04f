#!/usr/bin/env python3
"""Checks that the files of one folder do not call each other in a circle.

    tests/lint/calls.py [--why] [TOP]

The layer rule (tests/lint/layers.py, docs/ARCHITECTURE.md) says the
files of one folder never include each other in a circle; this script
holds calls to the same rule. Inside each folder (every lib/<x>/ and
every cmd/<prog>/) it builds the graph "unit A uses a symbol that unit B
defines", where a unit is a .c and its .h taken together and named by
their stem, and prints one line for every strongly connected component
of more than one unit:

    cmd/runai: call circle login -> login_cp -> login

The line is a closed path along real use edges that starts and ends at
the component's alphabetically first unit and visits every unit of the
component: a simple circle through all of them when there is one, else
a walk that passes some unit more than once (a -> b -> a -> c -> a).
So every circle shows at once, not only the first one found. --why adds,
under each line, the edges of the component and the symbols behind each.
Exits 1 when it prints any circle, 0 and prints nothing when there is
none.

It reads the sources, so a test can plant a small tree without
compiling anything. Comments, string and character literals and
preprocessor lines (#define bodies included: a macro is not a call) are
dropped; then, at brace depth 0:
  - a function definition is a declarator "name(" ... ")" followed by
    "{", however the lines break (BSD style puts the name at the start
    of a line, under its return type);
  - a global variable is a declaration without typedef or extern that
    is not a prototype ("int n = 0;", "const struct x y = {", "T z;");
  - "static" makes either one private to its .c; in a header it is the
    header's own (a static inline function is defined in that unit).
A use is an identifier inside a function body or a variable's
initialiser that names another unit's symbol; a member name after "."
or "->" is not a use, nor a tag after struct, union or enum, nor a name
the unit defines itself (a static function of the same name as another
file's shadows it). Limits: a use inside a macro's body is not seen
(macros are not expanded where they are used), nor a definition that a
macro writes (DIST_SUBCMD(dist_mpi, ...)); a local variable that bears
another unit's global name counts as a use of that global.
"""
import os
import re
import sys

TOKEN = re.compile(r"""
    (?P<skip> /\*.*?\*/ | //[^\n]*
            | "(?:\\.|[^"\\\n])*" | '(?:\\.|[^'\\\n])*'
            | ^[ \t]*\#(?:\\\n|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'
                       |/\*.*?\*/|[^\n])* )
  | (?P<num> \.?\d[\w.]* )
  | (?P<id> [A-Za-z_]\w* )
  | (?P<p> \.\.\. | -> | [{}()\[\];=,.*] )
""", re.S | re.M | re.X)

# Words that are followed by "(" without being a declarator.
NOT_NAMES = {"__attribute__", "__attribute", "__asm__", "asm", "__typeof__",
             "typeof", "sizeof", "_Alignas", "_Alignof", "_Static_assert",
             "static_assert", "__declspec", "_Generic", "return", "if",
             "while", "for", "switch"}
TAG = {"struct", "union", "enum"}
# A name after these is a member or a tag, not a symbol.
NOT_USES = TAG | {".", "->"}


def tokens(text):
    """The code tokens of a C file: identifiers, then punctuation that
    matters to the scan, each as (kind, text)."""
    out = []
    for m in TOKEN.finditer(text):
        kind = m.lastgroup
        if kind in ("skip", "num"):
            continue
        out.append((kind, m.group(kind)))
    return out


def without_attributes(decl):
    """decl less every __attribute__((...)), sizeof(...) and the like."""
    out, i, n = [], 0, len(decl)
    while i < n:
        if decl[i][1] in NOT_NAMES and i + 1 < n and decl[i + 1][1] == "(":
            depth, i = 0, i + 1
            while i < n:
                depth += {"(": 1, ")": -1}.get(decl[i][1], 0)
                i += 1
                if depth == 0:
                    break
            continue
        out.append(decl[i])
        i += 1
    return out


def declarator_name(decl):
    """The name a depth-0 declaration (a list of tokens, braces already
    folded into one "{}" token) declares, and whether it is a function:
    (name, is_function) or (None, False)."""
    decl = without_attributes(decl)
    # a function: the last name at parenthesis depth 0 that "(" follows
    # (STACK_OF(X509) *read_certs(...) is read_certs), unless "(*"
    # follows it, which makes a function pointer
    prev = None
    depth = 0
    fn = None
    for i, (kind, tok) in enumerate(decl):
        if tok == "=" and depth == 0:
            break
        if kind == "id" and depth == 0 and prev not in TAG \
                and i + 1 < len(decl) and decl[i + 1][1] == "(":
            after = decl[i + 2][1] if i + 2 < len(decl) else ""
            if after not in ("*", "^"):
                fn = tok
        if tok in ("(", "["):
            depth += 1
        elif tok in (")", "]"):
            depth -= 1
        prev = tok
    if fn is not None:
        return fn, True
    # not a function: the variable's name is the one inside "(*name)"
    # when there is such a group (a function pointer), else the last
    # identifier outside brackets before "=" (skipping struct tags)
    name = None
    prev = None
    depth = 0
    for i, (kind, tok) in enumerate(decl):
        if tok == "=" and depth == 0:
            break
        if tok in ("(", "["):
            if tok == "(" and i + 1 < len(decl) and decl[i + 1][1] == "*":
                for k2, t2 in decl[i + 1:]:
                    if k2 == "id" and t2 != "const":
                        return t2, False
                    if t2 != "*":
                        break
            depth += 1
        elif tok in (")", "]"):
            depth -= 1
        elif kind == "id" and depth == 0 and prev not in TAG \
                and tok not in TAG:
            name = tok
        prev = tok
    return name, False


def scan(text, is_header):
    """(defined, private, used) for one file: the symbols it defines for
    other units, the ones it keeps to itself, and the identifiers its
    code uses."""
    toks = tokens(text)
    defined, private, used = set(), set(), set()
    decl = []           # the depth-0 declaration being read
    in_init = False     # past "=" of a depth-0 declaration
    i, n = 0, len(toks)
    while i < n:
        kind, tok = toks[i]
        if tok == "{":
            # find the matching brace; collect identifiers inside when
            # it is a function body or an initialiser
            name, is_fn = (None, False) if in_init else declarator_name(decl)
            body = is_fn or in_init
            depth, j = 1, i + 1
            while j < n and depth:
                k2, t2 = toks[j]
                if t2 == "{":
                    depth += 1
                elif t2 == "}":
                    depth -= 1
                elif body and k2 == "id" and toks[j - 1][1] not in NOT_USES:
                    used.add(t2)
                j += 1
            if is_fn:
                words = {t for _k, t in decl}
                if "static" in words and not is_header:
                    private.add(name)
                elif "typedef" not in words:
                    defined.add(name)
                decl, in_init = [], False
            else:
                decl.append(("p", "{}"))
            i = j
            continue
        if tok == ";":
            if decl:
                words = {t for _k, t in decl}
                name, is_fn = declarator_name(decl)
                if name and not is_fn and not words & {"typedef", "extern"}:
                    if "static" in words and not is_header:
                        private.add(name)
                    else:
                        defined.add(name)
            decl, in_init = [], False
        elif tok == "," and decl and not _in_parens(decl) and \
                not declarator_name(decl)[1]:
            # "int a = 1, b[2], *c;": each declarator is a definition of
            # its own; the type words before the first one stay for the
            # next
            name, _ = declarator_name(decl)
            words = {t for _k, t in decl}
            if name and not words & {"typedef", "extern"}:
                (private if "static" in words and not is_header
                 else defined).add(name)
            if name:
                at = next(k for k, d in enumerate(decl) if d[1] == name)
                decl = [d for d in decl[:at] if d[1] not in ("*", "(")]
            in_init = False
        else:
            if tok == "=" and not _in_parens(decl):
                in_init = True
            if in_init and kind == "id" and \
                    (not decl or decl[-1][1] not in NOT_USES):
                used.add(tok)
            decl.append((kind, tok))
        i += 1
    return defined, private, used


def _in_parens(decl):
    depth = 0
    for _k, tok in decl:
        if tok == "(":
            depth += 1
        elif tok == ")":
            depth -= 1
    return depth > 0


def folders(top):
    for base in ("lib", "cmd"):
        root = os.path.join(top, base)
        if not os.path.isdir(root):
            continue
        for name in sorted(os.listdir(root)):
            path = os.path.join(root, name)
            if os.path.isdir(path):
                yield f"{base}/{name}", path


def folder_graph(path):
    """{unit: {other unit: set of symbols it uses from there}}."""
    units = {}
    for name in sorted(os.listdir(path)):
        stem, ext = os.path.splitext(name)
        if ext not in (".c", ".h"):
            continue
        with open(os.path.join(path, name), encoding="utf-8") as f:
            d, p, u = scan(f.read(), ext == ".h")
        unit = units.setdefault(stem, [set(), set(), set()])
        unit[0] |= d
        unit[1] |= p
        unit[2] |= u
    owner = {}
    for unit, (defined, _p, _u) in units.items():
        for sym in defined:
            owner.setdefault(sym, set()).add(unit)
    graph = {}
    for unit, (defined, private, used) in units.items():
        edges = graph.setdefault(unit, {})
        for sym in used - defined - private:
            for other in owner.get(sym, ()):
                if other != unit:
                    edges.setdefault(other, set()).add(sym)
    return graph


def components(graph):
    """The strongly connected components (Tarjan), each a sorted list."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(max(1000, 4 * len(graph) + 100))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def circle(graph, comp):
    """A closed path through every unit of comp along its edges: a
    simple circle when a short search finds one, else a walk."""
    members = set(comp)
    succ = {v: sorted(w for w in graph[v] if w in members) for v in comp}
    start = comp[0]
    budget = [20000]

    def hamilton(path, seen):
        budget[0] -= 1
        if budget[0] < 0:
            return None
        if len(path) == len(comp):
            return path + [start] if start in succ[path[-1]] else None
        for w in succ[path[-1]]:
            if w not in seen:
                seen.add(w)
                found = hamilton(path + [w], seen)
                seen.discard(w)
                if found:
                    return found
        return None

    found = hamilton([start], {start})
    if found:
        return found

    def shortest(a, targets):
        prev, frontier = {a: None}, [a]
        while frontier:
            nxt = []
            for v in frontier:
                for w in succ[v]:
                    if w not in prev:
                        prev[w] = v
                        nxt.append(w)
            for w in sorted(nxt):
                if w in targets:
                    path = [w]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    return path[::-1][1:]
            frontier = nxt
        return []

    walk, left = [start], members - {start}
    while left:
        step = shortest(walk[-1], left)
        walk += step
        left -= set(step)
    return walk + shortest(walk[-1], {start})


def check(top, why=False):
    problems = []
    for folder, path in folders(top):
        graph = folder_graph(path)
        for comp in components(graph):
            if len(comp) < 2:
                continue
            problems.append(f"{folder}: call circle "
                            + " -> ".join(circle(graph, comp)))
            if why:
                for a in comp:
                    for b in sorted(graph[a]):
                        if b in comp:
                            problems.append(
                                f"    {a} -> {b}: "
                                + ", ".join(sorted(graph[a][b])))
    return problems


def main():
    args = sys.argv[1:]
    why = "--why" in args
    args = [a for a in args if a != "--why"]
    top = args[0] if args else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..")
    problems = check(top, why)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
