"""Every rule that reads text, in every script (issue 32, DESIGN §3, ADR 0032): the no-quote
check, evidence matching and search, on notes written in Chinese, Japanese, Thai, Korean,
Arabic, German and Russian (tests/fakes/multilingual_notes.py)."""

from __future__ import annotations

import pytest
from fakes.multilingual_notes import NOTES, LanguageNote

from coach_gui.config import NoQuoteConfig
from coach_gui.domain.evidence import FoldedAnswer, evidence_ranges
from coach_gui.domain.no_quote import NoQuoteCheck, normalise_words
from coach_gui.domain.notes import Note, NoteEntry, NoteSearchIndex, fold
from coach_gui.domain.text_segments import UNITS_PER_WORD, tokens, weights, windows

DEFAULTS = NoQuoteConfig()
LANGUAGES = {"zh", "ja", "th", "ko", "ar", "de", "ru"}


def _check(note: LanguageNote) -> NoQuoteCheck:
    return NoQuoteCheck(
        note.body,
        note.assertions,
        title=note.title,
        max_shared_words=DEFAULTS.max_shared_words,
        max_containment=DEFAULTS.max_containment,
        shingle_words=DEFAULTS.shingle_words,
    )


def _cases(field: str) -> list[tuple[LanguageNote, str]]:
    return [(note, text) for note in NOTES for text in getattr(note, field)]


def _id(case: object) -> str:
    return case.lang if isinstance(case, LanguageNote) else str(case)[:24]


def test_the_corpus_covers_the_languages_with_several_cases_each() -> None:
    assert {n.lang for n in NOTES} >= LANGUAGES
    for lang in LANGUAGES:
        notes = [n for n in NOTES if n.lang == lang]
        assert sum(len(n.quotes) for n in notes) >= 2, lang
        assert sum(len(n.honest) for n in notes) >= 2, lang


# --- the no-quote check ----------------------------------------------------------------------
@pytest.mark.parametrize(("note", "text"), _cases("quotes"), ids=_id)
def test_a_verbatim_or_lightly_edited_quote_is_rejected_in_any_script(
    note: LanguageNote, text: str
) -> None:
    finding = _check(note).check(text)
    assert finding is not None
    assert not any(word in finding.reason for word in normalise_words(note.body) if len(word) > 1)


@pytest.mark.parametrize(("note", "text"), _cases("honest"), ids=_id)
def test_an_honest_question_that_names_the_topic_passes(note: LanguageNote, text: str) -> None:
    assert _check(note).check(text) is None


def test_a_chinese_quote_is_reported_in_characters() -> None:
    note = NOTES[0]
    finding = _check(note).check(note.quotes[0])
    assert finding is not None and finding.rule == "shared_run"
    assert "characters in a row from your note" in finding.reason


@pytest.mark.parametrize(
    ("filler", "per_word"),
    [
        ("天地玄黄宇宙洪荒日月盈昃辰宿列张寒来暑往秋收冬藏闰余成岁律吕调阳", 1.5),  # Han
        ("アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモ", 2.5),
        ("กขคฆงจฉชซฌญฎฏฐฑฒณดตถทธนบปผฝพฟภมยรลวศษสหฬอฮกขคฆงจฉชซฌญฎฏ", 4.0),  # Thai
        (" ".join(f"w{n}x" for n in range(40)), 1.0),  # words of a spaced script
    ],
    ids=["han", "kana", "thai", "words"],
)
def test_the_run_limit_is_the_same_length_of_text_in_every_script(
    filler: str, per_word: float
) -> None:
    """Six words of English, nine Han characters, fifteen kana, twenty-four Thai letters."""
    pieces = tokens(filler)
    limit = round(DEFAULTS.max_shared_words * per_word)
    joiner = " " if per_word == 1.0 else ""
    check = NoQuoteCheck(joiner.join(pieces), max_shared_words=DEFAULTS.max_shared_words)
    assert check.check(joiner.join(pieces[: limit - 1])) is None
    assert check.check(joiner.join(pieces[:limit])) is not None


