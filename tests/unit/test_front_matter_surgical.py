"""Issue 14: editing a note changes only what the learner changed (ADR 0016). Adding one
assertion re-serialised the whole front matter as YAML 1.1 (`time: 12:30` → 750,
`publish: yes` → true, `zip: 0123` → 83, `version: 1.10` → 1.1), dropped comments,
reordered keys, made flow lists block lists and added `tags: []`."""

from __future__ import annotations

import difflib

import pytest

from coach_gui.adapters import front_matter

OBSIDIAN = (
    "---\n"
    "# written in Obsidian\n"
    'aliases: [Selection, "Darwin\'s idea"]\n'
    "time: 12:30\n"
    "publish: yes\n"
    "zip: 0123\n"
    "version: 1.10\n"
    "tags: [biology, evolution/mechanism]  # two tags\n"
    "summary: >\n"
    "  Folded text that\n"
    "  spans two lines.\n"
    "core_assertions:\n"
    "    - Variation is inherited.\n"  # a four-space indent, kept
    "    - 'Selection: it acts on what varies.'\n"
    "\n"
    "# the end\n"
    "created: 2021-03-04\n"
    "---\n"
    "Body with\u00a0no-break space and a\u2028line separator.\n"
)


def _changed_lines(before: bytes, after: bytes) -> list[str]:
    diff = difflib.ndiff(before.decode().splitlines(True), after.decode().splitlines(True))
    return [line for line in diff if line[:1] in "+-"]


def _parse(raw: bytes) -> front_matter.ParsedFile:
    return front_matter.parse(raw, fallback_id="kept1", file_stem="Natural selection")


def test_values_are_read_as_written_not_as_yaml_1_1() -> None:
    parsed = _parse(OBSIDIAN.encode())
    assert parsed.note.title == "Natural selection"  # no title: the file name
    assert parsed.note.aliases == ("Selection", "Darwin's idea")
    assert parsed.note.tags == ("biology", "evolution/mechanism")
    assert parsed.note.core_assertions[1] == "Selection: it acts on what varies."
    assert parsed.extra["time"] == "12:30" and parsed.extra["publish"] == "yes"
    assert parsed.extra["zip"] == "0123" and parsed.extra["version"] == "1.10"
    assert parsed.note.id == "kept1" and not parsed.has_id and not parsed.titled


def test_adding_an_assertion_changes_only_the_assertion_lines() -> None:
    raw = OBSIDIAN.encode()
    parsed = _parse(raw)
    edited = parsed.note.model_copy(
        update={"core_assertions": (*parsed.note.core_assertions, "Change is slow.")}
    )
    out = front_matter.render(edited, parsed)
    assert _changed_lines(raw, out) == ["+     - Change is slow.\n"]
    assert _parse(out).note == edited
    assert out.decode().count("---\n") == 2 and "tags: []" not in out.decode()


def test_every_editable_field_rewrites_only_its_own_lines() -> None:
    raw = OBSIDIAN.encode()
    parsed = _parse(raw)
    for field, value, expected in [
        (
            "tags",
            ("biology",),
            ["- tags: [biology, evolution/mechanism]  # two tags\n", "+ tags: [biology]\n"],
        ),
        ("source", "Darwin (1859)", ["+ source: Darwin (1859)\n"]),
        ("title", "Selection", ["+ title: Selection\n"]),
    ]:
        edited = parsed.note.model_copy(update={field: value})
        out = front_matter.render(edited, parsed)
        assert _changed_lines(raw, out) == expected, field
        assert getattr(_parse(out).note, field) == value


def test_a_body_edit_keeps_every_other_character_exactly() -> None:
    raw = OBSIDIAN.encode()
    parsed = _parse(raw)
    body = parsed.note.body.replace("Body", "Body!")
    out = front_matter.render(parsed.note.model_copy(update={"body": body}), parsed)
    assert out == raw.replace(b"Body", b"Body!")
    assert "\u00a0" in out.decode() and "\u2028" in out.decode()


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_crlf_bom_and_no_final_newline_survive_an_edit(newline: str) -> None:
    text = "\ufeff---\ntitle: T\ncore_assertions:\n  - One.\n---\nNo final newline"
    raw = text.replace("\n", newline).encode()
    parsed = _parse(raw)
    edited = parsed.note.model_copy(update={"core_assertions": ("One.", "Two.")})
    out = front_matter.render(edited, parsed)
    assert (
        out
        == ("\ufeff---\ntitle: T\ncore_assertions:\n  - One.\n  - Two.\n---\nNo final newline")
        .replace("\n", newline)
        .encode()
    )


