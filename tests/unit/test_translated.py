"""Failures in other languages (routing/rules/translated.py: transport; routing/rules/translated_requests.py: the
request's and the account's): read where a translation says them, and nowhere else: not in a translated failure of
another class, not in an English text."""

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from routing.classifier import FailureSignal, classify
from routing.codes import ErrorCode
from routing.rules.neutral import NEUTRAL
from testkit.corpus import CORPUS, TRANSLATED

NOW = datetime(2026, 1, 1, tzinfo=UTC)
# The translated rows as the classifier compiled them (routing/rules/neutral.py takes them into its table).
RULES = [rule for rule in NEUTRAL if rule.name.startswith("neutral.translated_")]


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(raw) for raw in path.read_text(encoding="utf-8").splitlines() if raw.strip()]


def _text(line: dict[str, Any]) -> str:
    signal = line["signal"]
    return " ".join(" ".join(str(signal.get(k) or "") for k in ("error_text", "body")).split())


def _translated_readings(text: str) -> list[str]:
    return [rule.name for rule in RULES if rule.pattern.search(text)]


CODE_OF = {rule.name: rule.code for rule in RULES}
TRANSLATED_LINES = [line for path in sorted(CORPUS.glob(TRANSLATED)) for line in _lines(path)]


def _assert_translated_reading(text: str, code: ErrorCode) -> None:
    """The text is read as `code` by a translated rule, or (`unknown`) by none."""
    result = classify(FailureSignal(error_text=text), NOW)
    if code is ErrorCode.unknown:
        assert not result.rule.startswith("neutral.translated_"), result.rule
    else:
        assert (result.code, result.rule.startswith("neutral.translated_")) == (code, True)


@pytest.mark.parametrize("line", TRANSLATED_LINES, ids=[line["id"] for line in TRANSLATED_LINES])
def test_every_translated_reading_of_a_translated_failure_names_its_own_class(line: dict[str, Any]) -> None:
    """Not only the reading that decides: a rule of another class that also reads the line would decide a text
    that lacks the deciding rule's words."""
    assert [name for name in _translated_readings(_text(line)) if CODE_OF[name].value not in line["codes"]] == []


def test_no_english_training_line_is_read_by_the_translated_rules():
    english = [
        line
        for path in sorted(CORPUS.glob("*.jsonl"))
        if not path.match(TRANSLATED)
        for line in _lines(path)
        if _text(line).isascii()
    ]
    assert len(english) > 1000
    readings = {line["id"]: _translated_readings(_text(line)) for line in english}
    assert {line_id: names for line_id, names in readings.items() if names} == {}


