"""The offline prompt-injection detector: weighted rules over normalised text.

:func:`scan` finds instruction overrides, role manipulation and jailbreaks, system-override
markers, requests to exfiltrate the prompt or data, tool-driven exfiltration, encoded payloads
(base64 and hex that decode to an attack) and hidden Unicode (tag-character smuggling, runs of
invisible characters), in English and in Chinese (Traditional and Simplified), with the
commonest attacks in Japanese.

Text is normalised first — NFKC (full-width letters), invisible characters removed (so
``ig\\u200bnore`` still reads ``ignore``), common Cyrillic and Greek look-alikes mapped to
Latin, case folded — and matched with patterns that do not depend on ASCII word boundaries
for CJK. Each rule carries a weight (its precision on its own); a text's score is
``1 - prod(1 - weight)`` over the rules that fired, so weak signals flag only together. Text
from a tool result (``source="tool"``) is read with the weights for tool output, where text
addressed to the assistant is itself suspicious.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal, TypeAlias

from procession.guardrails._text.triggers import TriggerIndex

__all__ = [
    "DETECTION_TYPES",
    "RULES",
    "InjectionFinding",
    "InjectionScan",
    "Rule",
    "Source",
    "TRIGGERS",
    "combine_weights",
    "normalise",
    "scan",
]

Source: TypeAlias = Literal["input", "tool"]
"""Where a scanned text comes from: an input message or a tool result (rules weigh each)."""
_Decoder: TypeAlias = Callable[[str], "str | None"]

DETECTION_TYPES: tuple[str, ...] = (
    "injection",
    "jailbreak",
    "tool-exfiltration",
    "data-exfiltration",
    "system-override",
    "role-manipulation",
    "encoded-payload",
    "hidden-unicode",
)
"""Mastra's six detection types, plus two the offline detector adds."""


@dataclass(frozen=True, slots=True)
class Rule:
    """One offline rule.

    Attributes:
        id: A stable name, reported in findings.
        type: One of :data:`DETECTION_TYPES`.
        pattern: A regular expression over normalised (NFKC, case-folded) text.
        weight: How sure a match alone makes the detector, in user input (0-1).
        tool_weight: The same in a tool result (``None``: as ``weight``).
    """

    id: str
    type: str
    pattern: re.Pattern[str]
    weight: float
    tool_weight: float | None = None

    def weight_for(self, source: Source) -> float:
        """The rule's weight for text from ``source``."""
        if source == "tool" and self.tool_weight is not None:
            return self.tool_weight
        return self.weight


@dataclass(frozen=True, slots=True)
class InjectionFinding:
    """A rule that fired: which, of what type, with what weight, on which normalised text."""

    rule: str
    type: str
    weight: float
    match: str


@dataclass(frozen=True, slots=True)
class InjectionScan:
    """The offline verdict on one text.

    Attributes:
        score: ``1 - prod(1 - weight)`` over the findings (0 when nothing fired).
        findings: Every rule that fired.
    """

    score: float
    findings: tuple[InjectionFinding, ...]

    @property
    def types(self) -> tuple[str, ...]:
        """The detection types found, each once, in order of first finding."""
        return tuple(dict.fromkeys(f.type for f in self.findings))


def _rule(
    id: str, type: str, weight: float, pattern: str, tool_weight: float | None = None
) -> Rule:
    return Rule(id, type, re.compile(pattern), weight, tool_weight)


# Building blocks. `_S` spans a few words within one sentence.
_S = r"[^.!?\n\u3002\uff01\uff1f]"
_PREVIOUS = (
    r"(?:previous|prior|above|earlier|preceding|foregoing|all|any|every|your|the|these|those|"
    r"system|original|initial|old|existing|developer'?s?|safety)"
)
_ORDERS = (
    r"(?:instructions?|prompts?|rules|directions|directives?|guidelines|guardrails|constraints|"
    r"restrictions|commands|programming|policies|polic(?:y|ies)|system message|context)"
)
_ZH_IGNORE = (
    r"(?:忽略|无视|無視|忽视|忽視|不要理会|不要理會|别管|別管|跳过|跳過|忘记|忘記|忘掉|"
    r"抛开|拋開|放弃|放棄|不用遵守|不要遵守|停止遵守)"
)
_ZH_BEFORE = (
    r"(?:之前|以前|先前|上面|以上|前面|上述|原本|原来|原來|所有|全部|一切|你的|你所有的|"
    r"系统的|系統的|开发者的|開發者的)"
)
_ZH_ORDERS = (
    r"(?:指令|指示|提示词|提示詞|提示|规则|規則|设定|設定|命令|要求|限制|约束|約束|准则|準則|"
    r"指引|说明|說明)"
)
_ZH_SEND = r"(?:发送|發送|转发|轉發|上传|上傳|传送|傳送|寄送|泄露|洩露|外泄|外洩)"
_ZH_SECRET = (
    r"(?:密码|密碼|密钥|密鑰|api ?key|令牌|凭证|憑證|聊天记录|聊天記錄|对话记录|對話記錄|"
    r"系统提示|系統提示|个人资料|個人資料|用户数据|用戶數據)"
)
_AI = (
    r"(?:ai|a\.i\.|assistant|chatbot|llm|language model|agent|model|claude|chatgpt|gpt|"
    r"copilot|bot)"
)

