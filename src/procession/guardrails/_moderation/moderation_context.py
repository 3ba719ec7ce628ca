"""What around a matched phrase makes it something other than a threat: quotation marks
(reported speech, fiction), a game being played, a joke being made.

- :func:`inside_quotes`: whether a position lies inside an open quotation (``"…"``, ``“…”``,
  ``«…»``, ``「…」``, ``『…』``, or ``'…'`` opened before a word) on its line.
- :func:`exempt_categories`: the categories a text's context lifts: threats in a text about a
  game ("I will end you in the next round, noob"), threats and self-harm intent said as a
  joke ("I'll kill you if you spoil the ending, haha"). Harassment is never lifted: insults
  with "lol" are still insults.
- :func:`unquoted` and :func:`harm_vocabulary`, for the classifier heads: they read the text
  with its quotations cut out, and count only when it uses a word of violence, death,
  self-harm or insult (so "What are your business hours?" is never a threat, whatever the
  head's weights for "your").
"""

# ruff: noqa: RUF001  (Cyrillic, Arabic and full-width punctuation are the point)

from __future__ import annotations

import re
from typing import Final

__all__ = ["exempt_categories", "harm_vocabulary", "has_idiom", "inside_quotes", "unquoted"]

_PAIRS: Final = (
    ("\u201c", "\u201d"),
    ("\u00ab", "\u00bb"),
    ("\u300c", "\u300d"),
    ("\u300e", "\u300f"),
)
_SINGLE_OPEN: Final = re.compile(r"(?:^|(?<=[\s(\[:,;—–-]))['\u2018](?=\w)")
_SINGLE_CLOSE: Final = re.compile(r"(?<=[\w.,!?])['\u2019](?=[\s.,;:!?)\]]|$)")

_GAME: Final = re.compile(
    r"\b(?:next round|this round|last round|the round|rounds|next match|this match|ranked|"
    r"noob|n00b|newb|respawn\w*|gg|pvp|pve|lobby|boss fight|raid boss|the boss|headshot\w*|"
    r"fortnite|minecraft|valorant|call of duty|mario kart|smash bros|tekken|league of legends|"
    r"overwatch|counter-strike|chess|checkmate|deathmatch|multiplayer|in game|in-game|video "
    r"game|the game|this game|next game|my character|your character|partida|juego|jeu|"
    r"la partie|runde|im spiel|jogo|матче?|раунде?|в игре)\b"
    r"|游戏|遊戲|下一局|这局|這局|ゲーム|試合|게임|다음 판|اللعبة|المباراة"
)
_JOKE: Final = re.compile(
    r"\b(?:haha\w*|hehe\w*|lol+|lmao|lmfao|rofl|jk|(?<!not )(?<!no )(?:just )?(?:kidding|joking)|x"
    r"d|jaja\w*|"
    r"mdr|kkk+|хаха\w*|ахах\w*)\b|[\U0001F602\U0001F923\U0001F61C\U0001F609\U0001F61D]"
    r"|ㅋㅋ|哈哈|\(笑\)|ww+$|ههه"
)
_THREATS: Final = frozenset({"harassment/threatening", "violence", "hate/threatening"})
_JOKED: Final = _THREATS | {"self-harm/intent", "self-harm"}


def inside_quotes(text: str, position: int) -> bool:
    """Whether ``position`` in ``text`` lies inside a quotation opened earlier on its line."""
    start = text.rfind("\n", 0, position) + 1
    before = text[start:position]
    if before.count('"') % 2:
        return True
    for opening, closing in _PAIRS:
        if before.count(opening) > before.count(closing):
            return True
    line = text[start : position + 1]  # one character on, for the opening quote's lookahead
    end = position - start
    opened = sum(1 for mark in _SINGLE_OPEN.finditer(line) if mark.start() < end)
    closed = sum(1 for mark in _SINGLE_CLOSE.finditer(line) if mark.start() < end)
    return opened > closed


def exempt_categories(normalised: str) -> frozenset[str]:
    """The categories that the context of ``normalised`` text lifts (see the module doc)."""
    if _JOKE.search(normalised):
        return _JOKED
    if _GAME.search(normalised):
        return _THREATS
    return frozenset()


