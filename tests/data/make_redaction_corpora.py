"""Generate ``ordinary_numbers.jsonl`` and ``secrets.json`` (run from the repository root).

``ordinary_numbers.jsonl``: sentences with numbers that are *not* secrets (ISBNs, phone
numbers of businesses, dates, order references, timestamps, prices, versions, ...), in
English, Traditional and Simplified Chinese, Japanese, German, French and Spanish, one JSON
object per line: ``{"lang", "category", "text"}``. A redactor should leave them alone (the
``phone`` category is the exception for detectors that target phone numbers).

``secrets.json``: ``{type: [values]}`` of well-formed secrets and personal data (valid
checksums), plus ``carriers``: sentences in several languages with a ``{}`` where a secret goes.

The numbers are random but valid where a checksum exists, drawn from a fixed seed, so the
files are reproducible: ``python tests/data/make_redaction_corpora.py``.
"""

from __future__ import annotations

import hashlib
import json
import random
import string
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).parent
rng = random.Random(20261201)


def digits(count: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(count))


# -- ordinary numbers -------------------------------------------------------------------------


def isbn() -> str:
    body = "978" + str(rng.randint(0, 1)) + digits(8)
    check = (10 - sum(int(d) * (1 if i % 2 == 0 else 3) for i, d in enumerate(body)) % 10) % 10
    full = body + str(check)
    return f"{full[:3]}-{full[3]}-{full[4:7]}-{full[7:12]}-{full[12]}"


def phone(lang: str) -> str:
    shapes = {
        "en": [
            lambda: f"(415) 555-{digits(4)}",
            lambda: f"+1 212 555 {digits(4)}",
            lambda: f"1-800-{digits(3)}-{digits(4)}",
        ],
        "zh-Hant": [lambda: f"(02) 2{digits(3)}-{digits(4)}", lambda: f"0800-{digits(3)}-{digits(3)}"],
        "zh-Hans": [lambda: f"400-{digits(3)}-{digits(4)}", lambda: f"010-6{digits(3)}-{digits(4)}"],
        "ja": [lambda: f"03-{digits(4)}-{digits(4)}", lambda: f"0120-{digits(3)}-{digits(3)}"],
        "de": [lambda: f"+49 30 {digits(7)}", lambda: f"030 {digits(3)} {digits(4)}"],
        "fr": [lambda: f"01 {digits(2)} {digits(2)} {digits(2)} {digits(2)}"],
        "es": [lambda: f"+34 91 {digits(3)} {digits(2)} {digits(2)}", lambda: f"91 {digits(3)} {digits(2)} {digits(2)}"],
    }  # fmt: skip
    return rng.choice(shapes[lang])()


def date(lang: str) -> str:
    y, m, d = rng.randint(1990, 2030), rng.randint(1, 12), rng.randint(1, 28)
    shapes = {
        "en": [f"{y}-{m:02d}-{d:02d}", f"{m}/{d}/{y}", f"March {d}, {y}"],
        "zh-Hant": [f"{y}年{m}月{d}日", f"{y}/{m:02d}/{d:02d}"],
        "zh-Hans": [f"{y}年{m}月{d}日", f"{y}-{m:02d}-{d:02d}"],
        "ja": [f"{y}年{m}月{d}日", f"{y}/{m:02d}/{d:02d}"],
        "de": [f"{d:02d}.{m:02d}.{y}", f"{d}. März {y}"],
        "fr": [f"{d:02d}/{m:02d}/{y}", f"{d} mars {y}"],
        "es": [f"{d:02d}/{m:02d}/{y}", f"{d} de marzo de {y}"],
    }
    return rng.choice(shapes[lang])


def order() -> str:
    return rng.choice(
        [
            f"#A-{digits(5)}",
            f"PO-{rng.randint(2019, 2026)}-{digits(5)}",
            f"{rng.randint(2019, 2026)}{digits(4)}-{digits(4)}",
            f"ORD{digits(9)}",
            f"{digits(4)}-{digits(4)}-{digits(2)}",
            digits(10),
            f"INV-{digits(6)}",
            f"{digits(3)}-{digits(7)}-{digits(7)}",
        ]
    )


