"""Function words per language, for the no-quote check (ADR 0005, ADR 0032).

A run of function words ("in der, dass die", "so that it is the") says nothing about a
note, so it never makes a quote on its own. The lists are short on purpose: articles,
pronouns, prepositions, conjunctions, auxiliaries and particles, never a word that could
carry a note's content. Words of scripts without spaces are listed as the single
characters the check compares (の, 的); Thai, Lao, Khmer and Myanmar words are several
letters long and the check compares letters there, so they have no list. A check uses the
lists of the languages its note is written in (those whose function words the note holds
most of): merged, a word that is a function word in one language and a content word in
another ("die", "war", "man", "son") would let an English quote through.
"""

from __future__ import annotations

FUNCTION_WORDS: dict[str, str] = {
    "en": """
        a about above after again against all also am an and any are as at be because been
        before being below between both but by can could did do does doing down during each
        either few for from further had has have having he her here hers him his how i if in
        into is it its itself just may me might more most must my neither no nor not now of
        off on once one only or other our ours out over own same shall she should so some
        such than that the their theirs them then there these they this those through to
        too under until up upon very was we were what when where whether which while who
        whom whose why will with would yet you your yours
    """,
    "de": """
        der die das des dem den ein eine einer eines einem einen und oder aber doch denn
        sondern dass daß ob wenn weil als wie wo was wer wem wen welche welcher welches
        ich du er sie es wir ihr mich dich sich uns euch mir dir ihm ihnen sein seine ihre
        mein dein unser euer ist sind war waren bin bist sein wird werden wurde wurden hat
        haben hatte hatten kann können muss müssen soll sollen will wollen mag nicht kein
        keine auch noch nur schon so sehr in im an am auf aus bei mit nach von vom zu zum
        zur für über unter vor hinter neben zwischen durch gegen ohne um bis seit
        diese dieser dieses diesem diesen jene jener man etwas alle allem allen aller
    """,
    "fr": """
        le la les l un une des du de d et ou mais donc or ni car que qu qui quoi dont où
        je j tu il elle on nous vous ils elles me m te t se s lui leur leurs eux moi toi
        mon ma mes ton ta tes son sa ses notre nos votre vos ce c cet cette ces ceci cela
        est sont était étaient être été a ont avait avoir fait faire peut pour par dans
        sur sous avec sans entre vers chez en y au aux ne pas plus moins très aussi comme
        si quand tout tous toute toutes même
    """,
    "es": """
        el la los las lo un una unos unas y e o u pero sino ni que qué quien quién cual
        cuál cuando cuándo como cómo donde dónde de del al a en con sin por para sobre
        entre hacia hasta desde ante bajo tras yo tú él ella nosotros vosotros ellos ellas
        me te se le les nos os mi mis tu tus su sus nuestro nuestra es son era eran ser
        sido está están estaba estar ha han había haber hay no sí muy más menos también
        ya este esta estos estas ese esa esos esas aquel aquella todo toda todos todas
    """,
    "ru": """
        и а но или да же ли не ни что чтобы как так когда где куда откуда кто чем это
        этот эта эти тот та те то в во на с со к ко о об обо от до по за из у при про для
        без над под через между я ты он она оно мы вы они меня тебя его её ее их нас вас
        им ему ей мне тебе себя свой своя своё свои мой моя мое твой наш ваш был была было
        были быть есть будет будут бы уже ещё еще только тоже также очень все всё весь вся
        который которая которое которые
    """,
    "ar": """
        في من على إلى الى عن مع أن ان إن أو او و ف ثم بل لكن لا لم لن ما ماذا هل كيف
        متى أين اين هذا هذه ذلك تلك الذي التي الذين هو هي هم هن نحن أنا انا أنت انت
        كان كانت يكون تكون قد كل بعض عند بين حتى إذا اذا لأن لان أي اي
    """,
    "ko": """
        그리고 그러나 하지만 또는 및 그 이 저 것 수 등 때문에 위해 대한 대해 있다 없다
        하다 되다 아니다 이다 그것 이것 저것 어떻게 무엇 왜 언제 어디
    """,
    # Particles and endings of Chinese and Japanese, one character each (their own tokens).
    "zh": "的 了 是 在 和 与 及 或 也 就 都 而 之 其 这 那 个 们 着 过 吗 呢 吧 把 被 对 从 向 于",
    # Only particles: single kana such as い, る, す, し or こ are pieces of ordinary words
    # and endings (いる, する, ことば), and listing them let a quote written mostly in kana
    # through. The check drops the voicing marks, so が, で, ど count as か, て, と.
    "ja": "の は が を に で と も へ や か な ね よ",
}
