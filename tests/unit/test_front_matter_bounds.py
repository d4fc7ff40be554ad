"""Front matter that would expand without bound is refused as one broken note, with a
reason; ordinary uses of YAML aliases still read (issue 34, item 3)."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from coach_gui.adapters import front_matter
from coach_gui.adapters.front_matter import NoteFormatError


def note(front: str) -> bytes:
    return f"---\ntitle: T\n{front}\n---\nbody\n".encode()


def test_a_few_aliases_read_as_the_values_they_repeat() -> None:
    parsed = front_matter.parse(
        note("base: &b [one, two]\ncopy: *b\ntags: *b"), fallback_id="a" * 32
    )
    assert parsed.note.tags == ("one", "two")
    assert parsed.extra["copy"] == ["one", "two"]


def test_a_long_list_written_out_is_not_an_alias_bomb() -> None:
    items = ",".join(["x"] * 150_000)  # more values than the alias bound, none repeated
    parsed = front_matter.parse(note(f"many: [{items}]"), fallback_id="a" * 32)
    assert len(parsed.extra["many"]) == 150_000


def test_too_many_aliases_are_refused_with_the_reason() -> None:
    refs = ",".join(["*v"] * (front_matter.MAX_ALIASES + 1))
    with pytest.raises(NoteFormatError, match="over 100 YAML aliases"):
        front_matter.parse(note(f"v: &v x\nall: [{refs}]"), fallback_id="a" * 32)


@pytest.mark.parametrize("levels", [10, 12, 30])
def test_nested_aliases_that_expand_past_the_bound_are_refused(levels: int) -> None:
    lines = ["l0: &l0 [a, b, c, d, e, f, g, h, i, j]"]
    lines += [f"l{n}: &l{n} [*l{n - 1}, *l{n - 1}, *l{n - 1}]" for n in range(1, levels)]
    with pytest.raises(NoteFormatError, match="expand to over"):
        front_matter.parse(note("\n".join(lines)), fallback_id="a" * 32)


def test_a_recursive_alias_is_a_note_that_does_not_parse() -> None:
    with pytest.raises(NoteFormatError, match="not valid YAML"):
        front_matter.parse(note("loop: &l [*l]"), fallback_id="a" * 32)


def test_the_cache_keeps_small_front_matter_and_not_a_large_expansion() -> None:
    cache: dict[str, Any] = {}
    front_matter.load_yaml("title: small", cache)
    assert list(cache.values()) == [{"title": "small"}]
    big = "l: &l [" + ",".join(["x"] * 2000) + "]\nm: [*l, *l, *l, *l, *l, *l]"
    data = front_matter.load_yaml(big, cache)
    assert len(data["m"]) == 6
    assert len(cache) == 1  # 14,000 values once expanded: parsed again next time instead


@pytest.mark.parametrize(
    "front",
    [
        "deep: " + "[" * 500 + "]" * 500,  # 1 KB: overflowed the loader's stack (a crash)
        "deep:\n" + "".join(" " * n + "- \n" for n in range(500)),
        "deep: " + "{k: " * 500 + "v" + "}" * 500,
        # each level only 40 deep, but every alias nests the one before inside it again
        "\n".join(
            [f"l0: &l0 {'[' * 40}x{']' * 40}"]
            + [f"l{n}: &l{n} {'[' * 40}*l{n - 1}{']' * 40}" for n in range(1, 20)]
        ),
    ],
    ids=["flow", "block", "mapping", "aliases"],
)
def test_front_matter_nested_too_deep_is_refused_with_the_reason(front: str) -> None:
    with pytest.raises(NoteFormatError, match="levels deep"):
        front_matter.parse(note(front), fallback_id="a" * 32)


def test_nesting_as_deep_as_real_front_matter_goes_still_reads() -> None:
    parsed = front_matter.parse(note("deep: " + "[" * 30 + "x" + "]" * 30), fallback_id="a" * 32)
    value = parsed.extra["deep"]
    for _ in range(29):
        value = value[0]
    assert value == ["x"]


def test_deep_nesting_is_refused_by_the_pure_python_loader_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without libyaml Coach reads front matter with PyYAML's own loader, whose composer
    recurses once per level (libyaml stops at 1,000 levels; it does not)."""
    monkeypatch.setattr(front_matter, "_Loader", yaml.BaseLoader)
    with pytest.raises(NoteFormatError, match="levels deep"):
        front_matter.parse(note("deep: " + "[" * 5000 + "]" * 5000), fallback_id="a" * 32)


def test_front_matter_past_the_parse_budget_is_refused_with_the_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The budget is checked on the way (no clock is asserted: a budget already spent)."""
    monkeypatch.setattr(front_matter, "PARSE_BUDGET_SECONDS", -1.0)
    cache: dict[str, Any] = {}
    with pytest.raises(NoteFormatError, match="took too long to read"):
        front_matter.load_yaml("title: T\ntags: [a, b]\n", cache)
    assert cache == {}