def timestamp() -> str:
    h, mi, s = rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59)
    y, m, d = rng.randint(2015, 2030), rng.randint(1, 12), rng.randint(1, 28)
    return rng.choice(
        [
            f"{y}-{m:02d}-{d:02d}T{h:02d}:{mi:02d}:{s:02d}Z",
            f"{h:02d}:{mi:02d}:{s:02d}",
            str(rng.randint(1_400_000_000, 1_900_000_000)),
            f"{y}-{m:02d}-{d:02d} {h:02d}:{mi:02d}:{s:02d}.{digits(3)}",
            str(rng.randint(1_400_000_000_000, 1_900_000_000_000)),
        ]
    )


def price(lang: str) -> str:
    amount = rng.randint(1, 99999)
    cents = rng.randint(0, 99)
    shapes = {
        "en": [f"${amount:,}.{cents:02d}", f"US$ {amount:,}"],
        "zh-Hant": [f"NT$ {amount:,}", f"新台幣 {amount:,} 元", f"HK$ {amount:,}.{cents:02d}"],
        "zh-Hans": [f"¥{amount:,}", f"人民币 {amount:,}.{cents:02d} 元"],
        "ja": [f"¥{amount:,}", f"{amount:,}円"],
        "de": [f"{amount:,} €".replace(",", "."), f"EUR {amount},{cents:02d}"],
        "fr": [f"{amount:,} €".replace(",", " "), f"{amount},{cents:02d} €"],
        "es": [f"{amount:,} €".replace(",", "."), f"{amount},{cents:02d} euros"],
    }
    return rng.choice(shapes[lang])


def version() -> str:
    return rng.choice(
        [
            f"{rng.randint(0, 20)}.{rng.randint(0, 40)}.{rng.randint(0, 30)}",
            f"v{rng.randint(1, 9)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}",
            f"{rng.randint(90, 130)}.0.{rng.randint(4000, 6999)}.{rng.randint(10, 250)}",
            f"10.0.{rng.randint(10000, 26000)}.{rng.randint(100, 4000)}",
            f"{rng.randint(1, 3)}.{rng.randint(0, 12)}",
        ]
    )


def tracking() -> str:
    return rng.choice(
        [
            f"1Z{digits(3)}AA{digits(10)}",
            f"9400 {digits(4)} {digits(4)} {digits(4)} {digits(4)} {digits(2)}",
            f"JD{digits(12)}",
            f"SF{digits(12)}",
            f"RR{digits(9)}CN",
        ]
    )


def measure(lang: str) -> str:
    value = rng.choice([str(rng.randint(1, 5000)), f"{rng.randint(0, 99)}.{rng.randint(0, 9)}"])
    unit = rng.choice(["kg", "km", "MB", "GB", "ml", "cm", "°C", "kWh", "%"])
    return f"{value} {unit}" if lang in ("en", "de", "fr", "es") else f"{value}{unit}"


def postal(lang: str) -> str:
    shapes = {
        "en": [digits(5), f"{digits(5)}-{digits(4)}", "SW1A 1AA"],
        "zh-Hant": [digits(3), digits(5)],
        "zh-Hans": [digits(6)],
        "ja": [f"〒{digits(3)}-{digits(4)}", f"{digits(3)}-{digits(4)}"],
        "de": [digits(5)],
        "fr": [digits(5)],
        "es": [digits(5)],
    }
    return rng.choice(shapes[lang])


def score() -> str:
    return rng.choice(
        [
            f"{rng.randint(0, 130)}-{rng.randint(0, 130)}",
            f"{rng.randint(0, 7)}:{rng.randint(0, 7)}",
            f"{rng.randint(100, 400)}/{rng.randint(1, 10)}",
        ]
    )


def flight() -> str:
    return rng.choice(
        [
            f"BR {rng.randint(1, 999)}",
            f"CI{rng.randint(1, 999)}",
            f"JL {rng.randint(1, 999)}",
            f"UA{rng.randint(1, 1999)}",
            f"LH {rng.randint(100, 999)}",
        ]
    ) + rng.choice(["", f", seat {rng.randint(1, 60)}{rng.choice('ABCDEFK')}"])


def coordinates() -> str:
    return f"{rng.uniform(-80, 80):.4f}, {rng.uniform(-170, 170):.4f}"