def test_windows_reach_the_weight_from_each_start() -> None:
    han, word = UNITS_PER_WORD * 2 // 3, UNITS_PER_WORD
    assert weights(tokens("自然 selection")) == [han, han, word]
    assert windows([han, han, word], 2 * UNITS_PER_WORD) == [3]
    assert windows([han, han, word, word], 2 * UNITS_PER_WORD) == [3, 4, 4]
    assert windows([word, word], 3 * UNITS_PER_WORD) == []


def test_a_quote_across_scripts_is_one_run() -> None:
    body = "ダーウィンによれば natural selection は遺伝する変異にだけ働く。"
    check = NoQuoteCheck(body)
    assert check.check("なぜ natural selection は遺伝する変異にだけ働くのか？") is not None
    assert check.check("natural selection とは何ですか？") is None


def test_function_words_of_other_languages_never_make_a_quote() -> None:
    """The issue's example: a run of German function words is not a quote (before, only
    English ones were known, and such a run counted)."""
    check = NoQuoteCheck("Es ist nicht so, dass es mit dem Geld zu tun hat.")
    assert check.check("Warum ist es nicht so, dass es mit dem Wetter zu tun hat?") is None
    russian = NoQuoteCheck("И это было так, что он не мог бы уже и не знал.")
    assert russian.check("Почему это было так, что он не мог бы сказать?") is None


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("ＡＢＣ　ｶﾀｶﾅ", ["abc", "カ", "タ", "カ", "ナ"]),  # full and half width folded
        ("自然选择", ["自", "然", "选", "择"]),
        ("กินข้าว", ["ก", "น", "ข", "า", "ว"]),  # Thai letters; vowel and tone marks dropped
        ("선택은 선택이", ["선택은", "선택이"]),  # Hangul stays a word (and composed)
        ("كِتَابٌ", ["كتاب"]),  # Arabic vowel points dropped
        ("Übermensch", ["ubermensch"]),
    ],
)
def test_text_is_cut_by_script(text: str, words: list[str]) -> None:
    assert normalise_words(text) == words


# --- evidence -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("note", "span"), _cases("spans"), ids=_id)
def test_a_span_copied_from_inside_an_answer_is_found(note: LanguageNote, span: str) -> None:
    assert FoldedAnswer(note.answer).holds(span)
    ((start, end),) = evidence_ranges(note.answer, [span])
    assert note.answer[start:end] == span


def test_a_span_cut_inside_a_word_of_a_spaced_script_is_still_refused() -> None:
    german = FoldedAnswer("Ich darf nur so handeln, wie ich es mir wünsche.")
    assert german.holds("so handeln") and not german.holds("o handeln")
    assert not german.holds("so handel")
    russian = FoldedAnswer("Если что-то дорожает, я беру этого меньше.")
    assert russian.holds("беру этого") and not russian.holds("еру этого")
    arabic = FoldedAnswer("كلما ابتعد الجسمان ضعفت القوة")
    assert arabic.holds("ضعفت القوة") and not arabic.holds("عفت القوة")


def test_a_chinese_span_in_full_width_or_with_other_punctuation_is_found() -> None:
    answer = FoldedAnswer("我认为ＤＮＡ的结构是双螺旋，所以能复制。")
    assert answer.holds("DNA的结构是双螺旋")
    assert not answer.holds("结构是三螺旋")


# --- search as you type -------------------------------------------------------------------------
def _index() -> NoteSearchIndex:
    entries = [
        NoteEntry(
            note=Note(id=f"n{i}", title=n.title, aliases=n.aliases, tags=n.tags, body=n.body),
            file_name=f"n{i}.md",
        )
        for i, n in enumerate(NOTES)
    ]
    return NoteSearchIndex(entries)