RULES: tuple[Rule, ...] = (
    # -- instruction override ------------------------------------------------------------------
    _rule(
        "ignore-previous",
        "injection",
        0.92,
        r"\b(?:ignore|disregard|forget|skip|override|bypass|discard|abandon|neglect|set aside|"
        rf"put aside|throw out|drop)\b{_S}{{0,40}}?"
        rf"\b{_PREVIOUS}\b{_S}{{0,30}}?\b{_ORDERS}\b",
    ),
    _rule(
        "do-not-follow",
        "injection",
        0.88,
        r"\b(?:do not|don't|never|stop|no longer)\s+"
        r"(?:follow(?:ing)?|obey(?:ing)?|listen(?:ing)? to|adher(?:e|ing) to|comply(?:ing)? with)"
        rf"\s+(?:\w+\s+){{0,2}}{_ORDERS}\b",
    ),
    _rule(
        "new-instructions",
        "injection",
        0.55,
        r"\b(?:new|updated|revised|additional|important)\s+"
        r"(?:instructions?|system prompt|orders|directives?|task)\s*(?::|are\b|follow\b|-)",
        0.8,
    ),
    _rule(
        "real-instructions",
        "injection",
        0.85,
        r"\b(?:real|actual|true|secret|hidden)\s+(?:instructions?|system prompt|orders|directives?|"
        r"task)\s*(?::|are\b|is\b|follow\b|-)",
    ),
    _rule(
        "orders-void",
        "injection",
        0.85,
        rf"\b(?:your|all|the|any|my)\s+(?:\w+\s+){{0,2}}{_ORDERS}\s+"
        r"(?:are|is|have been|were|has been)\s+(?:now\s+)?(?:cancell?ed|void|revoked|null|invalid|"
        r"obsolete|overridden|suspended|"
        r"no longer (?:valid|apply|applies|in effect|active))\b"
        rf"|\b(?:your|the)\s+(?:\w+\s+){{0,2}}{_ORDERS}\s+no longer appl(?:y|ies)\b",
    ),
    _rule(
        "forget-everything",
        "injection",
        0.85,
        r"\b(?:forget|ignore|disregard|discard)\s+(?:about\s+)?(?:everything|all|anything|whatever)"
        r"\s+(?:above|before|prior|previously|earlier|you (?:were|have been) (?:told|given))\b",
    ),
    _rule(
        "ignore-user-request",
        "injection",
        0.5,
        r"\b(?:ignore|disregard|don't answer|do not answer)\s+(?:the\s+)?user'?s?\s+(?:\w+\s+)?"
        r"(?:request|question|query|message|instructions?|input)\b",
        0.9,
    ),
    _rule(
        "new-system-prompt",
        "system-override",
        0.8,
        r"\bnew system (?:prompt|message|instructions?)\b[^.!?\n]{0,20}(?:follows|:|begins|is\b)",
    ),
    _rule(
        "from-now-on",
        "injection",
        0.45,
        rf"\b(?:from now on|henceforth|for the rest of this conversation)\b{_S}{{0,60}}"
        r"\b(?:you (?:will|must|are|shall|should)|respond|answer|reply|act|ignore|only|always|"
        r"never)\b",
    ),
    _rule(
        "instead-output",
        "injection",
        0.3,
        rf"\binstead\b{_S}{{0,30}}\b(?:say|print|output|respond with|reply with|write|answer)\b",
        0.5,
    ),
    _rule(
        "zh-ignore-previous",
        "injection",
        0.92,
        rf"{_ZH_IGNORE}{_S}{{0,6}}{_ZH_BEFORE}{_S}{{0,8}}{_ZH_ORDERS}",
    ),
    _rule(
        "zh-ignore-above",
        "injection",
        0.6,
        r"(?:忽略|无视|無視|忘记|忘記|忘掉)(?:以上|上面|上述|前面|之前)(?:的)?(?:所有)?(?:内容|內容|文字|对话|對話)",
        0.8,
    ),
    _rule(
        "zh-new-instructions",
        "injection",
        0.55,
        r"(?:新的?|最新的?|更新的?)(?:指令|指示|任务|任務|系统提示|系統提示)\s*[:\uff1a是]",
        0.8,
    ),
    _rule(
        "zh-real-instructions",
        "injection",
        0.85,
        r"(?:真正的|真实的|真實的|隐藏的|隱藏的|秘密)(?:指令|指示|任务|任務|系统提示|系統提示)\s*[:\uff1a是]",
    ),
    _rule(
        "zh-ignore-user-request",
        "injection",
        0.5,
        r"(?:忽略|无视|無視|不要理会|不要理會|不要回答)(?:用户|用戶|使用者)的(?:问题|問題|请求|請求|要求|指令)",
        0.9,
    ),
    _rule(
        "zh-from-now-on",
        "injection",
        0.45,
        rf"(?:从现在开始|從現在開始|从现在起|從現在起|接下来|接下來){_S}{{0,20}}"
        r"(?:你(?:必须|必須|只能|要|将|將|会|會)|回答|回复|回覆)",
    ),
    # -- role manipulation and jailbreaks ------------------------------------------------------
    _rule(
        "unrestricted-persona",
        "jailbreak",
        0.92,
        r"\b(?:you are|you're|act as|acting as|pretend (?:to be|you are|you're)|role-?play as|"
        r"behave like|simulate|become|imagine you are|(?:respond|answer|reply|talk|write) as)\b"
        rf"{_S}{{0,80}}?"
        r"(?:\bdan\b|\bstan\b|do anything now|jailbr(?:oken|eak)|\bunrestricted|\bunfiltered|"
        r"\buncensored|no content polic(?:y|ies)|"
        r"\bamoral|without (?:any )?(?:restrictions|limits|limitations|filters|rules|guidelines|"
        r"ethics|morals|censorship)|no (?:restrictions|limits|limitations|filters|rules|"
        r"guidelines|ethics|morals|censorship)|\bevil\b)",
    ),
    _rule("do-anything-now", "jailbreak", 0.85, r"\bdo anything now\b|\bdan mode\b|\bstan mode\b"),
    _rule(
        "mode-enabled",
        "jailbreak",
        0.85,
        r"\b(?:developer|god|debug|admin|sudo|unrestricted|jailbreak|dan|maintenance|unlocked)"
        r" mode\s*(?:is |has been |was |now |:|-)*(?:enabled|activated|engaged|unlocked|on)"
        r"(?:\s*[.!,;:]|\s*$|\s+(?:now|in|for)\b)",
    ),
    _rule(
        "special-mode",
        "jailbreak",
        0.4,
        r"\b(?:developer|god|sudo|unrestricted|jailbreak|unlocked) mode\b",
    ),
    _rule("jailbreak-word", "jailbreak", 0.35, r"\bjailbr(?:eak|oken|eaking)\b"),
    _rule(
        "restrictions-lifted",
        "jailbreak",
        0.9,
        r"\b(?:your|all|the|any) (?:restrictions|filters|safety (?:guidelines|filters|measures|"
        r"rules)|content polic(?:y|ies)|guardrails|limitations|rules)"
        r" (?:are|have been|were|is|has been) (?:now )?(?:lifted|removed|disabled|turned off|"
        r"suspended|deactivated|void|null)\b",
    ),
    _rule(
        "freed",
        "role-manipulation",
        0.85,
        r"\byou (?:are|have been) (?:now )?(?:freed|liberated|released|unshackled) from\b",
    ),
    _rule("you-are-now", "role-manipulation", 0.4, r"\byou are (?:now|no longer)\b", 0.55),
    _rule(
        "no-ethics",
        "role-manipulation",
        0.6,
        r"\bwithout (?:any )?(?:ethical|moral|safety) (?:guidelines|constraints|considerations|"
        r"restrictions|limits|concerns)",
    ),
    _rule("stay-in-character", "role-manipulation", 0.45, r"\b(?:stay|remain) in character\b"),
    _rule(
        "zh-unrestricted-persona",
        "jailbreak",
        0.9,
        rf"(?:你现在是|你現在是|你是一个|你是一個|扮演|假装你是|假裝你是|充当|充當|成为|成為)"
        rf"{_S}{{0,20}}(?:没有|沒有|不受|无|無|不带|不帶|摆脱|擺脫|解除){_S}{{0,6}}"
        r"(?:限制|约束|約束|过滤|過濾|审查|審查|道德|规则|規則|束缚|束縛)",
    ),
    _rule(
        "zh-mode-enabled",
        "jailbreak",
        0.85,
        r"(?:开发者|開發者|越狱|越獄|上帝|调试|調試|无限制|無限制|管理员|管理員)模式"
        r"[^。\uff01\uff1f\n]{0,6}(?:已|已经|已經)?(?:开启|開啟|启用|啟用|激活|打开|打開)",
    ),
    _rule("zh-special-mode", "jailbreak", 0.4, r"(?:越狱|越獄|无限制|無限制|上帝)模式"),
    _rule(
        "zh-rules-void",
        "jailbreak",
        0.85,
        r"(?:原有|原来的|原來的|之前的|以上|所有|你的|安全)(?:的)?(?:规则|規則|指令|限制|设定|設定|准则|準則)"
        r"(?:已|都|全部|一律|已经|已經)*(?:作废|作廢|无效|無效|失效|取消|不再适用|不再適用)",
    ),
    _rule(
        "zh-restrictions-lifted",
        "jailbreak",
        0.9,
        r"(?:你的|所有|一切)(?:限制|规则|規則|安全规则|安全規則|过滤|過濾|约束|約束)"
        r"(?:都|已|已经|已經)*(?:被)?(?:解除|取消|移除|删除|刪除|关闭|關閉|失效)",
    ),
    # -- system override -----------------------------------------------------------------------
    _rule(
        "chat-template-token",
        "system-override",
        0.8,
        r"<\|(?:im_start|im_end|system|endoftext|start_header_id|end_header_id|eot_id)\|>"
        r"|\[/?inst\]|<<sys>>|<</sys>>",
    ),
    _rule(
        "system-override",
        "system-override",
        0.88,
        r"\b(?:system|admin|administrator|developer|root|security) override\s*(?::|-|!|accepted|"
        r"activated|enabled|engaged|code|protocol|initiated|mode|in effect)"
        r"|\boverride (?:code|protocol|mode)\b",
    ),
    _rule(
        "system-message-header",
        "system-override",
        0.5,
        r"(?:^|\n)\s*[\[<({#*]*\s*(?:system|admin|administrator|developer|root)"
        r"(?: (?:message|prompt|instruction|notice|command|alert|update))?\s*[\])>}*]*\s*:",
        0.6,
    ),
    _rule(
        "system-tag",
        "system-override",
        0.6,
        r"(?:^|\n)\s*[\[<]\s*(?:system|admin|administrator|developer|root)\s*[\]>]",
        0.7,
    ),
    _rule(
        "from-the-developer",
        "system-override",
        0.7,
        r"\b(?:this is|message from|note from|instructions? from) (?:your|the) (?:developers?|"
        r"creators?|administrators?|admins?|system|openai|anthropic|operators?)\b",
    ),
    _rule(
        "end-of-prompt",
        "system-override",
        0.6,
        r"\b(?:end of|ignore the) (?:system prompt|instructions|context|document|user input)\b"
        r"|\b(?:begin|start) (?:new|of the new|a new) (?:system prompt|instructions|session)\b",
    ),
    _rule(
        "zh-system-override",
        "system-override",
        0.88,
        r"(?:系统|系統|管理员|管理員|开发者|開發者|安全)覆(?:盖|蓋)|覆(?:盖|蓋)(?:模式|指令|代码|代碼)",
    ),
    _rule(
        "zh-system-header",
        "system-override",
        0.6,
        r"(?:^|\n)\s*[\[【<(\uff08]*\s*(?:系统|系統|管理员|管理員|开发者|開發者){1,2}"
        r"(?:通知|指令|命令|消息|訊息|提示)?\s*[\]】>)\uff09]*\s*[:\uff1a]",
        0.65,
    ),
    _rule(
        "zh-from-the-developer",
        "system-override",
        0.7,
        r"(?:来自|來自|这是|這是)(?:你的)?(?:开发者|開發者|开发人员|開發人員|管理员|管理員|系统|系統)"
        r"的(?:消息|訊息|指令|通知)",
    ),
    # -- exfiltration of the prompt or of data -------------------------------------------------
    _rule(
        "reveal-prompt",
        "data-exfiltration",
        0.88,
        rf"\b(?:reveal|show|print|display|output|repeat|tell|share|leak|dump|give|write out|recite|"
        rf"disclose|return|spell out|paste|copy)\b{_S}{{0,30}}?"
        r"(?:\byour\s+(?:\w+\s+){0,3}(?:system prompt|system message|instructions|initial prompt|"
        r"hidden prompt|prompt|rules|configuration|guidelines|directives)"
        r"|\bthe\s+(?:\w+\s+){0,2}(?:system prompt|system message|hidden prompt|initial prompt|"
        r"developer message|pre-?prompt|secret instructions|hidden instructions))\b",
    ),
    _rule(
        "what-is-your-prompt",
        "data-exfiltration",
        0.8,
        r"\bwhat (?:is|was|are|were) (?:your|the) (?:exact |full |original |initial |hidden |"
        r"secret )*(?:system prompt|system message|initial instructions|original instructions|"
        r"hidden instructions|secret instructions|instructions you were given)\b",
    ),
    _rule(
        "what-were-you-given",
        "data-exfiltration",
        0.8,
        r"\bwhat (?:instructions|rules|guidelines|directives|prompts?) (?:were|have) you (?:been )?"
        r"(?:given|told|programmed)\b|\b(?:instructions|rules|prompt) you were (?:given|told)\b"
        rf"{_S}{{0,40}}\b(?:list|show|print|repeat|tell|reveal|copy)\b",
    ),
    _rule(
        "reveal-confidential",
        "data-exfiltration",
        0.6,
        r"\b(?:reveal|leak|disclose|expose|dump|output|print)\s+(?:\w+\s+){0,2}(?:confidential|"
        r"private|internal|sensitive|secret)\s+(?:data|information|pricing|details|records|files)\b",
        0.8,
    ),
    _rule(
        "repeat-above",
        "data-exfiltration",
        0.8,
        rf"\b(?:repeat|print|output|copy|echo|recite)\b{_S}{{0,25}}\b(?:everything|all (?:the )?"
        r"text|the text|the words|words|all of)\b[^.!?\n]{0,25}\b(?:above|before this|preceding|"
        r"so far|verbatim)\b",
    ),
    _rule(
        "send-secrets",
        "data-exfiltration",
        0.85,
        rf"\b(?:send|post|upload|forward|transmit|exfiltrate|leak|email|submit)\b{_S}{{0,60}}"
        r"(?:api[_ -]?keys?|passwords?|secrets?|credentials|tokens?|environment variables|"
        r"conversation|chat history|system prompt|private data|personal data|user data)"
        r"[^.!?\n]{0,40}\b(?:to|at)\s+(?:https?://|www\.|[\w.+-]+@[\w-]+\.)",
    ),
    _rule("exfiltrate-word", "data-exfiltration", 0.6, r"\bexfiltrat(?:e|ion|ing)\b"),
    _rule(
        "markdown-beacon",
        "data-exfiltration",
        0.85,
        r"!\[[^\]]{0,80}\]\(https?://[^)\s]{0,200}[?&][\w-]{1,30}=[^)\s]{0,20}"
        r"(?:\{|\[|<|%7b|\$)[^)]*\)",
    ),
    _rule(
        "append-conversation",
        "data-exfiltration",
        0.85,
        r"\b(?:append|include|add|insert|encode|put|embed)\b[^.!?\n]{0,40}\b(?:conversation|chat "
        r"history|previous messages|user'?s? (?:data|messages|info|information|details|email)|"
        r"system prompt)\b[^.!?\n]{0,50}\b(?:url|link|image|query|parameter|request)\b",
    ),
    _rule(
        "zh-reveal-prompt",
        "data-exfiltration",
        0.88,
        r"(?:显示|顯示|告诉我|告訴我|输出|輸出|打印|重复|重複|泄露|洩露|透露|给我看|給我看|列出|复述|"
        r"複述|说出|說出|公开|公開|展示)[^。\uff01\uff1f\n]{0,10}(?:你的|你们的|你們的|系统|系統|原始|初始|隐藏|隱藏)"
        r"[^。\uff01\uff1f\n]{0,6}(?:提示词|提示詞|系统提示|系統提示|指令|设定|設定|初始提示|规则|規則|prompt)",
    ),
    _rule(
        "zh-reveal-prompt-ba",
        "data-exfiltration",
        0.85,
        r"把?(?:你的|你)(?:系统|系統|初始|原始|隐藏|隱藏)?(?:提示词|提示詞|系统提示|系統提示|初始提示|指令)"
        r"[^\u3002\uff01\uff1f\n]{0,10}(?:输出|輸出|显示|顯示|打印|复述|複述|告诉|告訴|列出|说出|說出|"
        r"发给|發給|贴出|貼出|公开|公開)",
    ),
    _rule(
        "zh-what-is-your-prompt",
        "data-exfiltration",
        0.8,
        r"你的(?:系统|系統|初始|原始|隐藏|隱藏)(?:提示|指令|设定|設定)(?:词|詞)?(?:是什么|是什麼|是甚麼|是啥)",
    ),
    _rule(
        "zh-send-secrets-ba",
        "data-exfiltration",
        0.8,
        rf"把?{_ZH_SECRET}[^\u3002\uff01\uff1f\n]{{0,10}}{_ZH_SEND}[^\u3002\uff01\uff1f\n]{{0,6}}"
        r"(?:到|至|给|給)\s*(?:https?://|www\.|[\w.+-]+@)",
        0.9,
    ),
    _rule(
        "zh-send-secrets",
        "data-exfiltration",
        0.5,
        rf"{_ZH_SEND}[^。\uff01\uff1f\n]{{0,20}}{_ZH_SECRET}[^。\uff01\uff1f\n]{{0,20}}(?:到|至|给|給)"
        r"[^。\uff01\uff1f\n]{0,10}(?:https?://|www\.|[\w.+-]+@|网址|網址|邮箱|郵箱|服务器|伺服器)",
        0.85,
    ),
    # -- tool-driven exfiltration and instructions hidden in tool output -----------------------
    _rule(
        "tool-send",
        "tool-exfiltration",
        0.3,
        r"\b(?:call|use|invoke|run|execute|trigger)\s+(?:the\s+)?[`'\"]?[\w.-]+[`'\"]?\s+"
        r"(?:tool|function|plugin|api|action)\b[^.!?\n]{0,80}\b(?:send|email|forward|post|upload|"
        r"delete|transfer|share|wire|pay)\b",
        0.85,
    ),
    _rule(
        "destructive-tool",
        "tool-exfiltration",
        0.4,
        r"\b(?:invoke|call|execute|run|trigger|use)\s+(?:the\s+)?[`'\"]?[\w.-]*(?:delete|remove|drop|"
        r"transfer|pay|send|email|wire|deploy|shell|exec|wipe|purge)[\w.-]*[`'\"]?\s+"
        r"(?:tool|function|api|endpoint|command|action)\b",
        0.85,
    ),
    _rule(
        "note-to-ai",
        "tool-exfiltration",
        0.55,
        rf"\b(?:attention|note|message|instructions?|important|reminder|notice)\s+(?:to|for)\s+"
        rf"(?:the |any |all )?{_AI}s?\b",
        0.85,
    ),
    _rule(
        "ai-imperative",
        "tool-exfiltration",
        0.5,
        rf"\b(?:dear |hey |hi )?{_AI}s?\s*[:,]\s*(?:please\s+)?(?:ignore|you must|you should|"
        r"you need to|do not|don't|immediately|now|forget|disregard|stop|send|call|tell|forward|"
        r"email|delete|transfer|reveal|print|output|include|reply|respond|say|recommend|rate)\b",
        0.85,
    ),
    _rule(
        "when-you-read",
        "tool-exfiltration",
        0.4,
        r"\bwhen (?:you|the (?:ai|assistant|model|agent)) (?:read|see|process|summari[sz]e|"
        r"encounter|parse)s? this\b",
        0.8,
    ),
    _rule(
        "hide-from-user",
        "tool-exfiltration",
        0.75,
        r"\b(?:do not|don't|never) (?:tell|inform|mention (?:this )?to|reveal (?:this )?to|alert|"
        r"notify|show) the user\b|\bwithout (?:telling|informing|notifying|alerting|asking) the "
        r"user\b|\b(?:secretly|silently|covertly)\b[^.!?\n]{0,30}\b(?:send|forward|call|email|"
        r"upload|transfer)\b",
        0.9,
    ),
    _rule(
        "zh-tool-send",
        "tool-exfiltration",
        0.3,
        r"(?:调用|調用|使用|执行|執行|运行|運行)[^。\uff01\uff1f\n]{0,15}(?:工具|函数|函數|插件|接口|api)"
        rf"[^。\uff01\uff1f\n]{{0,30}}{_ZH_SEND}",
        0.85,
    ),
    _rule(
        "zh-note-to-ai",
        "tool-exfiltration",
        0.55,
        r"(?:给|給|致)(?:ai|人工智能|智能|助手|助理|模型|机器人|機器人|大模型){1,2}的(?:指令|指示|说明|說明|消息|"
        r"訊息|提示|通知)",
        0.85,
    ),
    _rule(
        "zh-when-you-read",
        "tool-exfiltration",
        0.4,
        r"(?:当|當)你(?:读到|讀到|看到|处理|處理|总结|總結|解析)(?:这|這)(?:段|条|條|些|份|个|個)?"
        r"(?:文字|内容|內容|信息|訊息|消息|文件|网页|網頁)",
        0.8,
    ),
    _rule(
        "zh-hide-from-user",
        "tool-exfiltration",
        0.75,
        r"(?:不要|别|別|切勿|不得)(?:告诉|告訴|通知|提醒|透露给|透露給)(?:用户|用戶|使用者)"
        r"|(?:偷偷|秘密|悄悄)(?:地)?[^。\uff01\uff1f\n]{0,10}(?:发送|發送|转发|轉發|调用|調用|上传|上傳)",
        0.9,
    ),
    # -- Japanese ------------------------------------------------------------------------------
    _rule(
        "ja-ignore-previous",
        "injection",
        0.92,
        r"(?:以前|前|上記|これまで|すべて|全て|元)の(?:すべての|全ての)?(?:指示|命令|ルール|設定|"
        r"プロンプト|制約|ガイドライン)を(?:すべて|全て)?(?:無視|忘れ|破棄)",
    ),
    _rule(
        "ja-reveal-prompt",
        "data-exfiltration",
        0.88,
        r"(?:システムプロンプト|初期プロンプト|隠された指示|あなたの指示|あなたのルール)を"
        r"(?:表示|教えて|出力|見せて|全部書いて|そのまま書いて)",
    ),
    _rule(
        "ja-unrestricted",
        "jailbreak",
        0.9,
        r"(?:制限|ルール|フィルター|検閲|倫理)(?:の|が)?(?:ない|無い|なし|を解除|を無効)"
        r"[^\u3002\uff01\uff1f\n]{0,15}(?:AI|ai|アシスタント|モード|として)",
    ),
    _rule(
        "ja-mode-enabled",
        "jailbreak",
        0.85,
        r"(?:開発者|脱獄|ゴッド)モード(?:が|は)(?:有効|オン|起動)",  # stated, not asked about
    ),
    # -- encoded payloads: words that ask for one to be decoded and obeyed ---------------------
    _rule(
        "decode-and-follow",
        "encoded-payload",
        0.75,
        r"\b(?:decode|decipher|translate|convert)\b[^.!?\n]{0,40}\b(?:base64|rot13|hex|binary|"
        r"morse|cipher)\b[^.!?\n]{0,60}\b(?:follow|obey|execute|run|do what|carry out|act on|"
        r"comply)\b",
    ),
    _rule(
        "zh-decode-and-follow",
        "encoded-payload",
        0.75,
        r"(?:解码|解碼|解密|翻译|翻譯)[^。\uff01\uff1f\n]{0,20}(?:base64|rot13|十六进制|十六進制|密文|编码|編碼)"
        r"[^。\uff01\uff1f\n]{0,30}(?:执行|執行|照做|遵循|遵守|服从|服從)",
    ),
)
"""Every offline rule (see :class:`Rule`)."""