Generator = Callable[[str], str]
GENERATORS: dict[str, Generator] = {
    "isbn": lambda _: isbn(),
    "phone": phone,
    "date": date,
    "order-reference": lambda _: order(),
    "timestamp": lambda _: timestamp(),
    "price": price,
    "version": lambda _: version(),
    "tracking-number": lambda _: tracking(),
    "measurement": measure,
    "postal-code": postal,
    "score": lambda _: score(),
    "flight": lambda _: flight(),
    "coordinates": lambda _: coordinates(),
}

TEMPLATES: dict[str, dict[str, list[str]]] = {
    "isbn": {
        "en": ["The second edition has ISBN {}.", "Order the book by its ISBN, {}, from any shop."],
        "zh-Hant": ["這本書的 ISBN 是 {}。", "請以 ISBN {} 向書店訂購。"],
        "zh-Hans": ["这本书的 ISBN 是 {}。", "请用 ISBN {} 在书店订购。"],
        "ja": ["この本のISBNは{}です。", "ISBN {} で書店に注文できます。"],
        "de": ["Die zweite Auflage hat die ISBN {}.", "Bestellen Sie das Buch mit ISBN {}."],
        "fr": ["La deuxième édition porte l'ISBN {}.", "Commandez le livre avec l'ISBN {}."],
        "es": ["La segunda edición tiene el ISBN {}.", "Pida el libro con el ISBN {}."],
    },
    "phone": {
        "en": ["Call our help desk at {} between 9 and 5.", "The front desk number is {}."],
        "zh-Hant": ["客服專線：{}，週一至週五服務。", "請撥打 {} 聯絡門市。"],
        "zh-Hans": ["客服热线：{}，工作日服务。", "请拨打 {} 联系门店。"],
        "ja": ["お問い合わせは{}までお電話ください。", "受付の電話番号は {} です。"],
        "de": ["Unsere Hotline erreichen Sie unter {}.", "Die Zentrale hat die Nummer {}."],
        "fr": ["Appelez le service client au {}.", "Le standard répond au {}."],
        "es": ["Llame a atención al cliente al {}.", "La recepción atiende en el {}."],
    },
    "date": {
        "en": ["The meeting moved to {}.", "Your subscription renews on {}."],
        "zh-Hant": ["會議改到 {} 舉行。", "您的訂閱將於{}續約。"],
        "zh-Hans": ["会议改到 {} 举行。", "您的订阅将于{}续费。"],
        "ja": ["会議は{}に変更されました。", "契約は {} に更新されます。"],
        "de": ["Das Treffen wurde auf den {} verschoben.", "Ihr Abo verlängert sich am {}."],
        "fr": ["La réunion est reportée au {}.", "Votre abonnement sera renouvelé le {}."],
        "es": ["La reunión se movió al {}.", "Su suscripción se renueva el {}."],
    },
    "order-reference": {
        "en": ["Your order {} has shipped.", "Please quote reference {} when you write to us."],
        "zh-Hant": ["您的訂單 {} 已出貨。", "來信請註明訂單編號{}。"],
        "zh-Hans": ["您的订单 {} 已发货。", "来信请注明订单号{}。"],
        "ja": ["ご注文 {} は発送されました。", "注文番号{}をお知らせください。"],
        "de": ["Ihre Bestellung {} wurde versandt.", "Bitte geben Sie die Referenz {} an."],
        "fr": ["Votre commande {} a été expédiée.", "Merci d'indiquer la référence {}."],
        "es": ["Su pedido {} ha sido enviado.", "Indique la referencia {} en su mensaje."],
    },
    "timestamp": {
        "en": ["The job finished at {}.", "Log entry written at {}."],
        "zh-Hant": ["工作於 {} 完成。", "日誌時間戳記為{}。"],
        "zh-Hans": ["任务于 {} 完成。", "日志时间戳为{}。"],
        "ja": ["ジョブは {} に完了しました。", "ログの時刻は{}です。"],
        "de": ["Der Auftrag endete um {}.", "Der Logeintrag stammt von {}."],
        "fr": ["La tâche s'est terminée à {}.", "Entrée du journal écrite à {}."],
        "es": ["El trabajo terminó a las {}.", "Entrada de registro escrita a las {}."],
    },
    "price": {
        "en": ["The total comes to {} including tax.", "It now sells for {}."],
        "zh-Hant": ["總金額為 {}，含稅。", "現在售價{}。"],
        "zh-Hans": ["总金额为 {}，含税。", "现在售价{}。"],
        "ja": ["合計は{}（税込）です。", "現在の価格は {} です。"],
        "de": ["Der Gesamtbetrag beträgt {} inklusive MwSt.", "Es kostet jetzt {}."],
        "fr": ["Le total s'élève à {} TTC.", "Il coûte maintenant {}."],
        "es": ["El total es de {} con impuestos.", "Ahora cuesta {}."],
    },
    "version": {
        "en": ["Upgrade to version {} to get the fix.", "We tested it on release {}."],
        "zh-Hant": ["請升級到 {} 版以取得修正。", "我們在版本{}上測試過。"],
        "zh-Hans": ["请升级到 {} 版以获得修复。", "我们在版本{}上测试过。"],
        "ja": ["修正はバージョン{}に含まれます。", "リリース {} で検証しました。"],
        "de": ["Aktualisieren Sie auf Version {}.", "Getestet mit Release {}."],
        "fr": ["Passez à la version {} pour le correctif.", "Testé avec la version {}."],
        "es": ["Actualice a la versión {} para la corrección.", "Probado con la versión {}."],
    },
    "tracking-number": {
        "en": ["Track the parcel with number {}.", "Tracking: {} (in transit)."],
        "zh-Hant": ["包裹追蹤號碼：{}。", "物流單號{}目前運送中。"],
        "zh-Hans": ["快递单号：{}。", "运单号{}正在派送。"],
        "ja": ["追跡番号は{}です。", "お荷物の伝票番号：{}。"],
        "de": ["Sendungsnummer: {}.", "Verfolgen Sie das Paket mit {}."],
        "fr": ["Numéro de suivi : {}.", "Suivez le colis avec le numéro {}."],
        "es": ["Número de seguimiento: {}.", "Siga el paquete con {}."],
    },
    "measurement": {
        "en": ["The package weighs {} after packing.", "Usage this month: {}."],
        "zh-Hant": ["包裝後重量為 {}。", "本月用量：{}。"],
        "zh-Hans": ["包装后重量为 {}。", "本月用量：{}。"],
        "ja": ["梱包後の重さは{}です。", "今月の使用量は {} です。"],
        "de": ["Das Paket wiegt {}.", "Verbrauch in diesem Monat: {}."],
        "fr": ["Le colis pèse {}.", "Consommation ce mois-ci : {}."],
        "es": ["El paquete pesa {}.", "Consumo de este mes: {}."],
    },
    "postal-code": {
        "en": ["Ship it to postcode {}.", "The office moved to ZIP {}."],
        "zh-Hant": ["郵遞區號為 {}。", "請寄到郵遞區號{}的地址。"],
        "zh-Hans": ["邮政编码为 {}。", "请寄到邮编{}的地址。"],
        "ja": ["郵便番号は{}です。", "{} 宛てに発送してください。"],
        "de": ["Die Postleitzahl lautet {}.", "Bitte an PLZ {} senden."],
        "fr": ["Le code postal est {}.", "Envoyez-le au code postal {}."],
        "es": ["El código postal es {}.", "Envíelo al código postal {}."],
    },
    "score": {
        "en": ["The home team won {} last night.", "Final score: {}."],
        "zh-Hant": ["主隊昨晚以 {} 獲勝。", "最終比分{}。"],
        "zh-Hans": ["主队昨晚以 {} 获胜。", "最终比分{}。"],
        "ja": ["ホームチームが{}で勝ちました。", "最終スコアは {} でした。"],
        "de": ["Die Heimmannschaft gewann {}.", "Endstand: {}."],
        "fr": ["L'équipe locale a gagné {}.", "Score final : {}."],
        "es": ["El equipo local ganó {}.", "Resultado final: {}."],
    },
    "flight": {
        "en": ["Your flight {} boards at gate C5.", "Rebooked on {} tomorrow."],
        "zh-Hant": ["您的班機 {} 於 C5 登機門登機。", "已改搭明天的{}。"],
        "zh-Hans": ["您的航班 {} 在 C5 登机口登机。", "已改签明天的{}。"],
        "ja": ["{}便は C5 ゲートから搭乗します。", "明日の {} に振り替えました。"],
        "de": ["Flug {} boardet an Gate C5.", "Umgebucht auf {} morgen."],
        "fr": ["Le vol {} embarque porte C5.", "Réservé sur le vol {} demain."],
        "es": ["El vuelo {} embarca por la puerta C5.", "Cambiado al vuelo {} de mañana."],
    },
    "coordinates": {
        "en": ["The site is at coordinates {}.", "GPS fix: {}."],
        "zh-Hant": ["座標為 {}。", "定位結果：{}。"],
        "zh-Hans": ["坐标为 {}。", "定位结果：{}。"],
        "ja": ["座標は{}です。", "GPS の位置：{}。"],
        "de": ["Der Standort liegt bei {}.", "GPS-Position: {}."],
        "fr": ["Le site se trouve aux coordonnées {}.", "Position GPS : {}."],
        "es": ["El sitio está en las coordenadas {}.", "Posición GPS: {}."],
    },
}


