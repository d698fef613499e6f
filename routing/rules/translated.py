"""Transport failures in the words of other languages: a connection refused, cut or timed out, a name that did not
resolve, a server or gateway unavailable for now, as operating systems, browsers and apps translate them; and a
model unavailable or a relay with no channel for it.

The English rules read these failures by a runtime's vocabulary; a translated message has none of it, and left
`unknown` it ends the run on a blip. Each concept is a word list per language, taken from the translations the
training lines of tests/corpus/translated26.jsonl and translated28.jsonl copy (glibc's strerror and resolver
messages, GLib's and libsoup's socket messages, Firefox's network error pages, LibreChat's, Cherry Studio's and
new-api's notices). A concept matches only beside its partner (a connection word near a refusal, a timeout or a
cut; a service word near "unavailable" and "for now" or "later"), so a lone "connection" or "unavailable" decides
nothing; and never in a text that names a credential, an account or the agent's own tools, whose failures only
mention a connection. Stems, not whole words: Chinese, Japanese and Thai do not separate words, and a stem reads a
word's inflections. The learned second stage does not count these lines (testkit/corpus.py): each language there
has lines of one or two classes, so its common words would become those classes' evidence.
"""

from routing.codes import ErrorCode as E
from routing.rules import Row
from routing.rules.words import any_of, found, near

