"""Failures of the request or of the account in the words of other languages: a conversation too long for the
model, content refused by a moderation or safety system, a quota used up, a rate limit reached (a daily or monthly
one is a quota), a key invalid, expired or not set, a model not found, a balance too low.

A translated message has none of the English vocabulary the other rules read, and left `unknown` it ends the run
with the wrong message (a key to fix, a model to change, a task to shorten). Each concept is a word list per
language, taken from the translations the training lines of tests/corpus/translated*.jsonl copy (chat clients' and
agent apps' locale files), and read only beside its partner: a key beside "invalid" or "expired", a quota beside
"used up", a model beside "not found". Stems, not whole words, as in routing/rules/translated.py, whose helpers
these rows share; like its rows, these rank below every English reading and above a bare status.
"""

from routing.codes import ErrorCode as E
from routing.rules import Row
from routing.rules.words import any_of, found, near

# fmt: off
# (one language to a line where a language has several words, so each list reads as a table)
# tokens, a context window, a conversation or a message: what a model's limit counts
TOKENS_OR_CONTEXT = any_of(
    "токен", "контекст", "розмов",  # ru, uk
    "jeton", "contexte", "conversation",  # fr
    "contexto", "conversaci[óo]n", "conversa\\b",  # es, pt
    "contesto", "conversazione",  # it
    "kontext", "unterhaltung",  # de
    "kontekst", "konwersacj", "rozmow",  # pl
    "tokenů", "konverzac",  # cs
    "bağlam", "belirteç", "konuşma",  # tr
    "السياق", "الرموز", "المحادثة",  # ar
    "توکن", "زمینه", "مکالمه",  # fa
    "טוקנ", "אסימונ", "ההקשר", "השיחה",  # he
    "ngữ cảnh", "hội thoại", "cuộc trò chuyện",  # vi
    "konteks", "percakapan",  # id
    "โทเค็น", "บริบท", "การสนทนา",  # th
    "トークン", "コンテキスト", "文脈", "会話",  # ja
    "토큰", "컨텍스트", "대화",  # ko
    "令牌", "上下文", "对话", "對話", "token",  # zh (a borrowed "Token" beside Chinese words)
    "टोकन", "संदर्भ", "बातचीत",  # hi
    # a message too long for the model
    "сообщени", "паведамленн", "повідомленн", "\\bmessage", "mensaje", "mensagem", "mensaxe", "messaggio", "nachricht",
    "bericht", "wiadomoś", "zpráv", "správ", "\\bileti", "رسالة", "پیام", "הודעה", "tin nhắn", "\\bpesan\\b",
    "ข้อความ", "メッセージ", "메시지", "消息", "訊息", "संदेश", "μήνυμα", "sõnum", "teachtaireacht", "pranešim",
    "мессеж", "meddelande", "ujumbe", "ئۇچۇر",
    "\\bfråga", "galdera",
    "perbualan", "گفتگو", "שיחה", "\\bchat\\b",  # (a prompt, its characters, a chat)
)
# too long, too many, or over the limit
TOO_LONG = any_of(
    "слишком (?:велик|длин|больш|много)", "превыша", "занадто (?:довг|велик|багато)", "перевищу",  # ru, uk
    "trop long", "dépasse",  # fr
    "demasiado (?:larg|grande)", "excede\\b",  # es
    "muito long", "demasiado long", "excedendo",  # pt
    "troppo lung", "\\bsupera\\b",  # it
    "zu lang", "überschreit",  # de
    "zbyt (?:duż|dług)", "przekracz",  # pl
    "příliš dlouh", "překraču",  # cs
    "çok uzun", "aşıyor", "aştı",  # tr
    "طويل جد", "يتجاوز", "تجاوز",  # ar
    "بسیار طولانی", "از حد مجاز بیشتر",  # fa
    "גבוה מדי", "ארוך מדי", "חורג",  # he
    "quá dài", "vượt quá",  # vi
    "terlalu panjang", "melebihi",  # id
    "ยาวเกินไป", "เกินขีดจำกัด",  # th
    "長すぎ", "超え",  # ja
    "너무 (?:많|길|깁)", "초과",  # ko
    "过长", "過長", "太长", "過多", "超出", "超过", "超過",  # zh
    "बहुत लंबा", "सीमा से अधिक",  # hi
    "занадта доўг", "πολύ μεγάλ", "liiga pikk", "بیش از حد طولانی", "rófhada", "longa de máis", "per ilgas",
    "хэт урт", "te lang", "za dług", "príliš dlh", "för lång", "mrefu sana", "بەك ئۇزۇن", "太長",
    "luzeegia",
)
# a rate, a frequency or too many requests: a rate limit's words
RATE = any_of(
    "(?:предел|лимит|ограничени[ея]) скорости", "слишком много запросов",  # ru
    "(?:ліміт|обмеженн)\\w* швидкості", "забагато запитів",  # uk
    "limite de débit", "trop de requêtes",  # fr
    "l[íi]mite de velocidad", "demasiadas solicitudes", "tasa de solicitudes",  # es
    "limite de taxa", "taxa de solicitação", "demasiados pedidos", "muitas solicitações", "muitas requisições",  # pt
    "limite di velocità", "troppe richieste",  # it
    "лимит(?:а)? запросов", "límite de (?:peticiones|solicitudes)", "limite de (?:requêtes|demandes)",
    "limite de (?:solicitações|requisições)", "limite di richieste", "過於頻繁", "请求过于频繁",
    # a limit per minute is a rate, whatever it counts ("Cuota por minuto agotada", "每分钟令牌数超过上限")
    "в минуту", "за хвилину", "par minute", "por minuto", "al minuto", "pro minute", "per minuut", "na minutę",
    "za minutu", "dakikada", "في الدقيقة", "در دقیقه", "לדקה", "mỗi phút", "per menit", "ต่อนาที", "毎分", "分あたり",
    "분당", "每分钟", "每分鐘", "प्रति मिनट",
    "ratenlimit", "zu viele anfragen",  # de
    "te veel (?:\\w+ )?(?:verzoeken|aanvragen)",  # nl
    "limit szybkości", "zbyt wiele (?:żądań|zapytań)", "zbyt dużo (?:żądań|zapytań)",  # pl
    "příliš mnoho požadavků",  # cs
    "hız sınırı", "çok fazla istek",  # tr
    "حد المعدل", "طلبات كثيرة",  # ar
    "محدودیت نرخ", "درخواست‌های زیادی", "درخواست های زیادی",  # fa
    "יותר מדי בקשות", "מגבלת קצב",  # he
    "giới hạn tốc độ", "quá nhiều yêu cầu",  # vi
    "batas kecepatan", "terlalu banyak permintaan",  # id
    "ขีดจ[ำํ]า?กัดอัตรา", "คำขอมากเกินไป",  # th
    "レート制限", "要求が多すぎ", "リクエストが多すぎ",  # ja
    "속도 제한", "요청이 너무 많",  # ko
    "频率(?:上限|限制|过高)", "頻率(?:上限|限制|過高)", "速率(?:限制|超过|超過)", "请求速率", "請求速率",  # zh
    "請求過多", "请求过多", "请求太多", "請求太多",  # zh
    "रेट सीमा", "बहुत अधिक अनुरोध",  # hi
    "hastighet begrenset", "sebessége korlátozott", "limitat de rată", "límite de tasa",
    "snelheidslimiet", "príliš rýchl", "är för snabb", "azkarregi zoaz", "çok hızlısın", "слишком быстр",
    "demasiado rápido", "trop rapide", "troppo veloc", "zu schnell", "te snel", "zbyt szybk",
    # (a provider's speed limited, requests too fast)
    "příliš rychl", "quá nhanh", "terlalu cepat", "速すぎ", "너무 빠르", "太快",
    "kekerapan permintaan",  # (ms: a request frequency over its limit)
    "频率超限", "頻率超限", "限流", "محدودیت تعداد درخواست",  # (zh: frequency over its limit, throttled; fa)
)
# too many (requests): a rate limit in plain words, wherever a language puts them ("ChatGPT wird mit zu vielen Anfragen
# überflutet", "ChatGPT 被太多请求淹没")
_TOO_MANY = any_of(
    "слишком (?:много|большим количеством)", "занадто (?:багато|великою кількістю)", "забагато", "trop de",
    "demasiad[oa]s", "\\btroppe\\b", "zu viele", "te veel", "zbyt (?:wiele|dużo|wieloma)", "příliš (?:mnoho|mnoha)",
    "príliš (?:veľa|veľkým)", "çok fazla", "for mange", "för många", "liian (?:monia|monta|paljon)", "túl sok",
    "prea multe", "pārāk daudz", "per daug", "liiga pal", "preveč", "previše", "πάρα πολλ", "твърде много", "یادی",
    "יותר מדי", "quá nhiều", "terlalu banyak", "มากเกินไป", "多すぎ", "너무 많", "太多", "过多", "過多",
    "बहुत (?:अधिक|सारे)",
)
# (too much time is a timeout's: "La requête a pris trop de temps", "зайняло занадто багато часу")
_TIME = any_of(
    "temps", "tiempo", "tempo", "zeit", "tijd", "czasu", "času", "zaman", "часу", "времени", "\\btid", "aikaa", "időt",
    "timp", "laika", "laiko", "aega", "časa", "vremena", "χρόνο", "време", "زمان", "זמן", "thời gian", "waktu", "เวลา",
    "時間", "时间", "시간", "समय",
)
TOO_MANY = f"{_TOO_MANY}(?!\\s*{_TIME})"
# per second: a rate where requests are counted ("ограничения на количество запросов в секунду"; never a bit rate)
PER_SECOND = any_of(
    "в секунду", "на секунду", "за секунду", "pro sekunde", "par seconde", "por segundo", "al secondo", "per seconde",
    "na sekundę", "saniyede", "في الثانية", "در ثانیه", "לשנייה", "mỗi giây", "per detik", "ต่อวินาที", "毎秒", "초당",
    "每秒", "प्रति सेकंड",
)
# reached (a context's limit): only the words that say it was reached, never "up to" or "until"
CONTEXT_REACHED = any_of(
    "assolit", "raggiunt", "atingid", "alcanzad", "erreicht", "atteint", "достигнут", "досягнуто", "osiągnięt",
    "ulaşıl", "saavutettu", "đã đạt", "tercapai", "mencapai", "도달", "已达", "已達", "ถึง", "bereikt", "nått", "nået",
    "nådd", "atins", "uppnådd", "पहुंच", "达到", "達到", "رسید", "تم الوصول",
)
# a day's or a month's window: a limit over it is a quota, not a blip
LONG_WINDOW = any_of(
    "в день", "дневн", "денн", "суточн", "ежедневн", "на день", "щоденн", "місяч", "месяч", "в месяц",  # ru, uk
    "par jour", "quotidien", "journalier", "par mois", "mensuel",  # fr
    "por d[íi]a", "diari", "por mes", "mensual",  # es, pt
    "al giorno", "giornalier", "al mese", "mensil",  # it
    "pro tag", "täglich", "\\btages", "pro monat", "monatlich",  # de
    "dzienn", "na dzień", "miesięczn",  # pl
    "denní", "měsíční",  # cs
    "günlük", "aylık",  # tr
    "يومي", "في اليوم", "شهري",  # ar
    "روزانه", "ماهانه",  # fa
    "יומי", "חודשי",  # he
    "mỗi ngày", "hàng ngày", "hàng tháng",  # vi
    "per hari", "harian", "bulanan",  # id
    "ต่อวัน", "รายวัน", "รายเดือน",  # th
    "1日", "日次", "毎日", "月間", "毎月",  # ja
    "일일", "하루", "월간", "매월",  # ko
    "每日", "每天", "今日", "每月", "本月",  # zh
    "प्रति दिन", "दैनिक", "मासिक",  # hi
    "le mois prochain", "el próximo mes", "próximo mês", "mese prossimo", "nächsten monat",
    "volgende maand", "przyszłym miesiącu", "příští měsíc", "gelecek ay", "الشهر القادم",
    "ماه آینده", "בחודש הבא", "tháng tới", "tháng sau", "bulan depan", "เดือนหน้า", "来月", "다음 달",
    "下个月", "下個月", "अगले महीने", "ensi kuussa", "neste måned", "nästa månad", "næste måned",
    "denný", "தினசரி", "օրական",  # (next month, and a day in more languages)
    "週間", "1 日の", "semanal", "diári",  # (ja: a week, a day; pt: weekly, daily)
)
# a quota, an allowance
QUOTA = any_of(
    "квот", "\\bkvot", "kvoot", "kvót", "cuóta", "\\bcota\\b", "クォータ",  # ru, uk, nordic, baltic, ga, pt
    "quota", "cuota", "kontingent", "kota", "kuota",  # fr, it, pt, es, de, tr, id
    "wyczerpany limit", "limitów", "limit(?:u|y)? (?:został )?wyczerpan",  # pl
    "kvót",  # cs
    "حصة", "حصص", "سهمیه", "מכסה", "hạn mức", "โควต้า", "利用枠", "割り当て", "할당량",  # ar, fa, he, vi, th, ja, ko
    "配额", "配額", "额度", "額度", "कोटा",  # zh, hi
    "hạn ngạch", "kiintiö", "מכס",
)
# used up, or none left
USED_UP = any_of(
    "исчерпан", "вичерпан", "закончил", "закінчил",  # ru, uk
    "épuisé", "agotad", "esgotad", "esaurit", "erschöpft", "aufgebraucht", "wyczerpan", "vyčerpán",  # fr..cs
    "tükendi", "نفدت", "نفد", "تمام شده", "נוצלה", "נגמרה", "cạn kiệt", "đã hết", "habis",  # tr..id
    "หมด", "不足", "使い切", "다 사용", "소진", "用完", "用尽", "用盡", "耗尽", "समाप्त",  # th..hi
    # none available ("no quota available")
    "no (?:tiene|hay) ", "não tem", "non ha più", "nie ma dostępnych", "kullanılabilir kotası yok",
    # exceeded, or run out
    "превышен", "перевищено", "überschritten", "dépassé", "excedid", "superat", "przekroczon", "překročen", "aşıldı",
    "تجاوز", "به پایان رسید", "חריגה", "超過", "超过", "超出", "超限", "초과", "ületatud", "viršyta", "överskrid",
    "sáraíodh", "υπέρβαση", "à court de", "n'avez plus de", "došly", "ficou sem", "bitti", "संपले", "부족",
    "\\bнемає\\b", "\\bнет\\b", "\\byok\\b", "لا يحتوي", "ندارد", "אין ", "không có", "tidak memiliki", "ไม่มี",
    "ありません", "없습니다", "没有", "नहीं है",
    "tidak mencukupi", "terlampaui",  # (ms: not enough, exceeded)
    "を超えました",  # (ja: exceeded)
)
# a key or a token of the account
KEY = any_of(
    "\\bключ", "\\bтокен", "\\bclé", "\\bjeton", "\\bclave", "\\bchave", "\\bchiave", "schlüssel", "\\bsleutel",
    "\\bklucz", "\\bklíč", "\\banahtar", "\\bbelirteç", "مفتاح", "الرمز", "کلید", "توکن", "מפתח", "טוקן", "\\bkhóa",
    "\\bkunci", "คีย์", "キー", "키", "토큰", "密钥", "金鑰", "令牌", "कुंजी", "\\btoken", "\\bkey\\b", "κλειδί",
    "\\bvõti", "eochair", "raktas", "nyckel", "秘钥", "秘鑰",
    "api-avaim", "api-nøgle", "api-nøkk", "api-nøkl", "api atslēg", "api ključ", "api কী", "යතුර", "ಕೀ",
    # (Finnish, Nordic, Latvian, South Slavic, Bengali, Sinhala, Kannada, Amharic; an API key in Latin letters)
    "ቁልፍ", "api[ -]?key(?![a-z])",
    "api açar", "api-avain", "api-kulcs", "api விசை", "รหัส api", "\\bclau api",  # (az, fi, hu, ta, th, ca)
    "кључ", "トークン", "api ?キー", "api kľúč", "\\bkulcs",  # (sr, ja, sk, hu)
    "_api_key(?![a-z])",  # (a key's environment variable: "GROQ_API_KEY")
)
# invalid, expired, incorrect
INVALID = any_of(
    "некорректн", "недействител", "невалид", "неверн", "просроч", "истёк", "истек", "некоректн", "недійсн",  # ru, uk
    "invalide", "expiré",  # fr
    "no válid", "inválid", "caducad", "expirad", "expirou",  # es, pt
    "non valid", "non è valid", "scadut",  # it
    "μη έγκυρ", "neamhbhailí", "neteising", "netinkam", "ogiltig", "vigane",  # el, ga, lt, sv, et
    "n.est pas valide", "不正な",  # fr, ja
    "ungültig", "abgelaufen", "ongeldig", "verlopen",  # de, nl
    "nieprawidłow", "wygasł",  # pl
    "neplatn", "prošl", "vypršel",  # cs
    "geçersiz", "süresi dol",  # tr
    "غير صالح", "منتهي الصلاحية", "نامعتبر", "منقضی",  # ar, fa
    "אינו חוקי", "לא חוקי", "לא תקינ", "לא תקין", "פג תוקף", "להיות פג",  # he
    "không hợp lệ", "hết hạn",  # vi
    "tidak valid", "kedaluwarsa",  # id
    "ไม่ถูกต้อง", "หมดอายุ",  # th
    "無効", "期限切れ",  # ja
    "유효하지 않", "만료",  # ko
    "无效", "無效", "过期", "過期", "失效",  # zh
    "अमान्य", "अवैध",  # hi
    "virheellinen", "잘못된(?= api ?키)", "ugyldig", "невірн", "neveljav", "nevažeć", "nederīg",  # (more languages)
    "間違って", "hindi wastong",
    "或不正确", "或不正確",
    "tamat tempoh",  # (ms: expired)
    # (ru only of an API key, never GnuPG's "Недопустимый код ключа"; sr, fr, zh, ja)
    "недопустимый api", "неважећ", "non-valide", "错误的令牌", "無効または期限切れ",
    "no vàlida",  # (ca)
    "올바르지 않",  # (ko: not correct)
)
# not set, not given, required: a key the user has to enter
MISSING = any_of(
    "не настроил", "не указан", "не задан", "отсутству", "потрібен", "требуется", "необходим",  # ru, uk
    "n'avez pas configuré", "manquant", "requise?\\b", "obligatoire",  # fr
    "no ha configurado", "se requiere", "es necesari", "es obligatori",  # es
    "não configurou", "é necessária", "é obrigatória", "\\bnenhuma\\b",  # pt
    "è obbligatori", "è richiest", "mancante",  # it
    "\\bkeinen?\\b", "nicht konfiguriert", "erforderlich", "fehlt",  # de
    "is verplicht", "is vereist", "is vereisd", "ontbreekt",  # nl
    "jest wymagany", "nie znaleziono klucza", "brak klucza",  # pl
    "je vyžadován", "chybí", "chýba",  # cs, sk
    "gereklidir", "gerekli", "eksik",  # tr
    "مطلوب", "لم يتم العثور على مفتاح",  # ar
    "مورد نیاز", "تنظیم نکرده",  # fa
    "נדרש",  # he
    "bắt buộc", "chưa (?:được )?(?:cấu hình|thiết lập|nhập)",  # vi
    "diperlukan", "belum (?:dikonfigurasi|diatur)",  # id
    "จำเป็นต้อง", "ไม่พบคีย์",  # th
    "設定されていません", "必要です",  # ja
    "필요합니다", "설정되지 않",  # ko
    "未配置", "未设置", "未設定", "尚未設定", "缺少", "需要",  # zh
    "आवश्यक",  # hi
    # none ("no active API key") or one to enter
    "没有", "沒有", "ありません", "없습니다", "введите", "entrer", "saisir", "introduzca",
    "introduce (?:su|tu|la|una|el)\\b", "ingres[ae]", "insira",
    "inserir",
    "inserisci", "eingeben", "invoeren", "wprowadź", "wpisz", "zadejte", "girin", "أدخل", "وارد کنید", "הזן", "\\bnhập",
    "masukkan", "ป้อน", "入力", "입력", "输入", "輸入", "दर्ज",
    "debe proporcionarse", "musi być podany", "tem de ser fornecid", "obrigatori", "vnesite",
    "εισαγάγετε", "въведете", "ያስገቡ", "ilagay", "obvezan", "প্রয়োজন", "privalom", "අවශ්ය",
    # (must be given, or to enter, in more languages)
    "ಅಗತ್ಯವಿದೆ", "\\bvoer (?:de|uw|je|een)\\b", "ievadiet", "indtast", "syötä", "不能为空", "不能為空",
    "設定されていない",
    # (not given, not set: ar, az, cs, et, fi, hu, pl, ta, uk; th: none, right before the key)
    "لم يتم توفير", "təqdim edilməyib", "nebyl přidán", "(?<=võtit )ei pakuta", "ei asetettu", "nincs megadva",
    "nie podano",
    "வழங்கப்படவில்லை", "відсутн", "^\\W*ไม่มี(?=รหัส)",
    # (fa: needs, not entered; ja, ko, el: set it up in the settings)
    "نیاز به", "وارد نشده", "を構成してください", "를 구성하세요", "ρυθμίστε",
)
# a model
MODEL = any_of(
    "модел", "modèle", "modelo", "modello", "modell", "\\bmodel", "نموذج", "نماذج", "مدل", "מודל", "דגמ", "mô hình",
    "โมเดล",
    "แบบจ[ำํ]าลอง", "モデル", "모델", "模型", "मॉडल",
    "\\bmalli",
)
# not found, does not exist
NOT_FOUND = any_of(
    "не найден", "не знайдено", "introuvable", "n'existe pas", "no encontrad", "no existe", "não encontrad",
    "não existe", "nessun", "non trovat", "non esiste", "nicht gefunden", "existiert nicht", "niet gevonden",
    "bestaat niet", "nie znaleziono", "nie istnieje", "nenalezen", "neexistuje", "bulunamadı", "mevcut değil",
    "لم يتم العثور", "غير موجود", "یافت نشد", "وجود ندارد", "לא נמצא", "không tìm thấy", "không tồn tại",
    "tidak ditemukan", "ไม่พบ", "見つかりません", "存在しません", "찾을 수 없", "존재하지 않", "未找到", "找不到",
    "不存在",
    "नहीं मिला", "impossible de trouver", "impossibile trovare", "не удалось найти", "见つかりません",
    # deleted
    "удален", "видален", "supprimé", "eliminad", "excluíd", "eliminat[oai]\\b", "gelöscht", "verwijderd", "usunięt",
    "smazán",
    "silindi", "حذف", "נמחק", "đã bị xóa", "dihapus", "ถูกลบ", "削除され", "삭제", "已被删除", "已删除", "已刪除",
    "tidak dijumpai", "tidak ditemui", "tidak wujud",  # (ms)
)
# a moderation system, a safety filter, a content policy, community guidelines
MODERATION = any_of(
    "модерац", "модерації", "modération", "moderaci[óo]n", "moderação", "moderazione", "moderacj", "moderovac",
    "moderasyon", "الرقابة", "نظارت", "kiểm duyệt", "moderasi", "モデレーション", "모더레이션", "审核", "審查", "審核",
    "मॉडरेशन", "правилам сообщества", "правилам спільноти", "lignes directrices", "pautas comunitarias",
    "diretrizes da comunidade", "linee guida della comunità", "wytycznymi społeczności", "komunitním zásadám",
    "إرشادات مجتمع", "دستورالعمل", "הנחיות הקהילה", "แนวทางชุมชน", "커뮤니티 가이드라인", "社区指引", "社群準則",
    "安全フィルター", "安全过滤", "安全過濾", "内容政策", "內容政策", "コンテンツポリシー", "콘텐츠 정책",
    "política de contenido", "politique de contenu", "política de conteúdo", "richtlinie",
    "风控", "風控",  # (zh: a platform's risk control)
)
# content, and its being blocked, refused or flagged
CONTENT = any_of(
    "контент", "содержим", "вміст", "contenu", "contenido", "conteúdo", "contenuto", "inhalt", "inhoud", "treść",
    "obsah", "içerik", "المحتوى", "محتوى", "محتوا", "התוכן", "nội dung", "konten", "เนื้อหา", "コンテンツ", "内容",
    "內容", "내용",
    "콘텐츠", "सामग्री",
    "kandungan",  # (ms)
)
BLOCKED = any_of(
    "заблокирован", "заблоковано", "помечен", "позначен", "bloqué", "bloquead", "bloccat", "blockiert", "geblokkeerd",
    "zablokowan", "zablokován", "engellendi", "محظور", "مسدود", "חסום", "bị chặn", "diblokir", "ถูกบล็อก", "ブロック",
    "拒否", "차단", "拦截", "攔截", "屏蔽", "封鎖", "阻止", "अवरुद्ध", "signalé", "marcado", "sinalizado",
    "contrassegnat", "markiert", "oznaczon", "označen", "סומן", "标记", "標記",
    "disekat",  # (ms)
    "被过滤", "被過濾",  # (zh: filtered out)
)
# a safety or security system (a content policy's, not a connection's: nouns, never "secure")
SAFETY = any_of(
    "безопасност", "безпеки", "sécurité", "seguridad", "segurança", "sicurezza", "sicherheit", "veiligheid",
    "bezpieczeństw", "bezpečnost", "güvenlik", "الأمان", "ایمنی", "בטיחות", "an toàn", "keamanan", "ความปลอดภัย",
    "安全", "안전", "सुरक्षा",
)
# a balance or credit, too low
BALANCE = any_of(
    "баланс", "\\bsolde", "\\bsaldo", "guthaben", "tegoed", "bakiye", "رصيد", "موجودی", "יתרה", "số dư", "ยอดคงเหลือ",
    "残高", "잔액", "余额", "餘額", "शेष राशि", "포인트", "點數", "点数", "ポイント", "(?<!а)кредит", "crédits?",
    "créditos?", "crediti", "kredi", "積分", "积分",
    "クレジット", "크레딧",
    "\\bdana\\b", "\\bfondi\\b", "\\bfonds\\b", "\\bfondos\\b", "\\bfundos\\b", "средств",
    "коштів", "środków", "prostředků", "資金", "\\bkredit",  # (funds)
    "\\bfons\\b", "자금",  # (ca, ko)
    "اعتبار مورد استفاده",  # (fa: the credit in use)
)
INSUFFICIENT = any_of(
    "недостаточн", "недостатньо", "insuffisant", "insuficiente", "insufficiente", "unzureichend", "nicht ausreichend",
    "onvoldoende", "niewystarczając", "nedostatečn", "yetersiz", "غير كاف", "کافی نیست", "אינה מספיקה", "không đủ",
    "tidak cukup", "ไม่เพียงพอ", "不足", "부족", "अपर्याप्त",
    "tidak mencukupi", "insufficienti", "nem elegendő", "riittämätön",
    "insuficients",  # (ca)
)
# top the balance up
TOP_UP = any_of(
    # (not "recharger", "recargar", "recarregar", which are a reload as often as a top-up)
    "пополните", "поповніть", "aufladen", "opwaarderen", "doładuj",
    "dobijte", "(?<!yeniden )yükleyin",
    "اشحن", "شارژ", "nạp tiền", "isi ulang", "เติมเงิน", "チャージ", "충전", "充值", "रिचार्ज",
)
# access to it refused (a gated model the account may not use: PocketPal "L'accès à ce modèle restreint a été refusé")
ACCESS_DENIED = any_of(
    "verweigert", "a été refusé", "ditolak", "נדחתה", "拒否されました", "거부되었습니다", "odmówiono", "foi negado",
    "отклон[её]н", "відхилено", "被拒绝", "رد شد", "無法存取",
    "无权使用", "無權使用",  # (zh: no right to use)
)
# a quota in the words of a limit used up ("Wyczerpany limit", "Limit erschöpft")
LIMIT_USED_UP = any_of(
    "wyczerpany limit", "limit (?:został )?wyczerpan", "limit erschöpft", "limit (?:je )?vyčerpán",
    "ใช้งานถึงขีดจำกัดแล้ว", "token ?已耗尽", "token ?已耗盡",  # (th: used up to the limit; zh: tokens used up)
)
# the model cannot take this input ("does not support image input"): the request is wrong for this model
NOT_SUPPORTED = any_of(
    "не поддерживают", "не поддерживает", "не підтримують", "не підтримує", "ne prennent pas en charge",
    "ne prend pas en charge", "no admiten?", "no soporta", "não suporta", "non supporta", "unterstützen? keine?",
    "ondersteun(?:t|en) geen", "nie obsługuj", "nepodporuj", "desteklemiyor", "لا تدعم", "لا يدعم", "پشتیبانی نمی",
    "אינם תומכים", "אינו תומך", "không hỗ trợ", "tidak mendukung", "ไม่รองรับ", "サポートしていません",
    "対応していません", "지원하지 않", "不支持", "不支援", "समर्थन नहीं",
    "tidak disokong", "tidak menyokong",  # (ms)
)
# retired
DEPRECATED = any_of(
    "устарел", "застарі", "obsolète", "obsoleto", "deprecad", "descontinuad", "deprecato", "veraltet", "verouderd",
    "przestarzał", "zastaral", "kullanımdan kaldırıl", "منسوخ", "מיושן", "ngừng hỗ trợ", "usang", "เลิกใช้", "非推奨",
    "지원 중단", "已弃用", "已棄用", "已下线", "已下線", "अप्रचलित",
    "lopetettu", "avviklet", "avvecklad", "udgået", "itinigil", "ngừng cung cấp",  # (retired for good)
)
# authentication failed, or needed
AUTH_FAILED = any_of(
    "ошибка аутентификации", "аутентификаци[яи] не", "помилка автентифікації", "échec de l'authentification",
    "error de autenticación", "falha na autenticação", "autenticazione non riuscita", "autenticazione fallita",
    "authentifizierung fehlgeschlagen", "authenticatie mislukt", "błąd uwierzytelniania", "ověření selhalo",
    "kimlik doğrulama başarısız", "فشل المصادقة", "احراز هویت ناموفق", "האימות נכשל", "xác thực thất bại",
    "autentikasi gagal", "การยืนยันตัวตนล้มเหลว", "จำเป็นต้องยืนยันตัวตน", "認証に失敗", "인증 실패", "인증에 실패",
    "认证失败", "身份验证失败", "驗證失敗", "認證失敗", "प्रमाणीकरण विफल",
    "鑑權失敗", "鉴权失败",
    # (de, fr, he, ms, pl, ru, es, sr: authentication failed, as PocketPal, ha-text-ai and a translator plugin say it)
    "authentifizierung gescheitert", "échec d['’]authentification", "אימות נכשל", "pengesahan gagal",
    "błąd autoryzacji", "ошибка авторизации", "la autenticación falló", "аутентификација није успела",
    # (el, hu, th; zh: the authentication check invalid or not passed)
    "πιστοποίηση απέτυχε", "hitelesítés sikertelen", "ยืนยันตัวตนล้มเหลว", "认证校验无效", "授权检查未通过",
)
# a provider (of models) or its address, and its not being set up
PROVIDER = any_of(
    "провайдер", "поставщик", "fournisseur", "proveedor", "provedor", "fornitore", "anbieter", "aanbieder", "dostawc",
    "poskytovatel", "sağlayıcı", "مزود", "ارائه‌دهنده", "ספק", "nhà cung cấp", "penyedia", "ผู้ให้บริการ", "プロバイダ",
    "공급자", "제공자", "提供商", "供应商", "供應商", "प्रदाता", "\\burl\\b",
    "pakkuja", "ponudnik", "leverantör", "постачальник", "提供者",  # (et, sl, sv, uk, zh)
)
NOT_SET_UP = any_of(
    "не настроен", "не налаштован", "non configuré", "no configurad", "não configurad", "non configurat",
    "nicht konfiguriert", "niet geconfigureerd", "nie skonfigurowan", "nenakonfigurován", "nebyla nalezena",
    "yapılandırılmamış", "غير مهيأ", "تنظیم نشده", "לא הוגדר", "לא נמצאה", "chưa được cấu hình", "tidak disiapkan",
    "belum dikonfigurasi", "ยังไม่ได้ตั้งค่า", "設定されていません", "설정되지 않", "未配置", "未设置", "未設定",
    "सेट नहीं",
    # (a provider not chosen: Tandoor "Zum Ausführen dieser Anfrage muss ein KI Anbieter ausgewählt werden")
    "ausgewählt werden", "devi selezionare", "należy wybrać", "du måste välja", "повинні вибрати", "必须选择",
    "morate izbrati", "peate valima",
)
# a request
REQUEST = any_of(
    "запрос", "запит", "requête", "solicitud", "petición", "requisição", "solicitação", "pedido", "richiesta",
    "anfrage", "aanvraag", "verzoek", "żądani", "zapytani", "požadav", "\\bistek", "الطلب", "درخواست", "בקשה",
    "yêu cầu", "permintaan", "คำขอ", "リクエスト", "요청", "请求", "請求", "अनुरोध",
    "pyyntö", "kahilingan",
    # (bg, da, el, fr, et, hu, lt, lv, nb, ro, sk, sl, sr, sv)
    "заявк", "anmodning", "αιτήμα", "\\bdemandes\\b", "taotlus", "kérés", "užklaus", "pieprasījum", "forespørs",
    "solicităr", "žiadost", "zahtev", "förfrågning",
    "בקשות",  # (he plural)
)
# could not be processed (a request the server would not take as it was)
NOT_PROCESSED = any_of(
    "не удалось обработать", "не вдалося обробити", "n'a pas pu être traitée", "no se pudo procesar",
    "não pôde ser processad", "non è stato possibile elaborare", "konnte nicht verarbeitet werden",
    "kon niet worden verwerkt", "nie można przetworzyć", "nelze zpracovat", "işlenemedi", "تعذر معالجة",
    "پردازش نشد", "לא ניתן לעבד", "không thể xử lý", "tidak dapat diproses", "ไม่สามารถประมวลผล", "処理できません",
    "처리할 수 없", "无法处理", "無法處理",
)
# content said to be sensitive
SENSITIVE = any_of(
    "чувствительн", "конфиденциальн", "чутлив", "sensible", "sensibile", "sensível", "sensibel", "wrażliw", "citliv",
    "hassas", "حساس", "רגיש", "nhạy cảm", "sensitif", "ละเอียดอ่อน", "センシティブ", "민감한", "敏感", "संवेदनशील",
)
# a conversation's history
HISTORY = any_of(
    "verlauf", "historique", "histórico", "historial", "cronologia", "geschiedenis", "historii", "historie", "\\bstair",
    "istorij", "истори", "історі", "تاريخ", "تاریخچه", "היסטוריה", "lịch sử", "riwayat", "ประวัติ", "履歴", "기록",
    "记录",
    "記錄", "历史", "歷史",
)
# the HTTP 400 of the admin templates every app copies: the server created or changed nothing
NOTHING_CHANGED = any_of(
    "не създаде или промени", "не создал и не изменил", "n'a pas créé ou modifié", "no creó ni modificó",
    "não criou ou modificou", "non ha creato o modificato", "keine daten erstellt oder geändert",
    "tidak membuat atau memodifikasi", "作成または変更しませんでした", "생성하거나 수정하지 않았", "没有进行新建或修改",
    "沒有進行新建或修改", "لم ينشئ الخادم البيانات", "veri oluşturmadı veya değiştirmedi", "không tạo hoặc sửa đổi",
)
# free answers (a plan's allowance), used up
FREE = any_of(
    "бесплатн", "безкоштовн", "gratuit", "grátis", "gratis", "kostenlos", "darmow", "bezplatn", "ücretsiz", "مجاني",
    "مجانية", "رایگان", "חינמי", "miễn phí", "ฟรี", "無料", "무료", "免費", "免费", "मोफत", "मुफ़्त",
)
# billing, to enable
BILLING = any_of(
    "计费", "計費", "facturation", "facturación", "faturamento", "fatturazione", "abrechnung", "facturering",
    "rozliczeni", "fakturac", "faturalandırma", "الفوترة", "صورتحساب", "חיוב", "penagihan", "課金", "결제", "बिलिंग",
)
# a limit (of use, of a plan): a quota beside a day's or a month's window, or with "tomorrow" in the text
LIMIT = any_of(
    "\\blimit", "\\blimite", "límite", "límit", "\\blimita\\b", "limiet", "gräns", "grænse", "grense", "\\braja\\b",
    "sınır", "ліміт", "лимит", "mugara", "מכסת", "מגבלת", "سقف", "giới hạn", "\\bbatas\\b", "ขีดจำกัด", "制限", "上限",
    "한도", "限制", "限额", "限額", "सीमा", "வரம்ப", "սահմանաչափ", "όριο",
    "\\bحد\\b", "längenlimit",  # (ar, de compounds)
    "가능 횟수",  # (ko: the number of times allowed)
)
# tomorrow ("come back tomorrow"): a day's window
TOMORROW = any_of(
    "imorgon", "i morgen", "\\bzajtra\\b", "\\bzítra\\b", "\\bbihar\\b", "מחר", "mâine", "amanhã", "mañana", "demain",
    "\\bdomani\\b", "\\bmorgen\\b", "\\bjutro\\b", "\\byarın", "غدا", "غدًا", "فردا", "ngày mai", "\\bbesok\\b",
    "\\besok\\b",
    "พรุ่งนี้", "明日", "내일", "明天", "завтра", "huomenna", "holnap", "αύριο",
)
# a usage limit reached (a plan's allowance of use: a quota, whatever the period)
USAGE_LIMIT = any_of(
    "límit d'ús", "limite di utilizzo", "limite de uso", "límite de uso", "nutzungslimit", "limite d'utilisation",
    "лимит использования", "ліміт використання", "limit użycia", "kullanım sınırı", "käyttöraja", "giới hạn sử dụng",
    "batas penggunaan", "使用制限", "使用上限", "사용 한도", "使用限制", "ขีดจำกัดการใช้งาน", "limitasyon sa paggamit",
    "gebruikslimiet", "användningsgräns", "brugsgrænse", "bruksgrense", "limită de utilizare",
    "ដែនកំណត់ការប្រើប្រាស់", "όριο χρήσης", "limitu využití", "használati korlát", "מגבלת השימוש", "उपयोग सीमा",
)
# reached (a limit), or limited until a time
REACHED = any_of(
    "assolit", "raggiunt", "atingid", "alcanzad", "erreicht", "atteint", "достигнут", "досягнуто", "osiągnięt",
    "ulaşıl", "saavutettu", "naabot", "đã đạt", "tercapai", "mencapai", "まで", "制限中", "도달", "已达", "已達", "ถึง",
    "bereikt", "nått", "nået", "nådd", "atins", "\\bfins a\\b", "fino a", "\\baté\\b", "\\bhasta\\b", "\\bbis\\b",
    "jusqu", "\\bdo\\b \\d",
    # (km, el, cs, hu, he, hi, pt, ja, tr, uk, pl, fa)
    "ឈានដល់", "φτάσει", "dosáhl", "elérte", "הגעת", "पहुँच", "पहुंच", "atingiu", "に達し", "ulaştınız", "досягли",
    "osiągnął", "رسیده",
)
# a context (a model's window, never a conversation or a message), whose length limit was reached ("Достигнут лимит
# длины контекста", "Kontextlängenlimit erreicht")
CONTEXT = any_of(
    "контекст", "contexte", "contexto", "contesto", "kontext", "kontekst", "bağlam", "السياق", "ngữ cảnh", "konteks",
    "บริบท", "コンテキスト", "컨텍스트", "上下文", "संदर्भ", "llargada de context", "طول متن",
)
# a conversation or a context (not a message: "not enough space to display the message" is a screen's)
CONVERSATION = any_of(
    "розмов", "разговор", "\\bconversation", "conversaci", "conversa\\b", "conversazione", "unterhaltung", "konwersacj",
    "rozmow", "konverzac", "konuşma", "المحادثة", "مکالمه", "השיחה", "בשיחה", "hội thoại", "cuộc trò chuyện",
    "percakapan",
    "perbualan", "การสนทนา", "会話", "대화", "对话", "對話", "बातचीत", "گفتگو", "\\bchat\\b", "צ'אט",
)
# room (in a conversation), and there being none left: the context is full
ROOM = any_of(
    "מקום", "فضای", "گنجایش", "\\bruang\\b", "місц", "\\bmест", "espaço", "espacio", "\\bspazio", "miejsc",
    "\\bplace\\b", "\\bplatz\\b", "ruimte", "\\byer\\b", "مساحة", "\\bchỗ\\b", "พื้นที่", "空き", "공간",
    "空间", "空間",
)
ROOM_GONE = any_of(
    "נגמר", "אין", "تمام شد", "پر شد", "kehabisan", "закінчил", "не вистачило", "закончил", "не хватило", "\\bsem\\b",
    "\\bsin\\b", "zabrakło", "\\bbrak\\b", "\\bkein", "plus de", "non c'è più", "\\bhết\\b", "nafad", "نفدت",
)
# replenish (a balance, a quota, tokens)
REPLENISH = any_of("補充", "补充", "поповнит", "auffüllen", "uzupełni", "doldur", "recharger vos", "reponer")
# the answer's output tokens: a limit on them is the answer's length
OUTPUT_TOKENS = any_of(
    "outputtoken", "utdata-token", "kimeneti token", "tokeni de ieșire", "tokens de salida", "jetons de sortie",
    "output-token", "tokenów wyjściowych", "выходных токенов", "вихідних токенів", "出力トークン", "출력 토큰",
    "输出令牌", "输出 ?token", "輸出 ?token", "token di output", "ausgabe-token",
)
# wait (before new requests): a rate limit's advice
WAIT = any_of(
    "\\bodota\\b", "maghintay", "\\bđợi\\b", "โปรดรอ", "기다려", "подождите", "зачекайте", "attendez", "\\bespere\\b",
    "espera\\b",
    "aspetta", "warten sie", "\\bwacht\\b", "poczekaj", "počkejte", "počkajte", "bekleyin", "انتظر", "صبر کنید", "המתן",
    "\\btunggu\\b", "待って", "お待ちください", "请等待", "請等待", "稍等", "प्रतीक्षा",
)
# before (new requests): a wait asked for before the next request, not a wait while one is processed
BEFORE = any_of(
    "\\bennen\\b", "\\bbago\\b", "trước khi", "ก่อน", "전에", "\\bперед\\b", "avant de", "antes de",
    "prima di", "\\bbevor\\b",
    "voordat", "\\bprzed\\b", "\\bpřed\\b", "önce", "قبل", "לפני", "sebelum", "前に", "之前", "पहले",
)
# (the answer) cut off (at its output-token limit)
CUT = any_of(
    "afskåret", "avbrutt", "levágva", "întrerupt", "abgeschnitten", "coupé", "cortad", "troncat", "обрезан", "обрізан",
    "ucięt", "kesildi", "切り捨て", "잘렸", "截断", "截斷", "afgekapt", "avskuren",
)
# a model named unsupported (the model itself, "Modell stöds inte", "不支持的模型"): not a model that cannot take
# this input ("the model does not support images")
UNSUPPORTED_MODEL = any_of(
    "不支持的模型", "不支援的模型", "不受支持的模型", "지원되지 않는 모델", "サポートされていないモデル",
    "modell stöds inte", "model tidak didukung", "hindi sinusuportahan ang modelo", "modello non supportato",
    "nicht unterstütztes modell", "modelo no soportado", "modelo não suportado", "modèle non pris en charge",
    "неподдерживаемая модель", "модель не поддерживается", "непідтримувана модель", "nieobsługiwany model",
    "nepodporovaný model", "desteklenmeyen model", "نموذج غير مدعوم", "מודל לא נתמך", "mô hình không được hỗ trợ",
    "mô hình đã chọn không được hỗ trợ", "mô hình (?:\\w+ ){0,4}không được hỗ trợ",
)
# the most requests (or questions) a service takes, a count with no window named ("最大リクエスト数に達しました"): a
# quota, as in English
MAX_REQUESTS = any_of(
    "最大リクエスト数", "최대 요청 수", "maksimum istek sayı",
    "número máximo de (?:solicitações|requisições|perguntas)",
    "максимальн\\w* кількост\\w* запитів", "maksymaln\\w* (?:ilość|liczb\\w*) zapytań", "số lượng yêu cầu tối đa",
    "حداکثر تعداد (?:سوالات|درخواست)", "प्रश्नों की अधिकतम सीमा",
)
# a request or a prompt too long, as one phrase (never a request that took too long: "Запит виконувався надто довго")
REQUEST_TOO_LONG = any_of(
    "запит надто довгий", "درخواست خیلی طولانی است", "הבקשה ארוכה מדי", "lời nhắc quá dài", "プロンプトが長すぎ",
    "mesaj çok uzun",
)
# a subscription, and its being required (a paid plan: "Wymagana subskrypcja Pro", "Pro 구독이 필요합니다")
SUBSCRIPTION = any_of(
    "subskrypcj", "การสมัครสมาชิก", "συνδρομή", "předplatné", "सदस्यता", "előfizetés", "サブスクリプション", "구독",
    "abonel", "gói đăng ký", "đăng ký pro",
)
REQUIRED = any_of(
    "wymagan", "ต้องมี", "απαιτείται", "vyžadován", "जरुरी", "ज़रूरी", "आवश्यक", "szükséges", "必要です", "필요합니다",
    "gerekli", "yêu cầu",
)
# disabled (a key, a model: "API 密钥已禁用", "模型已禁用"; never a record's or a setting's, "SSL 已禁用")
DISABLED = any_of("已禁用", "已停用")
# a key refused ("ウィジェットキーが拒否されました", "Widget anahtarı reddedildi")
KEY_REJECTED = any_of("拒否され", "거부되었", "elutasítva", "reddedildi", "bị từ chối")
# fmt: on