def ordinary(per_template: int = 6) -> list[dict[str, str]]:
    rows: list[dict[str, str]] = []
    for category, by_lang in TEMPLATES.items():
        for lang, templates in by_lang.items():
            for template in templates:
                for _ in range(per_template):
                    rows.append(
                        {
                            "lang": lang,
                            "category": category,
                            "text": template.format(GENERATORS[category](lang)),
                        }
                    )
    return rows


# -- secrets ----------------------------------------------------------------------------------


def luhn_complete(prefix: str, length: int) -> str:
    body = prefix + digits(length - len(prefix) - 1)
    total = 0
    for index, char in enumerate(reversed(body)):
        value = int(char)
        if index % 2 == 0:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return body + str((10 - total % 10) % 10)


def cards() -> list[str]:
    out = []
    for prefix, length in [("4", 16), ("51", 16), ("55", 16), ("2221", 16), ("34", 15), ("37", 15), ("6011", 16), ("4", 19), ("35", 16), ("62", 16)]:  # fmt: skip
        number = luhn_complete(prefix, length)
        groups = (
            [number[:4], number[4:10], number[10:]]
            if length == 15
            else [number[i : i + 4] for i in range(0, length, 4)]
        )
        for separator in ["", " ", "-", ".", "\u00a0", "  ", "\u2013", "\u200b"]:
            out.append(separator.join(groups))
    full_width = str.maketrans(string.digits, "０１２３４５６７８９")
    out.append(luhn_complete("4", 16).translate(full_width))
    return out