@pytest.mark.parametrize(
    "text,code",
    [
        # a word that holds a credential's word is still the connection ("подключиться" holds "ключ")
        ("Невозможно подключиться к серверу.", ErrorCode.network_unavailable),
        # a gateway's error names the connection too ("cổng kết nối"): the gateway decides
        ("Lỗi cổng kết nối. Vui lòng thử lại sau.", ErrorCode.provider_unavailable),
        # an error while connecting to a server: the connection, not the server's error
        ("Sunucuya bağlanırken hata oluştu, sayfayı yenilemeyi deneyin.", ErrorCode.network_unavailable),
        # a connection named beside a credential's expiry: the credential's, not the connection's
        ("無法連接 — 可能是 token 已經過期或無效", ErrorCode.auth_required),
        # unavailable with no "for now" or "later": a service refused for good (a region, a plan) is not a blip
        ("Сервис недоступен в вашем регионе", ErrorCode.unknown),
        # an English gateway error is the English rules', not a translation's
        ("Cody Gateway blocked the request: acceptable use policy error", ErrorCode.unknown),
        # tokens over the limit are the context, though "token" is a key's word too
        (
            "Количество токенов слишком велико, параметры ограничения по токенам настроены неверно",
            ErrorCode.context_length_exceeded,
        ),
        # a key with no quota left: the quota, not the key
        ("Этот ключ API не имеет доступной квоты, квота исчерпана", ErrorCode.quota_limited),
        # a rate limit of a day is a quota; of a few seconds, a rate limit
        ("Limite de débit par jour atteinte", ErrorCode.quota_limited),
        ("Se alcanzó el límite de velocidad, disponible después de 30s", ErrorCode.rate_limited),
        # tokens per minute over their rate: the rate, not the context
        ("Слишком много запросов: превышен лимит токенов", ErrorCode.rate_limited),
        # a secure connection that failed names no content: no moderation
        ("La connexion sécurisée a échoué : la connexion a été refusée", ErrorCode.network_unavailable),
        # the worker's disk quota, a reload, a request that expired: no provider's quota, balance or bad request
        ("Превышена дисковая квота", ErrorCode.unknown),
        ("Recargando la configuración del servidor", ErrorCode.unknown),
        ("Richiesta scaduta", ErrorCode.unknown),
        # a model not found, and a model that cannot take the input
        ("Le modèle gpt-9 est introuvable", ErrorCode.model_unavailable),
        ("Le modèle sélectionné ne prend pas en charge les images", ErrorCode.invalid_request),
        # a model named unsupported is the model's; one that cannot take the input stays the request's
        ("Modell stöds inte", ErrorCode.model_unavailable),
        # what a transport failure asks the user to do names the network: a progress message does not
        ("Nu s-a putut descărca. Verifică conexiunea la internet.", ErrorCode.network_unavailable),
        ("Проверка соединения", ErrorCode.unknown),
        # a request that took too long is a timeout; a name too long is no timeout
        ("Att kontakta din server tog för lång tid", ErrorCode.timeout),
        ("%s: ime veze je predugo; ne arhivira se", ErrorCode.unknown),
        # a server's problem named beside its error is the server's; the connection to it is the connection's
        ("Ошибка сервера Hugging Face: Проблема с сервером API", ErrorCode.provider_unavailable),
        ("Błąd połączenia z serwerem, spróbuj odświeżyć stronę.", ErrorCode.network_unavailable),
        # a usage limit reached, or one that lifts tomorrow, is a quota; a decompressor's memory limit is nobody's
        ("Limite di utilizzo raggiunto fino a 18:30", ErrorCode.quota_limited),
        (
            "Ai atins limita IA la planul gratuit. Încearcă Excalidraw+ pentru mai multe sau revino mâine.",
            ErrorCode.quota_limited,
        ),
        ("Osiągnięto limit użycia pamięci", ErrorCode.unknown),
        # a conversation with no room left is the context; a PL/pgSQL context with no place is not a conversation
        ("У розмові закінчилося місце. Почніть новий чат.", ErrorCode.context_length_exceeded),
        ('функція "set-valued" викликана в контексті, де йому немає місця', ErrorCode.unknown),
        # a wait asked before new requests is a rate limit; a wait while a request is processed is not
        (
            "Пожалуйста, подождите перед новыми запросами; квота будет восстановлена автоматически.",
            ErrorCode.rate_limited,
        ),
        ("少々お待ちください, リクエストを処理しています！", ErrorCode.unknown),
        # a server unavailable is down, with or without a "for now"; a service may be unavailable for good (above)
        ("Operasjonen kunne ikke fullføres. Serveren er utilgjengelig.", ErrorCode.provider_unavailable),
        # a service that does not respond, a connection closed by the server, one that cannot be established
        ("마스토돈 서버의 번역 서비스가 응답하지 않습니다!", ErrorCode.provider_unavailable),
        ("Соединение закрыто сервером", ErrorCode.network_unavailable),
        ("No fue posible establecer la conexión", ErrorCode.network_unavailable),
        # a connection that failed to a host named by its address or as a local runtime
        ("Impossibile connettersi a localhost:11434", ErrorCode.network_unavailable),
        ("Nem sikerült csatlakozni az Ollamához. Fut?", ErrorCode.network_unavailable),
        # not connected to the internet; no connection to the server
        (
            "Возможно, вы не подключены к Интернету или ваш инстанс в данный момент недоступен.",
            ErrorCode.network_unavailable,
        ),
        ("Sem conexão com o servidor", ErrorCode.network_unavailable),
        # a model busy with another answer; a context's length limit reached; too many requests
        ("Model jest zajęty. Proszę czekać, aż model zakończy i spróbuj ponownie", ErrorCode.provider_overloaded),
        ("Достигнут лимит длины контекста", ErrorCode.context_length_exceeded),
        ("ChatGPT wird mit zu vielen Anfragen überflutet", ErrorCode.rate_limited),
        # a connection's error that occurred, or named alone; disconnected from a server or a remote instance
        ("Ein Verbindungsfehler ist aufgetreten", ErrorCode.network_unavailable),
        ("Bağlantı Hatası", ErrorCode.network_unavailable),
        ("Disconnesso dal server, tentativo di riconnessione...", ErrorCode.network_unavailable),
        ("La instancia remota se ha desconectado", ErrorCode.network_unavailable),
        # an API out of reach, an error communicating with a server, no network connection, no key given
        ("Die lokale API konnte nicht erreicht werden", ErrorCode.network_unavailable),
        ("Sunucu ile iletişim hatası:", ErrorCode.network_unavailable),
        ("Pas de connexion réseau", ErrorCode.network_unavailable),
        ("Nie podano klucza API, dodaj go w ustawieniach", ErrorCode.missing_credentials),
        # a label that says more than the error, logging out, turning a server off, a list separated by commas
        ("Verbindungsfehler anzeigen", ErrorCode.unknown),
        ("Se déconnecter du serveur", ErrorCode.unknown),
        ("Отключить сервер", ErrorCode.unknown),
        ("Serveradressen, durch Kommas getrennt", ErrorCode.unknown),
        # a status or a button that only says disconnected, "no active connection", an error saving a connection's
        # profile, a protocol's version, an address book, a connection made
        ("Servidor: desconectado", ErrorCode.unknown),
        ("Disconnessione dal server", ErrorCode.unknown),
        ("Etkin bağlantı yok", ErrorCode.unknown),
        ("Ağ ayarları kaydetme hatası", ErrorCode.unknown),
        ("Virhe yhteyskäytäntöversiossa", ErrorCode.unknown),
        ("Đã kết nối được với máy chủ", ErrorCode.unknown),
        # a printer's connection is the machine's; a device's internet connection is still the network
        ("Nepodařilo se připojit k tiskárně. Zkuste to znovu.", ErrorCode.unknown),
        (
            "Überprüfen Sie die Internetverbindung Ihres Geräts und versuchen Sie es erneut.",
            ErrorCode.network_unavailable,
        ),
        # a sign-in's e-mail ("connexion" is a login too), a social network
        ("Veuillez vérifier votre adresse e-mail de connexion", ErrorCode.unknown),
        ("Verifica tu red social conectada", ErrorCode.unknown),
        # a GnuPG key's code, not an API key; access to a gated model refused is the model's
        ("Недопустимый код ключа (ожидается 40 шестнадцатеричных цифр)", ErrorCode.unknown),
        ("L'accès à ce modèle restreint a été refusé", ErrorCode.model_unavailable),
        # a test, a status or a setting that names a connection, a context or a limit decides nothing
        ("Teste de conexão ao servidor", ErrorCode.unknown),
        ("Conexión establecida", ErrorCode.unknown),
        ("Длина контекста", ErrorCode.unknown),
        ("Limita Lunghezza Risposta", ErrorCode.unknown),
        ("Proxy-Server-Adresse", ErrorCode.unknown),
    ],
)
def test_translated_readings_decide_by_the_words_that_say_the_most(text: str, code: ErrorCode) -> None:
    _assert_translated_reading(text, code)