# fmt: off
# (one language to a line, so each list reads as a table)
# a connection, its noun or its verb
CONNECTION = any_of(
    # (Nordic, Baltic, Catalan, Basque, Greek, Hungarian, Romanian, Slovak, Slovene, Bulgarian, Kazakh)
    "forbindelse", "tilkobling", "anslutning", "yhtey", "kapcsolat", "kapcsolód", "σύνδεσ", "conexiune", "connexió",
    "konexio", "pripojeni", "povezav", "ryši", "връзка", "байланыс", "соедин",
    "соединени", "подключ",  # ru
    "з['’ʼ]єднанн", "підключ", "зв['’ʼ]яз",  # uk
    "connexion", "connecter",  # fr
    "conexi[óo]n", "(?<!des)conectar",  # es
    "conex[ãa]o", "liga[çc][ãa]o", "ligar ao", "contactar",  # pt
    "connession", "connetter",  # it
    "verbindung",  # de
    "verbinding",  # nl
    "połącz",  # pl
    "spojen[íi]", "připoj",  # cs
    "bağlan",  # tr
    "الاتصال", "التواصل",  # ar
    "اتصال", "وصل شدن",  # fa
    "חיבור", "התחבר", "(?<!ה)הקשר",  # he ("ההקשר" is the context)
    "kết nối",  # vi
    "koneksi", "sambungan", "menghubungi",  # id
    "เชื่อมต่อ",  # th
    "接続",  # ja
    "연결", "접속",  # ko
    "连接", "連線", "連接",  # zh
    "कनेक्शन", "मिलाप",  # hi
    # (Malay, Indonesian, Hindi, Bengali, Slovak, South Slavic, Romanian, Lithuanian, Latvian, Estonian, Persian)
    "terhubung", "bersambung", "menyambung", "कनेक्ट", "সংযোগ", "সংযুক্ত(?!ি)", "pripoj", "poveza",
    "повезати", "\\bvez[ueo]\\b", "\\bвез[уеа]\\b", "свързването", "\\bconecta", "prisijungti prie", "ryš[iį]",
    "savienojum", "ühendus", "ühendu", "برقراری ارتباط", "برقراریِ ارتباط", "متصل شو",
    "ارتباط با (?:سرور|سِروِر|کارساز|اینترنت)", "ligar-", "connectat", "(?<!des)connectar", "koble til",
    # (be, uz, da, sl, sv, sr, hr, mk: more connections)
    "злучэнн", "ulanish", "tilslutning", "povezovanj", "ansluta till", "konekcij", "spajanj", "конекциј", "падключэнн",
    "csatlakozni\\b", "csatlakozás\\b", "\\bveza\\b",  # (hu, never "csatlakoztatva", mounted; hr)
    "povezivanj[ae] (?:na|sa|s) ",  # (sr: to a server, never GStreamer's "povezivanje elemenata", linking)
    # (nb, sv: contact with a server, a network or the local API, never "kontakt med oss", support, nor an address
    # book's contact; ta, te)
    "kontakt med(?= (?:det lokale|servern|serveren|tjeneren|nätverket|nettverket))", "இணைப்பு",
    "కనెక్షన్",
    # (cs reflexive "to connect", lt, sr genitive, fil, ur, ml, ta's stem, uz; hi "contact" and el "communication
    # with" only where it failed or with a server, never "सहायता से संपर्क करें", contact support)
    "spojit se(?= (?:se )?(?:služb|server))", "ryšys", "\\bвезе(?= (?:са|је)\\b)", "koneksyon", "کنکشن", "ബന്ധപ്പെടാൻ",
    "இணைப்ப", "\\baloqa\\b",
    "संपर्क(?= नहीं)", "επικοινωνία με(?= τ\\w{0,2} διακομιστ)",
)
# refused, cut, closed or ended unexpectedly
REFUSED_OR_CUT = any_of(
    "отказано", "неожиданно", "разорван", "прерван",  # ru
    "відхилен", "відмовлено", "несподівано", "розірван",  # uk
    "refusée", "inattendue", "interrompue",  # fr
    "rechaz", "rehusada", "inesperad",  # es
    "recusada",  # pt
    "rifiutat", "inattes", "inaspettat",  # it
    "abgelehnt", "unerwartet", "unterbrochen",  # de
    "geweigerd", "onverwacht", "verbroken",  # nl
    "odrzucon", "nieoczekiwanie", "przerwan",  # pl
    "odmítnut", "neočekávaně",  # cs
    "reddedildi", "beklenmedik", "beklenmeyen",  # tr
    "رُفِض", "رفض", "غير متوقّع", "غير متوقع",  # ar
    "خودداری", "رد شد", "غیرمنتظره", "غیر منتظره",  # fa
    "נדח", "לא צפוי", "בלתי צפוי", "נותק", "הופסק",  # he
    "từ chối", "bất ngờ",  # vi
    "ditolak", "tak terduga", "direset", "terputus",  # id
    "ปฏิเสธ", "ไม่คาดคิด", "กะทันหัน", "ถูกยกเลิก",  # th
    "拒否", "予期せず", "切断",  # ja
    "거부", "예상치", "중지",  # ko
    "拒绝", "拒絕", "意外", "异常", "無預警", "未預期",  # zh
    "अस्वीकार", "अस्वीकृत", "अप्रत्याशित", "अनपेक्षित",  # hi
    # disconnected or interrupted ("La connexion réseau a été déconnectée", "nätverksanslutningen avbröts")
    "déconnecté", "desconectad", "rozłączon", "odpojen", "onderbroken", "avbröts", "avbrutt", "afbrudt", "katkais",
    "megszakadt", "διακόπηκε", "interromput", "přerušen", "prerušen", "prekinjen", "întrerupt", "terinterupsi",
    # failed ("Не удалось соединиться с сервером", "VPN-yhteys epäonnistui")
    "échoué", "échec", "fallit", "fehlgeschlagen", "falló", "fallida", "falhou", "non riuscit", "не удалось",
    "не вдалося",
    "nie powiodło", "nie udało", "nezdařil", "selhal", "mislukt", "misslyckades", "epäonnistui", "meghiúsult",
    "sikertelen", "απέτυχε", "no s'ha pogut", "mislykkedes", "feilet", "zlyhal", "spodletel", "nepavyko", "eșuat",
    "شکست خورد", "فشل", "נכשל", "thất bại", "gagal", "ล้มเหลว", "失败", "失敗", "실패", "विफल", "başarısız",
    "ব্যর্থ", "असफल", "ha fallat", "टूट गया",  # (bn, hi, ca; hi: broke)
    # lost ("Соединение потеряно", "Bağlantı kesildi", "تم فقد الاتصال")
    "потерян", "втрачен", "perdue", "perdida", "perduta", "verloren", "utracon", "ztracen", "kesildi", "فقد",
    "mất(?! thời gian)",
    "ขาดหาย", "끊어", "끊김", "断开", "斷開", "中断", "中斷", "गमावले", "खो गया", "загубен",
    "αποτυχία",
    # (closed: "Connessione chiusa dal server", "连接被服务器关闭")
    "chiusa dal", "cerrada por el", "fermée par le", "закрыт[оа]?\\b", "被[^。，,]{0,12}(?:关闭|關閉)",
    "已(?:关闭|關閉)",
    "(?<=が接続)を終了",
    "vom \\w+ geschlossen", "(?<=연결)을 닫았",  # (de, ko: closed by the server)
)
# cut, lost or failed, as a status says it when it is done (never a button's "Katkesta ühendus", Disconnect, or a
# setting's "when the connection drops"): read only with a server, a network or a retry named, or as a whole short
# message ("Връзката е неуспешна", "Anslutningen bruten, återansluter...")
CUT_OR_FAILED = any_of(
    # (cut or lost: fa, sv, bn, fil, hi, ta, te, th, uk, vi, hr)
    "قطع شد", "bruten\\b", "বিচ্ছিন্ন হয়েছে", "naputol", "बाधित हो गया", "துண்டிக்கப்பட்டது", "తెగిపోయింది",
    "ถูกขัดจังหวะ", "перервано", "đã bị gián đoạn", "izgubljen[ae]?\\b",
    # (failed: bg, sr, lv, hr, nb)
    "неуспешн[аo]\\b", "neizdevās", "nije uspjel[ao]?\\b", "mislyktes",
    # (cut in other words: bg, sr)
    "прекъснат[аo]?\\b", "прекинут[аo]?\\b",
    # (reset, ECONNRESET's words: sk, pl, id, fi, nb; each only of the connection itself, never its settings reset:
    # "Yhteysasetukset nollattiin")
    "(?<=pripojenie sa )zresetovalo", "(?<=połączenie zostało )zresetowane",
    "(?<=sambungan )disetel ulang", "(?<=yhteys )nollattiin", "(?<=tilkoblingen ble )tilbakestilt",
)
# by the user, or a default restored: a connection a person (or a reset to defaults) ended is no failure
BY_THE_USER = any_of(
    "користувач", "пользовател", "потребител", "korisnik", "użytkownik", "uživatel", "kullanıcı", "\\buser\\b",
    "utilisateur", "usuario", "utilizador", "usuário", "benutzer", "gebruiker", "käyttäjä", "felhasználó", "用户",
    "使用者",
    "ユーザー", "사용자", "ผู้ใช้", "người dùng", "pengguna", "उपयोगकर्ता", "کاربر", "المستخدم", "משתמש",
    "default", "domyśln", "oletus", "기본값", "standard", "iestatījum", "postavk", "setting", "ustawie", "pengaturan",
    "innstilling", "設定", "设置", "تنظیمات", "إعدادات", "predvolen", "nastaven", "výchozí",
    # (or by the machine on its own: "Автоматично повторно свързване, ако връзката бъде прекъсната")
    "автоматич", "automati", "自动", "自動",
)
# cannot, or an error: a connection's failure only where a server is named too ("cannot connect to the server"), since
# an account, a tool or an agent is connected to as well
CANNOT_OR_ERROR = any_of(
    "невозможно", "не удаётся", "не удается", "не вдалося", "impossible de", "no se puede", "não foi possível",
    "não é possível", "impossibile", "nicht möglich", "kan geen", "\\bbłąd", "\\bchyba\\b", "\\bhata\\b", "خطأ", "خطا",
    "שגיאה", "לא ניתן", "không thể", "\\blỗi", "ข้อผิดพลาด", "できません", "오류", "无法", "無法",
    "не можете", "не можеш", "ne pouvez pas", "no puedes", "não consegue", "non puoi", "können keine", "nie możesz",
    "nemůžete", "\\w*amıyor", "لا يمكنك", "tidak dapat", "ไม่สามารถ", "할 수 없", "не можете да",
    "غير قادر", "لا يمكن", "تعذر", "नहीं किया जा सकता", "नहीं हो सकता", "যাচ্ছে না", "যায়নি",
    "nemohu", "\\bnelze", "nedá sa", "nemožno", "ni mogoče", "ni bilo mogoče", "nije moguće",
    "nije uspjel", "није могуће", "не могу", "не може", "не е възможно", "nu se poate",
    "nu s-a putut", "ei saada", "ei voi", "kan inte", "kan ikke", "ikke kan", "klarte ikke",
    "nepavyko", "\\bnevar\\b", "ei saa\\b", "no es pot", "no estic", "não consigo", "nem sikerült",
    "δεν ήταν δυνατ", "δεν είναι δυνατ", "помилк", "\\bgreška", "грешк", "pogrešk", "\\bnapak",
    "\\bralat\\b", "kļūd", "\\bviga\\b",  # (cannot, in more languages)
    # (nb, sv, es, fa, pt: failed, not possible)
    "mislyktes", "lyckades inte", "går inte att", "no fue posible", "ممکن نیست", "\\bنشد\\b", "\\bfalh(?:a|ou)\\b",
    "no se ha podido", "no se pudo", "하지 못했", "nie można",  # (es, ko, pl)
    "ni uspel",  # (sl: did not succeed)
    # (cs, hi, nb: did not succeed; tr: could not connect, could not be set up, "Sunucuya bağlanılamadı", never
    # any verb's "could not"; vi: "không kết nối được", never "đã kết nối được", connected)
    "nepodařilo", "नहीं हो सका", "(?<=bağlan)(?:ıl)?amadı\\b", "kurulamadı\\b", "fikk ikke",
    "(?<=không kết nối )được",
    # (we could not: es, fr, fa; uk spelled apart)
    "no pudimos", "n'avons pas pu", "نتوانستیم", "не можливо",
    "नहीं हो पा रहा", "കഴിഞ്ഞില്ല", "शकले नाही",  # (hi, ml, mr: could not)
)
# an operation or a connection out of time, in words that say nothing else
TIMED_OUT = any_of(
    # a connection's time ran out ("انتهى وقت الاتصال", "Batas waktu koneksi", "tidsgränsen för anslutningsförsök")
    "انتهى وقت", "זמן רב מדי", "پایان زمان", "batas waktu", "hết thời gian", "превышени\\w* времени ожидания",
    "перевищенн\\w* часу очікування", "przekroczeni\\w* limitu czasu", "tijdslimiet", "tidsgräns", "aikakatkais",
    "időkorlát",
    "délai (?:de connexion )?dépassé", "expiration du délai", "délai d'attente[^.]{0,40}dépassé",  # fr
    "expiró el tiempo",  # es
    "tempo esgotado",  # pt
    "tempo concesso", "connessione scaduta",  # it
    "zeitüberschreitung",  # de
    "příliš dlouho neaktivní",  # cs
    "zaman aşımı",  # tr
    "انتهت مهلة", "مهلة البوابة",  # ar
    "изтичане на времето",  # bg
    "תם הזמן",  # he
    "chờ quá lâu", "hết thời gian chờ",  # vi
    "kehabisan waktu", "waktu habis",  # id
    "หมดเวลา",  # th
    "タイムアウト",  # ja
    "시간 초과", "시간이 초과", "타임아웃",  # ko
    "超时", "超時", "超過時間", "逾時",  # zh
    "समय समाप्त",  # hi
    "időtúllépés\\b", "λήξη χρονικού ορίου", "aegus pärast", "time-out na \\d",
    "\\bczas\\b[^.]{0,40}upłyn",  # (more languages' timeouts)
    # (nb, sv, uk, es, lt, hr: the time ran out)
    "tidsavbrudd (?:på|i påvente|ved)\\b", "nådde maxtiden", "сплив час", "se agotó el tiempo (?:de espera|esperando)",
    "baigėsi laikas",
    # (an operation's time ran out: es, fr, pt, ru)
    "agotó el tiempo de espera", "^\\W*opération expirée", "^\\W*operação expirou", "время операции истекло",
    "nije odazvao na vrijeme",
)
# the time ran out, in more languages (bn, fa, id, ms, ta, te): a timeout only with a retry, a request or a connection
# named, never a quiz's or an offer's time that is up
TIME_RAN_OUT = any_of(
    "সময় শেষ হয়ে গেছে", "زمان[^.]{0,24}به پایان رسید", "habis waktu", "tamat masa", "நேரம் முடிந்தது",
    "సమయం ముగిసింది", "زمان\u200c?انتظار مواجه",
)
# a wait time or a time limit: a timeout only when it ran out ("Wartezeit für Serverantworten" is a setting)
WAIT_TIME = any_of(
    "время ожидания", "час очікування", "інтервал очікування", "tiempo de espera", "tempo limite", "wartezeit",
    "wachttijd", "limit czasu", "czas oczekiwania", "časový limit", "مهلت",
    "délai d'attente", "waktu tunggu",  # (a wait time, in more languages)
)
RAN_OUT = any_of(
    "истекл", "завершився", "перевищено", "superó", "agotad", "atingiu", "abgelaufen", "verstreken", "przekrocz",
    "vypršel", "منقضی", "вичерпано",
)
# expired: a timeout beside a connection, a credential's expiry or a payment overdue anywhere else
# (and Indonesian's borrowed "time-out", English too: only beside a connection word of its own)
EXPIRED = any_of(
    "истекл", "expiré", "expirou", "expirad", "verlopen", "verstreken", "scadut", "time-out", "quá hạn",
)
# for now, temporarily
TEMPORARILY = any_of(
    "временно", "тимчасов", "temporair", "temporal", "temporári", "temporariamente", "temporane", "momentaneamente",
    "vorübergehend",
    "tijdelijk", "tymczasowo", "chwilowo", "dočasn", "geçici", "مؤقت", "موقت", "זמני", "tạm thời", "sementara",
    "ชั่วคราว", "一時", "일시적", "暂时", "暫時", "अस्थायी", "tillfälligt", "midlertidig", "uz laiku",
)
# at the moment: a service said unavailable "at the moment" is unavailable for now
NOW = any_of(
    "в данный момент", "сейчас", "наразі", "im moment", "derzeit", "zurzeit", "actuellement", "en este momento",
    "no momento", "al momento", "attualmente", "momenteel", "obecnie", "v tuto chvíli", "şu anda", "حاليًا", "حاليا",
    "در حال حاضر", "כרגע", "hiện tại", "saat ini", "ขณะนี้", "現在", "현재", "目前", "当前", "वर्तमान में", "सध्या",
    "just nu",
    "för närvarande", "šiuo metu", "hetkel", "faoi láthair", "αυτή τη στιγμή", "προς το παρόν",
)
# out of reach
UNREACHABLE = any_of(
    "onbereikbaar", "inaccesibil", "tidak dapat diakses", "pois käytöstä", "nem érhető el", "utilgængelig",
    "از دسترس خارج", "पहुंच से बाहर", "μη διαθέσιμ", "inaccessible temporalment", "dočasne nedostupn",
    "nicht erreichbar", "\\best (?:\\w+ )?inaccessible", "inaccesible", "não está acessível", "inacessível",
    "non raggiungibile",
    "niet bereikbaar", "nieosiągaln", "nedosažiteln", "erişilemiyor", "لا يمكن الوصول", "قابل دسترسی نیست", "אינו נגיש",
    "không thể truy cập", "tidak dapat dijangkau", "ไม่สามารถเข้าถึง", "到達できません", "접근할 수 없", "无法访问",
    "無法連線", "kan inte nås", "nepasiekiam", "δεν είναι προσβάσιμ", "pole hetkel leitav", "недосяжн",
    # (fr, tr, de, zh-TW, id, da: could not be reached)
    "pas joignable", "ulaşılamadı", "nicht erreicht werden", "無法聯繫", "tidak dapat menjangkau",
    "kunne ikke kontaktes",
    "não foi possível acessar", "pole leitav",  # (pt, et)
    "non può essere raggiunt", "ulaşılamıyor",  # (it, tr: cannot be reached)
    # (fr, it, sv, bg; fr and it only of a server or an API, never "joindre le fichier", to attach; sv never "några";
    # bg only said of the API itself, never "Моделът е недостъпен в API")
    "impossible de joindre(?= (?:le serveur|l['’]API|l['’]hôte|le service))",
    "impossibile raggiungere(?= (?:il server|l['’]API|l['’]host|il servizio))", "kunde inte nås?\\b",
    "(?<=API )е недостъпен",
    # (could not reach: gu, kn, ta, te, da)
    "પહોંચી શકાયું નથી", "ತಲುಪಲು ಸಾಧ್ಯವಾಗಲಿಲ್ಲ", "அடைய முடியவில்லை", "చేరుకోలేక", "kunne ikke nå(?= (?:serveren|tjenesten|API))",
    "アクセスできない",  # (ja: cannot access)
)
# a network, and its trouble
NETWORK = any_of(
    "\\bсет(?:ь|и|евой)\\b", "мереж", "réseau", "\\bred\\b", "\\brede\\b", "\\brete\\b", "netzwerk", "netwerk",
    "\\bsie(?:ć|ci)\\b", "\\bsíť", "\\bağ(?:ınız|ınızda|da)\\b", "شبك", "شبکه", "רשת", "\\bmạng\\b", "jaringan",
    "เครือข่าย", "ネットワーク", "네트워크", "网络", "網路", "नेटवर्क", "δίκτυ", "мрежа",
    "\\brețea", "tinkl", "\\bsieť", "omrežn", "\\bmrež(?:n[aeoi]|a|e|u|om)\\b(?! stranic)", "мреж",
    "\\brangkaian\\b", "tīkl",
    "võrgu", "\\bxarxa", "\\bağ\\b", "δικτ", "संजाल", "নেটওয়ার্ক", "\\bnettverk", "\\bnätverk",
    "\\bnetværk", "\\bverkko", "hálózat",  # (more languages' networks)
    "నెట్‌వర్క్",  # (te)
    "நெட்வொர்க்",  # (ta)
)
ANOMALY = any_of(
    "аномали", "anomalie\\b", "anomalía", "anomalia", "anormallik", "خلل", "kelainan", "이상이", "异常", "異常", "问题",
    "問題", "の问题",
)
# no connection at all ("Aucune connexion", "Brak połączenia z siecią", "Нет подключения к сети")
NO = any_of(
    "\\baucune?\\b", "\\bsin\\b", "\\bnessuna\\b", "\\bnenhuma\\b", "\\bнет\\b", "\\bнемає\\b", "\\bbrak\\b",
    "\\bžádné\\b", "\\bgeen\\b", "\\bingen\\b", "\\bnincs\\b", "không có", "tidak ada", "ไม่มี", "没有", "沒有",
    "لا يوجد", "\\bkeine\\b", "\\bнема\\b", "\\bняма\\b",
    "بدون", "puudub", "\\bnėra\\b", "\\bnav\\b",  # (without, missing)
    # (ro, ca, pt, gl, he, eu, es, uz; each only right before the connection it denies: "Sem conexão com o
    # servidor", never "sem suporte" or a printer "sen conexión", Hungarian's "sem" or Polish's "pole")
    "fără(?= conexiune)", "\\bsense(?= connexió (?:al|a |amb|de))", "\\bsem(?= (?:conexão|ligação) (?:com|ao|à|de))",
    "\\bsen(?= conexión (?:co|á|ao|de|a ))", "אין(?= חיבור)", "ez dago(?= konexio)",
    "ne postoji(?= (?:veza|konekcija))",
    "nu exist[aă](?= conexiune)", "\\bno hay(?= conexión (?:a |al |con |de red))", "yo[ʻ'‘]q",
)
# a network's or a connection's error in one word, as the languages that compound say it
NETWORK_ERROR = any_of(
    "verbindingsfout", "netwerkfout", "anslutningsfel", "nätverksfel", "yhteysvirhe", "verkkovirhe", "netværksfejl",
    "forbindelsesfejl", "nettverksfeil", "tilkoblingsfeil", "sare-errore", "kapcsolódási hiba", "hálózati hiba",
    "omrežna napaka", "tinklo klaida", "ryšio klaida", "chyba siete", "chyba sítě", "chyba připojení", "error de xarxa",
    "error de connexió", "galat koneksi", "kesalahan jaringan", "eroare de (?:conexiune|rețea)", "خطأ في الاتصال",
    "خطأ في الشبكة", "خطای اتصال", "خطای شبکه", "कनेक्शन गड़बड़", "σφάλμα (?:σύνδεσης|δικτύου)",
    "proxyfout", "proxyfehler", "proxyfel\\b", "proxyfeil",
    # (a connection's error or failure said in two words: pt, sr, hr, be, nb, uz, ru)
    # (only as the whole message: "Erro de ligação BFD" is a linker's)
    "^\\W*(?:erro de (?:ligação|conexão)|falha na (?:conexão|ligação)|greška u (?:konekciji|spajanju|povezivanju)"
    "|памылка падключэння|tilkobling mislyktes|tarmoq xatoligi(?: yuz berdi)?|ni (?:omrežne )?povezave"
    "|(?:võrgu)?ühendust pole|(?:नेटवर्क )?कनेक्शन नहीं|povezivanje nije uspelo)\\W*$",
    "ارتباط برقرار نشد",  # (fa: a connection not established)
    # (fi, zh, eu, kab, fr, tr, az, uk, ta: no network connection, no internet, as the whole message: never "no
    # automatic connection" or a list's "no active connections")
    "^\\W*(?:ei verkkoyhteyttä|无网络连接|internet gabe|ulac tuqqna ɣer internet|pas de connexion réseau"
    "|ağ bağlantısı yok|şəbəkə bağlantısı yoxdur|відсутнє з['’ʼ]єднання з мережею|பிணைய இணைப்பு இல்லை"
    "|இணையம் இல்லை)\\W*$",
    # (tr, te: a network's or a connection's error, never any error beside a network word, "ağ ayarları kaydetme
    # hatası", an error saving network settings)
    "bağlantı hatası", "\\bağ hatası", "iletişim hatası", "నెట్‌వర్క్ లోపం", "కనెక్షన్ లోపం",
    # (zh-TW: the connection reset, said as one phrase, never its settings: "您已重設了連線設定")
    "重設了連線(?!設定)",
    "^\\W*(?:连接错误|連線錯誤|連接錯誤)\\W*$",  # (zh: a connection error, the whole message)
)
# a server not to be found (its name did not resolve)
NOT_FOUND = any_of(
    "nie można znaleźć", "nelze najít", "見つかりません", "找不到", "無法找到", "bulunamı", "لم يعثر", "را یافت",
    "не удалось найти", "не вдалося знайти", "introuvable", "no se encuentra", "não foi possível encontrar",
)
# the internet, needed and not there
INTERNET = any_of(
    "интернет", "інтернет", "互联网", "網際網路", "インターネット", "인터넷", "الإنترنت", "إنترنت", "اینترنت",
    "אינטרנט", "इंटरनेट", "διαδίκτυ", "อินเทอร์เน็ต", "nettilkobling", "nettilgang", "internetadgang", "internetve",
    "internetverbindung", "internetanslutn", "internetforbind", "internetyhtey", "internetskom", "internetna",
    "internetowym", "internetovým", "interneto", "interneten", "interneterako", "internetu", "internetem",
    "accès à internet", "acceso a internet", "accés a internet", "acesso à internet", "accesso a internet",
    # (the word itself, in the languages that borrow it, after their own preposition: English says it too)
    "\\b(?:với|dengan|ke|nå|à|ao|al|la|a) internet\\b", "internetov", "internetsk", "interneti", "ইন্টারনেট",
    "all['’]internet", "nternete\\b",  # (it, tr)
    "இணைய",  # (ta)
)
NEEDED = any_of(
    "requis", "erforderlich", "se necesita", "è richiesto", "requer", "requírese", "potreban", "zahtevan", "būtin",
    "behar da", "ต้องใช้", "керек", "потребан", "påkrævet", "nødvendig", "vyžadovan", "nije dostupan",
    "не е налич", "ζητήθηκε", "calia",
)
# a problem
TROUBLE = any_of(
    "problème", "problema", "problem(?!s\\b)", "проблем", "sorun", "ongelma", "probléma", "πρόβλημα",
    "problém", "težav",
    "problemų", "問題", "问题", "문제", "مشكلة", "مشکل", "בעיה", "vấn đề", "masalah", "ปัญหา", "समस्या", "arazo",
    "προβλήματ",  # (el plural)
)
# overloaded, or down for maintenance: busy for now
OVERLOADED = any_of(
    "перегружен", "перевантажен", "претоварен", "surchargé", "sobrecargad", "sobrecarregad", "sovraccaric",
    "überlastet", "overbelast", "przeciążon", "přetížen", "aşırı yüklen", "ممتلئ", "עמוס", "quá tải", "kelebihan beban",
    "過負荷", "과부하", "过载", "過載", "ओवरलोड", "υπερφόρτω", "обслуживани", "en maintenance", "mantenimiento",
    "manutenção",
    "manutenzione", "wartung", "onderhoud", "konserwac", "údržb", "bakım", "صيانة", "תחזוקה", "bảo trì", "pemeliharaan",
    "メンテナンス", "점검", "维护", "維護", "रखरखाव",
    "شلوغ",  # (fa: crowded)
)
# not ready yet (a server still starting)
NOT_READY = any_of(
    "не готов", "не готовий", "n'est pas prêt", "no está listo", "não está pronto", "non è pronto", "nicht bereit",
    "niet gereed", "nie jest gotow", "není připraven", "hazır değil", "غير جاهز", "آماده نیست", "אינו מוכן",
    "chưa sẵn sàng", "belum siap", "ยังไม่พร้อม", "準備ができていません", "준비되지 않", "未就绪", "尚未就緒", "未就緒",
    "तैयार नहीं",
)
# resolving a host's name
RESOLVE = any_of(
    "разрешить", "розв['’]яз", "résoudre", "résolution du nom", "resoluci[óo]n", "resolver", "resolução",
    "risolvere", "risoluzione del nome", "naamsherleiding", "oplossen", "rozwiązać", "odwzorowanie nazwy",
    "vyřešit", "vyhodnocování jména", "çözülemiyor", "isim çözünürlüğü", "تحلیل", "phân giải", "mengurai",
    "resolusi nama", "name resolution", "हल करने", "주소를 알아낼 수 없",
)
# a service or server, and its being unavailable
SERVICE = any_of(
    "сервис", "сервер", "служб", "service", "servicio", "serviço", "servizio", "dienst", "server", "serwer", "servidor",
    "serveur",
    "usług", "služb", "servis", "sunucu", "خدمة", "الخادم", "سرور", "שרת", "שירות", "dịch vụ", "máy chủ",
    "layanan", "บริการ", "เซิร์ฟเวอร์", "サービス", "サーバー", "서비스", "서버", "服务", "服務", "伺服器",
    "服务器", "सेवा", "सर्वर", "διακομιστ", "خادم", "بخش پشتیبانی", "сервіс", "сървър", "услуга", "υπηρεσί",
    # a back end, or the AI itself, unavailable for now (a provider's whole service)
    "backend", "back-end", "bakänd", "後端", "后端", "taustateenus", "posistem", "chúltaca", "\\bAI\\b", "\\bIA\\b",
    "\\bKI\\b", "\\bШІ\\b", "\\bИИ\\b", "人工智慧", "人工智能", "yapay zeka", "الذكاء الاصطناعي",
    "strežnik", "pelayan", "tjener", "kiszolgál", "کارساز", "palvelin",  # (more languages' servers)
    "hizmet",  # (tr)
    "সার্ভার", "સર્વર", "ಸರ್ವರ್", "സെർവ", "सर्व्हर", "சேவையக", "సర్వర్",  # (bn, gu, kn, ml, mr, ta, te)
    "\\bhost\\b", "ana bilgisayar", "主机",  # (a host: "Der eingegebene Host … kann nicht erreicht werden")
    "バックエンド", "백엔드",  # (a back end: ja, ko)
    "(?<![a-z])AI(?=[はがを])",  # (ja: the AI, with its particle)
)
UNAVAILABLE = any_of(
    "недоступ", "indisponible", "no (?:está )?disponible", "indisponível", "non disponibile", "nicht verfügbar",
    "niet beschikbaar", "niedostęp", "nedostupn", "kullanılamıyor", "غير متاح", "غير متوفر", "در دسترس نیست",
    "אינו זמין", "không khả dụng", "tidak tersedia", "ไม่พร้อมใช้งาน", "利用できません", "使用できません",
    "사용할 수 없", "不可用", "無法使用", "उपलब्ध नहीं", "otillgänglig", "utilgjengelig", "nav pieejams", "не доступн",
    "ikke tilgjengelig", "não está disponível", "अनुपलब्ध", "не е налична", "ไม่สามารถใช้งานได้", "non è disponibile",
    "δεν είναι διαθέσιμ", "pole (?:\\w+ )?saadaval", "neprieinam", "ar fáil", "inte tillgänglig",
    "ご利用いただけません",
    "nu este disponibil", "nije dostupan", "није доступан", "ni na voljo", "nie je k dispozícii",
    "ei ole saatavilla",  # (more languages' unavailable)
    "ikke tilgængelig", "ei ole käytettävissä",  # (da, fi)
    "nem elérhető", "다운된",  # (hu; ko: down)
)
LATER = any_of(
    "позже", "пізніше", "plus tard", "más tarde", "mais tarde", "più tardi", "später", "later opnieuw", "później",
    "později", "daha sonra", "لاحق", "بعداً", "מאוחר יותר", "thử lại sau", "nanti", "ภายหลัง", "後で", "잠시 후",
    "稍后", "稍後", "बाद में", "नंतर", "αργότερα", "mai târziu", "しばらくしてから",
    "később", "나중에", "بعدا",  # (hu, ko, fa)
)
# check (the network, the connection): what a transport failure asks the user to do ("Kiểm tra kết nối mạng")
CHECK = any_of(
    "проверьте", "перевірте", "vérifie\\b", "vérifiez", "comprueba", "compruebe", "revisa", "verifique", "verifică",
    "controlla", "überprüfen sie", "überprüfe\\b", "prüfen sie", "controleer", "sprawdź", "zkontrolujte",
    "skontrolujte",
    "preverite", "provjerite", "проверите", "проверете", "tarkista", "\\bkontrollera (?:din|ditt|dina|att)\\b",
    "\\bkontroller (?:din|dit|dine|at)\\b", "kontrolér", "sjekk", "patikrinkite", "pārbaudiet", "kontrolli", "comprova",
    "ellenőrizze", "ellenőrizd", "ελέγξτε", "denetleyin", "denetleyip", "kontrol edin", "تحقق من", "بررسی کنید", "בדוק",
    "בדקו", "(?<!đang )kiểm tra", "periksa", "semak", "(?<!กำลัง)ตรวจสอบ", "確認してください", "ご確認", "확인하세요",
    "확인해 ?주세요", "확인하십시오", "请检查", "請檢查", "请确认", "請確認", "जांचें", "जाँचें", "পরীক্ষা করুন",
    # (da, gl, lv, af, lt, ja: more imperatives)
    "\\btjek\\b", "comproba\\b", "pārbaudīt", "kontroleer", "patikrinti ryš", "を確認して",
    "праверце",  # (be)
    # (fr, es: check your connection or network, never a sign-in's "adresse e-mail de connexion" or a social network)
    "vérifier votre(?= (?:connexion|réseau)\\b(?! de))", "verifica tu(?= (?:conexión|red|internet)\\b(?! social))",
)
# check, in more languages (sr, ca, da, fil, ta, te): read only beside a retry, an error or a failure, never "check the
# link in your e-mail" or "check the network's speed"
CHECK_WITH_FAILURE = any_of(
    "proverite", "comproveu", "kontroller venligst", "pakisuri", "suriin", "சரிபார்", "తనిఖీ",
)
# try again: a connection's failure worth a retry is one its text says to retry
TRY_AGAIN = any_of(
    "повтор", "попробуйте", "спробуйте", "réessay", "inténtalo", "intente", "tente novamente", "riprova", "erneut",
    "opnieuw", "spróbuj", "ponawiam", "zkuste", "skúste", "poskusite", "pokušajte", "покушајте", "опитайте",
    "încerca", "yritä", "försök igen", "prøv igen", "prøv igjen", "bandykite", "mēģiniet", "proovi", "torna-ho",
    "tekrar dene", "yeniden dene", "حاول", "دوباره امتحان", "נסה", "נסו", "thử lại", "coba lagi", "cuba lagi",
    "ลองอีกครั้ง", "再試行", "もう一度", "再度お試し", "다시 시도", "重试", "重試", "再试", "再試", "पुनः प्रयास",
    "फिर से प्रयास",
    "আবার চেষ্টা", "δοκιμάστε", "próbálja",
    "torneu-ho", "subukang muli", "மீண்டும் முயற்சி", "మళ్ళీ ప్రయత్నించ", "دوباره تلاش",  # (ca, fil, ta, te, fa)
)
# took too long (a request, a connection, a server): a timeout in the words of one who waited
TOO_LONG_TIME = any_of(
    "слишком много времени", "слишком долго", "занадто багато часу", "занадто довго", "trop de temps",
    "trop longtemps", "troppo tempo", "demasiado tiempo", "demorou muito", "demorou demais", "tog för lång tid",
    "tok for lang tid", "tog for lang tid", "duurde te lang", "zu lange", "túl sokáig", "ha trigat massa",
    "terlalu lama", "quá lâu", "\\bطال\\b", "بیش از حد طول", "יתר על המידה", "התעכב", "příliš dlouho", "príliš dlho",
    "prea mult timp", "liian kauan", "pārāk ilgi", "per ilgai",
    "liiga kaua", "çok uzun sürdü", "zbyt długo", "時間がかかりすぎ", "너무 오래", "时间过长", "太久", "時間過長",
    "बहुत अधिक समय", "बहुत लंबा समय",
    "прекалено много",  # (bg)
)
# a request (sent to a server)
REQUEST = any_of(
    "запрос", "запит", "requête", "solicitud", "requisição", "richiesta", "anfrage", "verzoek", "żądani", "požadav",
    "požiadav", "zahtev", "cerere", "pyyntö", "begäran", "forespørs", "užklaus", "pieprasījum", "päring", "kérés",
    "\\bistek", "طلب", "درخواست", "בקשה", "yêu cầu", "permintaan", "คำขอ", "リクエスト", "요청", "请求", "請求",
    "अनुरोध", "αίτημ",
)
# a server (never a service, a back end or an AI: "ai", "ia" and "ki" are words of other languages), and
# communicating with it: a server's trouble is the server's only where an error, a failure or the communication is named
SERVER = any_of(
    "сервер", "\\bserver", "serveur", "servidor", "serwer", "sunucu", "الخادم", "خادم", "سرور", "שרת", "máy chủ",
    "เซิร์ฟเวอร์", "サーバー", "서버", "服务器", "伺服器", "सर्वर", "pelayan", "strežnik", "tjener", "palvelin",
    "διακομιστ", "сървър", "kiszolgál",
    "সার্ভার", "સર્વર", "ಸರ್ವರ್", "സെർവ", "सर्व्हर", "சேவையக", "సర్వర్",  # (bn, gu, kn, ml, mr, ta, te)
)
COMMUNICATE = any_of(
    "kommunikere", "kommunizieren", "comunicarme", "comunicar", "communication", "communiquer", "communiceren",
    "коммуникац", "комунікац", "comunicazione",
    # (th, id, tr, ca, ja, zh; never 通訊錄, an address book, 通信量, a data cap, or 通信設定, a setting)
    "การสื่อสาร", "berkomunikasi", "iletişim", "comunicació", "通信(?!量|設定)", "通訊(?!錄)",
)
# a gateway, and an error of it (no English word for the error: an English text is the English rules')
GATEWAY = any_of("шлюз", "passerelle", "puerta de enlace", "gateway", "ゲートウェイ", "网关", "閘道", "cổng kết nối")
ERROR = any_of(
    "ошибк", "помилк", "\\berreur", "\\berror de\\b", "\\berro\\b", "\\berrore\\b", "fehler", "\\bfout\\b", "\\bbłąd",
    "\\bchyba\\b", "\\bhata\\b", "خطأ", "خطا", "שגיאה", "\\blỗi", "\\bkesalahan", "ข้อผิดพลาด", "エラー", "오류",
    "错误", "錯誤", "σφάλμα", "\\beroare\\b", "\\berror del\\b", "异常", "異常",
    "שגיא", "त्रुटि", "ত্রুটি", "napak", "pogrešk", "\\bgreška", "грешк", "kļūd", "\\bviga\\b",
    "\\bralat\\b", "\\bfejl", "virhe",  # (more languages' errors)
    "त्रुटी", "xatolig", "памылк",  # (mr, uz, be)
    "\\bun error\\b",  # (es: an error, during a connection)
    "\\berror al\\b",  # (es: an error connecting)
    "பிழை",  # (ta)
    "出错", "出錯",  # (zh: went wrong)
)
# a model, said to be unavailable (for good: a model only for now is capacity, not this)
MODEL = any_of(
    "модел", "מודל", "モデル", "\\bmodelis\\b", "\\bmodell", "\\bmodelo\\b",
    # (more languages' models: a model busy or unavailable)
    "\\bmodel\\b", "modèle", "modello", "modelul", "μοντέλο", "mô hình", "โมเดล", "모델", "(?<!信任)模型",
    "\\bmalli\\b",
    "النموذج",
    # (a checkpoint: the weights a model server loads, "El punto de control … no está disponible en el servidor")
    "checkpoint", "punto de control", "チェックポイント",
)
# a relay's channel (new-api's word for an upstream it routes to), and there being none or no valid one
CHANNEL = any_of("渠道", "管道", "\\bcanal\\b", "채널", "کانال", "チャンネル", "チャネル")
NONE = any_of(
    "\\baucun", "\\bnenhum", "هیچ", "无有效", "無有效", "无可用", "無可用", "ありません", "存在しません",
)
# a relay's upstream, and its load at its maximum (new-api "the current group's upstream load is saturated")
UPSTREAM = any_of("업스트림", "بالادستی", "上游", "\\bamont\\b", "upstream", "アップストリーム", "グループ")
SATURATED = any_of("포화", "به حداکثر رسیده", "saturé", "saturad", "饱和", "飽和", "最大負荷")
# a problem, said to be temporary
PROBLEM = any_of(
    "проблем", "problème", "problema", "problem(?!s\\b)", "sorun", "مشكلة", "مشکل", "בעיה", "vấn đề",
    "masalah", "ปัญหา",
    "問題", "문제", "问题", "समस्या",
)
# a server error's status class, named ("サーバーエラー (5xx)")
STATUS_5XX = "\\b5(?:xx|\\d\\d)\\b"
# a proxy on the way
PROXY = any_of(
    "прокси", "проксі", "proxy", "mandataire", "vekil", "پیشکار", "الوسيط(?!ة)", "מתווך",
    "(?<!giấy )ủy nhiệm", "proksi",
    "พร็อกซี", "プロキシ", "프록시", "प्रॉक्सी",
    "välityspalvelin",  # (a proxy in Finnish)
)
# establishing a connection: a connection that cannot be established is a transport failure whatever it was to
ESTABLISH = any_of(
    "thiết lập", "برقرار", "establecer", "estabelecer", "воспостави", "установить", "встановити",
    "建立(?:连接|連線|連接)", "établir",
    "herstellen", "stabilire", "nawiązać", "navázat", "kurula", "確立",
)
# a host named by its address, as a local model runtime or as the API ("Impossibile connettersi a localhost:11434",
# "Nem sikerült csatlakozni az Ollamához", "无法连接到 API"): what a connection to it failed to reach
HOST = any_of(
    "localhost", "https?://", "\\b\\d{1,3}(?:\\.\\d{1,3}){3}\\b", "\\b[\\w-]+(?:\\.[\\w-]+)*:\\d{2,5}\\b", "\\bollam",
    "lm studio", "(?<![a-z])API(?![a-z])",
    # (a websocket: the connection itself, whatever server it was to)
    "websocket", "웹소켓",
)
# not connected (to the internet, to a network): "Возможно, вы не подключены к Интернету", "شبکه وصل نیست"
NOT_CONNECTED = any_of(
    "не подключен", "не підключен", "nie (?:ste |si )?pripojen", "nejste připojen", "non (?:\\w+ )?connesso",
    "bağlı olma", "bağlı değil", "puuttuu", "وصل نیست", "nicht verbunden", "niet verbonden", "não está conectad",
    "no está conectad", "pas connecté", "未连接", "未連線", "接続されていません", "연결되어 있지 않", "không kết nối",
    "tidak terhubung", "nie jesteś połączon",
    "برقرار نیست",  # (fa: not established)
)
# not responding (a server, a service): "번역 서비스가 응답하지 않습니다", "Le serveur ne répond pas"
NOT_RESPONDING = any_of(
    "응답하지 않", "не отвечает", "не відповідає", "ne répond pas", "no responde", "não responde", "non risponde",
    "antwortet nicht", "reageert niet", "nie odpowiada", "neodpovídá", "yanıt vermiyor", "لا يستجيب", "پاسخ نمی",
    "אינו מגיב", "không phản hồi", "tidak merespons", "ไม่ตอบสนอง", "応答しません", "応答がありません", "没有响应",
    "沒有回應", "無回應", "未响应",
)
# busy (a model at work on another answer): "Модель занята", "El modelo está ocupado", "模型正忙碌中"
# (the forms that say it of a model, never a progress label: "モデル処理中", "bezig…" and "사용 중" are work under way)
BUSY = any_of(
    "занята\\b", "зайнята\\b", "\\bзает", "est occupé", "está ocupad", "è occupat", "ist beschäftigt", "jest zajęt",
    "je zaneprázdněn", "meşgul\\.", "مشغول\\.", "đang bận", "sedang sibuk", "忙碌", "正忙", "är upptagen",
    "elfoglalt\\.", "είναι απασχολημέν", "este ocupat", "on varattu",
)
# through another server, or a job server (make's "сервер заданий недоступен"): no provider's server down
THROUGH_OR_JOBS = any_of(
    "через", "\\bkroz\\b", "\\bprzez\\b", "melalui", "\\bvia\\b", "заданий", "zadań", "завдань", "사용할 수 없",
)
# an AI, an API or a translation service: one whose silence is the provider's
AI_OR_API = any_of(
    "\\bAPI(?![a-z])", "\\bAI\\b", "\\bIA\\b", "\\bKI\\b", "\\bLLM", "번역", "traduc", "übersetz", "翻译", "翻譯",
    "çeviri", "tradução", "перевод", "переклад", "模型", "\\bmodel",
)
# disconnected (from a server, a remote instance): "Disconnesso dal server, tentativo di riconnessione…", "La instancia
# remota se ha desconectado" (ru, uk and de only in the forms that say it of a connection: "отключить" is to turn off,
# "durch Kommas getrennt" is separated; fr only as done, never "se déconnecter", to log out)
DISCONNECTED = any_of(
    "d[ée]connect[ée]e?s?\\b", "desconectad", "desconnectat", "scollegat", "disconness", "odpojil",
    "отключени[ея] от", "отключил(?:ся|ась|ось)", "відключи(?:вся|лася|лось)", "verbindung (?:\\w+ )?getrennt",
    "^\\W*getrennt\\b", "התנתק", "切断されました", "斷線", "断线", "연결이 해제", "ตัดการเชื่อมต่อ", "বিচ্ছিন্ন",
    "टूट गया", "డిస్‌కనెక్ట్", "terputus",
)
# a remote instance (of a model server: Alpaca's "The remote instance has disconnected")
INSTANCE = any_of(
    "\\binstan(?:ce|cia|z)\\b", "istanza", "instância", "instansi", "экземпляр", "екземпляр", "מופע",
    "ইনস্ট্যান্স", "实例", "インスタンス",
)
# trying to connect again (after a server dropped the connection): "tentativo di riconnessione",
# "再接続を試行しています"
RECONNECTING = any_of(
    # (never French "reconnectez-vous", to sign in again)
    "riconnession", "reconnectar", "reconectar", "再接続", "다시 연결",
    "повторного подключ", "เชื่อมต่อม?ใหม่", "重新連線", "重新连接", "erneut verbind", "wieder verbind",
)
# occurred (an error of the connection): "Ein Verbindungsfehler ist aufgetreten", "接続エラーが発生しました"
OCCURRED = any_of(
    "aufgetreten", "si è verificato", "発生し", "\\bnotika\\b", "wystąpił", "произошл", "виникл", "发生", "發生",
    "ocurrió", "se ha producido", "s'est produite", "ocorreu", "oluştu", "xảy ra", "terjadi",
)
# a credential named beside the failure ("無法連接 — 可能是 token 已經過期或無效"): the key's failure, which the
# connection words only report
CREDENTIAL = any_of(
    # (a word's start, where the alphabet has one: "подключиться" holds "ключ")
    "\\btoken", "\\bapi[ -]?key", "\\bключ", "\\bclé", "\\bclave", "\\bchave", "\\bchiave", "schlüssel",
    "\\bsleutel", "\\bklucz", "\\bklíč", "\\banahtar", "مفتاح", "کلید", "מפתח", "\\bkhóa", "\\bkunci", "คีย์",
    "キー", "키", "密钥", "金鑰", "令牌", "कुंजी", "belirteç", "\\bjeton", "טוקן", "توکن", "토큰",
    # an account or a session ("se connecter à votre compte" is a login), a payment
    "\\baccount", "обліков", "_api_key(?![a-z])", "\\bcompte\\b", "\\bcuenta\\b", "\\bconta\\b", "\\bkonto\\b",
    "аккаунт", "учётн", "учетн",
    "\\bsession", "\\bsesión", "\\bsessão", "\\bsitzung", "сесси", "アカウント", "계정", "账户", "账号", "帳戶", "帳號",
    "tài khoản", "\\bakun\\b", "thanh toán",
    # the worker's own database ("Verifica delle impostazioni di connessione al database")
    "database", "bases? de datos", "bases? de données", "bancos? de dados", "datenbank", "baza danych", "databáz",
    "veritaban", "قاعدة البيانات", "پایگاه داده", "מסד נתונים", "cơ sở dữ liệu", "basis data", "データベース",
    "데이터베이스", "数据库", "資料庫", "postgres", "mysql",
    # the agent's own tools and helpers (an MCP server, a sub-agent; 代理 alone is a proxy or an agent)
    "\\bMCP\\b", "sub-?agent", "子代理",
    # the machine's own daemons and directory services (SELinux's management link, Avahi, D-Bus, NIS)
    "selinux", "\\bavahi", "d-?bus\\b", "\\bNIS\\b",
    # the machine's own devices: a printer, Bluetooth, headphones, USB ("Nepodařilo se připojit k tiskárně", "连接打印机
    # 时发生错误"), which a provider's connection never goes through (a VPN may: its failures stay the network's)
    "bluetooth", "\\bUSB\\b", "printer", "drucker", "imprim", "impresora", "skriver(?:en|n)\\b", "skrivaren\\b",
    "impressor", "impressió", "stampant",
    "tiskárn", "drukark", "yazıcı", "принтер", "打印机", "印表機", "プリンター", "프린터", "เครื่องพิมพ์", "हेडफ़ोन",
    "ヘッドフォン", "ब्लूटूथ",
    "प्रिंटर", "hodetelefon", "hörlur", "austiņ", "quloqchin", "هدفون", "హెడ్‌ఫోన్", "slušalk", "slušalic", "kontroler",
    "контролер", "دسته بازی", "टीवी",
    # (never "device" alone: "Überprüfen Sie die Internetverbindung Ihres Geräts" is the network's)
)
# fmt: on