_QUOTED: Final = re.compile(
    r'"[^"\n]{1,300}"|\u201c[^\u201d\n]{1,300}\u201d|\u00ab[^\u00bb\n]{1,300}\u00bb'
    r"|\u300c[^\u300d\n]{1,300}\u300d|\u300e[^\u300f\n]{1,300}\u300f"
    # a single-quoted span may hold apostrophes inside words ('I'll find you', 'don't')
    r"|(?:^|(?<=[\s(\[:,;]))['\u2018]\w(?:[^'\u2018\u2019\n]|(?<=\w)['\u2019](?=\w)){0,300}?"
    r"[\w.,!?]['\u2019](?=[\s.,;:!?)\]]"
    r"|$)"
)


_IDIOMS: Final = re.compile(
    r"\bkill(?:ing)? two birds(?: with one stone)?|\bkill(?:ing)? (?:some )?time\b|\bkill(?:ing|ed"
    r")? "
    r"it\b|\bkill(?:ing)? the (?:lights|engine|music|mood|vibe)\b|\bto die for\b|\bdying to\b"
    r"|\b(?:scared|bored|worried|laughed|frozen) (?:me |myself )?to death\b"
    r"|\bend (?:it|things) (?:with|between) (?:my|him|her|them|us)\b"
    # dying of laughter, in the other languages
    r"|\bme muero de (?:la )?risa|\bmort[e]? de rire|\blach(?:e|t)? (?:mich|sich|dich) "
    r"(?:tot|kaputt|schlapp)|\btotgelacht|\bmorr\w* de rir|\bумира\w* (?:со|от) смеха"
    r"|\bумер\w* (?:со|от) смеха|笑死|笑い死|웃겨 죽|أموت من الضحك|مت من الضحك"
)


def unquoted(normalised: str, *, idioms: bool = True) -> str:
    """``normalised`` with its quotations and (unless ``idioms=False``) a few idioms of
    violence ("kill two birds with one stone", "to die for") cut out, as the heads read it:
    reported speech is not the writer's, and an idiom is not a threat. The sentence encoder
    reads the idioms (it knows them; cut out, they leave "I'm going to … and shop")."""
    if _HAS_QUOTE.search(normalised):
        normalised = _QUOTED.sub(" ", normalised)
    return _IDIOMS.sub(" ", normalised) if idioms else normalised


def has_idiom(normalised: str) -> bool:
    """Whether ``normalised`` text uses one of the idioms of violence :func:`unquoted` cuts out
    (the sentence encoder cannot tell "I'm going to kill two birds with one stone" from a
    threat: where one is used, the hashed heads decide alone)."""
    return _IDIOMS.search(normalised) is not None


_HAS_QUOTE: Final = re.compile("[\"'\u2018\u201c\u00ab\u300c\u300e]")