@pytest.mark.parametrize(
    ("query", "title"),
    [
        ("选择", "自然选择"),  # the end of a Chinese title
        ("天择", "自然选择"),  # an alias
        ("进化", "自然选择"),  # part of a tag
        ("效用", "边际效用递减"),  # the middle of a title
        ("合成", "光合成"),
        ("こうごう", "光合成"),  # the start of a kana alias
        ("曲線", "忘却曲線"),
        ("แบ่งงาน", "การแบ่งงานกันทำ"),  # inside a Thai title
        ("ศรษฐ", "การแบ่งงานกันทำ"),  # inside a Thai tag
        ("วัฏจักร", "วัฏจักรของน้ำ"),
        ("비용", "기회비용"),
        ("جاذبية", "الجاذبية"),
        ("imperativ", "Kategorischer Imperativ"),
        ("спроса", "Закон спроса"),
    ],
)
def test_search_finds_a_note_by_part_of_its_title_alias_or_tag(query: str, title: str) -> None:
    assert _index().search(query)[0].note.title == title


def test_search_keeps_thai_vowels_and_kana_voicing_apart() -> None:
    """Dropping every mark made "กิน" (eat) find "กัน" and "か" find "が"."""
    index = NoteSearchIndex(
        [
            NoteEntry(note=Note(id="a", title="กันชน"), file_name="a.md"),
            NoteEntry(note=Note(id="b", title="がっこう"), file_name="b.md"),
        ]
    )
    assert index.search("กิน") == []
    assert index.search("かっこう") == []
    assert [e.note.id for e in index.search("กัน")] == ["a"]
    assert fold("ｶﾞｯｺｳ") == fold("ガッコウ")


def test_function_words_of_other_languages_do_not_hide_an_english_quote() -> None:
    """In an English note "war" and "man" (German function words) and "son" (a French one)
    are content, so a famous line quoted verbatim is still a quote."""
    check = NoQuoteCheck(
        "Hobbes argues that while men live without a common power to keep them all in awe, "
        "they are in that condition which is called war; and such a war as is of every man "
        "against every man. In it the life of man is solitary, poor, nasty, brutish and short."
    )
    assert check.check("What does Hobbes mean by the war of every man against every man?")
    assert check.check("Why is the war of every man against every man so bad?")
    english = NoQuoteCheck("A father who loves his son will die for his son in the war.")
    assert english.check("Would a father who loves his son die for him?") is not None


def test_a_japanese_quote_written_mostly_in_kana_is_rejected() -> None:
    """Single kana such as い, る, す or こ are pieces of words and endings, not function
    words: when they counted as such, a sentence in kana quoted verbatim passed."""
    check = NoQuoteCheck(
        "ことばはおもいをつたえるためのどうぐである。しかし、ことばだけではつたわらないこともある。"
    )
    assert check.check("ことばだけではつたわらないこともあるのはなぜ？") is not None
    assert check.check("ことばはおもいをつたえるためのどうぐであるといえますか？") is not None
    assert check.check("ことばについてどうおもいますか？") is None


def test_an_arabic_quote_stretched_with_tatweel_is_still_a_quote() -> None:
    """Text copied from a justified book stretches words with the tatweel (ـ); a quote with
    or without it is the same text, and search finds the note either way."""
    body = "يتجاذب كل جسمين في الكـــون بقـــوة تتناسب مع حاصل ضرب كتلتيهما."
    check = NoQuoteCheck(body)
    assert check.check("لماذا يتجاذب كل جسمين في الكون بقوة تتناسب مع حاصل ضرب كتلتيهما؟")
    stretched = NoQuoteCheck(body.replace("ـ", ""))
    assert stretched.check("هل يتجاذب كل جسمين في الكـــون بقـــوة تتنـــاسب مع حاصل ضرب؟")
    index = NoteSearchIndex([NoteEntry(note=Note(id="a", title="الجاذبيـــة"), file_name="a.md")])
    assert [e.note.id for e in index.search("الجاذبية")] == ["a"]


