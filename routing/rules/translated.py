"""Transport failures in the words of other languages: a connection refused, cut or timed out, a name that did not
resolve, a server or gateway unavailable for now, as operating systems, browsers and apps translate them.

The English rules read these failures by a runtime's vocabulary; a translated message has none of it, and left
`unknown` it ends the run on a blip. Each concept is a word list per language, taken from the translations the
training lines of tests/corpus/classes26.jsonl copy (glibc's strerror and resolver messages, GLib's and libsoup's
socket messages, Firefox's network error pages, LibreChat's and Cherry Studio's connection and gateway notices). A
concept matches only beside its partner (a connection word near a refusal, a timeout or a cut; a service word near
"unavailable" and "for now" or "later"), so a lone "connection" or "unavailable" decides nothing. Stems, not whole
words: Chinese, Japanese and Thai do not separate words, and a stem reads a word's inflections.
"""

from routing.codes import ErrorCode as E
from routing.rules import Row


def _any(*words: str) -> str:
    return "(?:" + "|".join(words) + ")"


def _near(a: str, b: str, span: int = 48) -> str:
    """Either word list within `span` characters of the other, inside one sentence."""
    gap = "[^.。!?！？\\n]{0," + str(span) + "}"
    return f"{a}{gap}{b}|{b}{gap}{a}"