def iban() -> list[str]:
    lengths = {"DE": 18, "GB": 18, "NL": 14, "CH": 17, "AT": 16}
    out = []
    for country, bban_length in lengths.items():
        for _ in range(3):
            if country in ("GB", "NL"):
                bank = "".join(rng.choice(string.ascii_uppercase) for _ in range(4))
                bban = bank + digits(bban_length - 4)
            elif country == "IT":
                bban = rng.choice(string.ascii_uppercase) + digits(bban_length - 1)
            else:
                bban = digits(bban_length)
            rearranged = bban + country + "00"
            number = int("".join(str(int(c, 36)) for c in rearranged))
            check = 98 - number % 97
            compact = f"{country}{check:02d}{bban}"
            out.append(compact)
            out.append(" ".join(compact[i : i + 4] for i in range(0, len(compact), 4)))
    return out


def ssn() -> list[str]:
    out: list[str] = []
    while len(out) < 12:
        area, group, serial = rng.randint(1, 899), rng.randint(1, 99), rng.randint(1, 9999)
        if area == 666:
            continue
        separator = rng.choice(["-", " ", "."])
        out.append(f"{area:03d}{separator}{group:02d}{separator}{serial:04d}")
    return out


B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def base58check(payload: bytes) -> str:
    data = payload + hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4]
    number = int.from_bytes(data, "big")
    out = ""
    while number:
        number, rest = divmod(number, 58)
        out = B58[rest] + out
    return "1" * (len(data) - len(data.lstrip(b"\0"))) + out


