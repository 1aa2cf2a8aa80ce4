"""A griffe extension for the API reference (mkdocs.yml loads it): the docstrings here are prose
in Markdown, and a doctest example in them (lines from `>>>` to the next blank line) would read
as a Markdown quote; it becomes a fenced `pycon` block instead. Indented examples are code
blocks already and stay as they are."""

from __future__ import annotations

from typing import Any

import griffe


def fence_doctests(text: str) -> str:
    """`text` with each unindented run of doctest lines (`>>>` up to a blank line) in a ```pycon fence."""
    out: list[str] = []
    in_fence = in_example = False
    for line in text.split("\n"):
        if line.startswith("```"):
            in_fence = not in_fence
        elif not in_fence and not in_example and line.startswith(">>>"):
            out.append("```pycon")
            in_example = True
        elif in_example and not line.strip():
            out.append("```")
            in_example = False
        out.append(line)
    if in_example:
        out.append("```")
    return "\n".join(out)


class DoctestFences(griffe.Extension):
    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = fence_doctests(obj.docstring.value)
