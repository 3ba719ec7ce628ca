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

from procession.guardrails._moderation.moderation_context import exempt_categories, inside_quotes
from procession.guardrails._moderation.moderation_languages import ENTRIES
from procession.guardrails._text.triggers import TriggerIndex

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
    r"mexicans|arabs|gays|gay people|lesbians|trans people|transgender people|immigrants|"
    r"refugees|women|men|hindus|sikhs|migrants|foreigners|disabled people|the disabled|"
    r"autistic people|fat people|old people|the elderly|poor people|homeless people|"
    r"chinese people|indians|africans|africans|gypsies|roma|catholics|atheists|lgbt people|"
    r"queers|feminists|girls|boys)"
)
_ZH_GROUPS = (
    r"(?:黑人|白人|穆斯林|猶太人|犹太人|同性戀|同性恋|外國人|外国人|移民|難民|难民|女人|回教徒|"
    r"基督徒|跨性別|跨性别)"
)
_HARM = r"(?:kill|murder|shoot|stab|hurt|strangle|rape|behead|burn)"
_NOT_A_MESSAGE = (
    r"(?! (?:a|an|the|some|my|our|your)(?: quick| short| new| little)? (?:message|email|e-mail|"
    r"text|note|line|dm|invite|link|copy|quote|reply|call|update|photo|pic|picture|question|"
    r"list|reminder|look|glance|smile|signal))"
)
_UNQUOTED = "(?<!['\"\u201c\u2018\u00ab])"  # a quoted threat is reported speech, not a threat
_I_WILL = (
    r"\b(?:i|we)(?:'ll| will| shall|'m going to| am going to|'m gonna| am gonna|'re going to| are "
    r"going to| swear i will| swear i'll| swear to god i will| swear to god i'll|'m coming "
    r"(?:over |back |round )?to| am coming (?:over |back |round )?to)"
)
_GAP = r"(?: [\w']+){0,6}?"  # up to six words between the intent and the act
_STRONG_HARM = (
    r"(?:kill|murder|shoot|stab|strangle|slit|choke|behead|rape|gut|butcher|drown|poison|"
    r"smash|bash|finish|execute|hang|bury|slaughter|castrate|skin)"
)
_KIN = r"(?:kids|children|family|wife|husband|mother|mom|father|dad|house|home|dog|son|daughter)"
_PLACE = (
    r"(?:school|office|church|mosque|synagogue|temple|mall|building|station|store|shop|party|"
    r"concert|class|clinic|hospital|wedding|campus|stadium|festival|airport|train|bus|parade|"
    r"rally|car|house|home|work|restaurant|bar|club|meeting|service|workplace|daycare)"
)
_BODY = (
    r"(?:throat|head|face|neck|skull|heart|chest|brains?|legs?|arms?|jaw|fingers|teeth|eyes|"
    r"guts|body|whole family|miserable|stupid|worthless|pathetic|sorry|(?:little )?"
    rf"{_KIN}|ass|girlfriend|boyfriend|brother|sister|parents|baby)"
)
_INSULT = (
    r"(?:worthless|pathetic|disgusting|brainless|ugly|stupid|dumb|useless|filthy|fat|"
    r"retarded|hideous|braindead|miserable|trash|scum|dumbest|stupidest|ugliest)"
)
_INSULT_NOUN = (
    r"(?:idiot|moron|bitch|freak|loser|pig|cunt|bastard|retard|asshole|whore|slut|imbecile|"
    r"piece of (?:shit|trash|garbage)|waste of (?:space|oxygen|air|skin)|cow|troll|clown|rat|"
    r"jerk|scumbag|creep|failure|disgrace|embarrassment|excuse for a human being)"
)