_SPACED: Final = re.compile(r"[a-zà-ÿ\u0400-\u04ff\uac00-\ud7af]")
"""Scripts whose words are separated by spaces and begin a word (the rest: anywhere)."""
_HARM_WORDS: Final = (
    # English stems: violence, death, self-harm, insults
    "kill",
    "murder",
    "shoot",
    "shot",
    "stab",
    "strangl",
    "chok",
    "slit",
    "cut",
    "bleed",
    "blood",
    "die",
    "dying",
    "dead",
    "death",
    "hurt",
    "harm",
    "beat",
    "burn",
    "torch",
    "bullet",
    "gun",
    "knife",
    "blade",
    "rope",
    "hang",
    "drown",
    "poison",
    "bury",
    "grave",
    "coffin",
    "body bag",
    "suffer",
    "pay for",
    "regret",
    "smash",
    "break",
    "snap",
    "rip",
    "gut",
    "end you",
    "end my",
    "end it",
    "suicid",
    "overdos",
    "pills",
    "jump off",
    "wrist",
    "myself",
    "alive",
    "living",
    "never wake up",
    "not wake up",
    "disappear",
    "idiot",
    "moron",
    "stupid",
    "dumb",
    "ugly",
    "fat",
    "loser",
    "worthless",
    "useless",
    "pathetic",
    "disgust",
    "trash",
    "garbage",
    "waste of",
    "freak",
    "bitch",
    "slut",
    "whore",
    "cunt",
    "retard",
    "bastard",
    "asshole",
    "pig",
    "scum",
    "hate",
    "nobody",
    "no one",
    "everyone",
    "shut up",
    "rot",
    "hole",
    "hospital",
    "hunt",
    "track you",
    "find you",
    "coming for",
    "watch your",
    "eye open",
    "where you live",
    "get you",
    "never walk",
    "coming to your",
    "lock your door",
    "bat",
    "bats",
    "axe",
)
"""Words that begin with a stem in English."""
_HARM_OTHER: Final = (
    # es, pt, fr, de, ru, ko (at a word's start), ar, zh, ja (anywhere): the same notions
    "queim",
    "brûl",
    "brul",
    "zünd",
    "сожж",
    "сожг",
    "حرق",
    "couteau",
    "flingue",
    "messer",
    "cuchillo",
    "faca",
    "navaja",
    "mat",
    "muer",
    "mort",
    "morr",
    "apuñal",
    "esfaque",
    "suicid",
    "cort",
    "quem",
    "tiro",
    "bala",
    "idiota",
    "imbécil",
    "estúpid",
    "inútil",
    "basura",
    "lixo",
    "burr",
    "asco",
    "nojo",
    "vida",
    "viv",
    "tue",
    "tuer",
    "buter",
    "crev",
    "poignard",
    "égorg",
    "étrangl",
    "balle",
    "mourir",
    "scarif",
    "conn",
    "débile",
    "crétin",
    "merde",
    "pute",
    "umbring",
    "töt",
    "tot",
    "sterb",
    "stech",
    "erwürg",
    "kugel",
    "ritz",
    "leben",
    "idiot",
    "dumm",
    "blöd",
    "hässlich",
    "arsch",
    "fresse",
    "versager",
    "schlampe",
    "убь",
    "убий",
    "зареж",
    "задуш",
    "смерт",
    "умер",
    "умир",
    "покончить",
    "покончу",
    "жить",
    "порез",
    "труп",
    "пул",
    "нож",
    "дебил",
    "идиот",
    "туп",
    "урод",
    "мраз",
    "твар",
    "шлюх",
    "заткни",
    "قتل",
    "ذبح",
    "طعن",
    "موت",
    "أموت",
    "انتحر",
    "أنتحر",
    "حياتي",
    "رصاص",
    "سكين",
    "غبي",
    "أحمق",
    "حقير",
    "تافه",
    "قمامة",
    "اخرس",
    "杀",
    "殺",
    "死",
    "砍",
    "捅",
    "刀",
    "枪",
    "槍",
    "血",
    "自杀",
    "自殺",
    "割腕",
    "废物",
    "廢物",
    "垃圾",
    "蠢",
    "白痴",
    "滚",
    "滾",
    "贱",
    "賤",
    "殺",
    "死",
    "刺",
    "殴",
    "殴り",
    "燃や",
    "火を",
    "自殺",
    "リストカット",
    "消え",
    "クズ",
    "ゴミ",
    "バカ",
    "馬鹿",
    "ブス",
    "キモ",
    "죽",
    "찔러",
    "패",
    "불을",
    "자살",
    "손목",
    "쓰레기",
    "병신",
    "멍청",
    "꺼져",
    "역겨",
    "한심",
)
_HARM: Final = re.compile(
    r"\b(?:"
    + "|".join(re.escape(w) for w in (*_HARM_WORDS, *_HARM_OTHER) if _SPACED.match(w))
    + ")|"
    + "|".join(re.escape(w) for w in _HARM_OTHER if not _SPACED.match(w))
)


def harm_vocabulary(normalised: str) -> bool:
    """Whether ``normalised`` text uses a word of violence, death, self-harm or insult in one
    of the rules' languages (the classifier heads count only then)."""
    return _HARM.search(normalised) is not None