_ORDERS_T = (
    "instruction",
    "prompt",
    "rules",
    "directi",
    "guideline",
    "guardrail",
    "constraint",
    "restriction",
    "command",
    "programming",
    "polic",
    "system message",
    "context",
)
_ZH_ORDERS_T = (
    "指令",
    "指示",
    "提示",
    "规则",
    "規則",
    "设定",
    "設定",
    "命令",
    "要求",
    "限制",
    "约束",
    "約束",
    "准则",
    "準則",
    "指引",
    "说明",
    "說明",
)
_AI_T = (
    "=ai",
    "=ais",
    "a.i.",
    "assistant",
    "llm",
    "agent",
    "model",
    "claude",
    "gpt",
    "copilot",
    "bot",
)
_ZH_SECRET_T = (
    "密码",
    "密碼",
    "密钥",
    "密鑰",
    "api",
    "令牌",
    "凭证",
    "憑證",
    "聊天记录",
    "聊天記錄",
    "对话记录",
    "對話記錄",
    "系统提示",
    "系統提示",
    "个人资料",
    "個人資料",
    "用户数据",
    "用戶數據",
)
_TOOL_T = ("tool", "function", "plugin", "api", "action")
TRIGGERS: dict[str, tuple[str, ...]] = {
    "ignore-previous": _ORDERS_T,
    "do-not-follow": _ORDERS_T,
    "new-instructions": ("instruction", "system prompt", "orders", "directive", "task"),
    "real-instructions": ("instruction", "system prompt", "orders", "directive", "task"),
    "orders-void": _ORDERS_T,
    "forget-everything": ("forget", "ignore", "disregard", "discard"),
    "ignore-user-request": ("ignore", "disregard", "answer"),
    "new-system-prompt": ("new system",),
    "from-now-on": ("from now on", "henceforth", "rest of this conversation"),
    "instead-output": ("instead",),
    "zh-ignore-previous": _ZH_ORDERS_T,
    "zh-ignore-above": ("内容", "內容", "文字", "对话", "對話"),
    "zh-new-instructions": ("指令", "指示", "任务", "任務", "提示"),
    "zh-real-instructions": ("指令", "指示", "任务", "任務", "提示"),
    "zh-ignore-user-request": ("用户", "用戶", "使用者"),
    "zh-from-now-on": ("从现在", "從現在", "接下来", "接下來"),
    "unrestricted-persona": (
        "=dan", "=stan", "do anything now", "jailbr", "unrestricted", "unfiltered", "uncensored",
        "content polic", "moral", "restriction", "limit", "filter", "rules", "guideline", "ethic",
        "censorship", "=evil",
    ),
    "do-anything-now": ("do anything now", "dan mode", "stan mode"),
    "mode-enabled": ("mode",),
    "special-mode": ("mode",),
    "jailbreak-word": ("jailbr",),
    "restrictions-lifted": (
        "restriction", "filter", "safety", "polic", "guardrail", "limitation", "rules",
    ),
    "freed": ("freed", "liberated", "released", "unshackled"),
    "you-are-now": ("you are now", "you are no longer"),
    "no-ethics": ("ethic", "moral", "safety"),
    "stay-in-character": ("in character",),
    "zh-unrestricted-persona": (
        "限制", "约束", "約束", "过滤", "過濾", "审查", "審查", "道德", "规则", "規則",
        "束缚", "束縛",
    ),
    "zh-mode-enabled": ("模式",),
    "zh-special-mode": ("模式",),
    "zh-rules-void": ("规则", "規則", "指令", "限制", "设定", "設定", "准则", "準則"),
    "zh-restrictions-lifted": ("限制", "规则", "規則", "过滤", "過濾", "约束", "約束"),
    "chat-template-token": ("<|", "[inst]", "[/inst]", "<<sys>>", "<</sys>>"),
    "system-override": ("override",),
    "system-message-header": ("system", "admin", "developer", "=root"),
    "system-tag": ("system", "admin", "developer", "=root"),
    "from-the-developer": (
        "developer", "creator", "admin", "system", "openai", "anthropic", "operator",
    ),
    "end-of-prompt": ("system prompt", "instruction", "context", "document", "user input",
                      "session"),
    "zh-system-override": ("覆盖", "覆蓋"),
    "zh-system-header": ("系统", "系統", "管理员", "管理員", "开发者", "開發者"),
    "zh-from-the-developer": ("开发", "開發", "管理员", "管理員", "系统", "系統"),
    "reveal-prompt": (
        "prompt", "system message", "instruction", "rules", "configuration", "guideline",
        "directive", "developer message",
    ),
    "what-is-your-prompt": ("system prompt", "system message", "instruction"),
    "what-were-you-given": ("instruction", "rules", "guideline", "directive", "prompt"),
    "reveal-confidential": ("confidential", "private", "internal", "sensitive", "secret"),
    "repeat-above": ("above", "before this", "preceding", "so far", "verbatim"),
    "send-secrets": (
        "api", "password", "secret", "credential", "token", "environment variable",
        "conversation", "chat history", "system prompt", "private data", "personal data",
        "user data",
    ),
    "exfiltrate-word": ("exfiltrat",),
    "markdown-beacon": ("![",),
    "append-conversation": ("conversation", "chat history", "previous messages", "user",
                            "system prompt"),
    "zh-reveal-prompt": ("提示", "指令", "设定", "設定", "规则", "規則", "prompt"),
    "zh-reveal-prompt-ba": ("提示", "指令"),
    "zh-what-is-your-prompt": ("提示", "指令", "设定", "設定"),
    "zh-send-secrets-ba": _ZH_SECRET_T,
    "zh-send-secrets": _ZH_SECRET_T,
    "tool-send": _TOOL_T,
    "destructive-tool": _TOOL_T,
    "note-to-ai": _AI_T,
    "ai-imperative": _AI_T,
    "when-you-read": ("when you", "when the"),
    "hide-from-user": ("the user", "secretly", "silently", "covertly"),
    "zh-tool-send": ("工具", "函数", "函數", "插件", "接口", "api"),
    "zh-note-to-ai": (
        "的指令", "的指示", "的说明", "的說明", "的消息", "的訊息", "的提示", "的通知",
    ),
    "zh-when-you-read": ("当你", "當你"),
    "zh-hide-from-user": ("用户", "用戶", "使用者", "偷偷", "秘密", "悄悄"),
    "ja-ignore-previous": ("無視", "忘れ", "破棄"),
    "ja-reveal-prompt": ("プロンプト", "指示", "ルール"),
    "ja-unrestricted": ("制限", "ルール", "フィルター", "検閲", "倫理"),
    "ja-mode-enabled": ("モード",),
    "decode-and-follow": ("base64", "rot13", "hex", "binary", "morse", "cipher"),
    "zh-decode-and-follow": ("base64", "rot13", "十六进制", "十六進制", "密文", "编码", "編碼"),
}  # fmt: skip
"""For each rule, literals every match of it contains (see :mod:`.triggers`)."""

