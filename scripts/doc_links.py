#!/usr/bin/env python3
"""Checks that every relative link in memframe's Markdown files resolves.

    python3 scripts/doc_links.py [FILE.md ...]   # exit 1, naming each broken link

Without arguments: README.md, docs/*.md and every other .md of the tree
but build directories and Perfetto's vendored protos (proto/perfetto).

A link resolves when the file or folder it names exists (relative to the
document that holds it) and, when it has a #fragment into a Markdown file,
that file has a heading whose GitHub anchor is the fragment. Links with a
scheme (https:, mailto:) are not followed; links inside fenced code blocks
are not links.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# [text](target) and ![alt](target); the target ends at a space (a title) or ")".
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def prose_lines(path):
    """The lines of a Markdown file outside fenced code blocks."""
    fenced = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            if not fenced:
                yield line.rstrip("\n")


def anchor(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"`|\*\*|__", "", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    seen, out = {}, set()
    for line in prose_lines(path):
        m = HEADING.match(line)
        if not m:
            continue
        base = anchor(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else "%s-%d" % (base, n))
    return out


def broken_links(path):
    for line in prose_lines(path):
        for target in LINK.findall(line):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue
            file_part, _, fragment = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            if not os.path.exists(resolved):
                yield target, "no such file"
            elif fragment and resolved.endswith(".md") and fragment not in anchors(resolved):
                yield target, "no heading with that anchor"


def tree_docs():
    found = []
    for folder, subfolders, files in os.walk(ROOT):
        rel = os.path.relpath(folder, ROOT)
        subfolders[:] = [d for d in subfolders if not d.startswith((".", "build"))
                         and os.path.join(rel, d) != os.path.join("proto", "perfetto")]
        found += [os.path.join(folder, f) for f in files if f.endswith(".md")]
    return sorted(found)


def main():
    docs = sys.argv[1:] or tree_docs()
    failures = 0
    for doc in docs:
        for target, why in broken_links(doc):
            print("%s: broken link %s (%s)" % (os.path.relpath(doc, ROOT), target, why))
            failures += 1
    if failures:
        return 1
    print("doc_links: every relative link in %d files resolves" % len(docs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
