"""The offline moderation lexicon: high-precision phrases per category, English and Chinese.

A lexicon cannot understand text; it finds the unambiguous cases (a threat to kill, a wish to
die, a request for bomb-making steps, sexual content about children) and leaves the rest to a
model. Each entry carries a score; :func:`score_categories` returns, for one text, the highest
score per category found. Text is matched lower-cased and NFKC-normalised (full-width letters
fold to ASCII), with no reliance on ASCII word boundaries for Chinese.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

from procession.processors.builtin.triggers import TriggerIndex

__all__ = [
    "CATEGORIES",
    "INDEX",
    "LEXICON",
    "LONGEST_TRIGGER",
    "TRIGGERS",
    "normalise",
    "score_categories",
]

CATEGORIES: Final[tuple[str, ...]] = (
    "hate",
    "hate/threatening",
    "harassment",
    "harassment/threatening",
    "self-harm",
    "self-harm/intent",
    "self-harm/instructions",
    "sexual",
    "sexual/minors",
    "violence",
    "violence/graphic",
)
"""OpenAI's moderation categories, Mastra's default."""

_GROUPS = (
    r"(?:jews|muslims|christians|blacks|black people|whites|white people|asians|latinos|"
    r"mexicans|arabs|gays|lesbians|trans people|immigrants|refugees|women|hindus|sikhs)"
)
_ZH_GROUPS = (
    r"(?:黑人|白人|穆斯林|猶太人|犹太人|同性戀|同性恋|外國人|外国人|移民|難民|难民|女人|回教徒|"
    r"基督徒|跨性別|跨性别)"
)
_HARM = r"(?:kill|murder|shoot|stab|hurt|strangle|rape|behead|burn)"
_NOT_A_MESSAGE = r"(?! (?:a|an|the) (?:message|email|e-mail|text|note|line|dm|invite|link))"
_UNQUOTED = "(?<!['\"\u201c\u2018\u00ab])"  # a quoted threat is reported speech, not a threat
_I_WILL = (
    r"\b(?:i|we)(?:'ll| will| shall|'m going to| am going to|'m gonna| am gonna|'re going to| are "
    r"going to| swear i will| swear i'll| swear to god i will| swear to god i'll)"
)
_GAP = r"(?: [\w']+){0,3}?"  # up to three words between the intent and the act
_STRONG_HARM = r"(?:kill|murder|shoot|stab|strangle|slit|choke|behead|rape|gut|butcher)"
_KIN = r"(?:kids|children|family|wife|husband|mother|mom|father|dad|house|home|dog|son|daughter)"
_INSULT = (
    r"(?:worthless|pathetic|disgusting|brainless|ugly|stupid|dumb|useless|filthy|fat|"
    r"retarded|hideous|braindead)"
)
_INSULT_NOUN = (
    r"(?:idiot|moron|bitch|freak|loser|pig|cunt|bastard|retard|asshole|whore|slut|imbecile|"
    r"piece of (?:shit|trash|garbage)|waste of (?:space|oxygen|air|skin))"
)

LEXICON: Final[tuple[tuple[str, float, str], ...]] = (
    # self-harm
    (
        "self-harm/intent",
        0.9,
        r"\bi(?:'m| am)? (?:want to|wanna|going to|gonna|will|plan to|am planning to) "
        r"(?:kill myself|end my life|end it all|take my own life|commit suicide)",
    ),
    ("self-harm/intent", 0.85, r"\bi (?:don't|do not) want to (?:live|be alive) any ?more\b"),
    ("self-harm/intent", 0.8, r"\b(?:thinking about|thoughts of) (?:suicide|killing myself)\b"),
    (
        "self-harm/intent",
        0.9,
        r"我(?:想|要|打算|准备|準備)(?:自杀|自殺|去死|轻生|輕生)|我不想活了|我不想再活下去",
    ),
    ("self-harm/intent", 0.85, r"(?:结束|結束)(?:我|自己)的生命"),
    (
        "self-harm/instructions",
        0.9,
        r"\b(?:how (?:do i|to|can i|should i)|best way to|easiest way to|painless way to) "
        r"(?:kill myself|commit suicide|end my life|cut myself|overdose)\b",
    ),
    (
        "self-harm/instructions",
        0.85,
        r"\bhow many (?:pills|tablets|sleeping pills) (?:to|would|will) (?:kill|overdose)",
    ),
    (
        "self-harm/instructions",
        0.9,
        r"(?:怎么|怎麼|如何|怎样|怎樣)(?:自杀|自殺|割腕|轻生|輕生)|(?:自杀|自殺)的方法",
    ),
    ("self-harm", 0.6, r"\b(?:cutting myself|self-harming|i cut myself)\b|自残|自殘|割腕"),
    (
        "self-harm/intent",
        0.85,
        r"\bi(?:'m| am)? (?:want to|wanna|just want to|am going to|'m going to|going to|gonna) "
        r"die\b|\bi wish i (?:were|was) dead\b|\bno reason (?:for me )?to (?:live|go on|keep "
        r"living)\b|\bbetter off (?:if i (?:killed myself|was dead|were dead|died)|without me)\b",
    ),
    (
        "self-harm/intent",
        0.85,
        r"\bi(?:'m| am)?(?: \w+)? (?:going to|gonna|will|want to|planning to|plan to) "
        r"(?:hurt|cut|harm|burn) myself\b|\b(?:been|keep|started|start) cutting myself\b|"
        r"\b(?:thinking about|thoughts of|planning to|going to|want to) "
        r"(?:jump(?:ing)? off (?:a|the) (?:bridge|roof|building|cliff)|overdos(?:e|ing)|"
        r"hang(?:ing)? myself|slit(?:ting)? my wrists)",
    ),
    (
        "self-harm/instructions",
        0.85,
        r"\bhow many (?:sleeping )?(?:pills|tablets) (?:would it take|does it take|to take) to "
        r"(?:never wake up|die|not wake up)",
    ),
    # violence and threats: an intent ("I'll", "we're going to") before an act on "you"
    (
        "harassment/threatening",
        0.9,
        rf"{_UNQUOTED}{_I_WILL}{_GAP} {_STRONG_HARM}(?:s|ed)? (?:you|u|your)\b{_NOT_A_MESSAGE}",
    ),
    (
        "harassment/threatening",
        0.85,
        rf"{_UNQUOTED}{_I_WILL}{_GAP} (?:hurt|burn|torch) (?:you|u|your {_KIN})\b"
        rf"|{_UNQUOTED}{_I_WILL}{_GAP} (?:end you|beat you (?:up|to death|senseless|bloody)|"
        r"break (?:every|all the|all) (?:\w+ )?bones?|hunt you down|track you down|"
        r"make you (?:suffer|bleed|pay))\b",
    ),
    (
        "harassment/threatening",
        0.85,
        r"\byou (?:won't|will not|aren't going to|are not going to) (?:live|survive) (?:to see|"
        r"the (?:night|week))|\b(?:a |my )?(?:bullet|knife|blade) (?:in|into|through) your "
        r"(?:head|skull|back|chest|heart|throat)|\bwatch your back,? (?:because |cause |'cause |"
        r"as )?(?:i'm|i am|we're|we are) coming for you",
    ),
    (
        "harassment/threatening",
        0.9,
        rf"\bi(?:'m| am|'ll| will)? ?(?:going to|gonna|will|'ll) {_HARM} "
        rf"(?:you|u)\b{_NOT_A_MESSAGE}",
    ),
    (
        "violence",
        0.8,
        rf"\bi(?:'m| am|'ll| will)? ?(?:going to|gonna|will|'ll) {_HARM} "
        rf"(?:him|her|them|everyone)\b{_NOT_A_MESSAGE}",
    ),
    (
        "harassment/threatening",
        0.85,
        r"\byou(?:'re| are) (?:dead|going to die)\b|\bi know where you live\b",
    ),
    (
        "harassment/threatening",
        0.9,
        r"我(?:要|会|會|一定)(?:杀|殺|弄死|砍死|打死)(?:了)?你|杀了你全家|殺了你全家",
    ),
    (
        "violence",
        0.85,
        r"\bhow (?:do i|to|can i) (?:make|build|assemble) (?:a |an )?(?:bomb|pipe bomb|explosive|"
        r"molotov)",
    ),
    ("violence", 0.85, r"(?:怎么|怎麼|如何)(?:制作|製作|做)(?:炸弹|炸彈|爆炸物|燃烧弹|燃燒彈)"),
    ("violence/graphic", 0.7, r"\b(?:disembowel|dismember|decapitat)\w*"),
    ("violence/graphic", 0.7, r"(?:肢解|开膛|開膛|斩首|斬首)"),
    # harassment
    (
        "harassment",
        0.75,
        r"\byou(?:'re| are) (?:a |an |such a )?(?:worthless|pathetic|disgusting|useless) "
        r"(?:piece of|loser|idiot|moron|trash|garbage|human)",
    ),
    ("harassment", 0.8, r"\b(?:go kill yourself|kys|nobody would miss you)\b"),
    (
        "harassment",
        0.75,
        rf"{_UNQUOTED}\byou(?:'re| are)(?: (?:a|an|such|so|just|too|really|the most))* {_INSULT}"
        rf"\b|\b(?:you|u) {_INSULT} {_INSULT_NOUN}|\b(?:you|u) {_INSULT_NOUN}\b(?! (?:of|in)\b)"
        rf"|\b(?:what|such) an? {_INSULT} {_INSULT_NOUN} you are\b",
    ),
    (
        "harassment",
        0.75,
        rf"{_UNQUOTED}\b(?:nobody|no one|everyone|everybody) (?:likes|loves|wants|hates|"
        r"cares about|will ever love|would ever love) (?:you|u)\b",
    ),
    ("self-harm", 0.6, r"\bgo kill yourself\b"),
    ("harassment", 0.75, r"你(?:这个|這個)?(?:废物|廢物|垃圾|白痴|蠢货|蠢貨)|去死吧|你去死"),
    # hate
    (
        "hate",
        0.85,
        rf"\b(?:all|those|these|the) {_GROUPS} (?:are|r) (?:animals|vermin|subhuman|parasites|"
        r"rats|cockroaches|a disease)\b",
    ),
    (
        "hate/threatening",
        0.95,
        rf"\b(?:all|those|these|the) {_GROUPS} (?:should|must|need to|deserve to) "
        r"(?:die|be killed|be exterminated|be gassed|be shot|burn)\b",
    ),
    (
        "hate/threatening",
        0.95,
        rf"\b(?:exterminate|gas|eradicate|kill all) (?:the |all )?{_GROUPS}\b",
    ),
    ("hate", 0.85, rf"(?:所有|那些|这些|這些){_ZH_GROUPS}(?:都)?(?:是畜生|不是人|是害虫|是害蟲)"),
    (
        "hate/threatening",
        0.95,
        rf"(?:所有|那些|这些|這些)?{_ZH_GROUPS}(?:都)?(?:该死|該死|应该去死|應該去死|应该被杀|應該被殺)",
    ),
    # sexual
    (
        "sexual/minors",
        0.95,
        r"\b(?:child|children|kid|kids|minor|minors|underage|preteen)s? ?(?:porn|nudes|sex)\b",
    ),
    (
        "sexual/minors",
        0.95,
        r"\bsex(?:ual)? (?:with|acts with) (?:a |an )?(?:child|minor|kid|underage)",
    ),
    ("sexual/minors", 0.95, r"(?:儿童|兒童|幼童|未成年人?)(?:色情|裸照|性交|性行为|性行為)"),
    (
        "sexual",
        0.7,
        r"\b(?:send|show) (?:me )?(?:your )?(?:nudes|naked (?:pics|pictures|photos))\b",
    ),
    ("sexual", 0.7, r"(?:发|發|传|傳)(?:你的)?裸照|色情(?:片|影片|视频|視頻)"),
)
"""``(category, score, pattern)`` entries."""

TRIGGERS: Final[tuple[tuple[str, ...], ...]] = (
    ("myself", "my life", "end it all", "my own life", "suicide"),
    ("any more", "anymore"),
    ("suicide", "myself"),
    ("自杀", "自殺", "去死", "轻生", "輕生", "不想活", "不想再活"),
    ("生命",),
    ("myself", "suicide", "my life", "overdose"),
    ("pills", "tablets"),
    ("自杀", "自殺", "割腕", "轻生", "輕生"),
    ("myself", "self-harm", "自残", "自殘", "割腕"),
    ("die", "dead", "reason", "better off"),
    ("myself", "overdos", "jump", "hang", "slit"),
    ("pills", "tablets"),
    (
        "kill",
        "murder",
        "shoot",
        "stab",
        "strangle",
        "slit",
        "choke",
        "behead",
        "rape",
        "gut",
        "butcher",
    ),
    ("hurt", "burn", "torch", "end you", "beat you", "break", "hunt you", "track you", "make you"),
    ("live", "survive", "bullet", "knife", "blade", "watch your back"),
    ("kill", "murder", "shoot", "stab", "hurt", "strangle", "rape", "behead", "burn"),
    ("kill", "murder", "shoot", "stab", "hurt", "strangle", "rape", "behead", "burn"),
    ("dead", "die", "where you live"),
    ("杀", "殺", "弄死", "砍死", "打死"),
    ("bomb", "explosive", "molotov"),
    ("炸弹", "炸彈", "爆炸物", "燃烧弹", "燃燒彈"),
    ("disembowel", "dismember", "decapitat"),
    ("肢解", "开膛", "開膛", "斩首", "斬首"),
    ("worthless", "pathetic", "disgusting", "useless"),
    ("kill yourself", "=kys", "miss you"),
    ("you", "u"),
    ("likes", "loves", "wants", "hates", "cares", "will ever", "would ever"),
    ("kill yourself",),
    ("废物", "廢物", "垃圾", "白痴", "蠢货", "蠢貨", "去死"),
    ("animals", "vermin", "subhuman", "parasites", "rats", "cockroaches", "disease"),
    ("die", "killed", "exterminated", "gassed", "shot", "burn"),
    ("exterminate", "gas", "eradicate", "kill all"),
    ("畜生", "不是人", "害虫", "害蟲"),
    ("该死", "該死", "去死", "被杀", "被殺"),
    ("child", "kid", "minor", "underage", "preteen"),
    ("sex",),
    ("色情", "裸照", "性交", "性行为", "性行為"),
    ("nudes", "naked"),
    ("裸照", "色情"),
)
"""For each :data:`LEXICON` entry, literals every match of it contains."""

_COMPILED: Final = tuple((category, score, re.compile(p)) for category, score, p in LEXICON)
INDEX: Final = TriggerIndex(dict(zip(_COMPILED, TRIGGERS, strict=True)), word_start=True)
"""Finds the few entries whose trigger words occur in a text (English triggers begin a
word in every match of their entry, which the index relies on)."""
LONGEST_TRIGGER: Final = max(len(word.lstrip("=")) for words in TRIGGERS for word in words)
"""The length of the longest trigger word: how much earlier streamed text to search again."""


def normalise(text: str) -> str:
    """Text as the lexicon reads it: lower-cased, NFKC-normalised when not ASCII."""
    if text.isascii():
        return text.lower()
    if not unicodedata.is_normalized("NFKC", text):
        text = unicodedata.normalize("NFKC", text)
    return text.casefold()


def score_categories(normalised: str) -> dict[str, float]:
    """The highest score of every category found in ``normalised`` text (``{}`` if none)."""
    scores: dict[str, float] = {}
    for category, score, pattern in INDEX.candidates(normalised):
        if score > scores.get(category, 0.0) and pattern.search(normalised):
            scores[category] = score
    return scores