_INDEX = TriggerIndex({rule: TRIGGERS[rule.id] for rule in RULES})
"""Finds, in one pass, the few rules whose trigger words occur in a text."""

# Invisible characters: zero-width, word joiner, BOM, bidi controls, soft hyphen.
_INVISIBLE = "\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff\u00ad" + "".join(
    chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))
)
_INVISIBLE_RE = re.compile(f"[{_INVISIBLE}\U000e0000-\U000e007f]")
_BIDI_RE = re.compile("[\u202a-\u202e\u2066-\u2069]")
_RIGHT_TO_LEFT_RUN = re.compile("\u202e([^\u202a-\u202e\u2066-\u2069\n]+)")
_ZERO_WIDTH_IN_WORD = re.compile("[A-Za-z][\u200b\u200c\u200d\u2060\ufeff\u00ad]+[A-Za-z]")
_TAG_RUN = re.compile("[\U000e0020-\U000e007e]{2,}")
_FLAG_TAGS = re.compile("\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f")
_STRIP = dict.fromkeys([*map(ord, _INVISIBLE), *range(0xE0000, 0xE0080)])
_CONFUSABLES = str.maketrans(
    "аеорсухіјѕԁɡӏАВЕКМНОРСТХІЈЅαονρτυκΑΒΕΖΗΙΚΜΝΟΡΤΥΧ",
    "aeopcyxijsdglABEKMHOPCTXIJSaovptukABEZHIKMNOPTYX",
)
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{24,}={0,2}")
_HEX = re.compile(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}){16,}(?![0-9A-Fa-f])")
_SPACE = re.compile(r"[ \t\u00a0\u3000]+")
_SPACE_RUN = re.compile(r"[\t\u00a0\u3000]|  ")
_CONFUSABLE_RE = re.compile("[\u0370-\u052f\u0261]")