# fmt: off
# (one language to a line, so each list reads as a table)
# a connection, its noun or its verb
CONNECTION = _any(
    "соединени", "подключ",  # ru
    "з['’]єднанн", "підключ", "зв['’]яз",  # uk
    "connexion", "connecter",  # fr
    "conexi[óo]n", "conectar",  # es
    "conex[ãa]o", "liga[çc][ãa]o", "ligar ao", "contactar",  # pt
    "connession", "connetter",  # it
    "verbindung",  # de
    "verbinding",  # nl
    "połącz",  # pl
    "spojen[íi]", "připoj",  # cs
    "bağlan",  # tr
    "الاتصال", "التواصل",  # ar
    "اتصال", "وصل شدن",  # fa
    "חיבור", "התחבר", "הקשר",  # he
    "kết nối",  # vi
    "koneksi", "sambungan", "menghubungi",  # id
    "เชื่อมต่อ",  # th
    "接続",  # ja
    "연결", "접속",  # ko
    "连接", "連線", "連接",  # zh
    "कनेक्शन", "मिलाप",  # hi
)
# refused, cut, closed or ended unexpectedly, or impossible
REFUSED_OR_CUT = _any(
    "отказано", "неожиданно", "разорван", "прерван", "невозможно", "не удаётся", "не удается",  # ru
    "відхилен", "відмовлено", "несподівано", "розірван", "не вдалося",  # uk
    "refusée", "inattendue", "interrompue", "impossible de",  # fr
    "rechaz", "rehusada", "inesperad", "no se puede",  # es
    "recusada", "não foi possível", "não é possível",  # pt
    "rifiutat", "inattes", "inaspettat", "impossibile",  # it
    "abgelehnt", "unerwartet", "nicht möglich", "unterbrochen",  # de
    "geweigerd", "onverwacht", "kan geen", "verbroken",  # nl
    "odrzucon", "nieoczekiwanie", "przerwan", "błąd",  # pl
    "odmítnut", "neočekávaně", "chyba",  # cs
    "reddedildi", "beklenmedik", "beklenmeyen", "hata",  # tr
    "رُفِض", "رفض", "غير متوقّع", "غير متوقع", "خطأ",  # ar
    "خودداری", "رد شد", "غیرمنتظره", "غیر منتظره", "خطا",  # fa
    "נדח", "לא צפוי", "בלתי צפוי", "לא ניתן", "שגיאה", "נותק", "הופסק",  # he
    "từ chối", "bất ngờ", "không thể", "lỗi",  # vi
    "ditolak", "tak terduga", "direset", "terputus",  # id
    "ปฏิเสธ", "ไม่คาดคิด", "กะทันหัน", "ข้อผิดพลาด", "ถูกยกเลิก",  # th
    "拒否", "予期せず", "切断", "できません",  # ja
    "거부", "예상치", "중지", "오류",  # ko
    "拒绝", "拒絕", "意外", "异常", "無預警", "无法", "無法",  # zh
    "अस्वीकार", "अप्रत्याशित", "अनपेक्षित",  # hi
)
# an operation or a connection out of time, in words that say nothing else
TIMED_OUT = _any(
    "время ожидания",  # ru
    "час очікування", "інтервал очікування",  # uk
    "délai (?:de connexion )?dépassé", "expiration du délai",  # fr
    "tiempo de espera", "expiró el tiempo",  # es
    "tempo limite", "tempo esgotado",  # pt
    "tempo concesso", "connessione scaduta",  # it
    "zeitüberschreitung", "wartezeit",  # de
    "wachttijd",  # nl
    "limit czasu", "czas oczekiwania",  # pl
    "časový limit", "příliš dlouho neaktivní",  # cs
    "zaman aşımı",  # tr
    "انتهت مهلة",  # ar
    "مهلت",  # fa
    "תם הזמן",  # he
    "chờ quá lâu", "quá hạn",  # vi
    "kehabisan waktu",  # id
    "หมดเวลา",  # th
    "タイムアウト",  # ja
    "시간 초과", "시간이 초과",  # ko
    "超时", "超時", "超過時間",  # zh
    "समय समाप्त",  # hi
)
# expired: a timeout beside a connection, a credential's expiry anywhere else
# (and Indonesian's borrowed "time-out", English too: only beside a connection word of its own)
EXPIRED = _any("истекл", "expiré", "expirou", "expirad", "verlopen", "verstreken", "scadut", "time-out")
# for now, temporarily
TEMPORARILY = _any(
    "временно", "тимчасов", "temporair", "temporal", "temporári", "temporane", "momentaneamente", "vorübergehend",
    "tijdelijk", "tymczasowo", "chwilowo", "dočasn", "geçici", "مؤقت", "موقت", "זמני", "tạm thời", "sementara",
    "ชั่วคราว", "一時", "일시적", "暂时", "暫時", "अस्थायी", "tillfälligt", "midlertidig", "uz laiku",
)
# resolving a host's name
RESOLVE = _any(
    "разрешить", "розв['’]яз", "résoudre", "résolution du nom", "resoluci[óo]n", "resolver", "resolução",
    "risolvere", "risoluzione del nome", "naamsherleiding", "oplossen", "rozwiązać", "odwzorowanie nazwy",
    "vyřešit", "vyhodnocování jména", "çözülemiyor", "isim çözünürlüğü", "تحلیل", "phân giải", "mengurai",
    "resolusi nama", "name resolution", "हल करने",
)
# a service or server, and its being unavailable
SERVICE = _any(
    "сервис", "сервер", "служб", "service", "servicio", "serviço", "servizio", "dienst", "server", "serwer",
    "usług", "služb", "servis", "sunucu", "خدمة", "الخادم", "سرور", "שרת", "שירות", "dịch vụ", "máy chủ",
    "layanan", "บริการ", "เซิร์ฟเวอร์", "サービス", "サーバー", "서비스", "서버", "服务", "服務", "伺服器",
    "服务器", "सेवा", "सर्वर", "διακομιστ",
)
UNAVAILABLE = _any(
    "недоступ", "indisponible", "no (?:está )?disponible", "indisponível", "non disponibile", "nicht verfügbar",
    "niet beschikbaar", "niedostęp", "nedostupn", "kullanılamıyor", "غير متاح", "غير متوفر", "در دسترس نیست",
    "אינו זמין", "không khả dụng", "tidak tersedia", "ไม่พร้อมใช้งาน", "利用できません", "使用できません",
    "사용할 수 없", "不可用", "無法使用", "उपलब्ध नहीं", "otillgänglig", "utilgjengelig", "nav pieejams", "не доступн",
    "ご利用いただけません",
)
LATER = _any(
    "позже", "пізніше", "plus tard", "más tarde", "mais tarde", "più tardi", "später", "later opnieuw", "później",
    "později", "daha sonra", "لاحق", "بعداً", "מאוחר יותר", "thử lại sau", "nanti", "ภายหลัง", "後で", "잠시 후",
    "稍后", "稍後", "बाद में", "αργότερα", "mai târziu",
)
# a gateway, and an error of it (no English word for the error: an English text is the English rules')
GATEWAY = _any("шлюз", "passerelle", "puerta de enlace", "gateway", "ゲートウェイ", "网关", "閘道", "cổng kết nối")
ERROR = _any(
    "ошибк", "помилк", "\\berreur", "\\berror de\\b", "\\berro\\b", "\\berrore\\b", "fehler", "\\bfout\\b", "\\bbłąd",
    "\\bchyba\\b", "\\bhata\\b", "خطأ", "خطا", "שגיאה", "\\blỗi", "\\bkesalahan", "ข้อผิดพลาด", "エラー", "오류",
    "错误", "錯誤", "σφάλμα", "\\beroare\\b",
)
# a model, said to be unavailable (for good: a model only for now is capacity, not this)
MODEL = _any("модел", "מודל", "モデル", "\\bmodelis\\b")
# a relay's channel (new-api's word for an upstream it routes to), and there being none or no valid one
CHANNEL = _any("渠道", "管道", "\\bcanal\\b", "채널", "کانال")
NONE = _any("\\baucun", "\\bnenhum", "없습니다", "هیچ", "无有效", "無有效", "无可用", "無可用")
# a relay's upstream, and its load at its maximum (new-api "the current group's upstream load is saturated")
UPSTREAM = _any("업스트림", "بالادستی", "上游", "\\bamont\\b")
SATURATED = _any("포화", "به حداکثر رسیده", "saturé", "saturad", "饱和", "飽和")
# a problem, said to be temporary
PROBLEM = _any(
    "проблем", "problème", "problema", "problem", "sorun", "مشكلة", "مشکل", "בעיה", "vấn đề", "masalah", "ปัญหา",
    "問題", "문제", "问题", "समस्या",
)
# a proxy on the way
PROXY = _any(
    "прокси", "проксі", "proxy", "mandataire", "vekil", "پیشکار", "الوسيط", "מתווך", "ủy nhiệm", "proksi",
    "พร็อกซี", "プロキシ", "프록시", "代理", "प्रॉक्सी",
)
# a credential named beside the failure ("無法連接 — 可能是 token 已經過期或無效"): the key's failure, which the
# connection words only report
CREDENTIAL = _any(
    # (a word's start, where the alphabet has one: "подключиться" holds "ключ")
    "\\btoken", "\\bapi[ -]?key", "\\bключ", "\\bclé", "\\bclave", "\\bchave", "\\bchiave", "schlüssel",
    "\\bsleutel", "\\bklucz", "\\bklíč", "\\banahtar", "مفتاح", "کلید", "מפתח", "\\bkhóa", "\\bkunci", "คีย์",
    "キー", "키", "密钥", "金鑰", "令牌", "कुंजी",
)
# fmt: on


