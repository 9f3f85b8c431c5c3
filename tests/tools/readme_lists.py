#!/usr/bin/env python3
"""The lists the READMEs repeat from the code, and the paths they name, checked against the code.

  readme_lists.py ROOT [HELP_FILE]

ROOT is the course root; HELP_FILE, when given, holds `grader --help`. Prints one line per
check, "ok   - ..." or "FAIL - ...", and exits 1 when a check failed. What is compared:
  formats   grader/export/report.c's table = `grader --help` = README.md's `--format` list =
            grader/README.md's option row and its report sections; each has export/<name>.c
  outcomes  grader/engine/model/outcome.h's keys = the JSON example's `counts` = the outcome table's
            keys; its words = README.md's outcome list; its JUnit kinds = the JUnit section
  files     grader/README.md's Sources table = the .c and .h files under grader/; README.md's
            course table = lessons/*/ and their *_harness.cu
  paths     every path a README (and CONTRIBUTING.md, grader/DESIGN-NOTES.md) names exists
"""
import glob
import os
import re
import sys

ROOT = sys.argv[1]
HELP = sys.argv[2] if len(sys.argv) > 2 else None
fails = 0


def check(cond, what, detail=""):
    global fails
    if cond:
        print("ok   - " + what)
    else:
        fails += 1
        print("FAIL - " + what + (": " + detail if detail else ""))


def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


def section(text, heading):
    """The text of a Markdown section from its heading line to the next heading of its level."""
    level = heading.split(" ")[0]
    m = re.search(r"^" + re.escape(heading) + r"\b.*$", text, re.M)
    if not m:
        return ""
    rest = text[m.end():]
    end = re.search(r"^#{1,%d} " % len(level), rest, re.M)
    return rest[: end.start()] if end else rest


def same(a, b):
    return "%s against %s" % (", ".join(a), ", ".join(b))


readme = read("README.md")
greadme = read("grader/README.md")

# ------------------------------------------------------------------------------ formats
formats = re.findall(r'\[REPORT_\w+\]\s*=\s*\{\s*"(\w+)"', read("grader/export/report.c"))
check(len(formats) >= 2, "grader/export/report.c names the formats (%d)" % len(formats))
if HELP:
    m = re.search(r"--format F\s+([a-z |]+)", open(HELP, encoding="utf-8").read())
    got = [w.strip() for w in m.group(1).split("|")] if m else []
    check(got == formats, "grader --help lists the formats of report.c", same(got, formats))
m = re.search(r"--format ([a-z|]+)", readme)
got = m.group(1).split("|") if m else []
check(got == formats, "README.md's --format list is report.c's", same(got, formats))
m = re.search(r"^\| `--format F` \|([^|]*)\|", greadme, re.M)
got = re.findall(r"`(\w+)`", m.group(1)) if m else []
check(got == formats, "grader/README.md's --format row is report.c's", same(got, formats))
reports = section(greadme, "## Reports")
got = re.findall(r"^### .*\(`--format (\w+)`\)", reports, re.M)
got += ["text"] if re.search(r"^### Text \(default\)", reports, re.M) else []
check(sorted(got) == sorted(formats), "grader/README.md has a section per format",
      same(sorted(got), sorted(formats)))
m = re.search(r"^One writer per format in `grader/export/` \(([^)]*)\)", reports, re.M)
got = re.findall(r"`(\w+)\.c`", m.group(1)) if m else []
check(sorted(got) == sorted(formats), "grader/README.md names one writer file per format",
      same(sorted(got), sorted(formats)))
missing = [f for f in formats if not os.path.isfile(os.path.join(ROOT, "grader/export", f + ".c"))]
check(not missing, "every format has its writer grader/export/<format>.c", ", ".join(missing))

# ------------------------------------------------------------------------------ outcomes
rows = re.findall(r'X\((\w+),\s*"(\w+)",\s*"([^"]+)",\s*(JUNIT_\w+)', read("grader/engine/model/outcome.h"))
keys = [r[1] for r in rows]
words = [r[2] for r in rows]
check(len(rows) >= 2, "grader/engine/model/outcome.h names the outcomes (%d)" % len(rows))
m = re.search(r'"counts":\s*\{([^}]*)\}', greadme)
got = re.findall(r'"(\w+)":', m.group(1)) if m else []
check(got == keys, "grader/README.md's JSON counts are outcome.h's keys, in order", same(got, keys))
table = section(greadme, "## Outcomes")
got = re.findall(r"^\| [^|]+ \| `(\w+)` \|", table, re.M)
check(got == keys, "grader/README.md's outcome table has outcome.h's keys, in order", same(got, keys))
m = re.search(r"^Outcomes \(`grader --outcomes` prints the table\): ([^.]*)\.", readme, re.M)
got = [w.strip() for w in m.group(1).replace("\n", " ").split(",")] if m else []
check(got == words, "README.md's outcome list is outcome.h's words, in order", same(got, words))
junit = section(reports, "### JUnit XML")
for kind, elem in (("JUNIT_FAILURE", "failure"), ("JUNIT_ERROR", "error"), ("JUNIT_SKIPPED", "skipped")):
    m = re.search(r"(?:^|[;:] )([^;:]*?) (?:are|is) `<%s>`" % elem, junit.replace("\n", " "))
    got = sorted(w.strip() for w in re.split(r",| and ", m.group(1))) if m else []
    want = sorted(r[2] for r in rows if r[3] == kind)
    check(got == want, "grader/README.md's JUnit section: <%s> is outcome.h's %s" % (elem, kind),
          same(got, want))