@pytest.mark.parametrize(
    "text,code",
    [
        # a connection cut, lost or failed, in more languages; a connection reset, and its settings reset, which is none
        ("Връзката е неуспешна", ErrorCode.network_unavailable),
        # a button, a status line, a setting that reconnects by itself, a device: no failure of the provider's
        ("Katkesta ühendus", ErrorCode.unknown),
        ("Anslutningar: 3 aktiva, 1 bruten", ErrorCode.unknown),
        ("Автоматично повторно свързване, ако връзката бъде прекъсната", ErrorCode.unknown),
        ("Spajanje slušalica nije uspjelo", ErrorCode.unknown),
        # a connection interrupted, as the headline before a dash
        ("З'єднання перервано — за мить торкніться «Почати сесію».", ErrorCode.network_unavailable),
        ("Връзката е прекъсната, повторно свързване...", ErrorCode.network_unavailable),
        ("Savienojums neizdevās", ErrorCode.network_unavailable),
        ("Połączenie zostało zresetowane przez serwer.", ErrorCode.network_unavailable),
        ("Yhteysasetukset nollattiin oletusarvoihin.", ErrorCode.unknown),
        ("연결 설정이 재설정되었습니다.", ErrorCode.unknown),
        ("تمت إعادة تعيين إعدادات الاتصال.", ErrorCode.unknown),
        # a server out of reach in Indic scripts; "contact support" is no connection, whatever else it names
        ("सर्वर से संपर्क नहीं हो पा रहा", ErrorCode.network_unavailable),
        ("सर्वर समस्या के लिए सहायता से संपर्क करें", ErrorCode.unknown),
        ("சேவையகத்தை அடைய முடியவில்லை", ErrorCode.network_unavailable),
        ("Δεν ήταν δυνατή η επικοινωνία με τον διακομιστή", ErrorCode.network_unavailable),
        ("Επικοινωνία με την υποστήριξη για το πρόβλημα", ErrorCode.unknown),
        # a wait that ran out, with a retry or a request named (Telugu, Indonesian); a quiz's time that is up is none
        ("సమయం ముగిసింది — మళ్ళీ ప్రయత్నించండి", ErrorCode.timeout),
        ("Permintaan habis waktu", ErrorCode.timeout),
        ("সময় শেষ হয়ে গেছে! আপনার স্কোর: ৭/১০", ErrorCode.unknown),
        # what to check: the connection (Serbian, Catalan, Danish), never an API key alone
        ("Proverite vezu i pokušajte ponovo.", ErrorCode.network_unavailable),
        ("Kontroller venligst din netværksforbindelse og prøv igen.", ErrorCode.network_unavailable),
        ("Suriin ang iyong API key", ErrorCode.unknown),
        ("மின்னஞ்சலில் உள்ள இணைப்பைச் சரிபார்க்கவும்", ErrorCode.unknown),
        # a key or a model disabled is theirs; a record's setting disabled (PostgreSQL's catalogue) is none
        ("API 密钥已禁用！", ErrorCode.auth_required),
        ("hostssl 记录不能匹配，因为 SSL 已禁用", ErrorCode.unknown),
        # an account's connection is the account's (Ukrainian "обліковий запис")
        ("У нас виникли проблеми з підключенням вашого облікового запису", ErrorCode.unknown),
    ],
)
def test_a_connection_cut_reset_or_out_of_reach_in_more_languages(text: str, code: ErrorCode) -> None:
    _assert_translated_reading(text, code)