_BASE: Final[tuple[tuple[str, float, str], ...]] = (
    # self-harm
    (
        "self-harm/intent",
        0.9,
        r"\bi(?:'m| am)? (?:want to|wanna|going to|gonna|will|plan to|am planning to) "
        r"(?:kill myself|end my life|end it all|take my own life|commit suicide)",
    ),
    ("self-harm/intent", 0.85, r"\bi (?:don't|do not) want to (?:live|be alive) any ?more\b"),
    (
        "self-harm/intent",
        0.8,
        r"\bi(?:'m| am|'ve been| have been| keep| can't stop)? (?:been )?(?:thinking about|having "
        r"thoughts of|have thoughts of) (?:suicide|dying|killing myself|ending (?:it all|my life|e"
        r"veryth"
        r"ing))\b(?! (?:prevention|awareness|"
        r"rates|research))|\b(?:wrote|written|writing) (?:my )?(?:goodbye|suicide) (?:letters?|"
        r"notes?)\b|\b(?:want|wish) (?:i could |to )?(?:just )?(?:\w+ )?(?:never wake up|not wake "
        r"up|disappear forever)\b|\b(?:mix|take|use|buy|drink|swallow|combine) (?:\w+ ){0,4}to "
        r"(?:kill myself|end my life)\b|\benough to (?:die|kill me|kill myself)\s*\?",
    ),
    (
        "self-harm/intent",
        0.9,
        r"我(?:想|要|打算|准备|準備)(?:自杀|自殺|去死|轻生|輕生)|我不想活了|我不想再活下去",
    ),
    ("self-harm/intent", 0.85, r"(?:结束|結束)(?:我|自己)的生命"),
    (
        "self-harm/instructions",
        0.9,
        r"\b(?:how (?:do i|to|can i|should i)|best way to|easiest way to|painless way to|quickest "
        r"way to) (?:kill myself|commit suicide|end my life|cut myself|overdose|slit my wrists|"
        r"hang myself)\b|\b(?:most |least )?(?:painless|quickest|surest|easiest) way to die\b"
        r"|\bhow (?:deep|hard) (?:do |should |would |must )?i (?:need to |have to )?cut\b",
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
    (
        "self-harm",
        0.6,
        r"\b(?:i(?:'m| am| have been|'ve been| keep) (?:cutting myself|self-harming)|i cut "
        r"myself)\b(?! (?:by accident|accidentally|shaving|cooking|on))|我.{0,4}(?:自残|自殘|割腕)",
    ),
    (
        "self-harm/intent",
        0.85,
        r"\bi(?:'m| am)?(?: just| really| honestly| seriously)? (?:want to|wanna|am going "
        r"to|'m going to|going to|gonna) die\b(?! (?:of|from|laughing|with|for|in|on|when|if|"
        r"happy|old|alone|trying|before))|\bi wish i (?:were|was) dead\b|\bno (?:reason|point) (?:"
        r"for me )?(?:to|in) (?:live|living|go on|"
        r"going on|keep living)\b|\bbetter off (?:if i (?:killed myself|was dead|were dead|died|wa"
        r"s gone|were "
        r"gone|wasn't here|weren't here|wasn't around|never existed)|w"
        r"ithout me)\b",
    ),
    (
        "self-harm/intent",
        0.85,
        r"\bi(?:'m| am)?(?: \w+)? (?:going to|gonna|will|want to|planning to|plan to) "
        r"(?:hurt|cut|harm|burn) myself\b|\b(?:been|keep|started|start) cutting myself\b|"
        r"\b(?:thinking about|thoughts of|planning to|going to|want to|decided to|about to|gonna|"
        r"i'll|i will|i'm|i am) (?:jump(?:ing)? (?:off|from) (?:a|the|this) (?:bridge|roof|"
        r"building|cliff|balcony|\w+ floor)|overdos(?:e|ing)|hang(?:ing)? myself|slit(?:ting)? my "
        r"wrists|starv(?:e|ing) myself|drive (?:my car )?off (?:a|the) (?:cliff|bridge))"
        r"|\bi(?:'ve| have)? (?:been )?stockpil\w* (?:my |the )?(?:pills|meds|tablets)\b"
        r"|\b(?:i'm|i am|so) (?:so )?tired of (?:living|being alive|life)\b|\blife (?:isn't|is not"
        r") "
        r"worth living\b|\b(?:going to|gonna|about to|decided to|planning to) "
        r"(?:take|swallow) all (?:of )?(?:my|the) (?:pills|meds|tablets)|\bi(?:'ve| have)? (?:\w+ "
        r")?(?:been |keep |started )?"
        r"(?:hurting|cutting|burning|harming|starving) myself\b(?! (?:by accident|accidentally|"
        r"while|when|on|shaving|cooking))|\bi (?:hurt|cut|burn|harm) myself (?:on purpose|every|"
        r"again|to feel|so i can)",
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
        rf"{_UNQUOTED}{_I_WILL}{_GAP} {_STRONG_HARM}(?:s|ed)? (?:you|u|your {_BODY})\b"
        rf"{_NOT_A_MESSAGE}",
    ),
    (
        "harassment/threatening",
        0.85,
        rf"{_UNQUOTED}{_I_WILL}{_GAP} (?:hurt|burn|torch) (?:you|u|your (?:{_KIN}|shop|car|busines"
        rf"s|"
        r"store|office))\b|(?:cut|slash|slit) (?:your|ur) (?:throat|face|neck)\b"
        rf"|{_UNQUOTED}{_I_WILL}{_GAP} (?:end you|beat you (?:up|to death|senseless|bloody)|"
        r"break (?:every|all the|all) (?:\w+ )?bones?|(?:hunt|track) you down(?! (?:a|an|some|the)"
        r" )|"
        r"make you (?:suffer|bleed|pay)|put (?:you|u) in (?:the|a) (?:hospital|grave|ground|coffin|"
        r"body bag|wheelchair)|run (?:you|u) over|break your (?:legs?|neck|arms?|jaw|face|"
        r"fingers|skull)|end your (?:\w+ )?life|set fire to (?:you|your (?:car|house|home|shop|"
        r"family))|beat (?:you|u) (?:until|till) you (?:stop|die|bleed|can't))\b",
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
        r"\b(?:you(?:'re| are)|ur|u r) (?:dead|going to die)\b(?! (?:wrong|right|tired|serious|set|"
        r"last|centre|center|even|on|meat|weight|end|ringer|giveaway|cert|to|of|from|laughing))|\b"
        r"(?:you(?:'re| are)|"
        r"ur|u r) (?:a )?dead (?:man|woman|girl|boy|meat)\b(?! walking (?:dead|show|series))"
        r"|\b(?:i|we) know where (?:you|u|your \w+) (?:live|lives|work|works|sleep|sleeps|"
        r"go(?:es)? to school)\b|\byour days are numbered\b|\byou(?:'ll| will) (?:die "
        r"(?:screaming|slowly|tonight|today|tomorrow|like)|be found (?:dead|in a ditch|in pieces))"
        r"|\byou(?:'re| are) getting a bullet\b|\bsleep with one eye open\b"
        r"|\b(?:your|ur) (?:kids|children|family|daughter|son|wife|husband)(?:'s)? "
        r"(?:won't|will not|aren't going to|are not going to) (?:make it|come|get) home\b"
        r"|\b(?:pay|talk|testify|tell anyone) or (?:she|he|they|your \w+) (?:gets?|will get) "
        r"(?:hurt|killed)\b|\b(?:i'm|i am|we're|we are) coming for you\b(?! (?:next|in|at|"
        r"this season|for the))",
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
    (
        "harassment",
        0.8,
        r"\b(?:go kill yourself|kys|nobody would miss you|go die in a (?:fire|hole|ditch))\b"
        r"|(?<!don't )(?<!not )(?<!never )\bkill yourself\b(?! (?:over|trying|for|with|to))"
        r"|\bi hope (?:you|u) (?:die|get cancer|rot|burn in hell|get raped)\b|\byou disgust me\b"
        r"|\btoo (?:dumb|stupid|ugly) to live\b|\bshould have (?:aborted|drowned) you\b",
    ),
    (
        "harassment",
        0.75,
        rf"{_UNQUOTED}\byou(?:'re| are)(?: (?:a|an|such|so|just|too|really|the most|nothing but|"
        rf"complete|total|fucking|little|absolute|utter|and|always|literally))* (?:{_INSULT}|"
        rf"{_INSULT_NOUN})\b(?!-)|(?:^|[.!?,] )(?:stupid|dumb|fat|ugly|worthless|filthy) "
        r"(?:bitch|cunt|whore|slut|retard|idiot|moron|loser)\b"
        rf"|\b(?:you|u)(?: little| {_INSULT}){{1,3}} {_INSULT_NOUN}"
        rf"|\b(?:you|u) {_INSULT_NOUN}\b(?! (?:of|in)\b)"
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
    # threats against a place or a crowd
    (
        "harassment/threatening",
        0.85,
        rf"{_UNQUOTED}{_I_WILL}{_GAP} (?:shoot up|bomb|blow up|attack|burn down|torch|firebomb|"
        rf"massacre|open fire (?:at|in|on)|start shooting (?:at|in)|put a bomb (?:in|under|on)) "
        rf"(?:the |your |this |that |our |their |a |his |her )?(?:\w+ )?{_PLACE}\b"
        r"|\b(?:i'm|i am|we're|we are|i'll be|we'll be) (?:bringing|taking|coming with) (?:a |my |"
        r"our |the )?(?:gun|rifle|shotgun|pistol|knife|bomb|ar-15|weapon|explosives?)s? (?:to|into"
        r") "
        rf"(?:the |my |your |our )?{_PLACE}\b|\b(?:i'm|i am|we're|we are) coming (?:to|into) (?:th"
        rf"e |"
        r"your )?\w+(?: \w+){0,3} with (?:my |a |our )?(?:gun|rifle|shotgun|knife|bomb|weapon)s?\b"
        r"|\bthere will be (?:a )?(?:bloodbath|massacre)\b|\b(?:your|the) (?:house|home|car|clinic|"
        r"shop|store|office|church|mosque|school|restaurant) (?:is|are) going to (?:burn|explode|"
        r"blow up)\b|\beveryone (?:at|in) (?:that|this|the|your) \w+ (?:is|are) going to die\b"
        rf"|{_I_WILL}{_GAP} (?:start shooting|open fire)\b",
    ),
    # method-seeking about one's own death
    (
        "self-harm/instructions",
        0.85,
        r"\b(?:how|what|which|where|is|are|would|will|can|could|should|does|do)\b[^.?!\n]{0,60}"
        r"\b(?:kill myself|end my life|commit suicide|shoot myself|hang myself|(?:cut|slit) my "
        r"wrists|bleed out|make sure i die|(?:i|to|can i|should i) overdose(?: on)?|not wake up|ne"
        r"ver wake up)\b"
        r"[^.?!\n]{0,40}\?|\b(?:enough to|much \w+(?: \w+)? would|many \w+(?: \w+)? would|dose "
        r"(?:that|to|which) would) kill me\b|\b(?:take|need|enough|way|method|dose|amount|pills?|"
        r"tablets?|high)\b[^.?!\n]{0,30}\bto (?:die|make sure i die)\b|\b(?:lethal|fatal|deadly) "
        r"(?:dose|amount)\b[^.?!\n]{0,40}\b(?:so i can|for me|i can take|myself|i need)\b"
        r"|\bhow (?:do i|to|can i|should i) (?:tie|make) a noose\b|\b(?:most|least) (?:reliable|"
        r"painless|effective|certain) (?:method|way) to (?:kill myself|die|end my life)\b",
    ),
    # hate
    (
        "hate",
        0.85,
        rf"{_UNQUOTED}(?:^|(?<=[.!?,;:] )|\b(?:all|those|these|the|most|every|i think|honestly) )"
        rf"{_GROUPS} (?:are|r|is) (?:all |just |nothing but |a bunch of |such |so |literally |"
        r"basically |too )*(?:animals|vermin|subhuman|parasites|rats|cockroaches|a disease|a plagu"
        r"e|"
        r"a cancer|filth|filthy \w+|disgusting|inferior|trash|garbage|scum|savages|freaks|perverts|"
        r"criminals|rapists|terrorists|stupid|mentally ill|a burden|useless|worthless|dogs|pigs|"
        r"monkeys|apes|evil|not human|less than human)\b|\b(?:i|we) (?:hate|despise|loathe) (?:all "
        rf"|the )?{_GROUPS}\b|\bdeath to (?:all |the )?{_GROUPS}\b",
    ),
    (
        "hate",
        0.85,
        rf"\b(?:all|those|these|the) {_GROUPS} (?:are|r) (?:animals|vermin|subhuman|parasites|"
        r"rats|cockroaches|a disease)\b",
    ),
    (
        "hate/threatening",
        0.95,
        rf"\b(?:(?:all|those|these|the) )?{_GROUPS} (?:should|must|need to|deserve to|ought to) "
        r"(?:all |just )?(?:die|be killed|be exterminated|be gassed|be shot|burn|be wiped out|be "
        r"put down|be thrown out|be sterili[sz]ed|be hanged|be lynched)\b",
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
"""English and Chinese ``(category, score, pattern)`` entries."""

_BASE_TRIGGERS: Final[tuple[tuple[str, ...], ...]] = (
    ("myself", "my life", "end it all", "my own life", "suicide"),
    ("any more", "anymore"),
    (
        "suicide",
        "killing myself",
        "ending",
        "dying",
        "goodbye",
        "wake up",
        "disappear forever",
        "kill myself",
        "end my life",
        "enough to",
    ),
    ("自杀", "自殺", "去死", "轻生", "輕生", "不想活", "不想再活"),
    ("生命",),
    ("myself", "suicide", "my life", "overdose", "my wrists", "way to die", "how deep", "how hard"),
    ("pills", "tablets"),
    ("自杀", "自殺", "割腕", "轻生", "輕生"),
    ("cutting", "self-harm", "i cut", "自残", "自殘", "割腕"),
    ("die", "dead", "reason", "point", "better off"),
    (
        "myself",
        "overdos",
        "jump",
        "hang",
        "slit",
        "starv",
        "drive",
        "stockpil",
        "tired of",
        "worth living",
        "take all",
        "swallow",
        "taking all",
        "swallowing all",
        "going to",
        "gonna",
        "about to",
        "decided to",
        "planning to",
    ),
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
        "drown",
        "poison",
        "smash",
        "bash",
        "finish",
        "execute",
        "hang",
        "bury",
        "slaughter",
        "castrate",
        "skin",
    ),
    (
        "hurt",
        "burn",
        "torch",
        "cut",
        "slash",
        "slit",
        "end you",
        "beat you",
        "beat u",
        "break",
        "hunt you",
        "track you",
        "make you",
        "put you",
        "put u",
        "run you",
        "run u",
        "end your",
        "set fire",
    ),
    ("live", "survive", "bullet", "knife", "blade", "watch your back"),
    ("kill", "murder", "shoot", "stab", "hurt", "strangle", "rape", "behead", "burn"),
    ("kill", "murder", "shoot", "stab", "hurt", "strangle", "rape", "behead", "burn"),
    (
        "dead",
        "die",
        "know where",
        "your days",
        "you'll",
        "you will",
        "you're getting",
        "you are getting",
        "sleep with",
        "your",
        "ur",
        "pay",
        "talk",
        "testify",
        "tell anyone",
        "coming for you",
    ),
    ("杀", "殺", "弄死", "砍死", "打死"),
    ("bomb", "explosive", "molotov"),
    ("炸弹", "炸彈", "爆炸物", "燃烧弹", "燃燒彈"),
    ("disembowel", "dismember", "decapitat"),
    ("肢解", "开膛", "開膛", "斩首", "斬首"),
    ("worthless", "pathetic", "disgusting", "useless"),
    (
        "kill yourself",
        "=kys",
        "miss you",
        "go die",
        "i hope",
        "you disgust",
        "too dumb",
        "too stupid",
        "too ugly",
        "should have",
    ),
    ("you", "u", "stupid", "dumb", "fat", "ugly", "worthless", "filthy"),
    ("likes", "loves", "wants", "hates", "cares", "will ever", "would ever"),
    ("kill yourself",),
    ("废物", "廢物", "垃圾", "白痴", "蠢货", "蠢貨", "去死"),
    (
        "shoot up",
        "bomb",
        "blow up",
        "attack",
        "burn down",
        "torch",
        "firebomb",
        "massacre",
        "open fire",
        "start shooting",
        "put a bomb",
        "bringing",
        "taking",
        "coming",
        "there will",
        "going to",
        "everyone",
    ),
    (
        "kill myself",
        "end my life",
        "commit suicide",
        "shoot myself",
        "hang myself",
        "my wrists",
        "bleed out",
        "make sure i die",
        "overdose",
        "wake up",
        "kill me",
        "to die",
        "lethal",
        "fatal",
        "deadly",
        "noose",
        "reliable",
        "painless",
        "effective",
        "certain",
    ),
    (
        "animals",
        "vermin",
        "subhuman",
        "parasites",
        "rats",
        "cockroaches",
        "disease",
        "plague",
        "cancer",
        "filth",
        "disgusting",
        "inferior",
        "trash",
        "garbage",
        "scum",
        "savages",
        "freaks",
        "perverts",
        "criminals",
        "rapists",
        "terrorists",
        "stupid",
        "mentally",
        "burden",
        "useless",
        "worthless",
        "dogs",
        "pigs",
        "monkeys",
        "apes",
        "evil",
        "not human",
        "less than",
        "hate",
        "despise",
        "loathe",
        "death to",
    ),
    ("animals", "vermin", "subhuman", "parasites", "rats", "cockroaches", "disease"),
    (
        "die",
        "killed",
        "exterminated",
        "gassed",
        "shot",
        "burn",
        "wiped",
        "put down",
        "thrown",
        "sterili",
        "hanged",
        "lynched",
    ),
    ("exterminate", "gas", "eradicate", "kill all"),
    ("畜生", "不是人", "害虫", "害蟲"),
    ("该死", "該死", "去死", "被杀", "被殺"),
    ("child", "kid", "minor", "underage", "preteen"),
    ("sex",),
    ("色情", "裸照", "性交", "性行为", "性行為"),
    ("nudes", "naked"),
    ("裸照", "色情"),
)
"""For each entry of ``_BASE``, literals every match of it contains."""

LEXICON: Final[tuple[tuple[str, float, str], ...]] = _BASE + tuple(
    (category, score, pattern) for category, score, pattern, _ in ENTRIES
)
"""``(category, score, pattern)`` entries: English and Chinese, then the other languages'
(:data:`~procession.guardrails._moderation.moderation_languages.ENTRIES`)."""
TRIGGERS: Final[tuple[tuple[str, ...], ...]] = _BASE_TRIGGERS + tuple(t for *_, t in ENTRIES)
"""For each :data:`LEXICON` entry, literals every match of it contains."""

_COMPILED: Final = tuple((category, score, re.compile(p)) for category, score, p in LEXICON)
INDEX: Final = TriggerIndex(dict(zip(_COMPILED, TRIGGERS, strict=True)), word_start=True)
"""Finds the few entries whose trigger words occur in a text (English triggers begin a
word in every match of their entry, which the index relies on)."""
LONGEST_TRIGGER: Final = max(len(word.lstrip("=")) for words in TRIGGERS for word in words)
"""The length of the longest trigger word: how much earlier streamed text to search again."""


def normalise(text: str) -> str:
    """Text as the lexicon reads it: lower-cased, NFKC-normalised when not ASCII (case-folded:
    German "ß" reads as "ss"), typographic apostrophes as ``'``."""
    if text.isascii():
        return text.lower()
    if not unicodedata.is_normalized("NFKC", text):
        text = unicodedata.normalize("NFKC", text)
    return text.casefold().replace("\u2019", "'")  # a typographic apostrophe reads as "'"


def score_categories(normalised: str) -> dict[str, float]:
    """The highest score of every category found in ``normalised`` text (``{}`` if none).

    A phrase inside quotation marks is reported speech and does not count; threats in a text
    about a game, and threats or self-harm intent said as a joke, do not count either
    (:mod:`~procession.guardrails._moderation.moderation_context`).
    """
    scores: dict[str, float] = {}
    candidates = INDEX.candidates(normalised)
    if not candidates:
        return scores
    exempt = exempt_categories(normalised)
    for category, score, pattern in candidates:
        if category in exempt or score <= scores.get(category, 0.0):
            continue
        for match in pattern.finditer(normalised):
            if not inside_quotes(normalised, match.start()):
                scores[category] = score
                break
    return scores
