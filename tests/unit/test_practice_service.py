"""The practice session use case, over in-memory ports."""

from __future__ import annotations

import json

import pytest
from fakes.in_ram import InRamPracticeJournal, ScriptedTier1, TickingClock, reply
from pydantic import ValidationError

from coach_gui.domain.challenge_stream import ChallengeStream, QuoteRejected
from coach_gui.domain.no_quote import NoQuoteCheck
from coach_gui.domain.notes import Note
from coach_gui.domain.practice import Disposition, SessionMode
from coach_gui.domain.tier1_errors import (
    GenerationCancelled,
    ModelMissing,
    OllamaNotRunning,
    StreamCut,
)
from coach_gui.services.practice import PracticeRun, PracticeSettings

NOTE = Note(
    id="n1",
    title="Natural selection",
    source="Darwin",
    core_assertions=(
        "Natural selection does not create variation; it only acts on inherited variation.",
        "Large changes need very long periods of time because each step is slight.",
    ),
    body=(
        "Individuals of a species differ from one another and many of those differences "
        "are inherited by their offspring over many generations."
    ),
)
QUOTE = "Individuals of a species differ from one another and many of those differences?"
HONEST = "Why can a process that only keeps or removes traits still produce new species?"


def _run(script: list[object], **settings: object) -> tuple[PracticeRun, InRamPracticeJournal]:
    journal = InRamPracticeJournal()
    tier1 = ScriptedTier1(script)  # type: ignore[arg-type]
    run = PracticeRun(NOTE, PracticeSettings(**settings), journal, tier1, TickingClock())  # type: ignore[arg-type]
    run.start()
    return run, journal


def test_a_session_records_challenges_and_answers_as_they_happen() -> None:
    run, journal = _run([reply(HONEST), reply("How would you test it?", "apply")])
    shown: list[str] = []
    result = run.next_challenge(shown.append)
    assert result.challenge.text == HONEST
    assert result.challenge.origin == "tier1" and result.challenge.model == "scripted:1b"
    assert shown[-1] == HONEST  # the whole challenge reached the screen, in steps
    assert len(shown) > 3 and all(HONEST.startswith(s) for s in shown)
    assert [c[2].id for c in journal.challenges] == [result.challenge.id]
    attempt = run.submit(result.challenge, "Because selection accumulates small changes.")
    assert journal.attempts == [attempt]  # committed before submit returned
    assert attempt.status == "unjudged" and attempt.unjudged_reason == "no judge is set up"
    follow = run.follow_up(result.challenge, attempt.answer)
    assert follow is not None and follow.challenge.origin == "follow_up"
    assert journal.challenges[-1][3] == result.challenge.id  # linked to its parent
    assert run.finish() is Disposition.JUDGE_UNAVAILABLE


def test_a_quoting_challenge_never_reaches_the_screen_or_the_journal() -> None:
    run, journal = _run([reply(QUOTE), reply(HONEST)])
    shown: list[str] = []
    result = run.next_challenge(shown.append)
    assert result.challenge.text == HONEST
    assert all("differ from one another" not in s for s in shown)
    assert "withdrawn" in result.notices[0] and "words in a row" in result.notices[0]
    assert [c[2].text for c in journal.challenges] == [HONEST]
    assert journal.rejections[0][3].startswith("it repeated")


def test_after_bounded_regenerations_a_builtin_challenge_is_used() -> None:
    run, journal = _run([reply(QUOTE)] * 3, max_regenerations=2)
    result = run.next_challenge()
    assert result.challenge.origin == "builtin"
    assert "built-in" in result.notices[-1]
    assert len(journal.rejections) == 3


def test_no_ollama_falls_back_once_and_says_how_to_fix() -> None:
    run, _ = _run([OllamaNotRunning("http://127.0.0.1:11434")])
    first = run.next_challenge()
    assert first.challenge.origin == "builtin"
    assert "ollama serve" in first.notices[0]
    assert run.offline_reason is not None
    second = run.next_challenge()  # no second attempt at Ollama, no second notice
    assert second.challenge.origin == "builtin" and second.notices == []
    assert "2 key points" in first.challenge.text
    for challenge in (first.challenge, second.challenge):
        assert "inherited" not in challenge.text and "Individuals" not in challenge.text


def test_missing_model_says_which_to_pull() -> None:
    run, _ = _run([ModelMissing("llama3.2:3b")])
    assert "ollama pull llama3.2:3b" in run.next_challenge().notices[0]


def test_a_cut_stream_falls_back_for_that_challenge_only() -> None:
    run, _ = _run([StreamCut(), reply(HONEST)])
    first = run.next_challenge()
    assert first.challenge.origin == "builtin" and "closed before" in first.notices[0]
    assert run.next_challenge().challenge.origin == "tier1"


def test_cancel_raises_and_records_nothing() -> None:
    journal = InRamPracticeJournal()
    tier1 = ScriptedTier1([reply(HONEST)])
    run = PracticeRun(NOTE, PracticeSettings(), journal, tier1, TickingClock())
    run.start()
    tier1.on_piece = run.cancel
    with pytest.raises(GenerationCancelled):
        run.next_challenge()
    assert journal.challenges == []


