"""Screenshots of notes in Chinese, Thai and Arabic (issue 32): the editor, the preview and a
practice thread (a real practice pane against loopback fakes of Ollama and Gemini, the judge
citing spans from inside the answer), light and dark, at 1.0x and 1.5x:
`python bench/shots_languages.py [folder]` (default /tmp/language-shots)."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "bench"))

KEY = "AIzaSyBench-shots-0123456789abcdefghij"

NOTES = {
    "zh": {
        "title": "自然选择",
        "assertions": ["自然选择只能作用于可以遗传的变异。", "新物种的形成需要极其漫长的时间。"],
        "body": (
            "# 自然选择\n\n达尔文认为，同一物种的个体之间总存在细小的差异。在生存斗争中，"
            "能够帮助个体生存和繁殖的**有利变异**会被保留下来，并在后代中逐渐积累。\n\n"
            "- 变异：个体之间的差异\n- 遗传：差异传给后代\n- 选择：环境淘汰不利的个体\n\n"
            "> 参见 [[人工选择]]，以及 Darwin, *On the Origin of Species* (1859)。\n"
        ),
        "challenge": "为什么说环境会“挑选”生物？请用自己的话解释。",
        "answer": "我觉得自然选择就是环境挑选生物的过程，那些更能适应环境的个体留下了更多后代，"
        "而这些有利的差异可以遗传，所以经过很多代以后会慢慢积累。",
        "spans": {0: ["有利的差异可以遗传"], 1: []},
        "reason": "回答说明了这一点。",
        "feedback": "解释得很清楚；下一步可以想想新物种需要多长时间才能形成。",
    },
    "th": {
        "title": "การแบ่งงานกันทำ",
        "assertions": [
            "การแบ่งงานเพิ่มความชำนาญและผลผลิตของคนงาน",
            "การแบ่งงานถูกจำกัดด้วยขนาดของตลาด",
        ],
        "body": (
            "# การแบ่งงานกันทำ\n\nอดัม สมิธ อธิบายว่าการแบ่งงานกันทำทำให้คนงานแต่ละคนชำนาญในงาน"
            "เล็กๆ ของตน โรงงานทำเข็มหมุดที่แบ่งขั้นตอนออกเป็น**สิบแปดขั้น**ผลิตได้มากกว่าหลายร้อยเท่า\n\n"
            "- ความชำนาญ\n- ประหยัดเวลา\n- เครื่องจักร\n\n"
            "> ดู [[ขนาดของตลาด]] และ Adam Smith, *The Wealth of Nations* (1776)\n"
        ),
        "challenge": "ถ้าช่างในหมู่บ้านเล็กๆ มีลูกค้าน้อย เขาจะทำงานแบบไหน เพราะอะไร",
        "answer": "เมื่อแต่ละคนทำแค่ขั้นตอนเดียวซ้ำไปซ้ำมา ก็จะทำได้เร็วขึ้นและเสียเวลาน้อยลง "
        "แต่ถ้าตลาดเล็ก ช่างต้องทำหลายอย่างเอง",
        "spans": {0: ["ทำได้เร็วขึ้น"], 1: ["ตลาดเล็ก ช่างต้องทำหลายอย่าง"]},
        "reason": "คำตอบอธิบายประเด็นนี้แล้ว",
        "feedback": "อธิบายได้ดี ลองคิดต่อว่าเครื่องจักรช่วยการแบ่งงานอย่างไร",
    },
    "ar": {
        "title": "الجاذبية",
        "assertions": [
            "قوة الجاذبية تتناقص مع مربع المسافة.",
            "القوة نفسها تسقط التفاحة وتبقي القمر في مداره.",
        ],
        "body": (
            "# الجاذبية\n\nرأى نيوتن (Newton) أن كل جسمين في الكون يتجاذبان بقوة تتناسب مع "
            "حاصل ضرب **كتلتيهما** وتتناقص مع مربع المسافة بينهما.\n\n"
            "- الكتلة\n- المسافة\n- المدار (orbit)\n\n"
            "> انظر [[قوانين الحركة]] و Newton, *Principia* (1687).\n"
        ),
        "challenge": "ماذا يحدث للقوة بين الأرض والقمر لو تضاعفت المسافة بينهما؟",
        "answer": "كلما ابتعد الجسمان عن بعضهما ضعفت القوة بينهما بسرعة كبيرة، "
        "لكن القمر يبقى في مداره لأن الأرض ما زالت تجذبه.",
        "spans": {0: ["ضعفت القوة بينهما"], 1: ["يبقى في مداره"]},
        "reason": "الإجابة تشرح هذه النقطة (inverse square).",
        "feedback": "شرح جيد. الخطوة التالية: لماذا لا يسقط القمر على الأرض؟",
    },
}


def _write_note(kb: Path, lang: str) -> None:
    import yaml

    note = NOTES[lang]
    front = {"id": f"note-{lang}", "title": note["title"], "core_assertions": note["assertions"]}
    (kb / f"note-{lang}.md").write_text(
        "---\n" + yaml.safe_dump(front, allow_unicode=True) + "---\n" + str(note["body"]),
        encoding="utf-8",
    )


def shoot(folder: Path, scale: str) -> None:
    from shots_preview import _palette, practice_pane, sandbox, until

    sandbox(scale)
    from fakes.gemini_server import cites
    from PySide6.QtGui import QColor, QPalette
    from PySide6.QtWidgets import QApplication

    from coach_gui.ui.markdown.markdown_body import MarkdownBody
    from coach_gui.ui.practice.practice_pane import Phase

    app = QApplication([])
    app.setStyle("Fusion")
    kb = Path(tempfile.mkdtemp(prefix="coach-shots-kb-"))
    for lang in NOTES:
        _write_note(kb, lang)
    for theme in os.environ.get("SHOTS_THEMES", "light dark").split():
        app.setPalette(_palette(theme == "dark", QPalette, QColor))
        for lang, note in NOTES.items():
            body = MarkdownBody()
            body.set_text(str(note["body"]))
            body.resize(560, 420)
            body.show()
            for tab, widget in (("editor", body.edit), ("preview", body.preview)):
                body.setCurrentWidget(widget)
                _save(app, body, folder / f"{lang}-{tab}-{theme}-{scale}x.png")
            body.close()
            reply = _in_language(cites(note["spans"]), note)  # type: ignore[arg-type]
            with practice_pane([str(note["challenge"])], reply, key=KEY, follow_ups=False,
                               size=(1024, 640), kb=kb, note=f"note-{lang}") as pane:  # fmt: skip
                until(app, lambda p=pane: p.phase is Phase.ANSWERING)
                pane.view.answer_box.setPlainText(str(note["answer"]))
                pane.view.submit_button.click()
                until(app, lambda p=pane: p.phase is Phase.ANSWERED)
                _save(app, pane, folder / f"{lang}-thread-{theme}-{scale}x.png")


def _in_language(reply: Any, note: dict[str, Any]) -> Any:
    """The judge's reasons and feedback in the answer's language, as the prompt asks."""

    def translated(request: object) -> str:
        data = json.loads(reply(request))
        for item in data["items"]:
            item["feedback"] = note["feedback"]
            for assessment in item["assessments"]:
                assessment["reason"] = note["reason"]
        return json.dumps(data, ensure_ascii=False)

    return translated


def _save(app: object, widget: object, out: Path) -> None:
    for _ in range(5):
        app.processEvents()  # type: ignore[attr-defined]
        time.sleep(0.05)
    widget.grab().save(str(out))  # type: ignore[attr-defined]
    print(out)


def main() -> None:
    from shots_preview import at_each_scale

    at_each_scale(__file__, shoot, "/tmp/language-shots")


if __name__ == "__main__":
    main()