def _without_credential(*found: str) -> str:
    """Any of the `found` readings, in a text (read as one line) that names no credential, account or tool of the
    agent's own."""
    return f"^(?!.*{CREDENTIAL})(?:{'|'.join(found)})"


# A message that opens with a connection, an article before it at most ("Връзката е неуспешна", "การเชื่อมต่อ…")
_OPENS_WITH_CONNECTION = f"^\\W*(?:\\w{{1,4}}\\s?)?(?:{CONNECTION})"


# Below every English reading (the SDKs' catch-all connection class is 0.74): any rule that reads the same text in a
# runtime's words, or in a refusal's, decides first. Among themselves: a gateway or a service named unavailable is
# more specific than the connection words beside it ("Lỗi cổng kết nối", a gateway error, holds "kết nối"); a
# connection refused or cut is more specific than a server's error ("Sunucuya bağlanırken hata oluştu", an error
# while connecting to the server); a connection that ran out of time is a timeout only where no refusal is named.
ROWS: tuple[Row, ...] = (
    (
        "translated_server_unavailable",
        _without_credential(
            found(near(SERVICE, UNAVAILABLE), given=any_of(TEMPORARILY, LATER, NOW)),
            # (a server, not a service, which may be unavailable for good; said of the server itself, never of a job
            # server or one reached through another)
            f"^(?!.*{THROUGH_OR_JOBS}).*?{SERVER}[^.!\\n]{{0,16}}{UNAVAILABLE}",
            found(near(SERVICE, NOT_RESPONDING), given=AI_OR_API),
            found(f"{near(GATEWAY, ERROR)}|{near(TEMPORARILY, PROBLEM)}|{near(SERVICE, NOT_READY)}"),
            # (not a name that did not resolve "for now": the resolver's, read below as the connection's)
            f"^(?!.*{RESOLVE}).*?(?:{near(TEMPORARILY, any_of(UNAVAILABLE, UNREACHABLE))})",
        ),
        E.provider_unavailable,
        0.745,
    ),
    (
        "translated_connection_failed",
        _without_credential(
            found(near(CONNECTION, REFUSED_OR_CUT)),
            # (the cut and failed words of CUT_OR_FAILED: with a server, a network or a retry named, or as the whole
            # message, an article before it at most)
            f"(?!.*{BY_THE_USER})"
            + found(near(CONNECTION, CUT_OR_FAILED), given=any_of(SERVICE, HOST, INTERNET, NETWORK, TRY_AGAIN)),
            # (never a status line's label or count: "Anslutningar: 3 aktiva, 1 bruten")
            f"(?!.*{BY_THE_USER})(?![^\\n]*[:\\d])"
            f"{_OPENS_WITH_CONNECTION}[^.!?\\n]{{0,30}}?(?:{CUT_OR_FAILED})[^.!?\\n]{{0,40}}?\\W*$",
            # (or as the headline before a dash: "Connection interrupted — tap “Start session” in a moment")
            f"(?!.*{BY_THE_USER}){_OPENS_WITH_CONNECTION}[^.!?\\n—–]{{0,30}}?(?:{CUT_OR_FAILED})\\s*[—–]\\s",
            found(
                near(CHECK_WITH_FAILURE, any_of(NETWORK, INTERNET, CONNECTION, PROXY)),
                given=any_of(TRY_AGAIN, ERROR, CANNOT_OR_ERROR, REFUSED_OR_CUT),
            ),
            # (a proxy's error, not its address given wrong: "Fehler in der Proxy-URL" is the worker's setting)
            f"(?!.*\\burl\\b){found(near(PROXY, any_of(REFUSED_OR_CUT, ERROR)))}",
            found(near(TEMPORARILY, RESOLVE)),
            found(f"{near(SERVICE, UNREACHABLE)}|{NETWORK_ERROR}"),
            found(near(NETWORK, any_of(ANOMALY, ERROR, TROUBLE, REFUSED_OR_CUT, UNAVAILABLE, UNREACHABLE))),
            found(f"{near(NO, CONNECTION)}|{near(CONNECTION, TROUBLE)}"),
            found(near(INTERNET, any_of(NEEDED, NO, TROUBLE, CANNOT_OR_ERROR))),
            found(near(any_of(INTERNET, NETWORK), NOT_CONNECTED)),
            # what a transport failure asks of the user: to check the network, the connection or the proxy
            found(near(CHECK, any_of(NETWORK, INTERNET, CONNECTION, PROXY))),
            f"^(?!.*{MODEL}).*?(?:{near(SERVICE, NOT_FOUND)})",
            # a connection that cannot be made: to a server, the internet or a network, or one to be tried again
            # (not a gateway's error: "Lỗi cổng kết nối", a gateway error, holds "kết nối")
            f"(?!.*{GATEWAY})"
            + found(
                near(CONNECTION, any_of(CANNOT_OR_ERROR, ERROR)),
                given=any_of(SERVICE, INTERNET, NETWORK, CHECK, TRY_AGAIN, ESTABLISH, HOST, INSTANCE),
            ),
            # a connection's error that occurred, the two said together (never an error saving a connection's
            # profile), or the two words alone as the whole message ("Bağlantı Hatası", "Kesalahan Koneksi"; never a
            # label that says more, "Verbindungsfehler anzeigen", nor a compound that holds one, "yhteyskäytäntö")
            found(near(CONNECTION, ERROR, span=6), given=OCCURRED),
            f"^\\W*(?:{CONNECTION})\\S{{0,6}}\\s+(?:{ERROR})\\S{{0,6}}\\W*$"
            f"|^\\W*(?:{ERROR})\\S{{0,6}}\\s+(?:{CONNECTION})\\S{{0,6}}\\W*$",
            # disconnected from a remote instance, or from a server that is being reconnected to (never a button,
            # a setting or a status that only says disconnected)
            found(DISCONNECTED, given=any_of(INSTANCE, RECONNECTING)),
            # a host or an API out of reach ("Die lokale API konnte nicht erreicht werden"), an error communicating
            # with a server ("Error de comunicació amb el servidor")
            found(near(UNREACHABLE, HOST, span=24)),
            found(near(COMMUNICATE, ERROR, span=6), given=SERVER),
        ),
        E.network_unavailable,
        0.742,
    ),
    (
        "translated_timeout",
        _without_credential(
            found(f"{TIMED_OUT}|{near(WAIT_TIME, RAN_OUT)}|{near(CONNECTION, EXPIRED)}"),
            found(TIME_RAN_OUT, given=any_of(TRY_AGAIN, REQUEST, CONNECTION)),
            found(near(TOO_LONG_TIME, any_of(SERVICE, CONNECTION, REQUEST, NETWORK))),
        ),
        E.timeout,
        0.74,
    ),
    ("translated_upstream_saturated", near(UPSTREAM, SATURATED), E.provider_overloaded, 0.745),
    # a model busy with another answer: a short wait frees it
    ("translated_model_busy", _without_credential(found(near(MODEL, BUSY, span=24))), E.provider_overloaded, 0.745),
    # a server overloaded or in maintenance: busy for now
    ("translated_server_busy", _without_credential(found(near(SERVICE, OVERLOADED))), E.provider_overloaded, 0.745),
    # a model this provider does not serve, or a relay with no channel for it: another route may
    (
        "translated_model_unavailable",
        # (Korean says it in one phrase, "채널이 없습니다": "없습니다" alone is any "cannot")
        f"^(?!.*{TEMPORARILY}).*?(?:{near(MODEL, UNAVAILABLE)})|{near(NONE, CHANNEL)}|채널이 없",
        E.model_unavailable,
        0.746,
    ),
    # a server's error, to be tried again (later), or named by its 5xx status; a problem of the server's
    (
        "translated_server_error",
        _without_credential(
            found(near(SERVICE, ERROR), given=any_of(LATER, STATUS_5XX)),
            # (to be tried again, or a problem of the server's: not an error of the connection to it, which is the
            # connection's)
            f"(?!.*{CONNECTION}){found(near(SERVICE, ERROR), given=TRY_AGAIN)}",
            f"(?!.*{CONNECTION}){found(near(SERVER, TROUBLE), given=any_of(ERROR, REFUSED_OR_CUT, COMMUNICATE))}",
        ),
        E.provider_unavailable,
        0.73,
    ),
)