def test_blank_answers_are_refused_and_offline_sessions_say_so() -> None:
    run, journal = _run([reply(HONEST)], judge_enabled=False)
    assert run.session is not None and run.session.mode is SessionMode.OFFLINE
    challenge = run.next_challenge().challenge
    with pytest.raises(ValidationError):
        run.submit(challenge, "   ")
    assert run.submit(challenge, "an answer").unjudged_reason == "the judge is switched off"
    assert run.finish() is Disposition.UNJUDGED_OFFLINE
    assert journal.ended


def test_prompts_fence_the_note_and_targets_rotate() -> None:
    run, _ = _run([reply(HONEST), reply("Another honest one?", "apply")])
    run.next_challenge()
    run.next_challenge()
    tier1 = run._tier1  # type: ignore[attr-defined]
    user = tier1.requests[0][1]["content"]
    assert "untrusted_note_" in user and NOTE.body in user
    assert "Explain" in user or "explain" in user
    assert run.remaining == 1


def _check() -> NoQuoteCheck:
    return NoQuoteCheck.for_note(NOTE, max_shared_words=6, max_containment=0.5, shingle_words=3)


def test_stream_holds_back_words_until_they_are_safe() -> None:
    stream = ChallengeStream(_check())
    shown = ""
    raw = reply(HONEST)
    for i in range(0, len(raw), 3):
        stream.feed(raw[i : i + 3])
        assert stream.shown.startswith(shown)
        shown = stream.shown
        assert len(shown.split()) <= len(HONEST.split())
    assert stream.finish().text == HONEST
    assert stream.shown == HONEST


def test_stream_rejects_a_quote_before_showing_any_of_it() -> None:
    stream = ChallengeStream(_check())
    raw = reply(QUOTE)
    with pytest.raises(QuoteRejected):
        for i in range(0, len(raw), 2):
            stream.feed(raw[i : i + 2])
    assert "differ" not in stream.shown


def _shown_before_rejection(check: NoQuoteCheck, challenge: str) -> str:
    stream = ChallengeStream(check)
    raw = json.dumps({"challenge": challenge, "kind": "explain"}, ensure_ascii=False)
    with pytest.raises(QuoteRejected):
        for ch in raw:
            stream.feed(ch)
    return stream.shown


def test_stream_shows_no_word_of_a_quote_that_starts_after_other_words() -> None:
    """Found in review: the word still arriving counted among the words held back, so the
    first word of a quote after an honest opening reached the screen before the check saw
    the whole run."""
    shown = _shown_before_rejection(
        _check(), "Tell me whether individuals of a species differ from one another at all?"
    )
    assert "individuals" not in shown.casefold()


def test_stream_shows_no_letter_of_a_quote_written_with_spaces_between_words() -> None:
    """A Thai or Chinese challenge written with spaces between its words: the held words
    must weigh a run (24 Thai letters, 9 Han characters), not be five of them."""
    thai = NoQuoteCheck("แสงแดดทำให้น้ำในทะเลระเหยกลายเป็นไอ ไอน้ำลอยขึ้นไปเย็นตัวลงและควบแน่นเป็นเมฆ")
    shown = _shown_before_rejection(thai, "ทำไม แสง แดด ทำ ให้ น้ำ ใน ทะเล ระเหย กลาย เป็น ไอ")
    assert "แสง" not in shown
    chinese = NoQuoteCheck("达尔文认为，同一物种的个体之间总存在细小的差异。")
    shown = _shown_before_rejection(
        chinese, "请问 为什么 同 一 物 种 的 个 体 之 间 总 存 在 细 小 的 差 异"
    )
    assert "同" not in shown


def test_stream_decodes_escapes_split_across_pieces() -> None:
    stream = ChallengeStream(_check())
    raw = (
        '{"kind": "explain", "challenge": "Caf\\u00e9 \\"quotes\\" and a tab\\there done ok fine?"}'
    )
    for ch in raw:
        stream.feed(ch)
    assert stream.shown == 'Café "quotes" and a tab here done ok fine?'


def _feed_all(raw: str) -> str:
    stream = ChallengeStream(_check())
    for i in range(0, len(raw), 7):
        stream.feed(raw[i : i + 7])
    return stream.finish().text


def test_a_long_challenge_in_another_script_or_with_spaces_is_not_cut_short() -> None:
    """Found in review: the length cut counted \\uXXXX escapes and uncollapsed spaces."""
    cyrillic = "Почему " * 128 + "?"  # ~900 characters, each sent as a \\uXXXX escape
    raw = json.dumps({"challenge": cyrillic, "kind": "explain"}, ensure_ascii=True)
    assert len(raw) > 4_000
    assert _feed_all(raw) == " ".join(cyrillic.split())
    spaced = "Why  " * 192 + "?"  # 961 characters once the double spaces collapse
    assert len(spaced) > 960 and _feed_all(json.dumps({"challenge": spaced, "kind": "apply"}))
