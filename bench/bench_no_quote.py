"""No-quote check cost per challenge against a 5,000-word English note and a 5,000-character
Chinese one (target: p99 <= 2 ms for each; issue 32).

Run: python bench/bench_no_quote.py [--words 5000] [--chars 5000] [--checks 2000]
Prints the one-off cost of building the check for each note and the per-check times.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from coach_gui.config import NoQuoteConfig
from coach_gui.domain.no_quote import NoQuoteCheck

_VOCABULARY_TEXT = (
    "the of and to in a is that for it as was with be by on not he this are or his from at "
    "which but have an they you were her she there been one all we their has would when if "
    "species variation selection market labour division worker pins machine harm liberty "
    "opinion society individual power truth time life money property philosophy mind body "
    "struggle existence offspring generation favourable advantage organ dexterity operation "
    "extent village nails principle adult child care dogma invest waste guard retirement past"
)
VOCABULARY = _VOCABULARY_TEXT.split()
QUESTIONS = (
    "How would you explain {a} to a friend who has never heard of {b}?",
    "Why might {a} change what happens to {b} over a long time?",
    "Predict what happens to {a} if {b} disappears, and explain why.",
    "Give an example of {a} from your own life and say how it relates to {b}.",
)


def make_note(words: int, rng: random.Random) -> tuple[str, list[str]]:
    sentences = []
    while sum(len(s.split()) for s in sentences) < words:
        sentences.append(" ".join(rng.choices(VOCABULARY, k=rng.randint(8, 24))).capitalize())
    body = ". ".join(sentences) + "."
    assertions = [" ".join(rng.choices(VOCABULARY, k=12)) for _ in range(5)]
    return body, assertions


def make_challenges(body: str, count: int, rng: random.Random) -> list[str]:
    words = body.split()
    challenges = []
    for i in range(count):
        if i % 4 == 3:  # every fourth one quotes the note, so both paths are timed
            start = rng.randrange(len(words) - 12)
            challenges.append("Why is it that " + " ".join(words[start : start + 12]) + "?")
        else:
            a, b = rng.sample(VOCABULARY[40:], 2)
            challenges.append(rng.choice(QUESTIONS).format(a=a, b=b))
    return challenges


# Chinese words of two to four characters; the check compares them character by character.
_CHINESE_VOCABULARY_TEXT = (
    "物种 变异 选择 市场 分工 工人 机器 自由 社会 个人 权力 真理 时间 生命 财产 哲学 "
    "斗争 生存 后代 有利 优势 器官 技能 范围 村庄 原则 成年 照顾 教条 投资 浪费 退休 "
    "自然选择 生存斗争 劳动分工 边际效用 光合作用 遗传变异 的 了 是 在 和 也 就 都"
)
_CHINESE_VOCABULARY = _CHINESE_VOCABULARY_TEXT.split()
_CHINESE_QUESTIONS = (
    "你会怎样向从没听说过{b}的朋友解释{a}？",
    "为什么{a}会在很长时间里改变{b}？",
    "如果{b}消失了，{a}会怎样？请说明理由。",
    "举一个你生活中{a}的例子，并说明它和{b}的关系。",
)


def make_chinese_note(chars: int, rng: random.Random) -> tuple[str, list[str]]:
    sentences: list[str] = []
    while sum(len(s) + 1 for s in sentences) < chars:
        sentences.append("".join(rng.choices(_CHINESE_VOCABULARY, k=rng.randint(6, 14))))
    body = "。".join(sentences)[:chars]
    assertions = ["".join(rng.choices(_CHINESE_VOCABULARY, k=8)) for _ in range(5)]
    return body, assertions


def make_chinese_challenges(body: str, count: int, rng: random.Random) -> list[str]:
    challenges = []
    for i in range(count):
        if i % 4 == 3:  # every fourth one quotes 20 characters of the note
            start = rng.randrange(len(body) - 20)
            challenges.append("为什么说" + body[start : start + 20] + "？")
        else:
            a, b = rng.sample(_CHINESE_VOCABULARY[:38], 2)
            challenges.append(rng.choice(_CHINESE_QUESTIONS).format(a=a, b=b))
    return challenges


_RUSSIAN_VOCABULARY_TEXT = (
    "цена цены цену ценой товар товара товаров спрос спроса спросом предложение рынок "
    "рынка покупатель покупатели покупателей продавец продавцы доход дохода величина "
    "величины растёт растут падает падают меняется зависит выше ниже больше меньше "
    "быстро медленно при чем тем его их когда если что это как на в и не но по к от "
    "для"
)
_RUSSIAN_VOCABULARY = _RUSSIAN_VOCABULARY_TEXT.split()
_RUSSIAN_QUESTIONS = (
    "Как бы вы объяснили, почему {a} зависит от {b}?",
    "Что случится с {a}, если {b} изменится?",
    "Приведите пример из жизни, где {a} и {b} связаны.",
)


def make_russian_note(words: int, rng: random.Random) -> tuple[str, list[str]]:
    sentences: list[str] = []
    count = 0
    while count < words:
        sentence = rng.choices(_RUSSIAN_VOCABULARY, k=rng.randint(6, 14))
        sentences.append(" ".join(sentence).capitalize())
        count += len(sentence)
    assertions = [" ".join(rng.choices(_RUSSIAN_VOCABULARY, k=8)) for _ in range(5)]
    return ". ".join(sentences) + ".", assertions


def make_russian_challenges(body: str, count: int, rng: random.Random) -> list[str]:
    words = body.split()
    challenges = []
    for i in range(count):
        if i % 4 == 3:  # every fourth one quotes 10 words of the note
            start = rng.randrange(len(words) - 10)
            challenges.append("Почему " + " ".join(words[start : start + 10]) + "?")
        else:
            a, b = rng.sample(_RUSSIAN_VOCABULARY[:30], 2)
            challenges.append(rng.choice(_RUSSIAN_QUESTIONS).format(a=a, b=b))
    return challenges


def measure(label: str, body: str, assertions: list[str], challenges: list[str]) -> None:
    settings = NoQuoteConfig()
    started = time.perf_counter()
    check = NoQuoteCheck(
        body,
        assertions,
        max_shared_words=settings.max_shared_words,
        max_containment=settings.max_containment,
        shingle_words=settings.shingle_words,
    )
    build_ms = (time.perf_counter() - started) * 1000
    times = []
    rejected = 0
    for text in challenges:
        started = time.perf_counter()
        finding = check.check(text)
        times.append((time.perf_counter() - started) * 1000)
        rejected += finding is not None
    times.sort()
    p99 = times[int(len(times) * 0.99) - 1]
    size = f"{len(body.split()):,} words" if " " in body else f"{len(body):,} characters"
    print(f"{label}: {size} + {len(assertions)} assertions")
    print(f"  build once per note: {build_ms:.2f} ms")
    print(
        f"  check ({len(times)} challenges, {rejected} rejected): "
        f"mean {statistics.fmean(times):.3f} ms, median {statistics.median(times):.3f} ms, "
        f"p99 {p99:.3f} ms, max {times[-1]:.3f} ms (target <= 2 ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=5000)
    parser.add_argument("--chars", type=int, default=5000)
    parser.add_argument("--checks", type=int, default=2000)
    args = parser.parse_args()
    rng = random.Random(7)
    body, assertions = make_note(args.words, rng)
    measure("English note", body, assertions, make_challenges(body, args.checks, rng))
    body, assertions = make_chinese_note(args.chars, rng)
    measure("Chinese note", body, assertions, make_chinese_challenges(body, args.checks, rng))
    body, assertions = make_russian_note(args.words, rng)  # compared by Snowball stems
    measure("Russian note", body, assertions, make_russian_challenges(body, args.checks, rng))


if __name__ == "__main__":
    main()