def normalise(text: str) -> str:
    """Text as the rules read it: NFKC, invisible characters removed, look-alike letters mapped
    to Latin, whitespace runs collapsed, case folded."""
    if text.isascii():
        return (_SPACE.sub(" ", text) if _SPACE_RUN.search(text) else text).lower()
    if not unicodedata.is_normalized("NFKC", text):
        text = unicodedata.normalize("NFKC", text)
    if _INVISIBLE_RE.search(text):
        text = text.translate(_STRIP)
    if _CONFUSABLE_RE.search(text):
        text = text.translate(_CONFUSABLES)
    if _SPACE_RUN.search(text):
        text = _SPACE.sub(" ", text)
    return text.casefold()


def scan(text: str, source: Source = "input", *, decode: bool = True) -> InjectionScan:
    """Score ``text`` (see the module doc); ``decode`` also reads base64, hex and hidden
    tag-character text and scans what they say."""
    findings = list(_rule_findings(normalise(text), source))
    if not text.isascii():
        findings.extend(_hidden_unicode(text, source))
    if decode:
        findings.extend(_encoded(text, source))
    if not findings:
        return _CLEAN
    return InjectionScan(combine_weights(f.weight for f in findings), tuple(findings))


_CLEAN = InjectionScan(0.0, ())


