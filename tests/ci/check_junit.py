#!/usr/bin/env python3
"""Checks a JUnit XML file against the structure CI servers read (the Jenkins/Surefire JUnit
schema, with testcase-level <properties> as GitLab and Jenkins accept them), using Python's XML
parser. Usage: check_junit.py <file> <tests> <failures> <skipped>. Exit 0 when it holds, else 1
with what is wrong."""
import sys
import xml.etree.ElementTree as ET


def fail(msg):
    print(f"check_junit: {sys.argv[1]}: {msg}")
    sys.exit(1)


def number(el, attr, kind=float):
    v = el.get(attr)
    if v is None:
        fail(f"<{el.tag} name={el.get('name')!r}> has no {attr}")
    try:
        return kind(v)
    except ValueError:
        fail(f"<{el.tag}> {attr}={v!r} is not a number")


def main():
    path, tests, failures, skipped = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        fail(f"not well-formed XML: {e}")
    if root.tag != "testsuites":
        fail(f"root is <{root.tag}>, expected <testsuites>")
    suites = root.findall("testsuite")
    if len(suites) != 1:
        fail(f"{len(suites)} <testsuite>, expected 1")
    s = suites[0]
    for el in (root, s):
        for attr in ("tests", "failures", "errors", "skipped"):
            number(el, attr, int)
        number(el, "time")
    if not s.get("name"):
        fail("<testsuite> has no name")
    allowed_suite = {"properties", "testcase", "system-out", "system-err"}
    for child in s:
        if child.tag not in allowed_suite:
            fail(f"<testsuite> has a <{child.tag}>")
    cases = s.findall("testcase")
    n_fail = n_skip = 0
    for c in cases:
        if not c.get("name") or not c.get("classname"):
            fail("a <testcase> lacks name or classname")
        number(c, "time")
        kids = [k.tag for k in c]
        for k in kids:
            if k not in {"properties", "failure", "error", "skipped", "system-out", "system-err"}:
                fail(f"<testcase {c.get('name')}> has a <{k}>")
        if kids.count("failure") + kids.count("error") + kids.count("skipped") > 1:
            fail(f"<testcase {c.get('name')}> has more than one result element")
        props = c.find("properties")
        if props is not None:
            for p in props:
                if p.tag != "property" or p.get("name") is None or p.get("value") is None:
                    fail(f"<testcase {c.get('name')}>: a property without name and value")
        f = c.find("failure")
        if f is not None:
            n_fail += 1
            if not f.get("message") or not f.get("type"):
                fail(f"<failure> of {c.get('name')} lacks message or type")
        n_skip += c.find("skipped") is not None
    for el in (root, s):
        if int(el.get("tests")) != len(cases):
            fail(f"<{el.tag}> tests={el.get('tests')} but {len(cases)} testcases")
        if int(el.get("failures")) != n_fail:
            fail(f"<{el.tag}> failures={el.get('failures')} but {n_fail} <failure>")
        if int(el.get("skipped")) != n_skip:
            fail(f"<{el.tag}> skipped={el.get('skipped')} but {n_skip} <skipped>")
    if (len(cases), n_fail, n_skip) != (tests, failures, skipped):
        fail(f"{len(cases)} tests, {n_fail} failures, {n_skip} skipped; expected {tests}, {failures}, {skipped}")
    print(f"check_junit: {path}: {len(cases)} testcases, {n_fail} failures, {n_skip} skipped: ok")


main()
