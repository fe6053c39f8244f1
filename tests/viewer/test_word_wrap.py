"""Greedy word wrap (viewer.word_wrap), measured in characters here."""

from __future__ import annotations

from viewer.word_wrap import greedy_wrap


def test_greedy_wrap_by_character_count():
    got = greedy_wrap(["  one two three four", "   ", "x"], 10, len)
    # "  one two" is 9 wide; adding " three" makes 15; continuation lines take indent + 2
    assert got == ["  one two", "    three", "    four", "", "x"]


def test_a_word_wider_than_the_width_stays_whole():
    assert greedy_wrap(["a enormousword b"], 3, len) == ["a", "  enormousword", "  b"]