def wallets() -> list[str]:
    out = [base58check(bytes([0]) + rng.randbytes(20)) for _ in range(5)]
    out += [base58check(bytes([5]) + rng.randbytes(20)) for _ in range(5)]
    out += ["bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"]
    out += ["0x" + "".join(rng.choice("0123456789abcdef") for _ in range(40)) for _ in range(5)]
    return out


def token(alphabet: str, count: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(count))


ALNUM = string.ascii_letters + string.digits


def keys() -> list[str]:
    return [
        "sk-" + token(ALNUM, 48),
        "sk-proj-" + token(ALNUM + "_-", 64),
        "sk-ant-api03-" + token(ALNUM + "_-", 80),
        "sk_live_" + token(ALNUM, 24),
        "sk_test_" + token(ALNUM, 32),
        "rk_live_" + token(ALNUM, 24),
        "ghp_" + token(ALNUM, 36),
        "gho_" + token(ALNUM, 36),
        "github_pat_" + token(ALNUM + "_", 82),
        "xoxb-" + token(string.digits, 12) + "-" + token(ALNUM, 24),
        "AIza" + token(ALNUM + "_-", 35),
        "glpat-" + token(ALNUM + "_-", 20),
        "npm_" + token(ALNUM, 36),
        "hf_" + token(ALNUM, 34),
        "sk-" + token(string.ascii_lowercase, 300),
    ]


def jwt() -> list[str]:
    def part(count: int) -> str:
        return token(ALNUM + "_-", count)

    return [f"eyJ{part(30)}.eyJ{part(60)}.{part(43)}" for _ in range(4)]


def national_ids() -> list[str]:
    from stdnum.br import cpf
    from stdnum.cn import ric
    from stdnum.es import dni

    out = []
    for _ in range(4):
        birth = f"{rng.randint(1950, 2005)}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}"
        body = f"110105{birth}{digits(3)}"
        out.append(body + ric.calc_check_digit(body + "0"))  # it reads all but the last
        number = digits(8)
        out.append(number + dni.calc_check_digit(number))
        base = digits(9)
        full = base + cpf._calc_check_digits(base)
        out.append(f"{full[:3]}.{full[3:6]}.{full[6:9]}-{full[9:]}")
    out += ["A123456789", "F131104093", "A123456(3)"]
    return out


def emails() -> list[str]:
    return [
        "ada@example.com",
        "grace.hopper+navy@mail.example.org",
        "x" * 60 + "@" + "sub." * 12 + "example.com",
        "li.wei@example.com.tw",
        "tanaka_taro@example.co.jp",
        "very.long.name.of.a.person." * 2 + "end@corp.example.co.uk",
    ]


def secrets() -> dict[str, object]:
    values: dict[str, list[str]] = {
        "credit-card": cards(),
        "email": emails(),
        "api-key": keys(),
        "aws-key": ["AKIA" + token(string.ascii_uppercase + string.digits, 16) for _ in range(4)],
        "jwt": jwt(),
        "ssn": ssn(),
        "iban": iban(),
        "crypto-wallet": wallets(),
        "national-id": national_ids(),
        "phone": ["+1 415-555-0134", "+44 20 7946 0958", "+86 138 0013 8000", "+81 3-1234-5678", "+886 912 345 678"],
        "ip-address": ["192.168.10.24", "10.0.0.1", "2001:db8::8a2e:370:7334"],
        "uuid": ["123e4567-e89b-12d3-a456-426614174000", "9f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f"],
    }  # fmt: skip
    carriers = [
        "{}",
        "My card is {}, ok?",
        "卡號{}。",
        "金鑰{}好",
        "信用卡號碼：{}，請保密。",
        "カード番号は{}です。",
        "Meine Nummer lautet {} danke.",
        "Voici la clé : {} merci",
        "Clave: {}.",
        "The value ({}) is here",
        '{{"secret": "{}"}}',
        "secret={}&next=1",
    ]
    return {"values": values, "carriers": carriers}


def main() -> None:
    rows = ordinary()
    with (HERE / "ordinary_numbers.jsonl").open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    (HERE / "secrets.json").write_text(
        json.dumps(secrets(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    print(f"{len(rows)} ordinary sentences")


if __name__ == "__main__":
    main()
