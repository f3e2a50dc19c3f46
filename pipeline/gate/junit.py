"""The gate's checks as a JUnit XML report, the format CI systems display as tests."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from pipeline.gate.records import Verdict
from pipeline.text import printable_line

SUITE = "retrieval-gate"  # the JUnit test suite's name


def _xml_text(text: str) -> str:
    """Each line made printable (XML 1.0 cannot hold most control characters, even escaped)."""
    return "\n".join(printable_line(line) for line in str(text).splitlines())


def junit_xml(verdict: Verdict) -> bytes:
    """One `<testsuite>` with a `<testcase>` per check; a failing one carries `<failure message=...>`; the numbers
    are in each case's `<system-out>`. ElementTree escapes the text (setting names, set names are data)."""
    failures = len(verdict.failed)
    suite = ET.Element(
        "testsuite", name=SUITE, tests=str(len(verdict.checks)), failures=str(failures), errors="0", skipped="0"
    )
    for check in verdict.checks:
        case = ET.SubElement(suite, "testcase", classname=SUITE, name=check.name)
        if not check.passed:
            failure = ET.SubElement(case, "failure", message=_xml_text(check.line), type="regression")
            failure.text = _xml_text(check.line)
        out = ET.SubElement(case, "system-out")
        out.text = _xml_text("\n".join([check.line, *(f"{k}: {v}" for k, v in check.numbers.items())]))
    ET.indent(suite)
    return ET.tostring(suite, encoding="utf-8", xml_declaration=True) + b"\n"
