#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
#
# check.py -- check the benchmark figures against their data and the document:
# - every data file BENCHDIR/NAME.csv opens with comment lines that say where
#   its figures come from ("# from: ...") and which command produced them
#   (a `make ...` in backquotes), then a header line and rows of as many
#   fields; one from doc/BENCHMARKS.md has every row's numbers on one line of
#   the document (so a table changed without its data file, or the other way
#   round, is caught);
# - every data file has its script GPDIR/NAME.gp and its chart
#   BENCHDIR/NAME.svg, every chart has its data file, and the document
#   embeds every chart (bench/NAME.svg) and no chart that does not exist;
# - every chart parses as SVG;
# - with RENDERED, every chart is byte for byte the one rendered into
#   RENDERED/NAME.svg from the data now (a stale or hand-edited chart fails).
# Exits 1, naming each problem, if any check fails.
#
# usage: check.py DOC BENCHDIR GPDIR [RENDERED]

import os
import re
import sys
import xml.etree.ElementTree as ET

NUMBER = re.compile(r"\d+(?:\.\d+)?")
SVG_ROOT = "{http://www.w3.org/2000/svg}svg"
problems = []


def problem(msg):
    """Remember one failed check; all are printed at the end."""
    problems.append(msg)


def read_csv(path):
    """Split a data file into its comment lines, header and rows."""
    comments, header, rows = [], None, []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if header is None and line.startswith("#"):
                comments.append(line)
            elif header is None:
                header = line.split(",")
            elif line:
                rows.append((n, line.split(",")))
    return comments, header, rows


def check_csv(name, path, doc_lines):
    """The comment, the shape and (for a table of the document) the numbers."""
    comments, header, rows = read_csv(path)
    source = [c[len("# from:"):].strip() for c in comments if c.startswith("# from:")]
    if not source:
        problem(f"{path}: no '# from: ...' comment line naming where the figures come from")
    if not any(re.search(r"`make [^`]+`", c) for c in comments):
        problem(f"{path}: no comment naming the command that produced it (`make ...`)")
    if not header or not rows:
        problem(f"{path}: no header line or no rows")
        return
    for n, fields in rows:
        if len(fields) != len(header):
            problem(f"{path}:{n}: {len(fields)} fields, the header has {len(header)}")
    if source and source[0].startswith("doc/BENCHMARKS.md"):
        check_numbers(path, rows, doc_lines)


def check_numbers(path, rows, doc_lines):
    """Each row's numbers must all stand on one line of the document."""
    doc_tokens = [set(NUMBER.findall(line)) for line in doc_lines]
    for n, fields in rows:
        want = {f for f in fields if NUMBER.fullmatch(f)}
        if not any(want <= tokens for tokens in doc_tokens):
            problem(f"{path}:{n}: no line of the document has all of {sorted(want)}")


def check_svg(path):
    """The chart must parse as XML with an SVG root."""
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError) as e:
        problem(f"{path}: does not parse: {e}")
        return
    if root.tag != SVG_ROOT:
        problem(f"{path}: root element is {root.tag}, not svg")


def same_bytes(a, b):
    """True when both files exist and hold the same bytes."""
    try:
        with open(a, "rb") as fa, open(b, "rb") as fb:
            return fa.read() == fb.read()
    except OSError:
        return False


def main(argv):
    """Run every check over the data files, the charts and the document."""
    if len(argv) not in (4, 5):
        print("usage: check.py DOC BENCHDIR GPDIR [RENDERED]", file=sys.stderr)
        return 2
    doc, benchdir, gpdir = argv[1:4]
    rendered = argv[4] if len(argv) == 5 else None
    with open(doc, encoding="utf-8") as f:
        doc_lines = f.read().splitlines()
    doc_text = "\n".join(doc_lines)
    files = sorted(os.listdir(benchdir))
    data = [f[:-4] for f in files if f.endswith(".csv")]
    charts = [f[:-4] for f in files if f.endswith(".svg")]
    if not data:
        problem(f"{benchdir}: no data files")
    for name in data:
        check_csv(name, os.path.join(benchdir, name + ".csv"), doc_lines)
        if not os.path.isfile(os.path.join(gpdir, name + ".gp")):
            problem(f"{benchdir}/{name}.csv: no script {gpdir}/{name}.gp draws it")
        if name not in charts:
            problem(f"{benchdir}/{name}.csv: no chart {name}.svg (make bench-plots)")
    for name in charts:
        svg = os.path.join(benchdir, name + ".svg")
        check_svg(svg)
        if name not in data:
            problem(f"{svg}: no data file {name}.csv")
        if f"](bench/{name}.svg)" not in doc_text:
            problem(f"{svg}: {doc} does not embed it (![...](bench/{name}.svg))")
        if rendered and not same_bytes(svg, os.path.join(rendered, name + ".svg")):
            problem(f"{svg}: differs from the chart rendered from the data now "
                    f"({rendered}/{name}.svg); run make bench-plots")
    for name in re.findall(r"\]\(bench/([^)]+)\.svg\)", doc_text):
        if name not in charts:
            problem(f"{doc}: embeds bench/{name}.svg, which does not exist")
    for p in problems:
        print(f"check-bench-plots: {p}", file=sys.stderr)
    if problems:
        return 1
    print(f"check-bench-plots: {len(data)} data files, {len(charts)} charts, all consistent")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