# a code host's or a tool's own token ("GitHub-Token abgelaufen"): the worker's tools, no provider's key
TOOLS = any_of("github", "gitlab", "bitbucket", "\\bgit\\b", "\\bssh\\b", "\\bnpm\\b", "docker", "\\bMCP\\b")


# a disk's quota ("Превышена дисковая квота"): the worker's disk, no provider's quota
DISK = any_of(
    # (and its memory: "Osiągnięto limit użycia pamięci" is a decompressor's)
    "памят",
    "пам'ят",
    "pamięci",
    "paměti",
    "memoria",
    "mémoire",
    "speicher",
    "geheugen",
    "bellek",
    "حافظه",
    "הזיכרון",
    "bộ nhớ",
    "\\bmemori\\b",
    "メモリ",
    "메모리",
    "内存",
    "記憶體",
    "मेमोरी",
    "дисков",
    "disque",
    "\\bdisco\\b",
    "festplatte",
    "datenträger",
    "\\bdysk",
    "\\bdisk",
    "ディスク",
    "디스크",
    "磁盘",
    "磁碟",
)
# expired (a request that expired timed out; it was not invalid)
EXPIRED = any_of(
    "scadut",
    "expir",
    "просроч",
    "истек",
    "истёк",
    "caducad",
    "abgelaufen",
    "verlopen",
    "wygasł",
    "vypršel",
    "süresi dol",
    "منتهي",
    "منقضی",
    "hết hạn",
    "kedaluwarsa",
    "หมดอายุ",
    "期限切れ",
    "만료",
    "过期",
    "過期",
)