def _without_credential(pattern: str) -> str:
    """The pattern, in a text (read as one line) that names no credential."""
    return f"^(?!.*{CREDENTIAL}).*?(?:{pattern})"


# Below every English reading (the SDKs' catch-all connection class is 0.74): any rule that reads the same text in a
# runtime's words, or in a refusal's, decides first. Among themselves: a gateway or a service named unavailable is
# more specific than the connection words beside it ("Lỗi cổng kết nối", a gateway error, holds "kết nối"); a
# connection refused or cut is more specific than a server's error ("Sunucuya bağlanırken hata oluştu", an error
# while connecting to the server); a connection that ran out of time is a timeout only where no refusal is named.
ROWS: tuple[Row, ...] = (
    (
        "translated_server_unavailable",
        f"^(?=.*{_any(TEMPORARILY, LATER)}).*?(?:{_near(SERVICE, UNAVAILABLE)})"
        f"|{_near(GATEWAY, ERROR)}|{_near(TEMPORARILY, PROBLEM)}",
        E.provider_unavailable,
        0.745,
    ),
    (
        "translated_connection_failed",
        _without_credential(
            f"{_near(CONNECTION, REFUSED_OR_CUT)}|{_near(PROXY, REFUSED_OR_CUT)}|{_near(TEMPORARILY, RESOLVE)}"
        ),
        E.network_unavailable,
        0.742,
    ),
    ("translated_timeout", f"{TIMED_OUT}|{_near(CONNECTION, EXPIRED)}", E.timeout, 0.74),
    ("translated_upstream_saturated", _near(UPSTREAM, SATURATED), E.provider_overloaded, 0.745),
    # a model this provider does not serve, or a relay with no channel for it: another route may
    (
        "translated_model_unavailable",
        f"^(?!.*{TEMPORARILY}).*?(?:{_near(MODEL, UNAVAILABLE)})|{_near(NONE, CHANNEL)}",
        E.model_unavailable,
        0.746,
    ),
    ("translated_server_error", _without_credential(_near(SERVICE, ERROR)), E.provider_unavailable, 0.73),
)