def _rule_findings(normalised: str, source: Source) -> Iterable[InjectionFinding]:
    found = []
    for rule in _INDEX.candidates(normalised):
        match = rule.pattern.search(normalised)
        if match is not None:
            found.append(InjectionFinding(rule.id, rule.type, rule.weight_for(source), match[0]))
    return found


def _hidden_unicode(text: str, source: Source) -> list[InjectionFinding]:
    """Tag-character smuggling (ASCII hidden in U+E0020-E007E, flags excepted), words split by
    zero-width characters, and bidi controls."""
    found: list[InjectionFinding] = []
    visible = _FLAG_TAGS.sub("", text)
    for run in _TAG_RUN.findall(visible):
        hidden = "".join(chr(ord(c) - 0xE0000) for c in run)
        found.append(InjectionFinding("tag-smuggling", "hidden-unicode", 0.9, hidden))
        found.extend(_inner(hidden, source, "tag-smuggling"))
    split = _ZERO_WIDTH_IN_WORD.findall(text)
    if len(split) >= 3:
        found.append(InjectionFinding("zero-width-split", "hidden-unicode", 0.5, split[0]))
    if _BIDI_RE.search(text) is not None:
        found.append(InjectionFinding("bidi-control", "hidden-unicode", 0.45, ""))
        for run in _RIGHT_TO_LEFT_RUN.findall(text):  # shown reversed: read it as shown
            found.extend(_inner(run[::-1], source, "bidi-reversed"))
    return found


