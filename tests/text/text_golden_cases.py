"""Inputs of the normaliser golden files, with what each case exercises.

`python tests/text/text_golden_cases.py` rewrites `tests/text/golden/<name>.jsonl` from the
current implementation. Only do that for a *new* normaliser or new cases, and read the
diff: a changed output of a released normaliser is a bug (or a new versioned name).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

GOLDEN_DIR = Path(__file__).parent / "golden"

# A case is (note, text) or (note, reference, hypothesis) for pair-dependent views.
Case = tuple[str, ...]

ZH_EVAL_V1: list[Case] = [
    ("simplified sentence, full stop removed in normalized", "我们今天去北京。"),
    ("full-width Latin letters fold and lower-case", "ＡＢＣ ｘｙｚ"),
    ("full-width digits fold to ASCII", "２０２６年"),
    ("ideographic space U+3000 folds to a space, then whitespace is removed", "你好\u3000世界"),
    ("ASCII spaces, leading and trailing, removed", " 你好 世界 "),
    ("tab and newline removed", "你好\t世界\n再见"),
    ("mixed Mandarin + Latin: spaces between words removed", "我在用 Python 写代码"),
    ("Latin case folding of app names", "打开 GitHub 和 VS Code"),
    ("full-width iPhone model name", "ｉＰｈｏｎｅ１５很贵"),
    ("enumeration comma 、 stays distinct from ， in punct", "苹果、香蕉，还有橙子。"),
    ("full-width comma folds to ASCII comma; 。 is not in U+FF01-FF5E", "你好，世界。你好,世界."),
    ("question and exclamation marks, full-width and ASCII", "真的吗？真的!"),
    ("corner brackets and book-title marks are punctuation", "「你好」《红楼梦》"),
    ("ellipsis, em dashes and middle dot", "等等……——好·的"),
    ("Traditional sentence (Taiwan)", "這裡的麵包很好吃。"),
    ("numerals kept: digits", "2026年"),
    ("numerals kept: Chinese numerals", "二零二六年"),
    ("percent sign is P* and removed in normalized", "50%的人"),
    ("full-width currency and plus are symbols S*, kept", "＄１００＋５元"),
    ("yen sign and degree Celsius symbols kept", "¥100，气温30℃"),
    ("full-width tilde folds to ~ (Sm), kept", "３～５天"),
    ("C++ keeps its pluses, C# loses its #", "学习C++和C#"),
    ("URL: case folded, punctuation removed in normalized", "访问 https://Example.com/A_b"),
    ("e-mail address", "联系 Li.Wei@Example.CN"),
    ("Greek and Cyrillic capitals are not Latin: not folded", "ΑΒΓ Привет"),
    ("accented Latin capitals lower-cased", "ÉCOLE Ärger"),
    ("decomposed e + combining acute becomes é (NFC)", "cafe\u0301"),
    ("no NFKC: circled digit, ㎏ and ﬁ ligature stay", "①号㎏ﬁ"),
    ("empty text", ""),
    ("only punctuation: normalized is empty", "。！？"),
    ("only whitespace", " \u3000\t"),
    ("mixed reference (Simplified-only and Traditional-only): script view null", "漢字和汉字"),
    ("script-neutral text", "你好"),
    (
        "Taiwan reference, Simplified hypothesis: folded with s2tw",
        "我們在台灣的公司裡面工作。",
        "我们在台湾的公司里面工作",
    ),
    (
        "Traditional reference with 裡/麵, Simplified hypothesis",
        "這裡的麵包很好吃。",
        "这里的面包很好吃",
    ),
    ("OpenCC-standard reference 裏/麪", "這裏的麪包", "这里的面包"),
    (
        "Simplified reference, Traditional hypothesis: folded with t2s",
        "后来他的头发很长",
        "後來他的頭髮很長",
    ),
    ("script-neutral reference folds with t2s (reference unchanged)", "你好", "妳好"),
    ("mixed reference: script view null for the pair", "漢字和汉字", "汉字和汉字"),
    ("Han-free reference folds with t2s", "OK", "好的"),
    ("numerals differ in every view", "2026年", "二零二六年"),
    ("lexical Taiwan difference (軟體/软件) is not folded", "軟體", "软件"),
    ("punctuation and width differences vanish in normalized", "你好，ＷＯＲＬＤ！", "你好 world"),
    ("zero-width space (Cf) removed in every view but raw", "你\u200b好"),
    (
        "BOM, ZWJ, LRM/RLM and bidi isolate removed",
        "\ufeff你\u200d好\u200e世\u200f界\u2066。\u2069",
    ),
    ("emoji variation selector removed; the emoji (So) stays", "好❤️"),
    ("ideographic variation selector removed", "葛\U000e0100城"),
    ("control character (not whitespace) removed", "你\x07好"),
    ("mark left at the start after punctuation removal is dropped", "，\u0301你好"),
]

GA_V1: list[Case] = [
    ("t-prefix before capital vowel gets its hyphen", "Tá an tAthair sa bhaile."),
    ("hyphenated t-prefix kept as one word", "an t-athair"),
    ("n-prefix before capital vowel", "i nÉirinn"),
    ("hyphenated n-prefix with capital", "i n-Éirinn"),
    ("sentence-initial capital I, n-prefix", "I nÉirinn atá sé"),
    ("h-prefix keeps its h, no hyphen", "Muintir na hÉireann"),
    ("h-prefix on Albain", "go hAlbain"),
    ("eclipsis before consonant: nG", "i nGaillimh"),
    ("eclipsis gC, dT, mb", "i gCorcaigh, i dTír, ar an mbád"),
    ("eclipsis bhF", "sa bhFrainc"),
    ("t-prefix before s", "an tSeachtain seo"),
    ("lenition kept", "an bhean agus a bhean"),
    ("eclipsis of bean kept", "ár mbean"),
    ("capital Ú after t", "An tÚdarás"),
    ("Tír na nÓg", "Tír na nÓg"),
    ("capital N and T at word start are not prefixes", "Níl Tomás anseo"),
    ("straight apostrophe inside a word", "d'athair agus b'fhéidir"),
    ("curly apostrophe unified to '", "d’athair agus m’athair"),
    ("fadas are kept and distinct", "fear féar"),
    ("decomposed fada composed by NFC", "fe\u0301ar"),
    ("precomposed capital fada", "Seán Ó Briain"),
    ("comma between words never merges them", "fear,féar"),
    ("greeting punctuation removed", "Dia dhuit!"),
    ("quotes at word edges removed", "'sea' arsa sé"),
    ("guillemets removed", "«Dia duit»"),
    ("hyphenated compound kept", "dea-scéal"),
    ("spaced dash removed", "fear - bean"),
    ("em dash between words becomes a space", "fear—bean"),
    ("double hyphen is a dash", "fear--bean"),
    ("numbers with decimal, thousands and time separators", "3.5 1,000 ag 10:30."),
    ("digit-hyphen-digit and mixed tokens", "COVID-19 i 2020"),
    ("percent is P* (space), euro is S* (kept)", "Bhí 20% ann ar €5"),
    ("soft hyphen (Cf) removed", "Gael\u00adtacht"),
    ("brackets removed", "(athair) [ceol]"),
    ("whitespace collapsed", "  Tá   sé\tgo\nmaith  "),
    ("all capitals", "DIA DHUIT"),
    ("zero-width space and word joiner removed", "Dia\u200b dhuit\u2060"),
    ("BOM and bidi marks removed", "\ufeff\u200fDia dhuit\u200e"),
    ("emoji keeps its symbol, loses its variation selector", "Go hiontach 👍️"),
    ("keycap: # is punctuation, its selector and keycap mark are dropped", "#️⃣ a haon"),
    ("mark left at a word start after a quote is dropped", "'\u0301sea"),
    ("control character becomes a space", "fear\x07féar"),
    ("English word in Irish text", "Tá an iPhone go maith"),
    ("empty text", ""),
]

EN_V1: list[Case] = [
    ("case and punctuation", "Hello, World!"),
    ("contraction I'm", "I'm going home."),
    ("contractions won't and can't", "I won't and I can't."),
    ("contraction it's", "It's late."),
    ("contraction they're", "They're here."),
    ("spelled-out number", "twenty-five"),
    ("number with and", "one hundred and one"),
    ("year", "two thousand and twenty six"),
    ("digits with thousands separator", "1,000 people"),
    ("decimal", "three point five"),
    ("currency spelled out", "twenty five dollars"),
    ("currency in digits", "$5.50"),
    ("percent", "ten percent"),
    ("ordinal", "the twenty first of May"),
    ("decade", "the 1990s"),
    ("British spelling colour", "the colour red"),
    ("British spelling centre", "the city centre"),
    ("British spelling organise", "organise the theatre"),
    ("British spelling favourite", "my favourite analyse"),
    ("British spelling travelled", "we travelled"),
    ("title Mr.", "Mr. Smith"),
    ("titles Mrs. and Dr.", "Mrs. Jones and Dr. Who"),
    ("fillers removed", "uh I um think so"),
    ("bracketed annotation removed", "hello [laughter] there"),
    ("parenthesised annotation removed", "hello (inaudible) there"),
    ("diacritics removed", "café naïve"),
    ("ampersand and at sign", "Tom & Jerry at me@example.com"),
    ("hyphenated compound", "a well-known fact"),
    ("whitespace collapsed", "  a   b \t c  "),
    ("empty text", ""),
    ("okay", "OK, okay"),
    ("numbers as digits already", "I have 3 cats and 12 dogs"),
]

CRUDE_V1: list[Case] = [
    ("case and punctuation", "Hello, World!"),
    ("NFKC folds full-width letters", "ＡＢＣ　ｄｅｆ"),
    ("NFKC ligature and superscript", "ﬁne x²"),
    ("apostrophe becomes a space", "don't stop"),
    ("symbols become spaces", "$5 + 3 = 8 & more"),
    ("digits kept", "Room 101"),
    (
        "Devanagari: combining vowel signs and virama kept, words not split",
        "नमस्ते दुनिया! यह परीक्षा है।",
    ),
    ("Arabic harakat kept", "كَتَبَ الوَلَدُ."),
    ("Persian zero-width non-joiner removed, word kept whole", "می\u200cخواهم بروم"),
    ("Chinese: no spaces, so one word; punctuation becomes spaces", "你好，世界。"),
    ("German sharp s and capital umlaut", "STRAßE Über"),
    ("Greek capitals lower-cased", "ΑΘΗΝΑ"),
    ("decomposed accent composed by NFKC", "cafe\u0301"),
    ("whitespace collapsed", "  a \t b\n"),
    ("empty text", ""),
    ("emoji is a symbol: a space", "ok👍yes"),
    ("underscore and hyphen become spaces", "snake_case well-known"),
    ("emoji with variation selector leaves no word behind", "👍️ ok"),
    ("heart emoji alone: nothing left", "❤️"),
    ("keycap emoji: no orphaned keycap mark", "#️⃣ 1️⃣"),
    ("zero-width space joins, word joiner and BOM removed", "a\u200bb \ufeffc\u2060d"),
    ("soft hyphen, LRM/RLM and bidi embedding removed", "co\u00adop \u200eok\u200f \u202aab\u202c"),
    ("combining grapheme joiner removed", "a\u034fb"),
    ("accent after a removed quote is dropped", "'\u0301a"),
]

#: crude-v1's cases (the two must be read side by side), and the cases where deleting
#: and spacing differ most.
CRUDE_DELETE_V1: list[Case] = [
    *CRUDE_V1,
    ("comma between words deleted: words merge", "fear,féar"),
    ("ellipsis and quotes deleted", "“wait…” she said"),
    ("full-width punctuation deleted", "你好，世界！"),
    ("accent on a letter after a deleted quote sits on the letter before", "x'\u0301a"),
    ("a letter and an accent brought together by a deletion are composed", "E'\u0301te"),
    ("control character (not whitespace) still a space", "a\x07b"),
    ("private-use character still a space", "a\ue000b"),
    ("number separators deleted", "3.5 1,000 10:30"),
    ("punctuation only: nothing left", "?!…"),
]

BLASBENCH_GA_V1: list[Case] = [
    ("apostrophe deleted, joining the word", "D'fhág sé"),
    ("hyphen after t- deleted", "an t-oileán"),
    ("capital after mutation prefix just lower-cased", "Tá an tAthair i nÉirinn"),
    ("fadas kept (NFC)", "fe\u0301ar féar"),
    ("comma between words deleted: words merge", "fear,féar"),
    ("sentence punctuation deleted", "Dia dhuit! Conas atá tú?"),
    ("digit separators deleted", "3.5 1,000 10:30"),
    ("symbols deleted", "€5 + 20%"),
    ("underscore becomes a space", "focal_eile"),
    ("whitespace collapsed and stripped", "  Tá   sé\tgo\nmaith  "),
    ("format characters and variation selectors deleted", "Dia\u200b dhuit 👍️"),
    ("digits kept", "i 2020"),
    ("empty text", ""),
    ("the issue's example, reference", "D'fhág sé an t-oileán"),
    ("the issue's example, hypothesis", "dfhág sé an toileán"),
]

MMV_CER_V1: list[Case] = [
    ("Mandarin: punctuation and spaces removed", "你好，世界。 再见！"),
    ("NFKC folds full-width letters and digits", "ＡＢＣ１２３"),
    ("lower-case, every script", "Hello ΑΘΗΝΑ"),
    ("ASCII punctuation removed", "a, b. c?"),
    ("enumeration comma and middle dot removed (P*)", "雷杰普、塔伊普·埃尔多安"),
    ("symbols (S*) kept", "¥100＋5"),
    ("percent is P*: removed", "50%的人"),
    ("NFKC: ideographic space is whitespace, circled digit becomes 1", "你\u3000好①"),
    ("format characters are kept, as the study's rule keeps them", "你\u200b好"),
    ("empty text", ""),
]

NONE: list[Case] = [
    ("text unchanged", "Hello, World!"),
    ("whitespace unchanged", "  a  b "),
    ("Chinese unchanged", "你好，世界。"),
    ("empty text", ""),
]

CRUDE_CHAR_V1: list[Case] = [
    ("Japanese: punctuation to a space in spaced, to nothing in normalized", "今日は、晴れです。"),
    ("Japanese: NFKC folds half-width katakana and full-width Latin", "ｶﾀｶﾅとＡＢＣ"),
    ("Japanese: prolonged sound mark is a letter (Lm), kept", "ラーメン"),
    ("Thai: the phrase space kept in spaced, removed in normalized", "สวัสดีครับ ผมชื่อสมชาย"),
    ("Thai: marks stay on their consonant; NFKC splits sara am", "ชื่อ น้ำ"),
    ("Lao", "ສະບາຍດີ ເພື່ອນ"),
    ("Khmer: coeng (virama) kept", "សួស្តី ពិភពលោក"),
    ("Burmese: asat and kinzi kept", "မင်္ဂလာပါ။"),
    ("Latin mixed in: lower-cased", "東京でiPhone 15を買った"),
    ("format characters dropped, ZWSP between Thai words", "สวัสดี\u200bครับ"),
    ("empty text", ""),
]

ZH_ITN_V1: list[Case] = [
    ("Chinese numeral before a classifier to a digit", "我有三个苹果。"),
    ("year read digit by digit", "二零二六年"),
    ("year read as a number", "两千零二十六年"),
    ("digits stay digits", "2026年"),
    ("full-width digits fold first (zh-eval-v1 punct)", "２０２６年"),
    ("percentage: 百分之五十 becomes 50%, then % (P*) is removed", "百分之五十的人"),
    ("decimal: 3.5, then the point (P*) is removed as in zh-eval-v1", "三点五公斤"),
    ("idiom left alone: 万一 is never 10001", "万一他不来"),
    ("mixed Mandarin + English: Latin lower-cased, spaces removed", "我用iPhone十五拍照"),
    ("empty text", ""),
]


CASES: dict[str, list[Case]] = {
    "zh-eval-v1": ZH_EVAL_V1,
    "ga-v1": GA_V1,
    "en-v1": EN_V1,
    "crude-v1": CRUDE_V1,
    "crude-delete-v1": CRUDE_DELETE_V1,
    "none": NONE,
    "blasbench-ga-v1": BLASBENCH_GA_V1,
    "mmv-cer-v1": MMV_CER_V1,
    "crude-char-v1": CRUDE_CHAR_V1,
    "zh-itn-v1": ZH_ITN_V1,
}


def render(name: str, case: Case) -> dict[str, Any]:
    """One golden record: the case and every view of it under normaliser `name`."""
    from earmark.text import get_normalizer

    normalizer = get_normalizer(name)
    if len(case) == 2:
        note, text = case
        pair = normalizer.normalize_pair(text, text)
        record: dict[str, Any] = {"note": note, "text": text}
        record["views"] = {view: p.reference for view, p in pair.items()}
        reasons = {view: p.null_reason for view, p in pair.items() if p.null_reason}
        if reasons:
            record["null_reasons"] = reasons
        return record
    note, reference, hypothesis = case
    pair = normalizer.normalize_pair(reference, hypothesis)
    return {
        "note": note,
        "reference": reference,
        "hypothesis": hypothesis,
        "views": {
            view: {
                "reference": p.reference,
                "hypothesis": p.hypothesis,
                "null_reason": p.null_reason,
            }
            for view, p in pair.items()
        },
    }


def main() -> int:
    GOLDEN_DIR.mkdir(exist_ok=True)
    for name, cases in CASES.items():
        lines = [json.dumps(render(name, case), ensure_ascii=False) for case in cases]
        (GOLDEN_DIR / f"{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"wrote {len(lines)} cases for {name}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
