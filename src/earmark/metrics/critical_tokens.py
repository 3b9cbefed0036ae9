"""Critical tokens: numbers, dates, times, money, percentages, URLs, e-mails, IDs, Latin,
addresses.

These are the errors that cost most in dictation (seed 000): a wrong digit in an order
number or a lost app name hurts more than its one character of CER. Tokens are
extracted from each side by precompiled regular expressions and matched as a multiset
of exact strings per category. Nothing is converted: ``2026`` and ``二零二六`` are
different tokens, as are ``1,000`` and ``1000`` (seed 000: no numeral normalisation).

Extraction, in one pass from left to right; at each position the categories are tried
in this priority order, and the first that matches takes the characters:

    email > url > address > date > time > currency > percentage > id (digit groups)
    > number > id (letters and digits) > latin

so a token belongs to its most specific category: ``25元`` and ``$25`` are currency,
never number; ``50%`` and ``百分之五十`` are percentage; ``2024-03-05`` is a date, not an
id; ``a@b.com`` is an email, not a url. Because the scan is leftmost-first, a token
that starts earlier wins over an overlapping one that starts later.

Matching compares a *key*: the token with full-width ASCII forms folded to ASCII
(``２０２６``→``2026``) and runs of spaces collapsed; case is kept (an identifier's case
is content). A reference ``2026`` found as ``2026年`` (a date) in the hypothesis is a
lost number and an unmatched date: categories are compared separately.

Heuristics (documented, tested): Chinese numerals count as a number only in runs of two
or more characters containing a digit character (``三百五十``, ``两千``, ``二零二六``;
not ``一`` in ``一起``, not ``十分``, not the word ``万一``); Chinese times need a digit
``3点``, a period of day ``下午三点`` or minutes ``三点半`` (``三点五`` is the number 3.5);
`latin` covers every Latin run in Chinese text, but in other languages only code-like
tokens (``snake_case``, ``user.name``; camel case such as ``iPhone`` in English only,
since Irish mutations ``nAthair``, ``hÉireann`` look like camel case).

Addresses (seed 000: a wrong house number sends the parcel elsewhere):

- Latin script: a house number (``12``, ``221B``, ``12-14``), then one to three street-name
  words each starting with a capital letter (or an ordinal such as ``5th``), then a
  street-type word: Street, Road, Avenue, Lane, Drive, Boulevard, Court, Place, Square,
  Terrace, Close, Crescent, Way, Highway, Parkway, Row, Quay, Gardens (any case) or their
  abbreviations St, Rd, Ave, Ln, Dr, Blvd, Ct, Pl, Sq, Tce, Hwy, Pkwy (a trailing ``.`` is
  not part of the token). ``221B Baker Street``, ``12 Main St``; not ``3 big road trips``
  (the name is not capitalised).
- Chinese: house-number parts, a number (Arabic or Chinese numerals, e.g. ``123``, ``十二``,
  ``12A``) followed by 号/號, 号楼/號樓, 弄, 室, 栋/棟/幢, 楼/樓, 层/層, 单元/單元 or 座, when the
  first part directly follows a road-type character (路, 街, 道, 巷, 弄, 里, 胡同), or
  two or more parts chain (``5号302室``, ``3栋2单元501室``), or the one part is a
  lane, room, building or unit (``100弄``, ``302室``, ``3栋``, ``5号楼``). The road-type character
  opens the token (``路123号``), the road's name does not: without word segmentation
  nothing says where a name begins (``我住在南京东路``), and its characters are scored
  by CER. A lone ``3号`` (a day, a metro line, a player) or ``3楼`` is not an address.

>>> [(t.category, t.text) for t in extract_critical_tokens("3月5日下午3点付了25元", "zh")]
[('date', '3月5日'), ('time', '下午3点'), ('currency', '25元')]
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

from earmark.language_tags import base_language

#: Categories in reporting order.
CATEGORIES: tuple[str, ...] = (
    "number",
    "date",
    "time",
    "currency",
    "percentage",
    "url",
    "email",
    "id",
    "latin",
    "address",
)

# --- Building blocks -------------------------------------------------------------------

_NOT_ALNUM_BEFORE = r"(?<![A-Za-z0-9])"
_NOT_ALNUM_AFTER = r"(?![A-Za-z0-9])"
# Start of a run of code characters: not after a letter/digit, nor after one plus a joiner.
# Keeps the scan linear (no rescanning from every position inside "a.b.c.d...").
_RUN_START = r"(?<![A-Za-z0-9])(?<![A-Za-z0-9][-./_@%+])"
_ARABIC = r"(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
_CN_DIGIT = "零〇一二两三四五六七八九壹贰叁肆伍陆柒捌玖"
_CN_UNIT = "十拾百佰千仟万萬亿億"
_CN_CHAR = f"[{_CN_DIGIT}{_CN_UNIT}]"
_CN_ANY = f"{_CN_CHAR}+(?:[点點][{_CN_DIGIT}]+)?"
# Two or more numeral characters (or a decimal 三点五), at least one a digit character.
_CN_NUMBER = (
    f"(?={_CN_CHAR}(?:{_CN_CHAR}|[点點][{_CN_DIGIT}]))(?=[{_CN_UNIT}]*[{_CN_DIGIT}]){_CN_ANY}"
)

_EN_MONTH = (
    r"(?i:january|february|march|april|may|june|july|august|september|october|november|"
    r"december|jan\.?|feb\.?|mar\.?|apr\.?|jun\.?|jul\.?|aug\.?|sept?\.?|oct\.?|nov\.?"
    r"|dec\.?)"
)
# Irish month names, with the lenited forms used after "de"/"mí" (Mhárta, Fheabhra...).
_GA_MONTH = (
    r"(?i:eanáir|fh?eabhra|mh?árta|aibreán|bh?ealtaine|mh?eitheamh|iúil|lúnasa"
    r"|mh?eán\s+fómhair|dh?eireadh\s+fómhair|sh?amhain|noll(?:aig|ag))"
)
_ORDINAL = r"(?:st|nd|rd|th|ú)?"
_NOT_LETTER_BEFORE = r"(?<![A-Za-zÀ-ÿ])"
_NOT_LETTER_AFTER = r"(?![A-Za-zÀ-ÿ])"
_CN_MONTH = r"(?:\d{1,2}|十[一二]?|[一二三四五六七八九])"
_CN_DAY = r"(?:\d{1,2}|[一二]?十[一二三四五六七八九]?|三十一?|[一二三四五六七八九])"
_CN_YEAR = r"(?:\d{4}|[零〇一二三四五六七八九]{4})"

_DATE = "|".join(
    (
        r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}" + _NOT_ALNUM_AFTER,
        r"\d{1,2}[./]\d{1,2}[./](?:\d{4}|\d{2})" + _NOT_ALNUM_AFTER,
        f"{_CN_YEAR}年(?:{_CN_MONTH}月(?:{_CN_DAY}[日号號])?)?",
        f"{_CN_MONTH}月(?:{_CN_DAY}[日号號])?",
        r"(?:星期|礼拜|禮拜)[一二三四五六日天]",
        rf"\d{{1,2}}{_ORDINAL}\s+(?:of\s+|lá\s+de\s+)?(?:{_EN_MONTH}|{_GA_MONTH})"
        rf"(?:,?\s+\d{{4}})?{_NOT_LETTER_AFTER}",
        rf"{_NOT_LETTER_BEFORE}(?:{_EN_MONTH}|{_GA_MONTH})\s+\d{{4}}(?!\d)",
        rf"{_NOT_LETTER_BEFORE}{_EN_MONTH}\s+\d{{1,2}}{_ORDINAL}(?:,?\s+\d{{4}})?"
        rf"(?![A-Za-z0-9])",
    )
)

_CN_HOUR = r"(?:十[一二]?|[零一二两三四五六七八九])"
_CN_MINUTE = r"(?:[一二三四五]?十[一二三四五六七八九]?|零?[一二三四五六七八九])"
_ZH_MINUTES = rf"(?:(?:\d{{1,2}}|{_CN_MINUTE})分|半|[一三]刻)"
_ZH_PERIOD = r"(?:上午|下午|晚上|早上|凌晨|中午|傍晚|夜里|夜裡)"
_TIME = "|".join(
    (
        r"\d{1,2}:\d{2}(?::\d{2})?(?:\s?(?i:am|pm|a\.m\.|p\.m\.))?" + _NOT_ALNUM_AFTER,
        r"\d{1,2}\s?(?i:am|pm|a\.m\.|p\.m\.|o'clock)" + _NOT_ALNUM_AFTER,
        r"\d{1,2}\s+a\s+chlog",
        rf"{_ZH_PERIOD}(?:\d{{1,2}}|{_CN_HOUR})[点點时時]钟?{_ZH_MINUTES}?",
        rf"\d{{1,2}}[点點时時]钟?{_ZH_MINUTES}?",
        rf"{_CN_HOUR}[点點]钟?{_ZH_MINUTES}",
    )
)

_CURRENCY_WORD = (
    r"(?:元|块钱|塊錢|美元|欧元|歐元|英镑|英鎊|日元|港元|港币|港幣|人民币|人民幣|毛钱|角"
    r"|(?i:\s?(?:euros?|dollars?|pounds?|cents?|yuan|usd|eur|gbp|cny|rmb)(?![A-Za-z])))"
)
_CURRENCY = "|".join(
    (
        rf"(?:US|HK|A|C|NZ)?[$€£¥￥]\s?{_ARABIC}",
        rf"(?i:usd|eur|gbp|cny|rmb)\s?{_ARABIC}",
        rf"{_ARABIC}\s?[$€£¥￥]",
        rf"{_ARABIC}{_CURRENCY_WORD}",
        rf"{_CN_ANY}{_CURRENCY_WORD}",
        rf"{_CN_CHAR}{{2,}}[块塊]",
    )
)

_PERCENTAGE = "|".join(
    (
        rf"{_ARABIC}\s?[%％]",
        rf"{_ARABIC}\s?(?i:percent|per\s+cent|faoin\s+g?ch?éad)(?![A-Za-z])",
        rf"百分之(?:{_ARABIC}|{_CN_ANY})",
    )
)

_TLD = r"(?:com|org|net|edu|gov|io|ai|cn|ie|uk|de|fr|jp|eu|info|dev|app|co|tv|me)"
_URL = "|".join(
    (
        r"(?i:https?://|www\.)[^\s<>\"'，。！？、；：（）「」《》]*[^\s<>\"'，。！？、；：（）「」《》.,;:!?)]",
        rf"{_RUN_START}[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.{_TLD}"
        r"(?:/[A-Za-z0-9._~%/?#=&+-]*[A-Za-z0-9_~%/#=&+-])?" + _NOT_ALNUM_AFTER,
    )
)
_EMAIL = (
    _RUN_START
    + r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"
    + _NOT_ALNUM_AFTER
)

# Digit groups joined by hyphens (phone and order numbers, ranges) or by two or more dots
# (versions, IP addresses).
_ID_DIGITS = _NOT_ALNUM_BEFORE + r"(?:\d+(?:-\d+)+|\d+(?:\.\d+){2,})" + _NOT_ALNUM_AFTER
_NUMBER = "|".join(
    (
        # Not followed by ".digit": "12.5kg" is one id, not the number 12 and the id 5kg.
        _NOT_ALNUM_BEFORE + _ARABIC + r"(?:st|nd|rd|th)?(?![A-Za-z0-9]|\.\d)",
        _CN_NUMBER,
    )
)
# Letters and digits mixed (A12-345, iPhone15, COVID-19, v2.0), parts joined by - . / _.
_ID_MIXED = (
    _RUN_START
    + r"(?=[A-Za-z0-9./_-]*[A-Za-z])(?=[A-Za-z0-9./_-]*\d)"
    + r"[A-Za-z0-9]+(?:[-./_][A-Za-z0-9]+)*"
    + _NOT_ALNUM_AFTER
)
# Dotted parts of two or more characters ("user.name", not "e.g"), or an underscore.
_CODE_LIKE = r"[A-Za-z_][A-Za-z0-9_]+(?:\.[A-Za-z_][A-Za-z0-9_]+)+|[A-Za-z]*_[A-Za-z0-9_]+"
_LATIN_ZH = _NOT_ALNUM_BEFORE + r"[A-Za-z][A-Za-z0-9]*(?:[-._'][A-Za-z0-9]+)*" + _NOT_ALNUM_AFTER
_LATIN_CODE = _NOT_ALNUM_BEFORE + rf"(?:{_CODE_LIKE})" + _NOT_ALNUM_AFTER
_LATIN_CAMEL = _NOT_ALNUM_BEFORE + r"(?:[a-z]+|[A-Z][a-z]+)[A-Z][A-Za-z0-9]*" + _NOT_ALNUM_AFTER


_STREET_TYPE = (
    r"(?i:street|road|avenue|lane|drive|boulevard|court|place|square|terrace|close"
    r"|crescent|way|highway|parkway|row|quay|gardens)"
    r"|(?:St|Rd|Ave|Ln|Dr|Blvd|Ct|Pl|Sq|Tce|Hwy|Pkwy)"
)
_ADDRESS_LATIN = (
    _NOT_ALNUM_BEFORE
    + r"\d{1,5}[A-Za-z]?(?:-\d{1,5}[A-Za-z]?)?"
    + r"(?:\s+(?:[A-Z][A-Za-z'’-]*|\d{1,3}(?:st|nd|rd|th))){1,3}"
    + rf"\s+(?:{_STREET_TYPE})"
    + r"(?![A-Za-z0-9])"
)
_ZH_NUMBER = rf"(?:\d+[A-Za-z]?|{_CN_CHAR}+)"
_ZH_UNIT = r"(?:号楼|號樓|[号號弄室栋棟幢楼樓层層座]|单元|單元)"
_ZH_STRONG_UNIT = r"(?:号楼|號樓|[弄室栋棟幢]|单元|單元)"
_ZH_PART = rf"{_ZH_NUMBER}{_ZH_UNIT}"
_ADDRESS_ZH = "|".join(
    (
        rf"(?:[路街道巷弄里]|胡同)(?:{_ZH_PART})+",
        rf"{_ZH_PART}(?:{_ZH_PART})+",
        rf"{_ZH_NUMBER}{_ZH_STRONG_UNIT}",
    )
)
_ADDRESS = f"{_ADDRESS_LATIN}|{_ADDRESS_ZH}"


def _scanner(latin: str) -> tuple[re.Pattern[str], tuple[str, ...]]:
    parts = (
        ("email", _EMAIL),
        ("url", _URL),
        ("address", _ADDRESS),
        ("date", _DATE),
        ("time", _TIME),
        ("currency", _CURRENCY),
        ("percentage", _PERCENTAGE),
        ("id", _ID_DIGITS),
        ("number", _NUMBER),
        ("id", _ID_MIXED),
        ("latin", latin),
    )
    pattern = "|".join(f"(?P<g{index}>{body})" for index, (_, body) in enumerate(parts))
    return re.compile(pattern), tuple(category for category, _ in parts)


_SCANNERS = {
    "zh": _scanner(_LATIN_ZH),
    "en": _scanner(f"{_LATIN_CODE}|{_LATIN_CAMEL}"),
    "other": _scanner(_LATIN_CODE),
}
_CHINESE_LANGUAGES = frozenset({"zh", "cmn", "yue", "wuu", "nan", "hak", "cjy", "gan", "hsn"})

#: Lexicalised words made of numeral characters that are not numbers ("万一" = "in case").
NOT_NUMBERS = frozenset({"万一", "一一"})

# Full-width ASCII forms folded to ASCII before scanning, except the marks that are
# ordinary Chinese punctuation (，；！？（）) and must not turn into number or code syntax.
_KEEP_FULLWIDTH = frozenset("，；！？（）")
_WIDTH_FOLD = {
    code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F) if chr(code) not in _KEEP_FULLWIDTH
}
_WIDTH_FOLD[0x3000] = 0x20


def _scanner_for(language: str) -> tuple[re.Pattern[str], tuple[str, ...]]:
    primary = base_language(language.strip())
    if primary in _CHINESE_LANGUAGES:
        return _SCANNERS["zh"]
    if primary == "en":
        return _SCANNERS["en"]
    return _SCANNERS["other"]


@dataclass(frozen=True, slots=True)
class CriticalToken:
    """One critical token: its category, the text as written, its comparison key and span.

    `start`/`end` index the NFC form of the input (identical to the input when it is
    already NFC, as almost all text is); `key` is what matching compares.
    """

    category: str
    text: str
    key: str
    start: int
    end: int


def extract_critical_tokens(text: str, language: str) -> list[CriticalToken]:
    """Critical tokens of `text` in reading order (see the module docstring for rules).

    Pass the raw text (before any normaliser): case, digits and separators are the point.
    `language` is a BCP-47-ish tag; only its primary subtag matters (Chinese tags such as
    `zh`, `zh-TW`, `cmn`, `yue` turn on Latin-run extraction; `en` adds camel case).
    """
    text = unicodedata.normalize("NFC", text)
    folded = text.translate(_WIDTH_FOLD)  # one character for one: spans stay valid
    scanner, categories = _scanner_for(language)
    tokens = []
    for match in scanner.finditer(folded):
        group = match.lastgroup
        if group is None:  # pragma: no cover - every alternative is a named group
            continue
        category = categories[int(group[1:])]
        key = " ".join(match.group().split())
        if category == "number" and key in NOT_NUMBERS:
            continue
        start, end = match.span()
        tokens.append(CriticalToken(category, text[start:end], key, start, end))
    return tokens


@dataclass(frozen=True, slots=True)
class CategoryCounts:
    """Reference, hypothesis and matched tokens of one category, with the misses listed.

    `lost` holds the reference tokens without an exact partner in the hypothesis (lost or
    changed); `spurious` the hypothesis tokens without a partner in the reference.
    """

    ref: int = 0
    hyp: int = 0
    matched: int = 0
    lost: tuple[str, ...] = ()
    spurious: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if min(self.ref, self.hyp, self.matched) < 0 or self.matched > min(self.ref, self.hyp):
            raise ValueError(f"inconsistent token counts: {self}")
        if len(self.lost) != self.ref - self.matched:
            raise ValueError(f"lost tokens must number ref - matched: {self}")
        if len(self.spurious) != self.hyp - self.matched:
            raise ValueError(f"spurious tokens must number hyp - matched: {self}")

    def __add__(self, other: CategoryCounts) -> CategoryCounts:
        if not isinstance(other, CategoryCounts):
            return NotImplemented
        return CategoryCounts(
            self.ref + other.ref,
            self.hyp + other.hyp,
            self.matched + other.matched,
            self.lost + other.lost,
            self.spurious + other.spurious,
        )

    def recall(self) -> float | None:
        """Share of reference tokens found exactly; None without reference tokens."""
        return None if self.ref == 0 else self.matched / self.ref

    def precision(self) -> float | None:
        """Share of hypothesis tokens that match the reference; None without any."""
        return None if self.hyp == 0 else self.matched / self.hyp


@dataclass(frozen=True, slots=True)
class CriticalTokenCounts:
    """Per-category token counts (one `CategoryCounts` per entry of `CATEGORIES`, in that
    order); they only add, so corpus recall is computed from summed counts."""

    categories: tuple[tuple[str, CategoryCounts], ...] = tuple(
        (name, CategoryCounts()) for name in CATEGORIES
    )

    def __post_init__(self) -> None:
        if tuple(name for name, _ in self.categories) != CATEGORIES:
            raise ValueError(f"categories must be exactly {CATEGORIES}")

    @classmethod
    def zero(cls) -> CriticalTokenCounts:
        return cls()

    def __add__(self, other: CriticalTokenCounts) -> CriticalTokenCounts:
        if not isinstance(other, CriticalTokenCounts):
            return NotImplemented
        return CriticalTokenCounts(
            tuple(
                (name, mine + theirs)
                for (name, mine), (_, theirs) in zip(self.categories, other.categories, strict=True)
            )
        )

    def __radd__(self, other: object) -> CriticalTokenCounts:
        # Lets sum() start from 0.
        if other == 0:
            return self
        if isinstance(other, CriticalTokenCounts):
            return other + self
        return NotImplemented

    def __getitem__(self, category: str) -> CategoryCounts:
        for name, counts in self.categories:
            if name == category:
                return counts
        raise KeyError(category)

    @property
    def total(self) -> CategoryCounts:
        """All categories together."""
        return sum((counts for _, counts in self.categories), CategoryCounts())

    def as_dict(self) -> dict[str, dict[str, object]]:
        return {
            name: {
                "ref": counts.ref,
                "hyp": counts.hyp,
                "matched": counts.matched,
                "recall": counts.recall(),
                "precision": counts.precision(),
                "lost": list(counts.lost),
                "spurious": list(counts.spurious),
            }
            for name, counts in (*self.categories, ("total", self.total))
        }


def critical_token_counts(reference: str, hypothesis: str, language: str) -> CriticalTokenCounts:
    """Exact-match critical-token counts of one pair, per category.

    >>> reference = "会议在2026年开，预算3,000元"
    >>> counts = critical_token_counts(reference, "会议在二零二六年开，预算3000元", "zh")
    >>> counts["date"].lost, counts["currency"].lost
    (('2026年',), ('3,000元',))
    """
    ref_tokens = extract_critical_tokens(reference, language)
    hyp_tokens = extract_critical_tokens(hypothesis, language)
    per_category = []
    for category in CATEGORIES:
        ref_keys = [t.key for t in ref_tokens if t.category == category]
        hyp_keys = [t.key for t in hyp_tokens if t.category == category]
        common = Counter(ref_keys) & Counter(hyp_keys)
        per_category.append(
            (
                category,
                CategoryCounts(
                    len(ref_keys),
                    len(hyp_keys),
                    sum(common.values()),
                    _unmatched(ref_keys, common),
                    _unmatched(hyp_keys, common),
                ),
            )
        )
    return CriticalTokenCounts(tuple(per_category))


def _unmatched(keys: list[str], common: Counter[str]) -> tuple[str, ...]:
    """`keys` in order, less the matched ones (the first occurrences count as matched)."""
    budget = Counter(common)
    left = []
    for key in keys:
        if budget[key] > 0:
            budget[key] -= 1
        else:
            left.append(key)
    return tuple(left)
