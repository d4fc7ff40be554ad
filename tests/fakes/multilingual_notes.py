"""Notes, challenges and answers in languages other than English (issue 32, ADR 0032).

Each note was written for this corpus in its own language, on its own topic (none is a
translation of another). For each note:

- ``quotes``: challenges that give the note away: a sentence of the body or an assertion
  copied verbatim (often inside a question), or lightly edited (a character or a word
  changed, punctuation or width changed); the no-quote check must reject every one;
- ``honest``: fair questions that name the topic in the note's language; they must pass;
- ``answer``: a learner's answer in the note's language, and ``spans`` copied from inside
  it (not starting or ending at a space or a punctuation mark where the script has none).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LanguageNote:
    lang: str
    title: str
    body: str
    assertions: tuple[str, ...]
    quotes: tuple[str, ...]
    honest: tuple[str, ...]
    answer: str
    spans: tuple[str, ...]
    aliases: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()


NOTES: tuple[LanguageNote, ...] = (
    LanguageNote(
        lang="zh",
        title="自然选择",
        aliases=("天择",),
        tags=("进化论",),
        body=(
            "达尔文认为，同一物种的个体之间总存在细小的差异。在生存斗争中，"
            "能够帮助个体生存和繁殖的有利变异会被保留下来，并在后代中逐渐积累；"
            "有害的变异则被淘汰。经过漫长的时间，这种缓慢的积累可以产生新的物种。"
        ),
        assertions=("自然选择只能作用于可以遗传的变异。", "新物种的形成需要极其漫长的时间。"),
        quotes=(
            "为什么能够帮助个体生存和繁殖的有利变异会被保留下来？",  # verbatim inside a question
            "能够帮助个体生存与繁殖的有利变异会被保留下来吗",  # one character swapped
            "请解释：自然选择只能作用于可以遗传的变异。",  # an assertion, verbatim
            "经过漫长的时间，这种缓慢的积累可以产生新的物种，对吗？",
        ),
        honest=(
            "请用你自己的话解释什么是自然选择。",
            "自然选择和人工选择有什么不同？",
            "举一个你身边的例子，说明生物如何适应环境。",
        ),
        answer="我觉得自然选择就是环境挑选生物的过程，那些更能适应环境的个体留下了更多后代。",
        spans=("环境挑选生物", "更能适应环境的个体", "留下了更多后代"),
    ),
    LanguageNote(
        lang="zh",
        title="边际效用递减",
        tags=("经济学",),
        body=(
            "消费者每多消费一单位商品，从中得到的额外满足感通常会越来越小。"
            "饥饿的人吃第一个馒头时非常满足，吃到第五个时几乎没有感觉。"
        ),
        assertions=("额外一单位商品带来的满足感随消费量增加而减少。",),
        quotes=(
            "消费者每多消费一单位商品，从中得到的额外满足感会怎样变化？",
            "饥饿的人吃第一个馒頭时非常满足，为什么？",  # a traditional character swapped in
        ),
        honest=("边际效用递减对定价有什么影响？", "你能举一个边际效用递减的日常例子吗？"),
        answer="比如喝水，口渴时第一杯水特别解渴，后面几杯的作用就小多了。",
        spans=("第一杯水特别解渴", "作用就小多了"),
    ),
    LanguageNote(
        lang="ja",
        title="光合成",
        aliases=("こうごうせい",),
        tags=("生物学", "植物"),
        body=(
            "植物は葉緑体で光のエネルギーを受け取り、二酸化炭素と水から糖を作る。"
            "このとき酸素が副産物として放出される。光が弱いと光合成の速さは落ちる。"
        ),
        assertions=("光のエネルギーは化学エネルギーに変わる。", "酸素は光合成の副産物である。"),
        quotes=(
            "なぜ植物は葉緑体で光のエネルギーを受け取り、二酸化炭素と水から糖を作るのか？",
            # half-width katakana, the question ending changed
            "植物は葉緑体で光のｴﾈﾙｷﾞｰを受け取り、二酸化炭素と水から糖を作る。説明して。",
            "光のエネルギーは化学エネルギーに変わる、とはどういう意味ですか？",  # an assertion
        ),
        honest=(
            "光合成とは何か、自分の言葉で説明してください。",
            "光合成と呼吸はどう違いますか？",
            "夜になると植物の中で何が起きると思いますか？",
        ),
        answer="植物は日光を使って自分の食べ物を作り、そのついでに私たちが吸う空気を出している。",
        spans=("日光を使って自分の食べ物", "私たちが吸う空気"),
    ),
    LanguageNote(
        lang="ja",
        title="忘却曲線",
        tags=("記憶",),
        body=(
            "エビングハウスによれば、覚えた内容は最初の一日で急速に忘れられ、その後は"
            "ゆっくりと失われていく。間隔をあけて復習すると、記憶はより長く保たれる。"
        ),
        assertions=("復習の間隔をあけると記憶が長持ちする。",),
        quotes=(
            "覚えた内容は最初の一日で急速に忘れられるのはなぜですか？",
            "間隔をあけて復習すると、記憶はより長く保たれるのはどうしてか",
        ),
        honest=("忘却曲線について説明してください。", "復習の計画をどう立てますか？"),
        answer="一度に詰め込むより、日にちを空けて何度も思い出すほうが長く覚えていられる。",
        spans=("日にちを空けて何度も", "長く覚えていられる"),
    ),
    LanguageNote(
        lang="th",
        title="การแบ่งงานกันทำ",
        tags=("เศรษฐศาสตร์",),
        body=(
            "อดัม สมิธ อธิบายว่าการแบ่งงานกันทำทำให้คนงานแต่ละคนชำนาญในงานเล็กๆ ของตน "
            "โรงงานทำเข็มหมุดที่แบ่งขั้นตอนออกเป็นสิบแปดขั้นผลิตได้มากกว่าคนที่ทำเองทุกขั้นหลายร้อยเท่า "
            "แต่การแบ่งงานถูกจำกัดด้วยขนาดของตลาด"
        ),
        assertions=(
            "การแบ่งงานเพิ่มความชำนาญและผลผลิตของคนงาน",
            "การแบ่งงานถูกจำกัดด้วยขนาดของตลาด",
        ),
        quotes=(
            "ทำไมโรงงานทำเข็มหมุดที่แบ่งขั้นตอนออกเป็นสิบแปดขั้นผลิตได้มากกว่าคนที่ทำเองทุกขั้น",
            # words dropped and added
            "ทำไมโรงงานเข็มหมุดที่แบ่งขั้นตอนเป็นสิบแปดขั้นจึงผลิตได้มากกว่าคนที่ทำเองทุกขั้นหลายร้อยเท่า",
            "การแบ่งงานกันทำทำให้คนงานแต่ละคนชำนาญในงานเล็กๆ ของตนจริงหรือไม่",
        ),
        honest=(
            "การแบ่งงานกันทำคืออะไร อธิบายด้วยคำพูดของคุณเอง",
            "ยกตัวอย่างการแบ่งงานในชีวิตประจำวันของคุณ",
            "ถ้าหมู่บ้านมีคนซื้อของน้อย ช่างจะทำงานแบบไหน",
        ),
        answer="เมื่อแต่ละคนทำแค่ขั้นตอนเดียวซ้ำไปซ้ำมา ก็จะทำได้เร็วขึ้นและเสียเวลาน้อยลง",
        spans=("ทำแค่ขั้นตอนเดียว", "ทำได้เร็วขึ้น", "เสียเวลาน้อยลง"),
    ),
    LanguageNote(
        lang="th",
        title="วัฏจักรของน้ำ",
        tags=("ภูมิศาสตร์",),
        body=(
            "แสงแดดทำให้น้ำในทะเลระเหยกลายเป็นไอ ไอน้ำลอยขึ้นไปเย็นตัวลงและควบแน่นเป็นเมฆ "
            "เมื่อหยดน้ำในเมฆรวมตัวกันจนหนักพอ ก็ตกลงมาเป็นฝน"
        ),
        assertions=("ไอน้ำควบแน่นเป็นเมฆเมื่อเย็นตัวลง",),
        quotes=(
            "ทำไมไอน้ำลอยขึ้นไปเย็นตัวลงและควบแน่นเป็นเมฆ",
            "เมื่อหยดน้ำในเมฆรวมตัวกันจนหนักพอแล้วเกิดอะไรขึ้น",
        ),
        honest=("วัฏจักรของน้ำคืออะไร", "ฝนเกี่ยวข้องกับทะเลอย่างไร"),
        answer="น้ำจากทะเลกลายเป็นไอเพราะความร้อน แล้วกลับมาเป็นฝนอีกครั้ง",
        spans=("กลายเป็นไอเพราะความร้อน", "กลับมาเป็นฝน"),
    ),
    LanguageNote(
        lang="ko",
        title="기회비용",
        tags=("경제",),
        body=(
            "어떤 선택을 하면 포기한 다른 선택지 가운데 "
            "가장 가치 있는 것이 그 선택의 기회비용이다. "
            "시험 전날 영화를 보기로 했다면 공부해서 얻을 수 있었던 점수가 기회비용이 된다."
        ),
        assertions=("기회비용은 포기한 대안 중 가장 가치 있는 것이다.",),
        quotes=(
            "포기한 다른 선택지 가운데 가장 가치 있는 것이 "
            "그 선택의 기회비용이라는 말은 무슨 뜻인가요?",
            "시험 전날 영화를 보기로 했다면 공부해서 얻을 수 있었던 점수는 무엇인가요?",  # 가 → 는
        ),
        honest=(
            "기회비용을 자신의 말로 설명해 보세요.",
            "기회비용과 매몰비용은 어떻게 다른가요?",
            "오늘 내린 선택 하나의 기회비용은 무엇이었나요?",
        ),
        answer="주말에 아르바이트 대신 여행을 갔다면 벌 수 있었던 돈이 기회비용입니다.",
        spans=("아르바이트 대신", "벌 수 있었던 돈", "기회비용"),
    ),
    LanguageNote(
        lang="ar",
        title="الجاذبية",
        tags=("فيزياء",),
        body=(
            "رأى نيوتن أن كل جسمين في الكون يتجاذبان بقوة تتناسب مع حاصل ضرب كتلتيهما "
            "وتتناقص مع مربع المسافة بينهما. هذه القوة نفسها تُسقط التفاحة وتُبقي القمر في مداره."
        ),
        assertions=("قوة الجاذبية تتناقص مع مربع المسافة.",),
        quotes=(
            "لماذا يتجاذب كل جسمين في الكون بقوة تتناسب مع حاصل ضرب كتلتيهما؟",
            "هل هذه القوة نفسها تسقط التفاحة وتبقي القمر في مداره؟",  # without the vowel marks
        ),
        honest=(
            "اشرح الجاذبية بكلماتك الخاصة.",
            "ماذا يحدث لو ابتعد القمر عن الأرض؟",
        ),
        answer="كلما ابتعد الجسمان عن بعضهما ضعفت القوة بينهما بسرعة كبيرة.",
        spans=("ضعفت القوة بينهما",),
    ),
    LanguageNote(
        lang="de",
        title="Kategorischer Imperativ",
        tags=("Philosophie",),
        body=(
            "Kant fordert, nur nach derjenigen Maxime zu handeln, durch die man zugleich wollen "
            "kann, dass sie ein allgemeines Gesetz werde. Eine Lüge lässt sich so nicht "
            "verallgemeinern, weil dann niemand mehr einem Versprechen glauben würde."
        ),
        assertions=(
            "Eine Handlung ist nur erlaubt, wenn ihre Maxime allgemeines Gesetz sein kann.",
        ),
        quotes=(
            "Warum soll man nur nach derjenigen Maxime handeln, "
            "durch die man zugleich wollen kann?",
            # the word order changed
            "Stimmt es, dass eine Lüge sich so nicht verallgemeinern lässt, weil dann niemand "
            "mehr einem Versprechen glauben würde?",
            "Ist eine Handlung nur erlaubt, wenn ihre Maxime ein allgemeines Gesetz sein kann?",
            # endings changed (caught by the German stems, ADR 0032)
            "Fordert Kant, nur nach derjenigen Maximen zu handeln, durch die man zugleich "
            "wollen könnte, dass sie allgemeine Gesetze würden?",
            "Warum ist die Handlung nur erlaubt, wenn ihren Maximen allgemeine Gesetze sein "
            "können?",
        ),
        honest=(
            "Was verlangt der kategorische Imperativ in der Art, dass die Regel für alle gilt?",
            "Wie würdest du den kategorischen Imperativ einem Kind erklären?",
            "Warum ist nach Kant eine Lüge falsch?",
        ),
        answer="Ich darf nur so handeln, wie ich es mir auch von allen anderen wünschen würde.",
        spans=("allen anderen",),
    ),
    LanguageNote(
        lang="ru",
        title="Закон спроса",
        tags=("экономика",),
        body=(
            "При прочих равных условиях, чем выше цена товара, тем меньше его готовы купить "
            "покупатели. Когда цена на яблоки растёт, люди покупают больше груш."
        ),
        assertions=("Величина спроса падает при росте цены.",),
        quotes=(
            "Почему чем выше цена товара, тем меньше его готовы купить покупатели?",
            "Правда ли, что когда цена на яблоки растет, люди покупают больше груш?",  # ё → е
            # endings changed (caught by the Russian stems, ADR 0032)
            "Правда ли, что при прочем равном условии чем выше цену товара, тем меньше готов "
            "купить покупатель?",
            "Почему величина спроса падала при росте цен?",
        ),
        honest=(
            "Объясните закон спроса своими словами.",
            "Что будет со спросом на хлеб, если он подорожает?",
            "Чем закон спроса отличается от закона предложения?",
        ),
        answer="Если что-то дорожает, я беру этого меньше и ищу замену подешевле.",
        spans=("беру этого меньше", "ищу замену подешевле"),
    ),
)
