#!/usr/bin/python3
"""Checks every number on a captured rntop screen against rntop's JSON.

    rntop-screen-check.py SCREEN JSON WIDTH

SCREEN: `tmux capture-pane -p` of rntop (UTF-8, no colours); JSON: the
`--once` of the same hosts, whose values do not change (frozen fixtures).
Every line of the screen must parse: the title, the Cluster lines, the
table headings, each host and GPU row cell by cell (columns found from
the heading, which starts every column where its cells start), blank
lines, and the rows marker alone on its line. A number that differs
from the JSON by more than its rounding, a cut number (a part of one
reads as another, or as nothing the column may hold), a name cut with
no mark, or any unparsed text fails, with the line. Prints what it
checked. Standard library only.
"""
import json
import re
import sys

ELL = "\u2026"
NUM = r"\d+(?:\.\d+)?"
problems = []


def fail(line, why):
    problems.append("%s\n    in: %r" % (why, line))


def near(shown, true, dec=0):
    """shown (a string) is true rounded to dec decimals."""
    return true is not None and abs(float(shown) - true) <= 0.5 * 10 ** -dec + 1e-9


def name_matches(cell, names):
    """The names cell stands for: itself, or elided with the mark."""
    if cell in names:
        return [cell]
    if ELL not in cell:
        return []
    if cell.endswith(ELL):          # cut at the end
        pre = cell[:-1]
        return [n for n in names if n.startswith(pre) and len(n) > len(pre)]
    pre, _, suf = cell.partition(ELL)
    return [n for n in names if n.startswith(pre) and n.endswith(suf)
            and len(pre) + len(suf) < len(n)]


def mem_check(line, pct_cell, mem_cell, used, total, held):
    """MEM% and MEM(MiB) cells against used and total MiB."""
    tilde = "~" if held else ""
    if pct_cell is not None:
        m = re.fullmatch(re.escape(tilde) + r"(" + NUM + ")%", pct_cell)
        if used is None or total is None:
            if pct_cell not in ("n/a", "?"):
                fail(line, "MEM%% %r for unknown memory" % pct_cell)
        elif not m or not near(m.group(1), used / total * 100):
            fail(line, "MEM%% %r, JSON %.2f%%" % (pct_cell, used / total * 100))
    if mem_cell is not None:
        m = re.fullmatch(re.escape(tilde) + "(" + NUM + ")/(" + NUM + ")", mem_cell)
        if used is None or total is None:
            if mem_cell not in ("n/a", "?"):
                fail(line, "MEMORY %r for unknown memory" % mem_cell)
        elif not m or not near(m.group(1), used) or not near(m.group(2), total):
            fail(line, "MEMORY %r, JSON %s/%s" % (mem_cell, used, total))


def pct_check(line, what, cell, true, held):
    tilde = "~" if held else ""
    m = re.fullmatch(re.escape(tilde) + "(" + NUM + ")%", cell)
    if true is None:
        if cell not in ("n/a", "?", "LOST"):
            fail(line, "%s %r for an unknown value" % (what, cell))
    elif not m or not near(m.group(1), true):
        fail(line, "%s %r, JSON %s" % (what, cell, true))


def columns(head):
    """(name, start) of each column of a heading line."""
    m = re.match(r" (Nodes|GPUs|Projects) (\S+)", head)
    cols = [(m.group(2), 0)]
    for t in re.finditer(r"\S+", head[m.end():]):
        cols.append((t.group(0), m.end() + t.start()))
    return m.group(1), cols


def cells(line, cols):
    out = {}
    for k, (name, start) in enumerate(cols):
        end = cols[k + 1][1] if k + 1 < len(cols) else len(line)
        # a cell must not run into the next column
        if k + 1 < len(cols) and end - 1 < len(line) and line[end - 1] != " ":
            fail(line, "column %s runs into %s" % (name, cols[k + 1][0]))
        out[name] = line[start:end].strip()
    return out


