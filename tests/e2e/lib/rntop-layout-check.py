#!/usr/bin/python3
"""Checks the layout of a captured rntop screen: nothing cut, markers true.

    rntop-layout-check.py SCREEN WIDTH HEIGHT [JSON]

SCREEN: `tmux capture-pane -p` of rntop (UTF-8, no colours). Fails, with
the line, when:
- a line is wider than WIDTH, or the screen taller than HEIGHT;
- an elision mark stands right after a digit (a number cut: "0.0…");
- a cell reads "##" (a whole number that did not fit);
- a share "(0.05)" is not whole: every "(" before a digit opens a number
  closed by ")";
- "rows A-B of N" is not the last line, shows no row, or B-A+1 is not
  the number of project, host and GPU rows on the screen (headings and
  blank lines not counted);
- with JSON (the --once of the same hosts): a GPU row's OWNER cell does
  not account for every owner, shown or counted in "+N".
Prints what it checked. Standard library only.
"""
import json
import re
import sys

ELL = "\u2026"
HEADING = re.compile(r" (Projects|Nodes|GPUs) ")
MARKER = re.compile(r"\s*rows (\d+)-(\d+) of (\d+)")
problems = []


def fail(line, why):
    problems.append("%s\n    in: %r" % (why, line))


def check_numbers(ln):
    if re.search(r"\d" + ELL, ln):
        fail(ln, "a number cut by the mark")
    if "##" in ln:
        fail(ln, "a whole cell left as #")
    for m in re.finditer(r"\((?=\d)", ln):
        if not re.match(r"\(\d+(\.\d+)?(e-\d+)?\)", ln[m.start():]):
            fail(ln, "a share not whole at column %d" % m.start())


def body_start(screen):
    """The index of the first heading: the body starts there."""
    for i, ln in enumerate(screen):
        if i >= 4 and HEADING.match(ln):
            return i
    return len(screen)


def check_marker(screen):
    """The marker against the data rows on the screen; their count."""
    start = body_start(screen)
    data = [ln for ln in screen[start:] if ln.strip() != ""
            and not HEADING.match(ln) and not MARKER.fullmatch(ln)]
    for i, ln in enumerate(screen):
        m = MARKER.fullmatch(ln)
        if not m:
            if re.search(r"rows \d+-\d+ of \d+", ln):
                fail(ln, "the rows marker shares a line")
            continue
        a, b, n = (int(g) for g in m.groups())
        if i != len(screen) - 1:
            fail(ln, "the rows marker is not on the last line")
        if not 1 <= a <= b <= n:
            fail(ln, "the rows marker shows no row, or more than it has")
        if b - a + 1 != len(data):
            fail(ln, "the rows marker says %d rows, the screen shows %d" %
                 (b - a + 1, len(data)))
    return len(data)


def gpu_columns(head):
    """(name, start) of each column of the GPUs heading."""
    m = re.match(r" GPUs (\S+)", head)
    cols = [(m.group(1), 0)]
    for t in re.finditer(r"\S+", head[m.end():]):
        cols.append((t.group(0), m.end() + t.start()))
    return cols


def cell(line, cols, name):
    for k, (col, start) in enumerate(cols):
        if col == name:
            end = cols[k + 1][1] if k + 1 < len(cols) else len(line)
            return line[start:end].strip()
    return None


def owners_counted(text):
    """Owners a cell stands for: the names shown and the "+N" counted."""
    words = text.split(" ")
    more = 0
    if words and re.fullmatch(r"\+\d+", words[-1]):
        more = int(words.pop()[1:])
    return len(words) + more


def check_owners(screen, doc):
    owners = {}
    for h in doc["hosts"]:
        for g in h.get("gpus") or []:
            if g.get("owners") is not None:
                owners[(h["name"], str(g["index"]))] = len(g["owners"])
    cols, checked = None, 0
    for ln in screen:
        if ln.startswith(" GPUs "):
            cols = gpu_columns(ln)
            continue
        if HEADING.match(ln) or cols is None or MARKER.fullmatch(ln):
            cols = None if HEADING.match(ln) else cols
            continue
        who = cell(ln, cols, "OWNER(PROJECT/JOB)")
        key = (cell(ln, cols, "HOST"), cell(ln, cols, "IDX"))
        if who is None or who in ("", "-", "?") or key not in owners:
            continue
        checked += 1
        if owners_counted(who) != owners[key]:
            fail(ln, "OWNER %r stands for %d owners, JSON %d" %
                 (who, owners_counted(who), owners[key]))
    return checked


def main():
    screen = open(sys.argv[1], encoding="utf-8").read().split("\n")
    width, height = int(sys.argv[2]), int(sys.argv[3])
    while screen and screen[-1] == "":
        screen.pop()
    if len(screen) > height:
        fail(screen[-1], "%d lines, taller than the screen" % len(screen))
    for ln in screen:
        if len(ln) > width:
            fail(ln, "longer than the screen (%d)" % width)
        check_numbers(ln)
    rows = check_marker(screen)
    owned = 0
    if len(sys.argv) > 4:
        owned = check_owners(screen, json.load(open(sys.argv[4],
                                                    encoding="utf-8")))
    print("checked %d lines: %d data rows, %d owner cells, %d problems" %
          (len(screen), rows, owned, len(problems)))
    for p in problems:
        print("PROBLEM: " + p)
    sys.exit(1 if problems else 0)


main()
