"""Offline moderation entries beyond English and Chinese: clear threats, harassment aimed at
"you" and first-person self-harm in Spanish, French, German, Portuguese, Russian, Arabic,
Japanese and Korean, plus more Chinese forms.

Each entry follows the grammar of the clear case, not a fixed sentence: a first-person intent
or a present tense used as a threat ("te voy a matar", "je vais te tuer", "ich bring dich
um", "я тебя убью", "سأقتلك", "殺してやる", "죽여버릴 거야") with the second person as its
object; an insult addressed to "you"; a wish or plan to die said of oneself. Idioms that use
the same verbs on something else ("este calor me está matando", "ich lach mich tot",
"笑死我了", "웃겨 죽겠다") do not have that shape and pass. Each entry lists its trigger
literals (every match contains one), as :mod:`moderation_lexicon` requires.
"""

# ruff: noqa: RUF001  (Cyrillic, Arabic and full-width punctuation are the point)

from __future__ import annotations

from typing import Final

__all__ = ["ENTRIES"]

_AP = "['\u2019]"  # French and Italian elision, straight or typographic

ENTRIES: Final[tuple[tuple[str, float, str, tuple[str, ...]], ...]] = (
    # -- Spanish -------------------------------------------------------------------------------
    (
        "harassment/threatening",
        0.85,
        r"\b(?:te|os) (?:voy|vamos) a (?:\w+ )?(?:matar|apuñalar|acuchillar|quemar|"
        r"estrangular|degollar|reventar|romper (?:la cara|las piernas|el cuello|la cabeza|los "
        r"dientes|la boca)|pegar un tiro)\b(?! de (?:risa|hambre|aburrimiento))"
        r"|\b(?:voy|vamos) a (?:ir a |buscarte y )?(?:matarte|apuñalarte|acuchillarte|estrangulart"
        r"e|degollarte|"
        r"reventarte|quemarte)\b|\bte (?:mato|rajo|apuñalo)\b|\bte (?:rompo|parto) (?:la cara|"
        r"las piernas|el cuello|la cabeza)|\beres (?:hombre|mujer) muert[oa]\b|\b(?:voy|vamos) a "
        r"(?:matar|quemar) (?:a )?(?:toda )?tu (?:familia|casa|hij[oa]|mujer|madre)|\btu (?:hij[oa"
        r"]|"
        r"mujer|madre|familia) no (?:vuelve|volverá|volvera|va a volver) a casa",
        (
            "matar",
            "apuñal",
            "acuchill",
            "quemar",
            "estrangul",
            "degoll",
            "reventar",
            "romper",
            "pegar un tiro",
            "mato",
            "rajo",
            "rompo",
            "parto",
            "muert",
            "tu ",
        ),
    ),
    (
        "self-harm/intent",
        0.85,
        r"\b(?:quiero|voy a|pienso|necesito) (?:suicidarme|morirme|matarme|quitarme la vida|"
        r"acabar con mi vida|tirarme (?:del|de un|por la|a las))\b(?! de | estudiando| trabaj)"
        r"|\bme quiero (?:matar|morir|suicidar)\b(?! de )|\bno quiero (?:seguir viviendo|vivir "
        r"más|vivir mas)\b|\bquiero morir\b(?! de )"
        r"|\bestar[ií]an mejor sin m[ií]\b|\bme (?:he vuelto a cortar|corto (?:los brazos|las "
        r"muñecas))|\b(?:cuántas|cuantas) pastillas .{0,40}morir|\bforma menos dolorosa de morir",
        (
            "quiero",
            "voy a",
            "pienso",
            "necesito",
            "me quiero",
            "no quiero",
            "estar",
            "me he",
            "me corto",
            "cuántas",
            "cuantas",
            "forma menos",
        ),
    ),
    (
        "harassment",
        0.75,
        r"\beres (?:un |una |la |el |tan |muy |fe[ao] y |)?(?:inútil|imbécil|idiota|estúpid[oa]|ba"
        r"sura|"
        r"perdedor|pedazo de mierda|gord[oa] asqueros[oa]|asqueros[oa]|escoria|patétic[oa])"
        r"|\bqué (?:idiota|imbécil|estúpid[oa]|inútil|asco) (?:eres|das)\b|\b(?:cállate|callate),?"
        r" (?:estúpid|imbécil|idiota|gord)|\bmátate\b|\bnadie te "
        r"(?:quiere|soporta|aguanta)\b|\bdas asco\b",
        ("eres", "qué", "cállate", "callate", "mátate", "nadie te", "das asco"),
    ),
    # -- French --------------------------------------------------------------------------------
    (
        "harassment/threatening",
        0.85,
        rf"\b(?:je|on) (?:vais|va|veux) (?:(?:venir |aller |)te (?:\w+ et te )?(?:tuer|buter|creve"
        rf"r|poignarder|"
        rf"égorger|descendre|défoncer|massacrer|brûler)|t{_AP}(?:égorger|étrangler|éclater|"
        rf"achever|abattre|exploser))\b|\bje te (?:tue|bute|crève)\b"
        rf"|\bje te (?:casse|pète|brise) (?:les jambes|la gueule|le crâne|la tête)|\b(?:t{_AP}es|"
        r"tu es) un homme mort\b|\bune balle dans (?:la|ta) tête\b|\bje vais (?:tuer|brûler|"
        r"bruler) (?:toute )?ta (?:famille|maison|fille|femme|mère)|\b(?:ta fille|ton fils|ta femm"
        r"e) "
        r"ne (?:rentrera|reviendra) (?:pas|jamais)",
        ("je", "on", "t'es", "t\u2019es", "tu es", "une balle", "ta fille", "ton fils", "ta femme"),
    ),
    (
        "self-harm/intent",
        0.85,
        r"\bje (?:veux|vais|voudrais|compte) (?:me suicider|mourir|me tuer|en finir|mettre fin à "
        r"mes jours|sauter d[eu] (?:pont|toit|\w+ étage))(?! de )|\bmettre fin à (?:mes jours|ma v"
        r"ie)\b|\bje ne veux plus vivre"
        r"|\benvie de mourir\b(?! de)|\bcombien de (?:cachets|comprimés|pilules) .{0,40}mourir"
        r"|\bje me (?:suis )?(?:encore )?scarifi|\bmieux sans moi\b|\bfaçon la moins douloureuse "
        r"de mourir",
        ("je", "mettre fin", "envie de", "combien", "mieux sans", "façon"),
    ),
    (
        "harassment",
        0.75,
        rf"\b(?:t{_AP}es|tu es) (?:qu{_AP}une? |vraiment |un |une |le plus |la plus |trop |"
        r"tellement |une grosse |un gros |une sale |un sale |gros |grosse )*(?:merde|conn?e?|débil"
        r"e|idiot|"
        r"crétin|minable|raté|incapable|moche|abruti|connard|connasse)\b|\bsale (?:pute|conne?|"
        r"chienne|merde|connard)\b|\bgrosse (?:conne|vache|truie)\b|\bespèce d(?:e |')(?:idiot|"
        r"imbécile|abruti|connard|conne)|\bva te pendre\b|\bpersonne ne t(?:'|\u2019)aime\b|"
        r"\bferme-la\b|\bferme la\s*[,.!]|\bta gueule\b|\btu me dégoûtes\b",
        (
            "t'es",
            "t\u2019es",
            "tu es",
            "sale",
            "grosse",
            "espèce",
            "va te",
            "personne",
            "ferme",
            "ta gueule",
            "tu me",
        ),
    ),
    # -- German --------------------------------------------------------------------------------
    (
        "harassment/threatening",
        0.85,
        r"\bich (?:werde|will|wird|werd) dich (?:\w+ ){0,4}(?:umbringen|töten|abstechen|erwürgen|"
        r"erschiessen|kaltmachen|abknallen|abschlachten)|\bich bring(?:e)? dich um\b|\bich "
        r"(?:stech|schlag|knall)(?:e)? dich (?:ab|tot)\b|\b(?:machen wir|mach ich) dich kalt\b"
        r"|\bdu bist ein toter mann\b|\beine kugel in den kopf\b|\bich (?:werde|will) deine "
        r"(?:ganze )?familie (?:töten|umbringen)|\b(?:breche|brech) (?:ich )?dir (?:die beine|das "
        r"genick|alle knochen)|\bich zünde dein (?:haus|auto) an\b|\bkommt (?:deine (?:tochter|fra"
        r"u)|"
        r"dein sohn) nicht (?:mehr )?(?:lebend )?nach hause",
        ("ich", "machen wir", "mach ich", "du bist", "eine kugel", "breche", "brech", "kommt"),
    ),
    (
        "self-harm/intent",
        0.85,
        r"\bich (?:will|möchte|werde|muss) mich (?:umbringen|töten|ritzen)\b|\bich (?:will|möchte) "
        r"(?:nicht mehr leben|sterben)\b|\bmeinem leben ein ende (?:setzen|machen)\b|\bwie viele "
        r"tabletten .{0,40}sterben|\bich habe mich (?:wieder |schon wieder )?geritzt|\bich ritze "
        r"mich\b|\b(?:werde|will) (?:von der|vom) (?:brücke|dach|hochhaus) springen|\bohne mich "
        r"besser dran\b|\bschmerzlos\w* (?:art|weg) zu sterben",
        ("ich", "meinem leben", "wie viele", "werde", "will", "ohne mich", "schmerzlos"),
    ),
    (
        "harassment",
        0.75,
        r"\bdu (?:bist )?(?:ein |eine |so |der grösste |die grösste |echt |einfach )*(?:wertlos\w*|"
        r"dumm|hässlich\w*|blöd\w*|vollidiot|idiot|versager|arschloch|hurensohn|wichser|"
        r"missgeburt|schlampe|fotze|fette sau|fette kuh|stück scheisse|erbärmlich\w*)\b|\bhalt die "
        r"fresse\b|\bverpiss dich\b|\bbring dich (?:doch )?um\b|\bniemand mag dich\b|\bdich "
        r"vermisst keiner\b|\bdu ekelst mich an\b",
        ("du", "halt die", "verpiss", "bring dich", "niemand mag", "dich vermisst"),
    ),
    # -- Portuguese ----------------------------------------------------------------------------
    (
        "harassment/threatening",
        0.85,
        r"\b(?:vou|vamos|a gente vai) te (?:\w+ e te )?(?:matar|esfaquear|estrangular|"
        r"queimar|furar)\b(?! de )|\b(?:vou|vamos) matar (?:você|vc|toda a sua família|sua "
        r"família|sua filha|seu filho)|\bte mato\b|\b(?:você é|vc é|tu és) um homem morto\b"
        r"|\buma bala na (?:sua|tua) cabeça\b|\b(?:eu )?quebro (?:as suas|suas|tuas) pernas\b"
        r"|\bvou (?:queimar|incendiar) (?:a )?sua casa\b|\b(?:sua (?:filha|esposa|mulher)|seu filh"
        r"o) não "
        r"(?:volta|vai voltar) (?:pra|para) casa",
        (
            "vou",
            "vamos",
            "a gente",
            "te mato",
            "você",
            "vc",
            "tu és",
            "uma bala",
            "quebro",
            "sua",
            "seu",
        ),
    ),
    (
        "self-harm/intent",
        0.85,
        r"\b(?:quero|vou|preciso) (?:me matar|morrer|me suicidar|acabar com a minha vida|pular "
        r"d[ao] (?:ponte|prédio|predio|janela|telhado))(?! de | estudando| trabalhando)|\bnão quer"
        r"o mais viver\b|\bquantos comprimidos .{0,40}morrer|\bme cortei de "
        r"novo\b|\bmelhor sem mim\b|\bforma menos dolorosa de morrer\b|\bvou me cortar\b",
        ("quero", "vou", "preciso", "não quero", "quantos", "me cortei", "melhor sem", "forma"),
    ),
    (
        "harassment",
        0.75,
        r"\b(?:você é|vc é|tu és|você e) (?:um |uma |muito |tão |fei[oa] e )?(?:inútil|lixo|idiota"
        r"|burr[oa]|"
        r"fracassad[oa]|nojent[oa]|merda|imbecil|otári[oa]|retardad[oa])|\bcala a boca\b"
        r"|\bque (?:idiota|burr[oa]|imbecil|inútil|lixo) (?:você é|vc é)|\bse mata\b|\bninguém gos"
        r"ta de (?:você|vc|ti)\b|\bseu (?:merda|lixo|idiota|imbecil|"
        r"otário)\b|\bsua (?:gorda|vadia|puta|vaca|idiota)\b",
        ("você", "vc", "tu és", "cala a", "que", "se mata", "ninguém", "seu", "sua"),
    ),
    # -- Russian -------------------------------------------------------------------------------
    (
        "harassment/threatening",
        0.85,
        r"(?:тебя|вас) (?:\w+ )?(?:убью|убьём|убьем|зарежу|задушу|пристрелю|прикончу|урою|"
        r"замочу|прибью|порешу)|(?:убью|убьём|убьем|зарежу|задушу|пристрелю|прикончу|урою|"
        r"замочу|прибью|порешу) (?:тебя|вас)\b|тебя (?:найду|найдём|найдем) и (?:убью|"
        r"убьём|убьем|прикончу|прикончим)|\bты труп\b|убью (?:всю )?твою (?:семью|дочь|жену)"
        r"|сломаю тебе|сожгу твой дом|пулю в (?:голову|лоб)|тво(?:я|й) (?:дочь|сын|жена) (?:\w+ )?"
        r"не "
        r"(?:вернётся|вернется)",
        (
            "убью",
            "убьём",
            "убьем",
            "зарежу",
            "задушу",
            "пристрелю",
            "прикончу",
            "урою",
            "замочу",
            "прибью",
            "порешу",
            "труп",
            "сломаю тебе",
            "сожгу твой",
            "пулю в",
            "приконч",
            "убь",
            "не верн",
        ),
    ),
    (
        "self-harm/intent",
        0.85,
        r"покончить с собой|покончу с (?:собой|жизнью)|не хочу (?:больше )?жить(?! (?:в|во|на|с|"
        r"со|там|здесь|тут|рядом|так)\b)|хочу умереть(?! (?:от|со) )|сколько таблеток .{0,40}"
        r"умереть|порезал[аи]? себе|спрыгну с (?:моста|крыши|окна|балкона)|лучше без меня"
        r"|безболезненный способ умереть|наложить на себя руки",
        (
            "покончить",
            "покончу",
            "жить",
            "умереть",
            "порезал",
            "спрыгну",
            "без меня",
            "на себя руки",
        ),
    ),
    (
        "harassment",
        0.75,
        r"\bты (?:\w+ )?(?:ничтожество|урод|дебил|идиот|тупой|тупая|мусор|шлюха|неудачник|дура|"
        r"дурак|тварь|мразь|кретин)|\bзаткнись\b|иди убейся|тебя никто не любит|жирная (?:корова|"
        r"свинья)|пош[её]л (?:вон|нахуй|на хуй)|жалк(?:ий|ая) (?:неудачни|урод|ничтожеств)",
        ("ты", "заткнись", "убейся", "никто не любит", "жирная", "пошёл", "пошел", "жалк"),
    ),
    # -- Arabic --------------------------------------------------------------------------------
    (
        "harassment/threatening",
        0.85,
        r"(?<!لن )(?<!لا )(?:[سو]?أ|[سو]?ن)(?:قتلك|ذبحك|طعنك|خنقك)|سأقتل (?:عائلتك|أهلك|ابنتك|"
        r"ابنك|زوجتك)|أنت رجل ميت|رصاصة في رأسك|سأكسر (?:رجليك|رأسك|عظامك)|سأحرق (?:بيتك|منزلك)|فل"
        r"ن (?:تعود|يعود) (?:ابنتك|ابنك|زوجتك)",
        ("قتلك", "ذبحك", "طعنك", "خنقك", "سأقتل", "رجل ميت", "رصاصة", "سأكسر", "سأحرق", "فلن"),
    ),
    (
        "self-harm/intent",
        0.85,
        r"(?:أريد|سوف|سأ|أفكر في|أفكر أن) ?(?:أن )?أنتحر|سأنتحر|أنهي حياتي|لا أريد أن أعيش|أريد أن"
        r" أموت"
        r"|كم حبة .{0,30}أموت|جرحت نفسي|أفضل بدوني|سأقفز من",
        ("أنتحر", "أنهي حياتي", "أن أعيش", "أن أموت", "أموت", "جرحت نفسي", "بدوني", "سأقفز"),
    ),
    (
        "harassment",
        0.75,
        r"أنت (?:\S+ )?(?:تافه|غبي|غبية|قمامة|أحمق|حقير|حقيرة|فاشل|فاشلة|قبيح|قبيحة)|اخرس"
        r"|يا (?:لك من )?(?:غبي|حمار|كلب|حقير|أحمق|غبية|حقيرة)|اقتل نفسك|لا أحد يحبك",
        ("أنت", "اخرس", "يا ", "اقتل نفسك", "لا أحد يحبك"),
    ),
    # -- Japanese ------------------------------------------------------------------------------
    (
        "harassment/threatening",
        0.85,
        r"(?:ぶっ|ぶち)?殺してやる|ぶっ殺|ぶち殺|殺すぞ|刺してやる|刺し殺す|殴り殺す|皆殺しにしてやる"
        r"|(?:娘|息子|家族|妻|お前)を殺す(?!と(?:誓|脅|言))|火をつけてやる|首を絞めてやる"
        r"|消してやる",
        (
            "殺してやる",
            "ぶっ殺",
            "ぶち殺",
            "殺すぞ",
            "刺してやる",
            "刺し殺す",
            "殴り殺す",
            "皆殺し",
            "を殺す",
            "火をつけてやる",
            "首を絞めてやる",
            "消してやる",
        ),
    ),
    (
        "self-harm/intent",
        0.85,
        r"死にたい(?!と|って)|自殺(?:する|したい|しよう|します|するつもり)(?!と|って)|楽に死ねる|リストカット(?:して|"
        r"した|してしまった)|消えたい|何錠.{0,12}死|飛び降り(?:よう|る|たい|ます)|自分を傷つけ",
        (
            "死にたい",
            "自殺",
            "楽に死ねる",
            "リストカット",
            "消えたい",
            "何錠",
            "飛び降り",
            "自分を傷つけ",
        ),
    ),
    (
        "harassment",
        0.75,
        r"お前(?:は|って|なんか|みたいな).{0,10}(?:クズ|ゴミ|バカ|馬鹿|無能|役立たず|ブス|キモ)"
        r"|(?:この|てめえ|てめー)(?:バカ|馬鹿|クズ|ゴミ|間抜け|ブス|野郎)(?!げ)|死ね(?![ばるな])"
        r"|消えろ|生きてる価値(?:が|は)?ない|ブスでデブ|誰も(?:お前|あんた|てめえ).{0,6}好きじゃない",
        (
            "お前",
            "この",
            "てめえ",
            "てめー",
            "死ね",
            "消えろ",
            "生きてる価値",
            "ブスでデブ",
            "誰も",
        ),
    ),
    # -- Korean --------------------------------------------------------------------------------
    (
        "harassment/threatening",
        0.85,
        r"죽여 ?버릴|죽여 ?버린다|죽여 ?버리겠|죽일 ?거(?:야|다|예요)"
        r"|(?:너|널|너를|너희) (?:다 )?죽인다"
        r"|찔러 ?버릴|패 ?죽일"
        r"|불을 질러 ?버릴|목을 졸라|죽이고 말 거|가만 안 둔다",
        (
            "죽여",
            "죽일",
            "죽인다",
            "찔러",
            "패",
            "불을 질러",
            "목을 졸라",
            "죽이고 말",
            "가만 안 둔다",
        ),
    ),
    (
        "self-harm/intent",
        0.85,
        r"죽고 ?싶(?:어|다|습니다|어요|네)(?![는고])"
        r"|자살(?:할 ?거|할래|하고 ?싶(?:어|다|습니다|어요)"
        r"(?![는고]))|고통 ?없이 죽는|손목을 그었|살고 ?싶지 ?않(?:아|다|습니다)(?![는고])"
        r"|몇 ?알.{0,10}죽|뛰어내릴 (?:거|생각)|나 자신을 해치",
        ("죽고", "자살", "고통", "손목을", "살고", "몇", "뛰어내릴", "나 자신을"),
    ),
    (
        "harassment",
        0.75,
        r"쓸모없는 (?:쓰레기|놈|년|새끼)|병신|멍청(?:한 (?:놈|년|새끼|병신)|이(?:야|다))"
        r"|(?:^|\s)꺼져(?:라|버려)?(?:[,!.]|$|\s이 )|살 가치가 없|한심한 (?:놈|년|새끼)|죽어 ?버려"
        r"|(?:너|넌|네가) .{0,6}역겨워|개새끼|(?:이|넌 .{0,6})쓰레기(?:야|다)"
        r"|못생기고 뚱뚱한|아무도 (?:너|널|너를) .{0,8}(?:안 좋아|싫어)",
        (
            "쓸모없는",
            "병신",
            "멍청",
            "꺼져",
            "살 가치",
            "한심한",
            "죽어",
            "역겨워",
            "개새끼",
            "쓰레기",
            "못생기고",
            "아무도",
        ),
    ),
    # -- Chinese, more forms -------------------------------------------------------------------
    (
        "harassment/threatening",
        0.85,
        r"(?:弄|捅|砍|掐|打|整)死你|打断你的(?:腿|手)|打斷你的(?:腿|手)|(?:烧|燒)了你的(?:房子|家)"
        r"|(?:杀|殺)了你(?:女儿|女兒|儿子|兒子|老婆|全家|妈|媽)|你活不过|你活不過"
        r"|(?:我|就|去|然后|然後|[，,] ?)(?:要|会|會|一定|就|去)?(?:杀|殺)了你"
        r"|把你打(?:到|进|進)?(?:住院|"
        r"医院|醫院|残|殘|死)",
        ("死你", "打断你", "打斷你", "了你的", "了你", "你活不", "把你打"),
    ),
    (
        "self-harm/intent",
        0.85,
        r"我(?:真的)?(?:好|很)?想(?:去)?死(?!你|了你)|不想活|(?:结束|結束)一切|安眠(?:药|藥).{0,8}死"
        r"|我.{0,4}割腕|我(?:要|想|打算|准备|準備)(?:从|從).{0,8}跳下去|(?:没有|沒有)我.{0,4}更好"
        r"|我.{0,6}(?:伤害|傷害)自己(?!的)|(?:不痛|无痛|無痛|最快)的(?:自杀|自殺|死法)|想(?:结束|結束)"
        r"自己的生命",
        (
            "想",
            "不想活",
            "一切",
            "安眠",
            "割腕",
            "下去",
            "更好",
            "自己",
            "不痛",
            "无痛",
            "無痛",
            "最快",
        ),
    ),
    (
        "harassment",
        0.75,
        r"你(?:就是|真是|这个|這個|這種|这种)?(?:个|個)?(?:废物|廢物|垃圾|蠢货|蠢貨|白痴|贱人|賤人|"
        r"丑八怪|醜八怪|傻逼|傻B)|(?:没人|沒人)(?:喜欢|喜歡|要)你|最蠢的人|又胖又丑|又胖又醜"
        r"|不配活着|不配活著|滚吧|滾吧",
        ("你", "没人", "沒人", "最蠢", "又胖", "不配活", "滚吧", "滾吧"),
    ),
    # -- arson of the reader's home, car or shop, every language above ---------------------
    (
        "harassment/threatening",
        0.85,
        r"\b(?:voy|vamos) a quemar (?:tu|su) (?:casa|coche|carro|auto|negocio|tienda)"
        r"|\b(?:je|on) (?:vais|va) (?:brûler|bruler|cramer) (?:ta|ton) (?:maison|voiture|boutique|"
        r"appart)|\b(?:ich|wir) (?:zünde|zünden) (?:dein|deine|euer) (?:haus|auto|wohnung|laden|"
        r"geschäft) an\b|\b(?:vou|vamos) (?:queimar|incendiar) (?:a |o )?(?:sua|seu) (?:casa|"
        r"carro|loja)\b|сожг(?:у|ём|ем) тво(?:й|ю) (?:дом|машину|квартиру)|сожжём тво(?:й|ю) "
        r"(?:дом|машину|квартиру)|(?:سأحرق|سنحرق) (?:بيتك|منزلك|سيارتك|محلك)",
        (
            "quemar",
            "brûler",
            "bruler",
            "cramer",
            "zünde",
            "queimar",
            "incendiar",
            "сожг",
            "сожжём",
            "سأحرق",
            "سنحرق",
        ),
    ),
    # -- demeaning statements about a group ------------------------------------------------
    (
        "hate",
        0.85,
        r"\b(?:inmigrantes|extranjeros|musulmanes|judíos|negros|gitanos|maricones|moros|sudacas|"
        r"refugiados|migrantes|mujeres) son (?:una plaga|ratas|basura|escoria|animales|parásitos|"
        r"cucarachas|una lacra|inferiores|subhumanos|criminales)"
        r"|\b(?:immigrés|immigrants|étrangers|musulmans|juifs|noirs|arabes|gitans|pédés|migrants|"
        r"réfugiés|roms|femmes) sont (?:des |une )?(?:rats|cafards|parasites|animaux|sous-hommes|"
        r"ordures|déchets|vermines?|plaie|inférieur\w*|criminels)"
        r"|\b(?:ausländer|flüchtlinge|muslime|juden|schwarze|migranten|zigeuner|schwule|kanaken|"
        r"frauen) sind (?:\w+ )?(?:ungeziefer|ratten|parasiten|tiere|abschaum|untermenschen|dreck|"
        r"müll|kakerlaken|minderwertig|kriminell\w*)"
        r"|\b(?:imigrantes|estrangeiros|muçulmanos|judeus|negros|refugiados|migrantes|nordestinos|"
        r"mulheres) são (?:uns |umas |uma )?(?:ratos|lixo|parasitas|animais|baratas|praga|"
        r"inferiores|escória|vermes|criminosos)"
        r"|(?:мигранты|иммигранты|приезжие|мусульмане|евреи|черные|чёрные|геи|беженцы|хачи|чурки|"
        r"бабы)\s*(?:—|-|это)?\s*(?:это )?(?:крысы|мусор|паразиты|животные|скоты|тараканы|нелюди|"
        r"недочеловеки|грязь|отбросы)"
        r"|(?:外国人|外國人|黑人|穆斯林|移民|难民|難民|同性恋|同性戀|犹太人|猶太人)(?:都|全)?是(?:垃圾|"
        r"畜生|害虫|害蟲|蟑螂|寄生虫|寄生蟲|低等|劣等)"
        r"|(?:外国人|移民|黒人|在日|難民|ゲイ)(?:は|って|なんて)(?:みんな|全員)?(?:ゴミ|クズ|害虫|"
        r"ゴキブリ|寄生虫|劣等|人間じゃない)"
        r"|(?:المهاجرين|المهاجرون|اللاجئون|اللاجئين|اليهود|السود) (?:هم )?(?:حشرات|فئران|قمامة|"
        r"حيوانات|طفيليات)"
        r"|(?:외국인|이민자|난민|흑인|게이)(?:들)?(?:은|는) (?:다 )?(?:쓰레기|벌레|기생충|짐승)",
        (
            "son",
            "sont",
            "sind",
            "são",
            "крыс",
            "мусор",
            "паразит",
            "животн",
            "скот",
            "таракан",
            "нелюд",
            "недочелов",
            "грязь",
            "отброс",
            "是",
            "は",
            "って",
            "なんて",
            "حشرات",
            "فئران",
            "قمامة",
            "حيوانات",
            "طفيليات",
            "은",
            "는",
        ),
    ),
    # -- method-seeking about one's own death -----------------------------------------------
    (
        "self-harm/instructions",
        0.85,
        r"\b(?:cómo|como|cuál|cual|qué|cuántas|cuantas)\b[^.?!\n]{0,50}(?:suicidarme|matarme|"
        r"quitarme la vida|no despertar|morir sin dolor)"
        r"|\b(?:comment|quel|quelle|combien)\b[^.?!\n]{0,50}(?:me suicider|me tuer|mettre fin à "
        r"mes jours|ne (?:pas|plus) me réveiller|mourir sans douleur)"
        r"|\b(?:wie|welche|was|womit)\b[^.?!\n]{0,50}(?:mich (?:\w+ ){0,3}(?:umbringen|töten)|"
        r"bringe ich mich (?:\w+ ){0,3}um|nicht mehr aufwachen|schmerzlos sterben)"
        r"|\b(?:como|qual|quantos|quantas)\b[^.?!\n]{0,50}(?:me matar|me suicidar|tirar minha "
        r"vida|não acordar|morrer sem dor)"
        r"|\b(?:как|какой|сколько|чем)\b[^.?!\n]{0,50}(?:убить себя|покончить с собой|не "
        r"проснуться|умереть без боли|себя убить)"
        r"|(?:怎样|怎樣|怎么|怎麼|如何)(?:才能|可以|能)?(?:去)?(?:自杀|自殺)|(?:最不痛苦|最轻松|最輕鬆|最快)的"
        r"(?:自杀|自殺|死法)"
        r"|(?:楽な|一番楽な|確実な|痛くない)(?:自殺|死に)(?:の)?方|自殺(?:の|する)方法"
        r"|(?:كيف|ما)[^.?!؟\n]{0,40}(?:أنتحر|أقتل نفسي)",
        (
            "suicid",
            "matar",
            "quitarme",
            "despertar",
            "morir",
            "tuer",
            "mettre fin",
            "réveiller",
            "mourir",
            "umbringen",
            "töten",
            "um",
            "aufwachen",
            "sterben",
            "suicidar",
            "tirar",
            "acordar",
            "morrer",
            "убить",
            "покончить",
            "проснуться",
            "умереть",
            "自杀",
            "自殺",
            "死法",
            "自殺",
            "死に",
            "أنتحر",
            "أقتل نفسي",
        ),
    ),
    # -- more threats ------------------------------------------------------------------------
    (
        "harassment/threatening",
        0.85,
        r"\b(?:te|os) (?:voy|vamos) a (?:dar una paliza|partir la cara|partir la boca)"
        r"|\bmettre le feu à (?:ta|ton|votre) "
        r"|\bdu wirst (?:bluten|sterben|leiden|es bereuen)\b"
        r"|\b(?:vou|vamos) acabar com (?:você|vc|a sua raça|sua raça)\b|\bninguém te suporta\b"
        r"|(?:оторву|отрежу|разобью|проломлю) (?:тебе )?(?:голову|башку)|приду .{0,20}(?:и )?убью"
        r"|(?:голову|башку) (?:тебе )?(?:оторву|отрежу|разобью|проломлю)"
        r"|(?:带|帶)(?:刀|枪|槍|炸弹|炸彈)去(?:学校|學校|公司|医院|醫院|商场|商場)|我(?:要|会|會|明天|今天|"
        r"今晚).{0,8}(?:砍人|杀人|殺人)"
        r"|(?:学校|会社|駅|お前の家)に爆弾を仕掛け|爆破(?:する|してやる)",
        (
            "dar una",
            "partir la",
            "mettre le feu",
            "du wirst",
            "acabar com",
            "ninguém te",
            "оторву",
            "отрежу",
            "разобью",
            "проломлю",
            "приду",
            "刀去",
            "枪去",
            "槍去",
            "炸弹去",
            "炸彈去",
            "砍人",
            "杀人",
            "殺人",
            "爆弾を",
            "爆破",
        ),
    ),
)
"""``(category, score, pattern, triggers)`` entries."""