def check_host(line, c, hosts):
    found = name_matches(c["HOST"], list(hosts))
    if len(found) != 1:
        fail(line, "host %r matches %d hosts" % (c["HOST"], len(found)))
        return
    h = hosts[found[0]]
    if h.get("duplicate_of"):
        # shown, never counted: no figures of its own
        if c.get("STATUS") != "duplicate":
            fail(line, "STATUS %r for a duplicate" % c.get("STATUS"))
        for col in ("GPUS", "UTIL", "MEM%", "MEM(MiB)"):
            if col in c and c[col] != "-":
                fail(line, "%s %r for a duplicate" % (col, c[col]))
        age = c.get("AGE/ERROR")
        if age is not None and not re.fullmatch(
                r"same (address|GPUs) as " + re.escape(h["duplicate_of"]), age) \
                and not (age.endswith(ELL) and re.match(r"same ", age)):
            fail(line, "duplicate's text %r" % age)
        return found[0]
    gpus = h["gpus"]
    status = h["status"]
    seen = status in ("ok", "stale")
    held = status == "stale"
    lost = any(g["lost"] for g in gpus)
    utils = [g["utilization"] for g in gpus if g["utilization"] is not None]
    want = "degraded" if h.get("health") == "degraded" else status
    if lost and want != "degraded":
        fail(line, "a host with a lost GPU is not degraded in the JSON")
    if c.get("STATUS") != want:
        fail(line, "STATUS %r, JSON %s" % (c.get("STATUS"), want))
    if "GPUS" in c:
        if not seen:
            if c["GPUS"] != "?":
                fail(line, "GPUS %r for a host not seen" % c["GPUS"])
        elif c["GPUS"] != ("~" if held else "") + (
                "%d/%d" % (len(utils), len(gpus)) if len(utils) < len(gpus)
                else str(len(gpus))):
            fail(line, "GPUS %r, JSON %d" % (c["GPUS"], len(gpus)))
    if "UTIL" in c:
        pct_check(line, "UTIL", c["UTIL"],
                  sum(utils) / len(utils) if seen and utils else None, held)
    mem = [g for g in gpus if g["memory_used"] is not None
           and g["memory_total"] is not None]
    used = sum(g["memory_used"] for g in mem) if seen and mem else None
    total = sum(g["memory_total"] for g in mem) if seen and mem else None
    mem_check(line, c.get("MEM%"), c.get("MEM(MiB)"), used, total, held)
    age = c.get("AGE/ERROR")
    if age is not None and age != "":
        if h["error"] is None and h.get("problems"):
            m = re.match(NUM + r"s  ", age)
            why = age[m.end():] if m else None
            if why is None or not (why == h["problems"] or (
                    why.endswith(ELL) and h["problems"].startswith(why[:-1]))):
                fail(line, "AGE/problems %r, JSON %r" % (age, h["problems"]))
        elif h["error"] is None:
            if not re.fullmatch(NUM + r"s( \(polling\))?", age):
                fail(line, "AGE %r" % age)
        elif not (age == h["error"] or (age.endswith(ELL) and
                  h["error"].startswith(age[:-1]))) and status != "stale":
            fail(line, "ERROR %r, JSON %r" % (age, h["error"]))
    return found[0]


def check_gpu(line, c, hosts):
    found = name_matches(c["HOST"], list(hosts))
    if len(found) != 1:
        fail(line, "host %r matches %d hosts" % (c["HOST"], len(found)))
        return None
    h = hosts[found[0]]
    held = h["status"] == "stale"
    byidx = {str(g["index"]): g for g in h["gpus"]}
    g = byidx.get(c.get("IDX"))
    if g is None:
        fail(line, "GPU index %r not in the JSON of %s" % (c.get("IDX"), found[0]))
        return None
    if "NAME" in c and g["name"] is None:
        if c["NAME"] != "?":
            fail(line, "NAME %r for an unknown name" % c["NAME"])
    elif "NAME" in c and name_matches(c["NAME"], [g["name"]]) != [g["name"]]:
        fail(line, "NAME %r, JSON %r" % (c["NAME"], g["name"]))
    if g["lost"]:
        if c["UTIL"] != "LOST":
            fail(line, "a lost GPU reads %r" % c["UTIL"])
    else:
        pct_check(line, "UTIL", c["UTIL"], g["utilization"], held)
    mem_check(line, c.get("MEM%"), c.get("MEM(MiB)"), g["memory_used"],
              g["memory_total"], held)
    tilde = "~" if held else ""
    for col, key, unit in (("TEMP", "temperature", "C"), ("POWER", "power", "W")):
        if col not in c:
            continue
        v = g[key]
        m = re.fullmatch(re.escape(tilde) + "(" + NUM + ")" + unit, c[col])
        if v is None:
            if c[col] != "n/a":
                fail(line, "%s %r for an unknown value" % (col, c[col]))
        elif not m or not near(m.group(1), v):
            fail(line, "%s %r, JSON %s" % (col, c[col], v))
    if "MIG" in c and c["MIG"] != ("MIG" if g["mig"] else ""):
        fail(line, "MIG %r, JSON %s" % (c["MIG"], g["mig"]))
    if "HISTORY" in c and re.search(r"[0-9A-Za-z]", c["HISTORY"]):
        fail(line, "HISTORY %r holds text" % c["HISTORY"])
    return (found[0], g["index"])


