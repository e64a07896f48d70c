#!/usr/bin/env python3
"""Counts the English word lists in server/src, app/src and text/src (tests left out):
`const`/`static` arrays of string literals, and inline arrays or `matches!`
of three or more string literals. Prints one line a list, then the totals.

    scripts/count-word-lists.py [--quiet]
"""
import pathlib
import re
import sys

ROOTS = ["server/src", "app/src", "text/src"]
STRING = r'"(?:[^"\\]|\\.)*"'


def strip_tests(text):
    """The file without its `#[cfg(test)] mod tests { ... }` block."""
    at = text.find("#[cfg(test)]")
    while at != -1:
        brace = text.find("{", at)
        semi = text.find(";", at)
        if brace == -1 or (semi != -1 and semi < brace):
            at = text.find("#[cfg(test)]", at + 1)
            continue
        depth, i = 0, brace
        while i < len(text):
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        text = text[:at] + text[i + 1:]
        at = text.find("#[cfg(test)]")
    return text


def lists_in(text):
    """(line, name, words) of each list in `text`."""
    found = []
    const = re.compile(r"(?:const|static)\s+(\w+)\s*:[^=]*?&?\[[^=]*=\s*&?\[", re.S)
    for m in const.finditer(text):
        end = matching(text, m.end() - 1, "[", "]")
        body = text[m.end():end]
        words = re.findall(STRING, body)
        if words:
            found.append((text.count("\n", 0, m.start()) + 1, m.group(1), words, (m.start(), end)))
    taken = [span for *_, span in found]
    inline = re.compile(r"matches!\s*\(|\[\s*" + STRING)
    for m in inline.finditer(text):
        if any(a <= m.start() <= b for a, b in taken):
            continue
        if m.group(0).startswith("matches"):
            end = matching(text, m.end() - 1, "(", ")")
            body = text[m.end():end]
        else:
            start = text.index("[", m.start())
            end = matching(text, start, "[", "]")
            body = text[start + 1:end]
        words = re.findall(STRING, body)
        if len(words) >= 3:
            found.append((text.count("\n", 0, m.start()) + 1, "inline", words, (m.start(), end)))
            taken.append((m.start(), end))
    return found


def matching(text, i, open_, close):
    depth = 0
    while i < len(text):
        if text[i] == open_:
            depth += 1
        elif text[i] == close:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return len(text)


def main():
    quiet = "--quiet" in sys.argv
    lists = words = 0
    for root in ROOTS:
        for path in sorted(pathlib.Path(root).rglob("*.rs")):
            if path.name == "tests.rs" or "tests" in path.parts:
                continue
            for line, name, found, _ in lists_in(strip_tests(path.read_text())):
                lists += 1
                words += len(found)
                if not quiet:
                    print(f"{path}:{line} {name} {len(found)}")
    print(f"{lists} lists, {words} words")


if __name__ == "__main__":
    main()