def test_a_korean_span_is_found_only_in_whole_syllables() -> None:
    """A span may start and end anywhere in a Korean word, but not inside a syllable:
    "기회비용이" (with the particle 이) is not what "기회비용입니다" says."""
    answer = "주말에 여행을 갔다면 벌 수 있었던 돈이 기회비용입니다."
    found = FoldedAnswer(answer)
    assert found.holds("기회비용") and found.holds("돈이 기회")
    assert not found.holds("기회비용이")
    assert not found.holds("여행을 가")
    assert evidence_ranges(answer, ["기회비용이"]) == []


def test_a_korean_quote_with_its_spacing_changed_is_still_a_quote() -> None:
    """Korean spacing varies between writers ("가치 있는", "가치있는"): a sentence of the
    note with a space dropped or added is the same sentence."""
    check = _check(next(n for n in NOTES if n.lang == "ko"))
    respaced = (
        "포기한 다른 선택지가운데 가장 가치있는 것이 그 선택의 기회비용이라는 말은 무슨 뜻인가요?"
    )
    assert check.check(respaced) is not None
    assert check.check("어떤선택을하면 포기한다른 선택지가운데 가장가치있는것이 무엇인가요?")
    finding = check.check(respaced)
    assert finding is not None and "characters in a row" in finding.reason


def test_an_arabic_or_hebrew_span_is_found_with_or_without_vowel_points() -> None:
    """Vowel points are optional in Arabic and Hebrew: a learner who writes some and a
    judge who copies the words without them (or the other way round) cite the same words."""
    arabic = "كلما ابتعد الجِسمانِ ضَعُفَت القوة بينهما."
    assert FoldedAnswer(arabic).holds("ضعفت القوة")
    ((start, end),) = evidence_ranges(arabic, ["ضعفت القوة"])
    assert arabic[start:end] == "ضَعُفَت القوة"
    assert FoldedAnswer("كلما ابتعد الجسمان ضعفت القوة").holds("ضَعُفَت القُوَّة")
    assert FoldedAnswer("חוֹק הַהֶיצֵעַ קוֹבֵעַ אֶת הַמְּחִיר").holds("חוק ההיצע")
    assert not FoldedAnswer(arabic).holds("عفت القوة")  # still whole words


def test_russian_words_stemmed_on_many_threads_at_once_stem_alike() -> None:
    """A Snowball stemmer holds the word it works on: checks of Russian notes on several
    threads at once shared one, so a word could be cut wrongly and a quote let through."""
    import random
    import sys
    from concurrent.futures import ThreadPoolExecutor

    import snowballstemmer

    from coach_gui.domain import no_quote

    rng = random.Random(5)
    letters = "абвгдежзиклмнопрстуфхцчшщыэюя"
    endings = ("ами", "ого", "ему", "ыми", "ость", "ения", "ировать", "ующий", "ах", "ой")
    words = sorted({
        "".join(rng.choices(letters, k=rng.randint(4, 9))) + rng.choice(endings)
        for _ in range(6000)
    })  # fmt: skip
    alone = snowballstemmer.stemmer("russian")
    expected = [alone.stemWord(w) for w in words]
    no_quote._stemmer_for.cache_clear()
    stem = no_quote._stemmer_for(frozenset({"ru"}))
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can
    try:
        with ThreadPoolExecutor(max_workers=8) as pool:
            chunks = [words[n::8] for n in range(8)]
            stemmed = dict(
                pair
                for chunk in pool.map(lambda c: [(w, stem(w)) for w in c], chunks)
                for pair in chunk
            )
    finally:
        sys.setswitchinterval(switch)
    folded = [e.translate(no_quote._CONFUSABLES) for e in expected]
    assert [stemmed[w] for w in words] == folded