def _without(veto: str, reading: str) -> str:
    """`reading` in a text (read as one line) that says nothing of `veto`."""
    return f"^(?!.*{veto}).*?(?:{reading})"


# Below every English reading, like routing/rules/translated.py's rows, and ordered among themselves by what the words
# say most precisely: a conversation over its token limit is the context (a key word, "token", is in it); a rate or a
# quota beside "tokens" is the limit's; a day's rate limit is a quota.
ROWS: tuple[Row, ...] = (
    (
        "translated_context_too_long",
        any_of(
            _without(any_of(RATE, QUOTA, LONG_WINDOW, TOMORROW), near(TOKENS_OR_CONTEXT, TOO_LONG)),
            _without(any_of(RATE, QUOTA, LONG_WINDOW), REQUEST_TOO_LONG),
            # (no room left in the conversation, never a disk's; the answer cut at its output-token limit)
            f"^(?!.*{DISK})(?=.*{CONVERSATION}).*?(?:{near(ROOM, any_of(ROOM_GONE, USED_UP))})",
            near(OUTPUT_TOKENS, CUT),
            _without(any_of(RATE, QUOTA, LONG_WINDOW), found(near(CONTEXT, LIMIT), given=CONTEXT_REACHED)),
        ),
        E.context_length_exceeded,
        0.746,
    ),
    (
        "translated_content_refused",
        any_of(
            near(MODERATION, any_of(BLOCKED, CONTENT)),
            f"^(?=.*{any_of(SAFETY, MODERATION)}).*?(?:{near(CONTENT, BLOCKED)})",
            f"^(?=.*{CONTENT}).*?(?:{near(SAFETY, BLOCKED)})",
            near(SENSITIVE, CONTENT),
        ),
        E.content_policy,
        0.746,
    ),
    (
        "translated_long_window",
        any_of(
            near(any_of(RATE, QUOTA, LIMIT), LONG_WINDOW),
            f"^(?=.*{USED_UP}).*?(?:{near(REQUEST, LONG_WINDOW)})",
            # (a limit that lifts tomorrow; a usage limit, which a plan's period resets)
            f"^(?=.*{TOMORROW}).*?(?:{LIMIT})",
            _without(DISK, near(USAGE_LIMIT, REACHED)),
            near(MAX_REQUESTS, REACHED),
        ),
        E.quota_limited,
        0.745,
    ),
    # a rate's words, or a wait asked for before new requests
    (
        "translated_rate_limited",
        any_of(
            RATE,
            "^" + found(near(WAIT, BEFORE), given=REQUEST),
            "^" + found(near(TOO_MANY, REQUEST)),
            "^" + found(near(PER_SECOND, REQUEST)),
        ),
        E.rate_limited,
        0.744,
    ),
    (
        "translated_quota_used_up",
        _without(any_of(RATE, DISK), any_of(near(QUOTA, USED_UP), LIMIT_USED_UP, near(FREE, USED_UP))),
        E.quota_limited,
        0.744,
    ),
    # a balance too low or used up, or one to top up (below a quota's words: "quota used up, top up or switch")
    (
        "translated_balance_too_low",
        any_of(
            near(BALANCE, any_of(INSUFFICIENT, USED_UP)),
            TOP_UP,
            near(BILLING, MISSING),
            near(REPLENISH, any_of(BALANCE, QUOTA, "токен", "\\btoken", "jeton", "tokenów")),
            near(SUBSCRIPTION, REQUIRED),
        ),
        E.subscription_required,
        0.743,
    ),
    (
        "translated_key_missing",
        _without(any_of(QUOTA, INVALID, TOOLS), near(KEY, any_of(MISSING, NOT_FOUND))),
        E.missing_credentials,
        0.743,
    ),
    (
        "translated_key_invalid",
        _without(any_of(QUOTA, BALANCE, TOO_LONG, TOOLS), near(KEY, any_of(INVALID, KEY_REJECTED, DISABLED))),
        E.auth_required,
        0.742,
    ),
    ("translated_auth_failed", AUTH_FAILED, E.auth_required, 0.742),
    (
        "translated_model_not_found",
        any_of(near(MODEL, any_of(NOT_FOUND, INVALID, DEPRECATED, ACCESS_DENIED, DISABLED)), UNSUPPORTED_MODEL),
        E.model_unavailable,
        0.742,
    ),
    (
        "translated_request_invalid",
        _without(EXPIRED, any_of(near(any_of(REQUEST, HISTORY), any_of(INVALID, NOT_PROCESSED)), NOTHING_CHANGED)),
        E.invalid_request,
        0.74,
    ),
    (
        "translated_model_cannot_take_it",
        _without(UNSUPPORTED_MODEL, near(MODEL, NOT_SUPPORTED)),
        E.invalid_request,
        0.741,
    ),
    (
        "translated_provider_not_set_up",
        # (a provider's key not set up is the key's)
        _without(any_of(QUOTA, BALANCE, TOP_UP, KEY), near(PROVIDER, NOT_SET_UP)),
        E.provider_not_configured,
        0.741,
    ),
)