def check_cluster(lines, cl, interval):
    title = lines[0]
    m = re.fullmatch(r"rntop \S+(   every (" + NUM + r")s)?(   sort: \S+)?"
                     r"(   \?: help)?", title.rstrip())
    if not m:
        fail(title, "title line")
    elif m.group(2) is not None and not near(m.group(2), interval, 1):
        fail(title, "interval %s, JSON %s" % (m.group(2), interval))
    if lines[1].rstrip() != " Cluster":
        fail(lines[1], "no Cluster heading")
    util = lines[2].rstrip()
    m = re.match(r"GPU util (" + NUM + r")%", util)
    if not m or not near(m.group(1), cl["utilization"]):
        fail(util, "cluster utilization, JSON %s" % cl["utilization"])
    rest = util[m.end():] if m else util
    m = re.search(r"\(mean of (\d+) GPUs\)", rest)
    if m:
        if int(m.group(1)) != cl["gpus_utilization_known"]:
            fail(util, "mean of %s GPUs, JSON %s" % (m.group(1),
                                                     cl["gpus_utilization_known"]))
        rest = rest.replace(m.group(0), "")
    m = re.search(r"memory (" + NUM + r")%", rest)
    if m:
        if not near(m.group(1), cl["memory_percent"]):
            fail(util, "memory %s%%, JSON %s" % (m.group(1), cl["memory_percent"]))
        rest = rest.replace(m.group(0), "")
    m = re.search(r"(" + NUM + ")/(" + NUM + r") MiB", rest)
    if m:
        if not near(m.group(1), cl["memory_used"]) or \
                not near(m.group(2), cl["memory_total"]):
            fail(util, "memory %s, JSON %s/%s" % (m.group(0), cl["memory_used"],
                                                  cl["memory_total"]))
        rest = rest.replace(m.group(0), "")
    if re.search(r"\d", rest):
        fail(util, "a number left unchecked: %r" % rest)
    counts = lines[3].rstrip()
    m = re.fullmatch(r"(\d+)/(\d+) hosts, (\d+) GPUs, (\d+) unknown"
                     r"(?: \((?:(\d+) stale)?(?:, )?(?:(\d+) unreachable)?\))?"
                     r"(?:, (\d+) lost(?: on [^,]+)?)?"
                     r"(?:, (\d+) degraded(?:: [^,]+)?)?"
                     r"(?:, \+\? GPUs on (\d+) hosts? not seen)?"
                     r"(?:, (\d+) duplicates? not counted)?", counts)
    if not m:
        fail(counts, "counts line")
        return
    got = [int(g) if g else 0 for g in m.groups()]
    want = [cl["hosts_ok"], cl["hosts"],
            cl["gpus"] + cl["gpus_stale"] + cl["gpus_unreachable"],
            cl["gpus_unknown"], cl["gpus_stale"], cl["gpus_unreachable"],
            cl["gpus_lost"], cl["hosts_degraded"], cl["hosts_unseen"],
            cl["hosts_duplicate"]]
    # segments left out on a narrow screen read as 0: only shown ones count
    for k, (g, w) in enumerate(zip(got, want)):
        if m.group(k + 1) is not None and g != w:
            fail(counts, "counts %s, JSON %s" % (got, want))
            break
    if cl["gpus_lost"] and m.group(7) is None:
        fail(counts, "lost GPUs not on the counts line")


def main():
    screen = open(sys.argv[1], encoding="utf-8").read().split("\n")
    doc = json.load(open(sys.argv[2], encoding="utf-8"))
    width = int(sys.argv[3])
    hosts = {h["name"]: h for h in doc["hosts"]}
    while screen and screen[-1] == "":
        screen.pop()
    for ln in screen:
        if len(ln) > width:
            fail(ln, "longer than the screen (%d)" % width)
    check_cluster(screen + [""] * 4, doc["cluster"], doc["interval"])
    section, cols = None, None
    seen_hosts, seen_gpus = 0, 0
    for i, ln in enumerate(screen[4:], 4):
        if ln.strip() == "":
            continue
        if re.match(r" (Nodes|GPUs|Projects) ", ln):
            section, cols = columns(ln)
            continue
        if re.fullmatch(r"\s*rows \d+-\d+ of \d+", ln):
            if i != len(screen) - 1:
                fail(ln, "the rows marker is not on the last line")
            continue
        if "rows " in ln and re.search(r"rows \d+-\d+ of \d+", ln):
            fail(ln, "the rows marker shares a line with data")
            continue
        if section is None:
            fail(ln, "a row before any heading")
            continue
        c = cells(ln, cols)
        if section == "Nodes":
            check_host(ln, c, hosts)
            seen_hosts += 1
        elif section == "GPUs":
            check_gpu(ln, c, hosts)
            seen_gpus += 1
        else:
            fail(ln, "unexpected section %s" % section)
    print("checked %d lines: %d host rows, %d GPU rows, %d problems" %
          (len(screen), seen_hosts, seen_gpus, len(problems)))
    for p in problems:
        print("PROBLEM: " + p)
    sys.exit(1 if problems else 0)


main()
