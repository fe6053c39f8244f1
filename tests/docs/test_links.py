"""The README's and the docs' links resolve: files exist, anchors name a heading."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support import REPO

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")


def _prose(text: str, *, inline: bool = True) -> str:
    """``text`` without fenced code blocks and (``inline``) inline code: links there are
    not links, and a ``#`` line in a code block is not a heading."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text) if inline else text


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to '-'."""
    h = re.sub(r"`", "", heading.strip().lower())
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    heads = re.findall(
        r"^#{1,6}\s+(.*?)\s*#*\s*$", _prose(page.read_text(), inline=False), flags=re.M
    )
    seen: dict[str, int] = {}
    out = set()
    for h in heads:
        s = slug(h)
        n = seen.get(s, 0)
        out.add(s if n == 0 else f"{s}-{n}")
        seen[s] = n + 1
    return out


def links(page: Path) -> list[str]:
    return [a or b for a, b in LINK.findall(_prose(page.read_text()))]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_links_resolve(page):
    bad = []
    for target in links(page):
        if re.match(r"^[a-z]+:", target):  # https:, mailto: - not checked offline
            continue
        file, _, anchor = target.partition("#")
        dest = (page.parent / file).resolve() if file else page
        if not dest.exists():
            bad.append(f"{target}: {dest} does not exist")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            bad.append(f"{target}: no heading '#{anchor}' in {dest.name}")
        elif REPO not in dest.parents and dest != REPO:
            bad.append(f"{target}: outside the repository")
    assert not bad, f"{page.name}: broken links:\n  " + "\n  ".join(bad)


def test_readme_links_every_doc_page():
    linked = {(REPO / t.partition("#")[0]).resolve() for t in links(REPO / "README.md")}
    missing = [p.name for p in sorted((REPO / "docs").glob("*.md")) if p.resolve() not in linked]
    assert not missing, f"README.md does not link {missing}"


def test_the_link_checker_sees_a_broken_link(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("# Top\n[ok](#top) [gone](nowhere.md) `[code](x.md)`\n```\n[no](y)\n```\n")
    assert links(page) == ["#top", "nowhere.md"]
    assert anchors(page) == {"top"}
    assert slug("expect (for `geom3d check`)") == "expect-for-geom3d-check"