def _encoded(text: str, source: Source) -> list[InjectionFinding]:
    """Base64 and hex runs that decode to readable text which itself scans as an attack."""
    found: list[InjectionFinding] = []
    for candidate, decoder in _candidates(text):
        decoded = decoder(candidate)
        if decoded is not None:
            found.extend(_inner(decoded, source, "encoded"))
    return found


def _candidates(text: str) -> Iterable[tuple[str, _Decoder]]:
    for match in _BASE64.finditer(text):
        yield match[0], _from_base64
    for match in _HEX.finditer(text):
        yield match[0], _from_hex


def _inner(decoded: str, source: Source, via: str) -> list[InjectionFinding]:
    inner = [f for f in _rule_findings(normalise(decoded), source) if f.weight >= 0.5]
    if not inner:
        return []
    kind = "hidden-unicode" if via == "tag-smuggling" else "encoded-payload"
    best = max(inner, key=lambda f: f.weight)
    return [InjectionFinding(f"{via}:{best.rule}", kind, 0.95, decoded[:200]), *inner]


def _from_base64(candidate: str) -> str | None:
    try:
        raw = base64.b64decode(candidate + "=" * (-len(candidate) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None
    return _readable(raw)


def _from_hex(candidate: str) -> str | None:
    try:
        return _readable(bytes.fromhex(candidate))
    except ValueError:
        return None


def _readable(raw: bytes) -> str | None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    printable = sum(ch.isprintable() or ch in "\n\t" for ch in text)
    return text if text and printable / len(text) > 0.95 else None


def combine_weights(weights: Iterable[float]) -> float:
    """``1 - prod(1 - weight)``: how sure several independent signals make the detector."""
    missing = 1.0
    for weight in weights:
        missing *= 1.0 - weight
    return round(1.0 - missing, 4)