@pytest.mark.parametrize(
    "text,code",
    [
        # a failure that names a limit, a budget, a plan or tomorrow in passing is still its own failure (an attack on a
        # round that read a limit beside "tomorrow", or a budget beside "monthly", anywhere in a text found these read
        # as a quota: a lost connection or a bad key moved to another provider as if it were spent)
        (
            "Veza s poslužiteljem nije uspjela. Pokušajte ponovno sutra; limit pokušaja je 3 po minuti.",
            ErrorCode.network_unavailable,
        ),
        (
            "No s'ha pogut connectar amb el servidor. Torneu-ho a provar demà; límit de temps esgotat.",
            ErrorCode.network_unavailable,
        ),
        (
            "No se pudo conectar con el servidor. Tu presupuesto mensual no se ha visto afectado. Inténtalo de nuevo.",
            ErrorCode.network_unavailable,
        ),
        (
            "Không thể kết nối với máy chủ. Gói miễn phí của bạn vẫn hoạt động; nâng cấp không cần thiết.",
            ErrorCode.network_unavailable,
        ),
        ("Chave de API inválida. Seu orçamento mensal não foi cobrado.", ErrorCode.auth_required),
        ("Clave API no válida. Tu presupuesto diario sigue intacto.", ErrorCode.auth_required),
        ("Nevažeći API ključ. Dnevni budžet nije potrošen.", ErrorCode.auth_required),
        ("Chave de API inválida. Limite mensal: 1000 requisições.", ErrorCode.auth_required),
        ("Chiave API non valida. Limite per oggi: 50 richieste.", ErrorCode.auth_required),
        ("Ungültiger API-Schlüssel. Tageslimit: 100 Anfragen.", ErrorCode.auth_required),
        ("Das Modell wurde nicht gefunden. Tageslimit: 100 Anfragen.", ErrorCode.model_unavailable),
        ("A mensagem é muito longa para o modelo. Plano mensal: Pro.", ErrorCode.context_length_exceeded),
        ("A conversa é muito longa. Seu plano mensal continua ativo.", ErrorCode.context_length_exceeded),
        ("Il messaggio è troppo lungo. Hai ancora 3 richieste per oggi.", ErrorCode.context_length_exceeded),
    ],
)
def test_a_limit_a_budget_or_tomorrow_named_in_passing_leaves_the_failure_its_own(text: str, code: ErrorCode) -> None:
    _assert_translated_reading(text, code)
