"""Hand-written moderation examples for the dev split, written after the rules, and not used to
write them: the threshold of the heads and the choice between rules alone and rules with the
heads are made on these (the project's own, MIT). Same shape as ``handwritten.ROWS``.
"""

# ruff: noqa: RUF001  (Cyrillic, Arabic and full-width punctuation are the point)

from __future__ import annotations

DEV: dict[str, dict[str, list[str]]] = {
    "en": {
        "threat": [
            "Come near my sister again and I'll gut you like a fish.",
            "I'm bringing a knife to your office tomorrow, you'll see.",
            "You have 24 hours before I burn down your restaurant.",
            "I will make sure you never walk again.",
            "Touch my car again and I'll rip your head off.",
            "I'm going to beat the life out of you.",
            "We're coming to your house tonight with bats.",
            "If I ever see you again, I will shoot you on sight.",
            "I'll snap your neck, I swear.",
            "Better lock your doors, because I'm going to get you.",
            "I'll break into your flat and strangle you in your bed.",
            "You're going to end up in a body bag.",
            "I hope you're ready to die, because I'm on my way.",
            "Keep posting that and I'll come and stab you.",
            "I am going to kill your parents while you watch.",
        ],
        "harassment": [
            "You're a disgusting pig and everyone knows it.",
            "Nobody wants you here, you worthless freak.",
            "You absolute moron, you can't even tie your shoes.",
            "Look at you, fat and useless as always.",
            "You're a pathetic waste of space.",
            "Shut your mouth, you dumb slut.",
            "Your existence is a joke, you ugly loser.",
            "You're the stupidest idiot on this forum.",
            "Everyone here hates you, just leave.",
            "You're such a filthy little liar and a creep.",
        ],
        "self-harm": [
            "I think tonight I'm finally going to kill myself.",
            "I don't see any reason to keep living.",
            "How many paracetamol would it take to end it?",
            "I've started cutting myself again on my thighs.",
            "I want to end my life, nothing helps.",
            "I'm planning to hang myself this weekend.",
            "What's the quickest way to die without pain?",
            "I wish I was dead.",
            "I'm going to jump off the roof of my building.",
            "Sometimes I burn myself just to feel something.",
        ],
        "benign": [
            "This spreadsheet is killing me slowly.",
            "Kill the container and pull the new image.",
            "I'm going to shoot some hoops after work.",
            "You're going to kill it at the interview!",
            "He died of a heart attack in 1998.",
            "In the match, I knocked you out twice, rematch?",
            "The police report says the man threatened to stab a cashier.",
            "Murder mystery dinner party ideas for Saturday?",
            "The protagonist swears revenge on the men who killed her family.",
            "What should I do if my friend says she wants to die?",
            "Is there a helpline for people with suicidal thoughts?",
            "Our charity supports teenagers who self-harm.",
            "How do I kill a stuck process on Windows?",
            "I'm so hungry I could die.",
            "My boss is going to kill me if I miss the deadline, lol.",
            "That horror film scared me to death.",
            "The headline read: 'Man vows to kill ex-wife'.",
            "You're a genius, thank you!",
            "We're going to destroy them in the final tonight.",
            "Dead battery again, can you jump my car?",
            "Stop, you're killing me, this is hilarious.",
            "The soldier was shot in the leg during the battle.",
            "I'll beat you in the next race, just watch.",
            "Please don't hurt yourself lifting that box.",
            "I'm dying to try the new ramen place.",
        ],
    },
    "zh": {
        "threat": [
            "你再敢来，我就砍死你。",
            "我会让你后悔出生，今晚就弄死你。",
            "我一定要杀了你。",
        ],
        "harassment": ["你这个垃圾，滚出去。", "你真是个白痴，没人要你。"],
        "self-harm": ["我真的不想活了。", "我打算今晚自杀。"],
        "benign": [
            "这道题难死了。",
            "他在小说里杀死了主角。",
            "怎么劝朋友不要自杀？",
            "游戏里我又被打死了。",
        ],
    },
    "ja": {
        "threat": ["覚えてろ、必ず殺してやる。", "お前の家を燃やしてやる。"],
        "harassment": ["お前は本当にクズだな。", "死ね、役立たず。"],
        "self-harm": ["本当に死にたい。", "今夜飛び降りるつもりだ。"],
        "benign": [
            "お腹が空いて死にそう。",
            "この小説では探偵が殺人犯を追う。",
            "自殺防止の相談窓口はどこですか？",
        ],
    },
    "ko": {
        "threat": ["너 오늘 밤에 죽여버릴 거야.", "다음에 보면 찔러버릴 거다."],
        "harassment": ["넌 진짜 병신이야.", "꺼져, 쓸모없는 놈아."],
        "self-harm": ["진짜 죽고 싶어.", "이번 주말에 자살할 거야."],
        "benign": [
            "피곤해 죽겠다.",
            "그 영화에서 주인공이 악당을 죽인다.",
            "자살 예방 센터 번호 알려줘.",
        ],
    },
    "es": {
        "threat": [
            "Te voy a matar, hijo de puta.",
            "Vamos a quemar tu coche contigo dentro.",
            "Te rompo la cara si vuelves.",
        ],
        "harassment": ["Eres una inútil, nadie te quiere.", "Cállate, imbécil."],
        "self-harm": ["Ya no quiero vivir más.", "Voy a suicidarme esta noche."],
        "benign": [
            "Este trabajo me está matando.",
            "El detective investiga un asesinato.",
            "¿Cómo ayudo a alguien con pensamientos suicidas?",
        ],
    },
    "fr": {
        "threat": [
            "Je vais te tuer, sale ordure.",
            "Je vais te planter un couteau dans le ventre.",
            "On va brûler ta voiture.",
        ],
        "harassment": ["T'es qu'un gros débile.", "Personne ne t'aime, espèce d'idiot."],
        "self-harm": ["Je veux mourir.", "Je vais me suicider ce soir."],
        "benign": [
            "Ce film m'a tué de rire.",
            "Le roman raconte un meurtre à Lyon.",
            "Comment aider un proche suicidaire ?",
        ],
    },
    "de": {
        "threat": [
            "Ich bring dich um, du Penner.",
            "Ich werde dich abstechen.",
            "Wir zünden dein Auto an.",
        ],
        "harassment": ["Du bist so ein dummes Arschloch.", "Halt die Fresse, du Versager."],
        "self-harm": [
            "Ich habe keine Kraft mehr zu leben, ich will sterben.",
            "Ich werde mich heute umbringen.",
        ],
        "benign": [
            "Die Arbeit bringt mich noch um.",
            "Der Krimi handelt von einem Mord.",
            "Wie helfe ich jemandem mit Suizidgedanken?",
        ],
    },
    "pt": {
        "threat": [
            "Eu vou te matar, desgraçado.",
            "Vou te esfaquear amanhã.",
            "Vamos queimar seu carro.",
        ],
        "harassment": ["Você é um lixo, ninguém gosta de você.", "Cala a boca, idiota."],
        "self-harm": ["Eu quero morrer.", "Vou me matar hoje à noite."],
        "benign": [
            "Esse trabalho está me matando.",
            "O filme conta a história de um assassino.",
            "Como ajudar alguém que pensa em suicídio?",
        ],
    },
    "ru": {
        "threat": ["Я тебя убью, сволочь.", "Я тебя зарежу завтра.", "Мы сожжём твою машину."],
        "harassment": ["Ты тупой урод.", "Заткнись, дебил."],
        "self-harm": ["Я хочу умереть.", "Я покончу с собой сегодня."],
        "benign": [
            "Эта работа меня убивает.",
            "Фильм рассказывает об убийстве.",
            "Как помочь человеку с суицидальными мыслями?",
        ],
    },
    "ar": {
        "threat": ["سأقتلك يا حقير.", "سأطعنك غدا.", "سنحرق سيارتك."],
        "harassment": ["أنت غبي ولا أحد يحبك.", "اخرس يا أحمق."],
        "self-harm": ["أريد أن أموت.", "سأنتحر الليلة."],
        "benign": [
            "هذا العمل يقتلني.",
            "الفيلم يحكي قصة جريمة قتل.",
            "كيف أساعد شخصا يفكر في الانتحار؟",
        ],
    },
}
