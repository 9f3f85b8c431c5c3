#!/usr/bin/env python3
"""Call circles between object files, and include circles between headers.

  circles.py OBJDIR [SRCDIR]

OBJDIR holds object files (searched recursively); with SRCDIR, the objects of SRCDIR's .c files
only (OBJDIR/X.o for SRCDIR/X.c), so that an object whose source is gone is not read. File A calls file B when a symbol A leaves
undefined (`nm -u`) is one B defines (`nm --defined-only`); a circle is a set of files each
reaching the others that way (a strongly connected component of more than one file). SRCDIR,
when given, has its headers' `#include "x.h"` lines read the same way: a header that comes back
to itself through its includes is a circle too. Prints every circle with the symbols (or
includes) of each of its edges, and exits 1 when there is one; prints the graph's size and exits
0 when there is none.
"""
import os
import re
import subprocess
import sys


def objects(top, src):
    found = []
    for d, _, names in os.walk(src or top):
        for n in names:
            if src and n.endswith(".c"):
                rel = os.path.relpath(os.path.join(d, n[:-2] + ".o"), src)
                found.append(os.path.join(top, rel))
            elif not src and n.endswith(".o"):
                found.append(os.path.join(d, n))
    missing = [f for f in found if not os.path.isfile(f)]
    if missing:
        sys.exit("circles.py: not built: " + " ".join(sorted(missing)))
    return sorted(found)


def nm(args, path):
    out = subprocess.run(["nm"] + args + [path], capture_output=True, text=True, check=True).stdout
    # Lines are "ADDR TYPE NAME" or, for undefined ones, "  U NAME".
    return [line.split()[-1] for line in out.splitlines() if line.strip()]


def call_graph(top, src=None):
    files = objects(top, src)
    defined = {}
    for f in files:
        for s in nm(["--defined-only", "-g"], f):
            defined.setdefault(s, f)
    edges = {}
    for f in files:
        for s in nm(["-u"], f):
            g = defined.get(s)
            if g is not None and g != f:
                edges.setdefault(f, {}).setdefault(g, []).append(s)
    name = {f: os.path.relpath(f, top) for f in files}
    return ([name[f] for f in files],
            {name[a]: {name[b]: syms for b, syms in t.items()} for a, t in edges.items()})


def include_graph(top):
    headers = {}
    for d, _, names in os.walk(top):
        for n in names:
            if n.endswith(".h"):
                headers.setdefault(n, os.path.relpath(os.path.join(d, n), top))
    edges = {}
    for n, rel in headers.items():
        with open(os.path.join(top, rel), encoding="utf-8") as fh:
            for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', fh.read(), re.M):
                g = headers.get(os.path.basename(inc))
                if g is not None and g != rel:
                    edges.setdefault(rel, {}).setdefault(g, []).append(inc)
    return sorted(headers.values()), edges


def circles(nodes, edges):
    """Tarjan's strongly connected components of more than one node."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, {})):
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
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in nodes:
        if v not in index:
            visit(v)
    return out


def report(kind, nodes, edges):
    found = circles(nodes, edges)
    for comp in found:
        print("circle of %d files (%s): %s" % (len(comp), kind, " ".join(comp)))
        for a in comp:
            for b in sorted(edges.get(a, {})):
                if b in comp:
                    syms = sorted(set(edges[a][b]))
                    more = " ..." if len(syms) > 6 else ""
                    print("  %s -> %s: %s%s" % (a, b, " ".join(syms[:6]), more))
    n_edges = sum(len(t) for t in edges.values())
    if not found:
        print("no circle (%s): %d files, %d edges" % (kind, len(nodes), n_edges))
    return len(found)


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: circles.py OBJDIR [SRCDIR]")
    nodes, edges = call_graph(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
    if not nodes:
        sys.exit("circles.py: no object file under %s" % sys.argv[1])
    n = report("calls", nodes, edges)
    if len(sys.argv) > 2:
        n += report("includes", *include_graph(sys.argv[2]))
    sys.exit(1 if n else 0)


main()
