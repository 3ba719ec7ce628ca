"""Language names and ISO 639-1 codes, and telling Traditional from Simplified Chinese.

:func:`language_code` accepts a code (``"fr"``, ``"zh-Hant"``) or an English name
(``"French"``, ``"Traditional Chinese"``); :func:`language_name` goes the other way.
:func:`chinese_script` counts characters that exist in only one of the two scripts.
"""

from __future__ import annotations

__all__ = ["LANGUAGE_NAMES", "chinese_script", "language_code", "language_name"]

LANGUAGE_NAMES: dict[str, str] = {
    "af": "Afrikaans", "am": "Amharic", "ar": "Arabic", "az": "Azerbaijani", "be": "Belarusian",
    "bg": "Bulgarian", "bn": "Bengali", "bs": "Bosnian", "ca": "Catalan", "cs": "Czech",
    "cy": "Welsh", "da": "Danish", "de": "German", "el": "Greek", "en": "English",
    "eo": "Esperanto", "es": "Spanish", "et": "Estonian", "eu": "Basque", "fa": "Persian",
    "fi": "Finnish", "fr": "French", "ga": "Irish", "gl": "Galician", "gu": "Gujarati",
    "he": "Hebrew", "hi": "Hindi", "hr": "Croatian", "hu": "Hungarian", "hy": "Armenian",
    "id": "Indonesian", "is": "Icelandic", "it": "Italian", "ja": "Japanese", "ka": "Georgian",
    "kk": "Kazakh", "km": "Khmer", "kn": "Kannada", "ko": "Korean", "la": "Latin",
    "lt": "Lithuanian", "lv": "Latvian", "mk": "Macedonian", "ml": "Malayalam",
    "mn": "Mongolian", "mr": "Marathi", "ms": "Malay", "mt": "Maltese", "nb": "Norwegian",
    "ne": "Nepali", "nl": "Dutch", "no": "Norwegian", "pa": "Punjabi", "pl": "Polish",
    "ps": "Pashto", "pt": "Portuguese", "ro": "Romanian", "ru": "Russian", "si": "Sinhala",
    "sk": "Slovak", "sl": "Slovenian", "sq": "Albanian", "sr": "Serbian", "sv": "Swedish",
    "sw": "Swahili", "ta": "Tamil", "te": "Telugu", "th": "Thai", "tl": "Tagalog",
    "tr": "Turkish", "uk": "Ukrainian", "ur": "Urdu", "uz": "Uzbek", "vi": "Vietnamese",
    "xh": "Xhosa", "yue": "Cantonese", "zh": "Chinese", "zh-Hans": "Simplified Chinese",
    "zh-Hant": "Traditional Chinese", "zu": "Zulu",
}  # fmt: skip
"""English names by code."""

_BY_NAME = {name.lower(): code for code, name in LANGUAGE_NAMES.items() if code != "no"}
_BY_NAME |= {"mandarin": "zh", "farsi": "fa", "chinese (traditional)": "zh-Hant"}
_BY_NAME |= {"chinese (simplified)": "zh-Hans", "filipino": "tl"}
_CODES = {code.lower(): code for code in LANGUAGE_NAMES} | {"zh-tw": "zh-Hant", "zh-hk": "zh-Hant"}
_CODES |= {"zh-cn": "zh-Hans", "zh-sg": "zh-Hans"}

# Characters used in only one script (each pair: Traditional, Simplified), common ones first.
_PAIRS = (
    "這这個个們们說说對对時时會会國国來来為为過过還还後后發发學学開开關关見见點点體体電电話话"
    "語语車车東东長长門门間间問问題题實实現现從从氣气頭头愛爱無无樣样雙双讓让錢钱買买賣卖書书"
    "筆笔當当應应該该將将記记認认識识麼么幾几網网頁页訂订單单號号碼码廣广場场節节經经驗验歡欢"
    "謝谢請请讀读寫写覺觉聽听讓让與与給给萬万億亿際际選选區区醫医藥药費费義义務务歲岁戰战"
)
_TRADITIONAL = frozenset(_PAIRS[0::2])
_SIMPLIFIED = frozenset(_PAIRS[1::2])


def language_code(name_or_code: str) -> str | None:
    """The code for an English name or a code (case-insensitive), or ``None`` if unknown."""
    key = name_or_code.strip().replace("_", "-").lower()
    return _CODES.get(key) or _BY_NAME.get(key)


def language_name(code: str) -> str:
    """The English name of ``code``, or the code itself when unknown."""
    return LANGUAGE_NAMES.get(code) or LANGUAGE_NAMES.get(code.split("-", 1)[0], code)


def chinese_script(text: str) -> str | None:
    """``"zh-Hant"`` or ``"zh-Hans"`` when ``text`` has characters of only one script more
    than of the other; ``None`` when it cannot tell."""
    traditional = simplified = 0
    for char in text:
        if char in _TRADITIONAL:
            traditional += 1
        elif char in _SIMPLIFIED:
            simplified += 1
    if traditional > simplified:
        return "zh-Hant"
    if simplified > traditional:
        return "zh-Hans"
    return None
