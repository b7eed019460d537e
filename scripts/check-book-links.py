#!/usr/bin/env python3
"""Fails on a broken relative link or anchor in the built book (docs/book/, from `mdbook build docs`).

Usage:
    scripts/check-book-links.py [BOOK_DIR]     # default: docs/book
    scripts/check-book-links.py --self-test    # proves on a scratch book that a broken link fails

Every `href` and `src` of every HTML page is read. External ones (`https:`, `mailto:`, ...) are
left alone: CI has no business failing on someone else's site. A relative link must name a file
that exists, and its `#fragment` an `id` (or `<a name>`) in that file; a bare `#fragment` one in
the page itself.

A link that leaves the book (`../../BENCHMARKS.md` in a page under docs/src/ names the repository's
file, as on GitHub) is resolved from the page's source, docs/src/, since mdBook writes the pages
one directory deep as their sources are: the target must exist in the repository. mdBook rewrites
such a link's `.md` to `.html`, so for a target outside the book the `.md` file is what must exist.
"""

import re
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


class Page(HTMLParser):
    """The ids a page defines and the links it makes."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids = set()
        self.links = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("id",) + (("name",) if tag == "a" else ()):
            if attrs.get(key):
                self.ids.add(attrs[key])
        for key in ("href", "src"):
            if attrs.get(key) is not None:
                self.links.append(attrs[key])


def parse(file: Path) -> Page:
    page = Page()
    page.feed(file.read_text(encoding="utf-8", errors="replace"))
    return page


def broken_links(book: Path) -> list:
    book = book.resolve()
    pages = {file: parse(file) for file in sorted(book.rglob("*.html"))}
    if not pages:
        return [f"{book}: no HTML pages; build the book first (mdbook build docs)"]
    source_root = book.parent / "src"
    problems = []
    for file, page in pages.items():
        where = file.relative_to(book)
        for link in page.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith("//"):
                continue
            path, fragment = unquote(parts.path), unquote(parts.fragment)
            if not path:
                target = file
            else:
                target = (file.parent / path).resolve()
                if target.is_dir():
                    target = target / "index.html"
            if book not in target.parents and target != book:
                # Outside the book: the repository's file, named from the page's source.
                source_dir = (source_root / where).parent
                outside = (source_dir / path).resolve()
                if not outside.exists() and outside.suffix == ".html":
                    outside = outside.with_suffix(".md")
                if not outside.exists():
                    problems.append(f"{where}: `{link}` names {outside}, which does not exist")
                continue
            if not target.exists():
                problems.append(f"{where}: `{link}` names a file the book does not have")
                continue
            if fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else parse(target).ids
                if fragment not in ids:
                    problems.append(f"{where}: `{link}`: no anchor `{fragment}` in {target.name}")
    return problems


def self_test() -> int:
    """A scratch book with one good page and planted breaks: each break must be reported."""
    with tempfile.TemporaryDirectory() as scratch:
        docs = Path(scratch) / "docs"
        (docs / "src").mkdir(parents=True)
        (Path(scratch) / "NOTES.md").write_text("notes\n")
        book = docs / "book"
        book.mkdir()
        (book / "b.html").write_text('<h2 id="there">There</h2>')
        good = (
            '<h1 id="top">Top</h1><a href="#top">self</a><a href="b.html#there">b</a>'
            '<a href="https://example.org/x#y">out</a><a href="../../NOTES.html">repo</a>'
        )
        (book / "a.html").write_text(good)
        if broken_links(book):
            print("self-test: a book without broken links fails:", *broken_links(book), sep="\n  ")
            return 1
        failed = 0
        for what, link in [
            ("a missing page", "c.html"),
            ("a missing anchor in another page", "b.html#nowhere"),
            ("a missing anchor in the same page", "#nowhere"),
            ("a missing repository file", "../../MISSING.html"),
        ]:
            (book / "a.html").write_text(good + f'<a href="{link}">x</a>')
            found = broken_links(book)
            if found:
                print(f"self-test: refused as it must: {what} ({found[0]})")
            else:
                print(f"self-test: NOT refused: {what} (`{link}`)")
                failed = 1
        return failed


def main() -> int:
    args = sys.argv[1:]
    if args == ["--self-test"]:
        return self_test()
    book = Path(args[0]) if args else Path(__file__).resolve().parent.parent / "docs" / "book"
    problems = broken_links(book)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"error: {len(problems)} broken link(s) in the book", file=sys.stderr)
        return 1
    count = len(list(book.rglob("*.html")))
    print(f"book links: every relative link and anchor of {count} pages resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