# ------------------------------------------------------------------------------ files
src = sorted(os.path.relpath(p, os.path.join(ROOT, "grader"))
             for p in glob.glob(os.path.join(ROOT, "grader", "**", "*.[ch]"), recursive=True))
sources = section(greadme, "## Sources")
named = sorted(set(re.findall(r"`([\w/]+\.[ch])`", "\n".join(re.findall(r"^\| ([^|]*) \|", sources, re.M)))))
check(named == src, "grader/README.md's Sources table is the grader's .c and .h files",
      "not listed: %s; listed, not there: %s"
      % (", ".join(sorted(set(src) - set(named))) or "-", ", ".join(sorted(set(named) - set(src))) or "-"))
lessons = sorted(os.path.basename(os.path.dirname(p))
                 for p in glob.glob(os.path.join(ROOT, "lessons", "*", "lesson.ini")))
course = re.findall(r"^\| \[([\w-]+)\]\(lessons/[\w-]+/README\.md\) \|[^|]*\|([^|]*)\|", readme, re.M)
check([c[0] for c in course] == lessons, "README.md's course table is lessons/*/",
      same([c[0] for c in course], lessons))
for lesson, cell in course:
    got = sorted(re.findall(r"`(\w+)`", cell))
    want = sorted(os.path.basename(p)[: -len("_harness.cu")]
                  for p in glob.glob(os.path.join(ROOT, "lessons", lesson, "*_harness.cu")))
    check(got == want, "README.md's tasks of %s are its harnesses" % lesson, same(got, want))

# ------------------------------------------------------------------------------ paths
# A path is a word of a code span or a link's target that starts where a path of the course
# starts: at an entry of the root (lessons/, grader/, Makefile, ...), at an entry of the README's
# own directory (engine/, figures/), or at ../. Words with a placeholder (L, T, NN-name, DIR) are
# patterns, not files; build/ is not the course's. A test group (grader/test_jobs) is its script,
# a task id (03-naive-matmul/matmul_naive) a task.
PLACEHOLDER = re.compile(r"^([A-Z]{1,4}|X+)$")  # one word of a segment: L, T, NN, DIR, XXXXXX
DOCS = ["README.md", "CONTRIBUTING.md", "grader/README.md", "grader/DESIGN-NOTES.md"] + \
    sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "lessons", "*", "README.md")))
TOP = set(os.listdir(ROOT)) - {"build"}


def candidates(text, base):
    here = set(os.listdir(os.path.join(ROOT, base))) if base else TOP
    spans = re.findall(r"`([^`\n]+)`", text) + re.findall(r"\]\(([^)\s#]+)", text)
    for span in spans:
        for word in span.split():
            word = word.strip(",;:.'\"()")
            if not re.fullmatch(r"[\w./*+-]+", word) or "://" in word:
                continue
            first = word.split("/")[0]
            if word.startswith("../") or ("/" in word and first in TOP | here) or word in TOP:
                yield word


def is_task_id(word):
    parts = word.rstrip("/").split("/")
    return len(parts) == 2 and os.path.isfile(
        os.path.join(ROOT, "lessons", parts[0], parts[1] + "_harness.cu"))


def exists(word, base):
    for d in (base, ROOT):
        if glob.glob(os.path.normpath(os.path.join(ROOT, d, word))):
            return True
    # a test group, as `make test T=...` names it: tests/AREA/NAME.sh or a unit test's .c
    return any(os.path.isfile(os.path.join(ROOT, "tests", word + e)) for e in (".sh", ".c"))


for doc in DOCS:
    if not os.path.isfile(os.path.join(ROOT, doc)):
        continue
    base = os.path.dirname(doc)
    missing = set()
    for word in candidates(read(doc), base):
        if any(PLACEHOLDER.match(w) for w in re.split(r"[/._-]", word)):
            continue
        if is_task_id(word) or exists(word, base):
            continue
        missing.add(word)
    check(not missing, "every path %s names exists" % doc, ", ".join(sorted(missing)))

sys.exit(1 if fails else 0)