def test_a_file_without_front_matter_is_a_note_and_gains_one_only_when_edited() -> None:
    raw = b"# Just Markdown\n\nWith #inline tags.\n"
    parsed = _parse(raw)
    assert parsed.front_matter_text is None and parsed.note.body == raw.decode()
    assert parsed.note.all_tags == ("inline",)
    assert front_matter.render(parsed.note, parsed) == raw
    edited = parsed.note.model_copy(update={"core_assertions": ("It is short.",)})
    out = front_matter.render(edited, parsed)
    assert out == b"---\ncore_assertions:\n  - It is short.\n---\n" + raw


def test_dendron_block_titles_and_templates() -> None:
    dendron = b"---\nid: abc123\ntitle: |\n  Daily\n  journal\ndesc: ''\n---\nBody\n"
    assert _parse(dendron).note.title == "Daily journal"
    template = b"---\ndate: {{date}}\ntitle: {{title}}\n---\n"
    with pytest.raises(front_matter.NoteFormatError, match="template"):
        _parse(template)


def test_tags_in_every_obsidian_form() -> None:
    for line, tags in [
        ("tags: [a, b/c]", ("a", "b/c")),
        ("tags: a, b", ("a", "b")),
        ("tags: '#a #b'", ("a", "b")),
        ("tags:\n  - '#x'\n  - y", ("x", "y")),
        ("tag: solo", ()),  # not a tag key Coach reads
    ]:
        raw = f"---\ntitle: T\n{line}\n---\n".encode()
        assert _parse(raw).note.tags == tags, line


def test_assertions_kept_keep_their_own_quoting_and_the_rest_follow_the_list_style() -> None:
    raw = (
        b'---\ntitle: T\ncore_assertions:\n  - "Double quoted: kept."\n  - plain one\n'
        b"  - 'third'\n---\n"
    )
    parsed = _parse(raw)
    edited = parsed.note.model_copy(
        update={"core_assertions": ("Double quoted: kept.", "New one", "third")}
    )
    out = front_matter.render(edited, parsed)
    assert _changed_lines(raw, out) == ["-   - plain one\n", "+   - New one\n"]


# --- found in review ------------------------------------------------------------------------


def _added(raw: bytes, item: str = "third") -> tuple[bytes, front_matter.ParsedFile]:
    parsed = _parse(raw)
    edited = parsed.note.model_copy(
        update={"core_assertions": (*parsed.note.core_assertions, item)}
    )
    out = front_matter.render(edited, parsed)
    return out, _parse(out)


@pytest.mark.parametrize("dash", ["-   ", "-  ", "- "])
def test_an_added_assertion_never_merges_into_the_one_before(dash: str) -> None:
    raw = f"---\ncore_assertions:\n{dash}first\n{dash}second\n---\n".encode()
    out, again = _added(raw)
    assert again.note.core_assertions == ("first", "second", "third")
    assert out.startswith(raw[: raw.index(b"---\n", 4)])  # every old line kept


def test_a_repeated_key_is_edited_where_it_is_read() -> None:
    raw = (
        b"---\ntitle: Old\ncore_assertions:\n  - one\ntitle: Read\ncore_assertions:\n  - two\n---\n"
    )
    _out, again = _added(raw)
    assert again.note.core_assertions == ("two", "third")


def test_a_tab_after_a_colon_reads_and_edits_alike() -> None:
    _out, again = _added(b"---\ntitle:\tT\ncore_assertions:\n  - one\n---\n")
    assert again.note.title == "T" and again.note.core_assertions == ("one", "third")


def test_comments_mapping_items_hash_tags_and_delimiters_are_kept() -> None:
    raw = (
        b'---  \ntags:\n  - "#a"\n  - b\ncore_assertions:\n  # why this one\n'
        b"  - Selection: acts on variation\n  - plain\n...\nBody"
    )
    out, _again = _added(raw)
    assert out == raw.replace(b"  - plain\n", b"  - plain\n  - third\n")
    parsed = _parse(raw)
    tagged = front_matter.render(parsed.note.model_copy(update={"tags": ("a", "b", "c")}), parsed)
    assert tagged == raw.replace(b"  - b\n", b"  - b\n  - c\n")


def test_an_empty_item_started_in_another_editor_is_no_assertion_and_no_error() -> None:
    parsed = _parse(b"---\ncore_assertions:\n  -\n  - real\n---\n")
    assert parsed.note.core_assertions == ("real",)
    with pytest.raises(front_matter.NoteFormatError) as raised:
        _parse(b'---\ntitle: "a\\u0000b"\n---\n')
    assert "Value error" not in str(raised.value)
