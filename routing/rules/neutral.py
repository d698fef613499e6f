"""Provider-neutral rules: wording any agent or provider may use, body keys, exception types."""

from routing.codes import ErrorCode as E
from routing.rules import table
from routing.rules.translated import ROWS as TRANSLATED
from routing.rules.translated_requests import ROWS as TRANSLATED_REQUESTS

NEUTRAL = table(
    "neutral",
    "neutral",
    [
        # a window that names its reset beside credits to go on sooner (t3code "The weekly limit resets in 5d 5h. The
        # workspace has no credits to continue sooner"): the window, which waiting ends; one step above the credits
        (
            "window_resets_before_credits",
            r"\b(?:weekly|daily|monthly|5-hour|session|usage) limit (?:resets|will reset|renews) (?:in|at|on)\b",
            E.quota_limited,
            0.965,
        ),
        # billing, credit, plan, quota (0.96: beats any status)
        (
            "credit_balance",
            r"credit balance (?:is )?too low|insufficient (?:account |paid )?(?:credits?|balance|funds)"
            r"|insufficient_funds"
            # the same as an identifier (a Google ErrorInfo reason `INSUFFICIENT_G1_CREDITS_BALANCE`)
            r"|insufficient_\w*(?:credits?|balance|funds)"
            # Chinese providers and relays: in arrears (Zhipu 1113 "您的账户已欠费"), allowance insufficient (new-api)
            r"|欠费|额度不足"
            # (credits named by whose they are: OpenHands "You're out of OpenHands Credits")
            r"|payment required|out of (?:[\w-]+ ){0,2}credits\b|\bno (?:more )?credits? (?:remaining|left)\b"
            # ("No credits consumed on this tool call" reassures, it does not say the balance is empty)
            # (as an identifier too: Letta's reason `not-enough-credits`)
            r"|(?:no|not[ _-]enough)[ _-]credits(?! (?:were |was )?(?:consumed|used|charged|deducted))"
            r"|used all available credits|spend(?:ing)? limit"
            # (PactFlow "AI credits are exhausted")
            r"|\bcredits (?:are|have been) (?:exhausted|depleted|used up)\b"
            # credits in a provider's own words: xAI "doesn't have any credits or licenses", Hugging Face "exceeded
            # your monthly included credits"
            r"|(?:does|do)(?:n.t| not) have (?:any |enough )?credits|credits or licenses"
            r"|exceeded (?:your|its|the) [\w ]{0,20}credits"
            # arrears and balance: DashScope Arrearage / overdue payment, SiliconFlow "paid balance is insufficient"
            r"|arrearage|in good standing|overdue[- ](?:payment|account)|balance is (?:insufficient|not enough)"
            # an account in arrears in other words (Volcano Ark `AccountOverdueError` "your account has an overdue
            # balance", its `ServiceOverdue` "your account balance is overdue", "account in arrears")
            r"|\boverdue balance\b|\bbalance is overdue\b|\baccount (?:is )?(?:overdue|in arrears)\b|\barrears\b"
            r"|requires? (?:a )?paid balance"
            # a balance or allowance smaller than the request's cost
            r"|(?:credits?|balance|allowance) (?:cannot|can.t|does not|doesn.t) cover"
            # the vocabulary of a prepaid balance in any order: "Insufficient USD or Diem balance", a request that
            # "requires more credits" or that the key "can only afford", credits whose access is restricted
            r"|\binsufficient\b[\w ]{0,20}\b(?:balance|credits?|funds)\b|\brequires? more credits\b|\bcan only afford\b"
            r"|\bcredits?\b[^.]{0,30}\b(?:restricted|suspended|disabled)\b"
            r"|\b(?:spend|spending|credit) (?:cap|limit) (?:exceeded|reached|hit)"
            # a balance run dry in the user's words (Roo Code "run out of funds/credits", xAI "You have run out of
            # credits or need a Grok subscription"); not the remedy "add credits" alone, which a plan window offers too
            r"|\b(?:ran|run|running|are|is) out of (?:funds|credits?|balance|money)\b|\bout of funds\b"
            # a balance said to be exhausted or to need a top-up (fal "User is locked. Reason: Exhausted balance. Top
            # up your balance"), above the lock it explains
            r"|\bexhausted (?:your |the |its |account )?balance\b|\bbalance (?:is |has been |was )?exhausted\b"
            # prepaid credits used up (Gemini's 402 "Your prepayment credits are depleted", still RESOURCE_EXHAUSTED),
            # a relay's prepaid points (API2D "Not enough point", 点数不足, 积分不足)
            r"|\b(?:prepaid|prepayment|prepay) (?:credits?|balance)\b[^.]{0,20}\b(?:depleted|exhausted|used up|run out)"
            r"|\bcredits? (?:are|is|have been|has been) depleted\b|\bnot enough points?\b|点数不足|积分不足"
            # Chinese: balance insufficient
            r"|余额不足",
            E.subscription_required,
            0.96,
        ),
        # access paused or suspended until an invoice is paid (OpenAI's overdue invoice, a paused subscription)
        (
            "billing_paused",
            r"(?:access|subscription|account) (?:has been |is )?(?:temporarily )?(?:paused|suspended)\b[^.]{0,80}"
            r"\b(?:invoice|billing|payment|balance)|overdue invoice|pay (?:your|any) (?:outstanding )?invoices?"
            r"|\bapi access (?:has been |is |was )?(?:temporarily )?(?:paused|suspended)"
            # a model service the account's own cap paused until its owner changes a console setting (Volcengine Ark)
            r"|\b(?:model |api )?service (?:has been|is|was) (?:paused|suspended)\b"
            # OpenAI's `billing_not_active` ("Your account is not active, please check your billing details"), a 429
            r"|\baccount is not active\b",
            E.subscription_required,
            0.96,
        ),
        # a membership the service could not find active (Kimi Code "We're unable to verify your membership benefits
        # at this time. Please ensure your membership is active"): the account's plan, whatever wrapper reports it
        # (a "rejected OAuth credentials" headline over it included, so one step above the credential words)
        (
            "membership_inactive",
            r"\bmembership (?:benefits|is (?:not |in)?active|(?:has )?expired|(?:is )?required|status)\b"
            r"|\b(?:verify|renew|activate|upgrade) your membership\b|\b(?:an? )?(?:active|valid|paid) membership\b",
            E.subscription_required,
            0.96,
        ),
        # a key's own spending cap (OpenRouter "Key limit exceeded (total limit)", "More credits are required … create
        # a key with a higher limit"): a quota on that key, which its owner raises or its period resets; the account
        # may still hold credits, so one step above the balance words beside it
        (
            "key_spend_cap",
            r"\bkey limit[ _-](?:exceeded|reached)|\bkey with a higher (?:\w+ )?limit\b"
            r"|\b(?:api )?key(?:.s)? (?:spend(?:ing)? |credit |usage |budget )?(?:limit|cap) "
            r"(?:exceeded|reached|hit)\b"
            # (in the other order: LibreChat "The default API key has reached its limit")
            # (not its rate limit, which a short wait resets: "key has reached its rate limit of 60 RPM")
            r"|\bkey (?:has )?(?:reached|hit|exceeded|used up) its (?:(?!rate\b)\w+ )?(?:limit|quota|budget)\b",
            E.quota_limited,
            0.97,
        ),
        (
            "plan_required",
            r"subscription (?:is )?required|upgrade your plan|plan does not (?:include|allow)"
            r"|not available on your plan|upgrade to (?:plus|pro|a paid)"
            # a tier the account has not reached (Together "build tier 2 and above"), a card the provider needs
            r"|build tier \d|upgrade your tier|tier not high enough|credit card on file"
            # OpenAI "Your organization must be verified to stream this model": an account step, not this request's
            r"|organi[sz]ation must be verified"
            # a model or an API outside the account's plan (CodeGPT "not available under your current pricing plan",
            # Alibaba's "Coding Plan is currently only available for Coding Agents")
            r"|not available (?:on|under|in|for|with) your (?:current )?(?:pricing )?(?:plan|tier|subscription)"
            # (a feature the plan leaves off: PactFlow "AI features are not enabled on this plan")
            r"|\bnot enabled (?:on|for|in) (?:this|your|the current) (?:plan|tier|subscription)\b"
            # a service kept for some clients or subscribers ("Kimi For Coding is currently only available for Coding
            # Agents such as Kimi CLI", "only available to Pro subscribers")
            r"|\bplan is (?:currently )?only available for"
            r"|\bonly available (?:to|for) (?:[\w-]+ ){0,3}(?:agents?|clients?|subscribers?|members?|customers?)\b"
            # (Cursor "only available to paid users", Imagen "only accessible to billed users", `paid_account_required`)
            r"|\bonly (?:available|accessible) (?:to|for|on|with) (?:the )?(?:paid|pro|premium|plus|subscribed|billed"
            r"|business|team|enterprise) (?:users?|accounts?|plans?|tiers?)\b"
            r"|\bpaid[_ ](?:account|plan|subscription)[_ ]required\b"
            # a model sold through a cloud marketplace whose subscription is not in place (Bedrock
            # `MPAgreementBeingCreated` "your AWS Marketplace subscription for the model is still being processed")
            r"|\bmarketplace subscription\b[^.]{0,60}\b(?:being processed|pending|not (?:yet )?(?:active|complete)"
            r"|cannot be completed|required|expired)\b"
            # a subscription, membership or trial the account lacks or that ran out ("You don't have an active
            # subscription", "No active subscription found", CodeGPT "Non active subscription", "Your subscription has
            # expired", "Your free trial has ended")
            r"|\b(?:no |without (?:an? )?|(?:do|does|did)(?:n.t| not) have (?:an? |any )?)(?:active |valid |paid )?"
            r"(?:subscription|membership)\b(?! (?:key|id)\b)"
            r"|\b(?:non[- ]?active|inactive|expired|lapsed) (?:subscription|membership)\b"
            r"|\b(?:subscription|membership|free trial|trial(?: period)?|plan)\b (?:has |have )?(?:expired|ended|lapsed"
            r"|been cancell?ed|is inactive|is not active)\b"
            # a subscription or paid plan named as what the request needs (Ollama Cloud "this model requires a
            # subscription, upgrade for access", Cursor "Without the pro plan, you do not have access to this
            # feature/model", "Please use a Pro or Business subscription")
            # (HF "Model requires a Pro subscription", "You need an active, paid subscription to use this API")
            r"|\b(?:requires?|required|needs?) (?:a |an |the )?(?:[\w-]+,? ){0,3}?(?:subscription"
            r"|(?:paid|pro|premium|plus|business|team|enterprise|max|ultra|higher|upgraded) plan)\b(?! (?:key|id)\b)"
            r"|\bupgrade (?:for|to (?:get|gain|unlock)) access\b"
            r"|\b(?:without|use|with|need|purchase|buy|get) (?:the |a |an )?(?:pro|paid|premium|plus|business|team"
            r"|enterprise|max|ultra)(?: or (?:pro|paid|premium|plus|business|team|enterprise|max|ultra))? "
            r"(?:plan|subscription|tier|membership)\b"
            # what a free account may not use (Cursor "Free users can only use GPT 4.1 or Auto as premium models")
            r"|\bfree (?:users?|tier|plan|accounts?)\b[^.]{0,30}"
            r"\b(?:can only|cannot|can.t|(?:is|are) not (?:allowed|able))"
            r"|(?:not |un)available (?:to|for) free (?:users?|tier|plan|accounts?)\b",
            E.subscription_required,
            0.95,
        ),
        (
            "quota",
            r"exceeded (?:your )?current quota|insufficient[_ ]quota"
            r"|quota (?:has been |is |was )?(?:exceeded|exhausted|reached)\b|\brequest exceeds (?:the |your )?quota\b"
            # a quota named in a list of causes ("Grok API quota, credits, or rate limit was exhausted")
            r"|\bquota(?:, [\w ]{1,20})*,? (?:or|and) [\w ]{1,20}? (?:was|were|has been|have been|is|are) "
            r"(?:exceeded|exhausted)\b"
            r"|usage[ _]limit[ _](?:(?:has|have) been |was |is )?(?:reached|exceeded|hit)"
            # as an identifier (Letta's reason `premium-usage-exceeded`)
            r"|\b(?:premium|plan|subscription|monthly|daily|weekly|api|token|credit|request)[ _-]usage[ _-]"
            r"(?:limit[ _-])?exceeded\b"
            # a plan's allowance of messages or requests spent (Codex "You're out of Codex messages. Your rate limit
            # resets on …"): it resets, whatever plan the text offers beside it
            r"|\b(?:you(?:'|’)re|you are|you(?:'|’)ve run|you have run) out of (?:[\w-]+ ){0,2}(?:messages|requests"
            r"|prompts|queries|turns|uses|generations|completions)\b"
            r"|billing (?:hard )?limit|exhausted your (?:daily |monthly )?quota"
            # a request larger than what is left of the quota (ElevenLabs "This request exceeds your quota. You have 119
            # characters remaining", under its RateLimitError) and a quota exceeded as an error code (Tencent CloudBase
            # `EXCEED_TOKEN_QUOTA_LIMIT`)
            # (or exceeded it, named by what it counts: Hugging Face ZeroGPU "You have exceeded your GPU quota (60s
            # requested vs. 56s left)")
            r"|\bexceed(?:s|ed)? your (?:[\w-]+ ){0,2}quota\b|\bexceed(?:ed|s)?_(?:[a-z]+_){0,2}quota(?:_[a-z]+)?\b"
            # a quota said to be spent in its own sentence (Dify "Your quota for Dify Hosted Model Provider has been
            # exhausted", under 400), or the caller out of it (Azure API Management "Out of call volume quota. Quota
            # will be replenished in 5.03:23:11.", under 403)
            r"|\bquota (?:for [^.\n]{1,60} )?(?:has been |have been |is |was )(?:exhausted|used up|depleted|spent)\b"
            r"|\bout of (?:[\w-]+ ){0,3}quota\b|\bquota will be (?:replenished|renewed|restored)\b"
            # (and none left: Higress's ai-quota 403 "Request denied by ai quota check, No quota left")
            r"|you have no quota|\bno (?:more )?quota (?:left|remaining)\b"
            # (the quota named by its plan in up to five words: Plandex "You've reached your Claude Pro or Max
            # subscription quota", read by the word table's "reached" until the twentieth round's moved lines used it
            # for a completion-token maximum and a pending-token queue)
            r"|(?:reached|hit|used up) (?:your|our|the) (?:[\w.-]+ ){0,5}quota\b(?! limit)"
            # a cap in Chinese (Zhipu 1308 "已达到 5 小时的使用上限", Trae "AI问答今日用量已达上限"), a limit named
            # with its day, week or month (Bing Chat "你已达到每日限制。请明天再试。"; a rate limit reached,
            # "已达到速率限制", is not these words)
            # (and a day's cap "exceeded" or its count reached: "超过每日使用限额", "已达到每日最大发送消息次数")
            # (not a concurrency or a request rate at its cap, "并发数已达上限", "请求频率已达到上限": a rate's words)
            r"|(?<!并发)(?<!并发数)(?<!并发量)(?<!频率)(?<!速率)已(?:达到?|到达)(?!了?(?:请求)?(?:频率|速率|并发)).{0,20}上限|(?:已达到|超过|超出)了?(?:每日|每天|今日|当日|每周|本周|每月|本月).{0,10}(?:限制|限额|次数)"
            # (the period first and the count after it: MaxKB 1002 "今天的访问次数超过限制", under its 461)
            r"|(?:今天|今日|当天|当日|本周|本月)的?[^。，,]{0,10}(?:超过|超出|已达到?)了?(?:限制|上限|限额)"
            # prepaid packs and allowances used up (Tencent Cloud `PkgExhausted` "resource pack allowance has been
            # exhausted"), a day's or a plan's usage used (freebuff "used all of today's free usage")
            r"|\b(?:allowance|package|pack|bundle) (?:has been |have been |is |are |was )?"
            r"(?:exhausted|depleted|used up)\b"
            r"|PkgExhausted|ChargeResourceExhaust"
            # a gateway's spend budget (LiteLLM "Budget has been exceeded! Current cost: …, Max budget: …", "crossed
            # budget", "ExceededBudget"), reset by its budget period; used up or reached, its amount named (Warp 403
            # "Monthly spending budget of $50 has been reached.")
            # (a spend named as such: not a token budget, the size of one request or answer, nor a time, retry or
            # tool-call budget: codex-lb's "Proxy request budget exhausted" is its upstream timeout)
            r"|\bbudget (?:has been )?exceeded\b"
            r"|\b(?:spend(?:ing)?|cost|usage|dollar|monthly|daily|weekly|annual) budget (?:of \S+ )?"
            r"(?:has been |was |is )?(?:exceeded|exhausted|reached|used up)\b"
            r"|exceeded (?:the |your |its )?budget|crossed budget|ExceededBudget"
            # a relay's user quota too small for the request's pre-charge (one-api "user quota is not enough",
            # "preConsumeQuota failed", `insufficient_user_quota`)
            r"|\b(?:user |token |remaining )?quota (?:is )?not enough\b|\bpre_?consumed?_?quota\b"
            r"|\binsufficient_user_quota\b"
            # Copilot "you have exhausted the agent mode usage limit"
            r"|\bexhausted (?:the |your )?(?:[\w-]+ ){0,3}usage limit"
            # "You've reached your weekly (7-day) usage limit": a plan's usage allowance spent, whatever its window
            r"|\b(?:reached|hit|exceeded|used up) (?:your|the|its) (?:[\w().-]+ ){0,3}usage (?:limit|cap)\b"
            # access that comes back on a day named (Anthropic's spend limit "You have reached your specified API usage
            # limits. You will regain access on 2026-04-01 at 00:00 UTC", sent as a 400)
            r"|\bregain access (?:on|at|in)\b"
            # a limit only an admin lifts (Claude Code on a team plan: "Limit reached – contact an admin to keep
            # working")
            r"|\blimit\b[^.\n]{0,40}\bcontact (?:an? |your )?(?:admin|administrator|workspace owner|owner)\b"
            r"|\bused (?:up )?all (?:of )?(?:your|the|today.s|this \w+.s)\b[^.]{0,30}"
            # (a plan's allowance counted in requests or messages: "You've used all your fast requests for this month")
            r"\b(?:usage|quota|credits|allowance|requests|messages|prompts|uses)"
            # the allowance named by what it counts, with its period (Cody "You've used all chat messages and
            # commands for today", "… all autocomplete suggestions for the month")
            r"|\bused (?:up )?all (?:[\w-]+ ){0,3}?(?:messages|requests|prompts|chats|commands|completions"
            r"|suggestions|autocompletes|generations|credits)\b[^.]{0,40}"
            r"\b(?:for (?:today|the (?:day|week|month))|today|this (?:week|month))\b"
            # (whatever it counts, the period named after it: Cody "You've used all of your autocompletions for the
            # month", "… all of your Agentic Chat for today")
            r"|\bused (?:up )?all (?:of )?(?:your|the) (?:[\w-]+ ){1,3}for "
            r"(?:today|the (?:day|week|month)|this (?:week|month))\b"
            # a limit on all use, which no period resets (Baidu Qianfan "Open api total request limit reached")
            r"|\btotal (?:requests? |tokens? |usage |calls? )?(?:limit|quota|allowance) (?:has been |is |was )?"
            r"(?:reached|exceeded|hit|exhausted|used up)\b",
            E.quota_limited,
            0.96,
        ),
        # a quota over a one-minute window (Vertex/Gemini quota metrics, "your current quota of tokens per minute"):
        # worded as a quota, reset within a minute, so one step above the quota wording above
        (
            "minute_quota",
            # per minute as words or inside a metric's name (`…_requests_per_minute_per_project`, `…PerMinute…`)
            # (a rate limit stated per minute reads the same, even when the text upsells a paid plan)
            r"(?:quota|rate limit)\b[^\n]{0,160}per[ _-]?(?:minute|min\b)|per[ _-]?(?:minute|min\b)[^\n]{0,160}\bquota",
            E.rate_limited,
            0.97,
        ),
        # credentials
        (
            "missing_key_variable",
            r"missing (?:environment|env) variable|no api key|missing api key"
            r"|api key (?:is )?(?:missing|not set|required)"
            # (or not configured on a proxy's server: NextChat's 500 "OpenAI API key not configured")
            r"|\bapi[ _-]?key (?:\([^)\n]{1,40}\) )?(?:is |was )?not configured\b"
            # (a key or token the tool asks for in its own words: Continue "You need to use an API key", Wave Terminal
            # "ai:apitoken is required", its secret store's "secret OPENAI_API_KEY not found or empty")
            r"|\byou need (?:to (?:use|provide|set|add|enter) )?an? api[ _-]?key\b"
            r"|\bapi[ _-]?token (?:is |was )?(?:required|missing|not set)\b"
            r"|\bsecret [\w.-]*(?:KEY|TOKEN)\w* (?:was )?not found\b"
            # (a gateway with no key of any kind set up for the route: Arch "No access key configured for selected LLM
            # Provider", under 400)
            r"|\bno (?:access|api|secret|auth) keys? (?:is |was |has been )?configured\b"
            # a provider's key named and not set (AnythingLLM "No Anthropic API key was set.")
            r"|\bno (?:[\w.-]+ ){1,2}api[ _-]?key (?:was |is |has been )?(?:set|provided|given|configured|specified)\b"
            r"|(?:didn.t|did not|must) provide (?:an |your )?api key"
            r"|must (?:specify|set|provide) the [A-Z0-9_]+ environment variable"
            r"|missing credentials|credentials? (?:were |was |could )?not (?:be )?(?:found|set|loaded)"
            r"|no (?:cookie )?auth credentials found"
            # Google's Application Default Credentials absent (google-auth DefaultCredentialsError: "Your default
            # credentials were not found", "Could not load the default credentials")
            r"|could not automatically determine credentials|could not load the default credentials"
            r"|\bDefaultCredentialsError\b"
            # the Stainless-generated SDKs (openai, anthropic and others): "The api_key client option must be set …"
            r"|\bapi_key client option must be set|\b[A-Z][A-Z0-9_]*_(?:API_KEY|TOKEN)\b[^.]{0,40}"
            r"(?:not set|missing|is required|must be set)",
            E.missing_credentials,
            0.95,
        ),
        # a proxy or gateway that holds no credential the upstream accepts
        (
            "credentials_refused",
            r"credentials? (?:were|was|have been) (?:refused|rejected)"
            r"|(?:rejected|refused) (?:the |our |your |its )?(?:[\w'’]+ ){0,2}credentials?\b",
            E.missing_credentials,
            0.95,
        ),
        # a disabled, suspended or restricted account is the user's to sort out, whatever status carries it
        (
            "account_disabled",
            r"organi[sz]ation has been (?:disabled|restricted|suspended|deactivated)"
            r"|account (?:has been|is) (?:suspended|disabled|deactivated)"
            # a user, key or consumer suspended, banned, locked or terminated in any word order (Kiro "Your User ID
            # temporarily is suspended", Google "Consumer 'api_key:…' has been suspended", OpenAI "Your access was
            # terminated due to violation of our policies")
            r"|\b(?:user(?: id)?|account|consumer|api key|key|access)\b[^.]{0,30}\b(?:is|has been|was|were)\s+"
            r"(?:temporarily\s+|permanently\s+)?(?:suspended|banned|locked|terminated|blocked)\b"
            r"|\blocked your account\b|\baccount (?:is )?(?:locked|banned)\b",
            E.auth_required,
            0.95,
        ),
        (
            "auth",
            r"invalid[ _-]?(?:x-)?api[ _-]?key|api key not valid|incorrect api key|unauthori[sz]ed"
            # (a provider named between: Void "Invalid OpenAI API key.")
            r"|\binvalid (?:[A-Z][\w.-]* ){1,2}api[ _-]?key\b"
            # (a remedy that names "authentication methods" is advice beside another failure, not a refusal)
            r"|authentication(?! methods?\b)"
            r"|access denied|invalid subscription key|not logged in|please (?:log ?in|login|authenticate)"
            # no login at all, in other words ("You are not signed in", "Not authenticated")
            r"|\bnot (?:signed|logged) in\b|\bnot authenticated\b"
            # a login the tool needs first (Ollama "You need to be signed in to Ollama to run Cloud models"), a CLI's
            # own login command to run (Auggie "Please run `auggie login` from your terminal then try again")
            r"|\b(?:need|needs|must|have|has) to be (?:signed|logged) in\b|\brun\W{1,2}[\w.-]+ (?:auth )?log ?in\b"
            # a token the tool could not get authorised (CodeCompanion "Could not authorize your GitHub Copilot token")
            r"|\b(?:could not|couldn.t|unable to|failed to) authori[sz]e (?:your |the )?(?:[\w-]+ ){0,3}"
            r"(?:token|key|credentials?|account)\b"
            r"|api key (?:has )?expired|expired (?:api )?key|renew the api key"
            # AWS SigV4 (UnrecognizedClientException), a revoked OAuth token, a key whose user is gone (OpenRouter)
            r"|security token included in the request is (?:invalid|expired)|UnrecognizedClientException"
            r"|ExpiredTokenException|\b(?:token|key|credentials?|access|grant)\b[^.]{0,30}\brevoked\b|run /login"
            # aider "The API provider is not able to authenticate you", Claude Code "Failed to authenticate"
            r"|(?:not able|unable|failed|could not|couldn.t) to authenticate"
            # an OAuth or access token past its life ("OAuth access token has expired", "Claude OAuth token expired")
            r"|\b(?:oauth|access|bearer|auth|refresh) token (?:has |had |is |was )?(?:expired|invalid|revoked)"
            # an OAuth token that could not be refreshed (Codex "Your access token could not be refreshed because your
            # refresh token was already used", RFC 6749's `invalid_grant`): the login is gone until someone signs in
            # again, which no retry does
            r"|\btoken\b[^.]{0,20}\b(?:could not|couldn.t|cannot|can.t|failed to) be refreshed\b"
            r"|\brefresh token\b[^.]{0,20}\b(?:already (?:been )?used|reused|invalidated|not found|missing)"
            r"|\binvalid_grant\b"
            r"|\b(?:log|sign)(?:ging)? (?:out and (?:log|sign)(?:ging)? )?in again\b|\bre-?authenticate\b|\bre-?login\b"
            # an authorisation refused and the login to check (Kimi CLI "Authorization failed, please check your login
            # status")
            r"|\bauthori[sz]ation (?:failed|failure|expired|denied|rejected)\b"
            r"|\bcheck (?:your )?login(?: status| state| session)?\b|\blogin (?:session |status )?(?:has )?expired\b"
            # the agents' and SDKs' classes for it (OpenCode ProviderAuthError, which carries the provider's words)
            r"|\bProviderAuthError\b"
            r"|\binvalid (?:oauth |access |bearer |auth |api |session |user )token\b"
            # a token refused in other word orders (Qianfan 110 "Access token invalid or no longer valid", Cohere
            # "invalid api token")
            r"|\b(?:api|access|auth|session) token (?:is )?(?:invalid|not valid|no longer valid)\b"
            # a signature or certification check the request failed (Qianfan 14 "IAM Certification failed", UCloud
            # "Validate Certification failed", "signature does not match")
            r"|\bcertification (?:failed|failure)\b"
            r"|\bsignature (?:does not match|mismatch|is invalid|verification failed)"
            # (a key pair's signature in Huawei Cloud's words: AIAE.31001106 "AK/SK signature verify failed")
            r"|\bsignature verif(?:y|ication) (?:has )?failed\b|\bAK/SK\b"
            # a login a policy asks to renew (Google's RAPT reauthentication, "Reauthentication is needed. Please run
            # gcloud auth application-default login")
            r"|\breauth(?:entication)? (?:is )?(?:needed|required)|\breauth related error|\binvalid_rapt\b"
            r"|\bgcloud auth (?:application-default )?login\b"
            # Chinese: authentication failed, unauthorised, a wrong, invalid or expired key or token
            r"|认证失败|鉴权失败|身份验证失败|授权失败|未授权"
            r"|(?:api ?key|密钥|令牌|token)\s*(?:错误|无效|不正确|已过期|已失效)"
            r"|无效的\s*(?:api ?key|密钥|令牌|token)",
            E.auth_required,
            0.92,
        ),
        # a refresh said to have failed, with no reason ("Gemini CLI OAuth refresh failed (HTTP 400 Bad Request)",
        # "Token refresh failed"): a login to renew, unless the words beside it name a network fault or a server error
        # (the token endpoint unreachable or down), which rank above it
        (
            "oauth_refresh_failed",
            r"\b(?:token|oauth|credentials?) refresh(?:ing)? (?:has |had )?failed\b"
            r"|\bfailed to refresh (?:the )?(?:oauth |access |auth )?(?:token|credentials?)\b"
            # a token that could not be obtained at all (Qianfan 13 "Get service token failed")
            r"|\b(?:get|getting|fetch|fetching|obtain|obtaining|acquire|acquiring) (?:the |an? )?"
            r"(?:service |access |auth |oauth |iam )?token failed\b"
            r"|\bfailed to (?:get|fetch|obtain|acquire) (?:the |an? )?(?:service |access |auth |oauth |iam )?token\b",
            E.auth_required,
            0.74,
        ),
        # a cloud IAM refusal (Google's PERMISSION_DENIED: "Permission 'aiplatform.endpoints.predict' denied on
        # resource …", "Permission denied on resource project …"): the credential lacks a grant, the user's to give
        # in IAM's vocabulary whatever the cloud (AWS "is not authorized to perform: bedrock:InvokeModel", "Your account
        # is not authorized to invoke this API operation", `NotAuthorized` "You do not have permission to perform this
        # action"; Qianfan 6 "No permission to access data"; watsonx "Failed to find the IBMid-… member in project_id"):
        # above the connection words a product's headline puts over it, a step below a model named as the one not there
        # ("The specified version does not exist (or perhaps you don't have permission to use it?)")
        (
            "iam_denied",
            r"\bdenied on resource\b|\bis not authori[sz]ed to (?:perform|invoke|access|use)\b"
            r"|\b(?:do|does)(?:n.t| not) have (?:the )?(?:required |necessary |sufficient )?permissions? (?:to|for)\b"
            # (Volcano Ark `AccessDenied` "you do not have access to the requested resource")
            r"|\b(?:do|does)(?:n.t| not) have access to the requested resource\b"
            r"|\bno permissions? to (?:access|perform|use|call|invoke)\b|\bcaller does not have permission\b"
            r"|\binsufficient permissions?\b|\bmissing (?:required )?permissions?\b"
            r"|\b(?:not a|failed to find (?:the )?\S+) member (?:of|in) (?:the |this )?"
            r"(?:project|organi[sz]ation|workspace|space|team|group)",
            E.auth_required,
            0.915,
        ),
        # the key's owner is gone (OpenRouter 401 "User not found."): a credential, even beside a model's name
        ("user_not_found", r"\b(?:user|account) not found", E.auth_required, 0.93),
        # terminal
        (
            "content_policy",
            # (a content filter named in words too: "prompt blocked by Gemini content filter")
            # (not a filter a notice names as a possible cause: "This may be caused by content filtering, …")
            # (not the per-answer annotations Azure streams with every chunk, `content_filter_results`)
            r"content (?:management |filtering )?policy|(?<!be caused by )content[_ ]filter(?!_results)"
            r"|safety (?:system|filter|reasons)"
            r"|blocked due to safety|flagged|moderation|\b(?:request|content|prompt|output) moderated\b"
            # relays' and regional providers' words (DashScope, Zhipu, DeepSeek, z.ai)
            r"|inappropriate content|data_?inspection_?failed|content exists risk|content security"
            r"|(?:unsafe|sensitive) content|不安全或敏感内容"
            # Kimi "considered high risk", new-api relays "sensitive words detected", MiniMax 1026/1027
            # "new_sensitive", Bedrock guardrails
            r"|considered high\s+risk|sensitive words? detected|contains? sensitive words?|new_sensitive|输入内容涉敏"
            r"|guardrail_intervened|guardrailAction\W{0,5}INTERVENED|blocked by [\w ]{0,20}guardrail"
            # a gateway's guardrail that blocked the text (LiteLLM "Guardrail failed words", "Bedrock guardrail
            # failed: …", "Violated … guardrail policy"); not "guardrail request failed", a call that failed
            r"|\bguardrail (?:failed|blocked|violation|triggered)\b|\bviolated [\w ]{0,30}guardrail"
            # a provider's or a client's "safety policy" (Kimi Code "Provider safety policy blocked the response",
            # aider "refused the request due to a safety policy")
            r"|\bsafety polic(?:y|ies)\b"
            # Claude Code "…which appears to violate our Usage Policy", any "violates our usage/content policy", xAI
            # "Content violates usage guidelines" (a 403) and the safety check it names ("Failed check:
            # SAFETY_CHECK_TYPE_BIO")
            r"|\bviolat\w* (?:our |the |its )?(?:[\w-]+ ){0,2}?(?:usage|content|acceptable use|community|platform) "
            r"(?:polic|guideline|rule|standard)"
            r"|\bsafety[_ ]check(?:_type)?_[a-z]+\b"
            r"|\bfailed (?:a |the )?(?:[\w-]+ ){0,2}?(?:safety|content|moderation) check"
            r"|model cannot answer this question|敏感词|违规内容"
            # Chinese review verdicts in any provider's words (iFlytek Spark 10013 "输入内容审核不通过，涉嫌违规", 10014
            # "输出内容涉及敏感信息", 10019 "涉及违规信息"; "内容不合规")
            r"|审核(?:不通过|未通过|失败|未能通过)|涉(?:嫌|及)违规|内容(?:涉嫌|存在)?(?:违规|不合规)|涉及敏感|敏感信息"
            # a text said to carry a class of harm (Volcano Ark `SensitiveContentDetected.*` "the input text may contain
            # violence information")
            r"|\b(?:input|output|request|prompt|generated)\b[\w ]{0,15}\bmay contain\b[^.]{0,40}"
            r"\b(?:sensitive|violen\w*|violation|sexual|porn\w*|politic\w*|terror\w*|illegal|harmful|unsafe"
            r"|inappropriate|real person)"
            # image and text safety checkers (diffusers, Replicate's cog models)
            # (NSFW *content*: a model's own name may carry the word, e.g. "qwen3-vl-8b-nsfw-caption-v4")
            r"|\bNSFW (?:content|classifier|filter|detector|detected)\b|safety checker"
            # a request refused as sensitive in a regional provider's words (Huawei Cloud AppStage AIAE.31001601
            # "Sensitive request error", under 400)
            r"|\bsensitive (?:request|prompt|input|question) (?:error|detected|refused|rejected)\b"
            # a block named by its reason in any wording (Gemini "Response stopped due to prohibited content", aichat
            # "Blocked by safety settings", "Message is being blocked for reason: SAFETY"; SDK classes)
            r"|\bprohibited content\b|\bblocked\b[^.]{0,30}\b(?:safety|prohibited|moderation|harm\w*)\b"
            r"|\bsafety settings?\b[^.]{0,20}\bblock|\bHARM_CATEGORY_\w+|ContentPolicyViolation"
            # a review's verdict as an error code (Vidu's 400 `AuditSubmitIllegal` "submit is illegal": input did not
            # pass the safety review) and a policy violation named for the prompt (SuperAI `TaskPromptPolicyViolation`)
            r"|(?-i:\bAudit[A-Z]\w*?(?:Illegal|Fail(?:ed|ure)?|Reject(?:ed)?|Blocked)\b)"
            r"|\b\w*(?:Prompt|Input|Output|Image)PolicyViolation\b|\b(?:prompt|input|output|image) policy violation\b",
            E.content_policy,
            0.95,
        ),
        # a generation ended for a policy reason, named by the finish reason a body carries (Gemini `finishReason:
        # SAFETY`, `RECITATION`, `BLOCKLIST`, `SPII`; OpenAI's and Azure's `finish_reason: content_filter`;
        # Anthropic's `stop_reason: refusal`) or by an agent's notice for it (Gemini CLI "Response stopped due to
        # recitation policy", "… due to forbidden terms"): a refusal even inside a 200. Not ACP's camel-case
        # `stopReason: refusal`, which an agent also sends for a tool call the user rejected
        (
            "finish_reason_policy",
            # (the field's name in words too: AG2 "Unsuccessful Finish Reason: RECITATION")
            r"\b(?:finish[_ ]?reason|stop[_ ]reason)\W{0,4}(?:FinishReason\.|FINISH_REASON_)?(?:SAFETY|RECITATION"
            r"|BLOCKLIST"
            r"|PROHIBITED_CONTENT|SPII|IMAGE_SAFETY|IMAGE_PROHIBITED_CONTENT|IMAGE_RECITATION|content[_-]filter"
            r"|refusal)\b|\bContentFilterFinishReasonError\b"
            # Gemini's safety finish reasons named alone as a wrapper's error ("Gemini API error: IMAGE_SAFETY"): the
            # identifiers only a safety verdict carries, upper case as the API sends them
            r"|(?-i:\b(?:IMAGE_SAFETY|IMAGE_PROHIBITED_CONTENT|PROHIBITED_CONTENT)\b)"
            r"|\b(?:response|output|generation|answer|candidate)\b[^.]{0,20}\b(?:stopped|blocked|halted|ended) "
            r"(?:due to|because of|for) (?:the |a )?(?:\w+ ){0,2}(?:safety|recitation|forbidden terms|prohibited"
            r"|blocklist|personally identifiable|copyright)",
            E.content_policy,
            0.95,
        ),
        # an answer or a prompt said to be filtered or blocked, whatever filter did it (Copilot "the response matched
        # public code so it was blocked", "Oops, your response got filtered", in its localisations too): a verdict on
        # the text, which no other route may be asked to give otherwise. Not a request blocked by a firewall, a proxy or
        # a browser's CORS check, which are the path
        (
            "output_blocked",
            r"\b(?:response|reply|answer|output|completion|generation|prompt)s?\b[^.]{0,40}\b(?:got|was|were|has been"
            r"|have been|is|are|being) (?:\w+ )?(?:filtered|blocked|censored)\b"
            r"(?! by (?:CORS|the browser|(?:an? |the |your )?(?:corporate |company )?(?:firewall|proxy|network|WAF"
            r"|Cloudflare|CDN|antivirus|security software|VPN)))"
            r"|\bmatch(?:ed|es|ing)? public code\b|\bpublic code (?:filter|block|match)\w*|c[óo]digo p[úu]blico"
            r"|\b(?:resposta|respuesta|réponse|risposta|Antwort)\b[^.]{0,80}"
            r"\b(?:bloquead[ao]|bloqué\w*|bloccat[ao]|blockiert|filtrad[ao]|filtré\w*|gefiltert)",
            E.content_policy,
            0.95,
        ),
        # the content filter itself failed, which is no verdict on the text (Azure's `content_filter_error` "The
        # contents are not filtered", sent when the filtering service is down or too slow): a service fault,
        # one step above the filter's words
        (
            "content_filter_failed",
            r"\bcontent_filter_error\b|\bcontents? (?:are|is|were|was) not filtered\b",
            E.provider_unavailable,
            0.96,
        ),
        (
            "context_length",
            r"context[_ ]length|maximum context|context (?:window|size|limit|overflow)|prompt is too long"
            r"|input is too long|\b(?:this|your) question is too long\b|exceeds the maximum number of tokens"
            r"|exceeds? (?:the )?(?:available )?context"
            r"|must have less than \d+ tokens"
            # "Prompt tokens too long", "Input token length too long", "Input prompt (N tokens) is too long"
            r"|(?:prompt|input)(?: prompt)?(?: \(\d+ tokens\)| tokens?(?: length)?) (?:is )?too long"
            # Cerebras "Current length is 42328 while limit is 40000", Writer "Total number of tokens exceeded"
            r"|current length is \d+ while limit is \d+|reduce the length of the (?:messages|prompt|input)"
            r"|total number of tokens\b.{0,40}exceed|maximum (?:prompt|input) length is \d+"
            # a local server naming its window parameter (vLLM max_model_len, llama.cpp n_ctx, max_seq_len)
            r"|(?:prompt|input)\w*\W.{0,60}\b(?:max_seq_len|max_model_len|n_ctx)\b"
            # Cohere "too many tokens: size limit exceeded by 11326 tokens"
            r"|size limit exceeded by \d[\d,]* tokens"
            # DashScope's bound on the input ("Range of input length should be [1, 30720]"), Chinese wordings
            r"|range of input length|input length should be\b"
            # vLLM "The decoder prompt (length 17772) is longer than the maximum model length of 16384"
            r"|longer than the maximum model length"
            # the request's length against the model's in other words (SGLang "Input length (N tokens) exceeds the
            # maximum allowed length (M tokens)", Moonshot "exceeded model token limit: 262144", LiteLLM's
            # ContextWindowExceededError)
            r"|\(\d[\d,]* tokens\) exceeds? the maximum\b|exceeds? the maximum allowed (?:input |prompt )?length"
            r"|exceed\w* (?:the )?(?:model(?:.s)? )?(?:max(?:imum)? )?token limit\b|--allow-auto-truncate"
            r"|ContextWindowExceeded|\bContextOverflowError\b"
            # the context against the model's limit in the other order, and a compaction that could not bring it
            # under (OpenCode "Session too large to compact - context exceeds model limit")
            r"|\bcontext\b[^.]{0,20}\bexceeds? (?:the )?(?:model(?:.s)? )?(?:limits?|window|maximum|max)\b"
            r"|\btoo (?:large|long|big) to compact\b"
            # the conversation itself too long (Claude Code's compaction "Conversation too long"), a model's maximum
            # length in Moonshot's words ("model max length exceeded, max length:8192")
            r"|\b(?:conversation|session|chat history|history|thread) (?:is )?too (?:long|large|big)\b"
            r"|\bmodel max(?:imum)? length exceeded\b"
            # the tokenizer's and the serving stacks' word for it (watsonx `invalid_input_argument` "Token sequence
            # length is longer than the specified maximum sequence length for this model (1336 > 512)")
            r"|\bsequence length\b[^.]{0,30}\b(?:longer|greater|larger) than the (?:specified )?"
            r"max(?:imum)? sequence length"
            r"|\bexceeds? (?:the )?(?:model.s )?max(?:imum)? sequence length\b"
            # a prompt's sequence length over a bare number (mistral.rs's 422 "Prompt sequence length is greater than
            # 4096, perhaps consider using `truncate_sequence`?"), a prompt larger than the model's input length limit
            # (MLC LLM's 400 "Request prompt has 5000 tokens in total, larger than the model input length limit 4096")
            r"|\b(?:prompt|input) sequence length (?:is )?(?:greater|larger|longer) than \d"
            r"|\b(?:larger|greater|longer) than the (?:model(?:.s)? )?(?:max(?:imum)? )?(?:input|prompt|context) "
            r"length(?: limit)?\b"
            # an input's size against its limit as numbers, in any words (Ark "Input length 203743 exceeds the maximum
            # length 202752", Copilot "prompt token count of 28000 exceeds the limit of 12288")
            r"|\b(?:input|prompt|context)s?\b[\w ]{0,25}?\W{0,2}\d[\d,]*\W{0,2}(?: tokens?)?\W{0,2} "
            r"(?:exceeds?|exceeded|is (?:greater|larger|longer|more) than) (?:the |its |our )?(?:model.s )?"
            r"(?:max\w*|limit|allowed|context|configured)\b"
            # (not a budget counted over a window: "input tokens per minute … exceeds the limit" is a rate limit)
            r"(?![^.\n]{0,60}\b(?:per (?:minute|min|hour|day|month)|[RT]P[MHD])\b)"
            # Chinese: over the context or input length
            r"|超(?:出|过)(?:了)?(?:模型)?(?:最大)?(?:上下文|输入)(?:长度|窗口)"
            # German (mittwald's 400 "Die maximale Context-Länge des Modells wurde überschritten"; "überschreitet das
            # Kontextfenster")
            r"|\b(?:Kontext|Context)[- ]?(?:länge|fenster|größe|limit)\b[^.\n]{0,40}\büberschritten\b"
            r"|\büberschreitet (?:die |das )?(?:maximale |zulässige )?(?:Kontext|Context)[- ]?(?:länge|fenster|größe)",
            E.context_length_exceeded,
            0.92,
        ),
        # input and output together over the model's window (TGI "`inputs` tokens + `max_new_tokens` must be <= N",
        # Anthropic "input length and max_tokens exceed context limit", Portkey's "The sum of 'inputs' tokens and
        # 'max_new_tokens' must not exceed 4097"): one step above the output limit below
        (
            "input_plus_output",
            r"\b(?:inputs?|prompt)\W{0,2}(?: (?:tokens?|length))? (?:\+|and) "
            r"\W?max_(?:new_)?tokens(?:_to_sample)?\W{0,2} (?:must be <=|must not exceed|exceed)"
            # with the counts given (FastChat "Prompt tokens (9471) + max-sampled tokens (512) exceeds max (9216)")
            r"|\b(?:prompt|input) tokens \(\d+\) \+ [\w -]{0,20}tokens \(\d+\) exceeds?\b"
            # as an inequality (LightLLM's 417 "the input prompt token len 7900 + max_new_tokens 512 > 8192")
            r"|\b(?:prompt|input)\b[\w ]{0,20}\b(?:len|length|tokens?)\W{0,3}\d+ \+ "
            r"\W?max_(?:new_)?tokens\W{0,3}\d+ ?>=? ?\d",
            E.context_length_exceeded,
            0.93,
        ),
        # an answer that ran out of room while being written (Claude Code "Claude's response exceeded the 8000 output
        # token maximum", the OpenAI SDK's LengthFinishReasonError "the length limit was reached"): a length limit
        # met by the work itself, not a parameter the request got wrong; one step above the parameter rule below
        (
            "answer_over_length",
            r"\bresponse exceeded the \d+ output token maximum|\boutput token (?:maximum|limit)\b"
            r"|\blength limit was reached\b|\bLengthFinishReasonError\b|\bMessageOutputLengthError\b"
            # the finish reason that says so (Anthropic `stop_reason: max_tokens` and `model_context_window_exceeded`,
            # Gemini `MAX_TOKENS`), and an agent's notice for it (Gemini CLI "Response truncated due to token limits")
            # (the AI SDK's AI_FinishReasonError "Response ended with finish reason \"max_tokens\"", OpenAI's `length`)
            r"|\b(?:finish[_ ]?reason|stop[_ ]reason)\W{0,4}(?:FinishReason\.)?"
            r"(?:MAX_TOKENS|length|model_context_window_exceeded)\b"
            r"|\b(?:response|output|answer)\b[^.]{0,20}\btruncated due to (?:the )?(?:token|length|output) limits?"
            # a token limit spent before any answer came (Pydantic AI "Model token limit (provider default) exceeded
            # before any response was generated. Increase the `max_tokens` model setting")
            r"|\btoken limit\b[^.]{0,30}\bexceeded (?:before|while) (?:any )?(?:response|answer|output)"
            r"|\bincrease the\W{0,2}max_(?:output_|completion_|new_)?tokens\W{0,2} (?:model )?setting\b",
            E.context_length_exceeded,
            0.93,
        ),
        # a limit on the answer's length the request asked beyond: the same request fails wherever the model runs
        (
            "output_limit",
            r"max_(?:new_|output_|completion_)?tokens\W.{0,80}?(?:too large|exceed|at most|maximum|must be <=)"
            r"|maximum allowed number of output tokens"
            # in words (Bedrock "The maximum tokens you requested exceed the model limit of 4096") and as a range
            # (DeepSeek "the valid range of max_tokens is [1, 8192]", DashScope "Range of max_tokens should be …")
            r"|\bmax(?:imum)? (?:output |completion |new )?tokens (?:you )?requested exceed|range of max_\w*tokens",
            E.invalid_request,
            0.92,
        ),
        (
            "model_gone",
            r"\bmodels?\b.*\b(?:not found|does not exist|not supported|is not available|has been deprecated"
            r"|decommissioned)|(?:unknown|invalid) model|DeploymentNotFound|no such model"
            # a model's lifecycle ended, in any of its words (gh-aw "model 'x' is retired or unsupported", "has been
            # retired", "is no longer available", "reached its end of life", "discontinued", "sunset")
            r"|\bmodels?\b[^.]{0,60}\b(?:is|are|was|were|has been|have been)\s+(?:now\s+)?(?:retired|unsupported"
            r"|discontinued|deprecated|sunset(?:ted)?|removed|no longer (?:available|supported|served|offered))\b"
            r"|\b(?:retired|unsupported|discontinued|deprecated|decommissioned) models?\b"
            r"|\bmodels?\b[^.]{0,60}\b(?:reached|past) (?:its |their )?end[- ]of[- ]life\b"
            # (in Bedrock's words, "This model version has reached the end of its life")
            r"|\bmodels?\b[^.]{0,60}\b(?:reached|past) the end of (?:its|their) (?:life|lifecycle|support)\b"
            # a retired model named without the word, with its successor ("Claude Sonnet 4.5 is no longer available.
            # Please switch to Claude Sonnet 4.6.")
            r"|\bno longer (?:available|supported|served|offered)\W{1,3}(?:please )?(?:switch|migrate|move|upgrade)"
            r" to\b"
            # a model on its way out that a provider no longer deploys (Azure AI Foundry `ServiceModelDeprecating` "The
            # model '…' is in deprecating state and cannot be used for new deployments")
            r"|\bin (?:a )?deprecat\w* state\b|\bcannot be used for new deployments\b"
            # a model that does not exist in a provider's short words (DeepSeek "400 Model Not Exist")
            r"|\bmodels? (?:does not|doesn.t|do not|not) exists?\b"
            # an SDK's or agent's class for it (OpenCode ProviderModelNotFoundError, the AI SDK's NoSuchModelError)
            r"|\b\w*(?:ModelNotFound|NoSuchModel|UnknownModel|ModelNotSupported)(?:Error|Exception)\b"
            # Bedrock "The provided model identifier is invalid"
            r"|model (?:identifier|id)\b[^.]{0,10}\bis (?:invalid|not valid)"
            # AWS's own validation of the id's shape: "Value '…' at 'modelId' failed to satisfy constraint"
            r"|\bmodel_?id\W{0,3} failed to satisfy constraint"
            # a model not offered where the account runs (Snowflake Cortex "unavailable in your region")
            r"|\bmodels?\b[^.]{0,40}\bunavailable in (?:your|this|the) (?:region|country|location)"
            # OpenRouter "x is not a valid model ID", Azure "The API deployment for this resource does not exist"
            r"|\bis not a valid model\b"
            # a deployment (Azure's name for a model served under the caller's own name) that is not there, in each
            # SDK's wording ("The API deployment for this resource does not exist", "… for the resource …")
            r"|\bdeployment\b[^.]{0,40}\b(?:does not exist|not found)"
            # an endpoint with no deployment that takes traffic (Azure ML managed endpoints "No valid deployments to
            # route to. Please check that the endpoint has at least one deployment with positive weight values")
            r"|\bno (?:valid |active |live )?deployments? to route to\b|\bat least one deployment with positive weight"
            # OpenAI "Project `proj_…` does not have access to model `gpt-4.1`", "You don't have access to this model"
            r"|(?:don.t|do not|does not|doesn.t) have access to (?:the |this |that )?model\b"
            # (a relay's key with no grant for the model: new-api "This token has no access to model …")
            r"|\b(?:has|have) no access to (?:the |this |that )?model\b"
            # a model served only on a dedicated endpoint, or its endpoint stopped (Together "Unable to access
            # non-serverless model …", "The dedicated endpoint for … is not running"): someone must start it
            r"|\bnon-serverless model\b|\bdedicated endpoint\b[^.]{0,80}\bis not (?:running|ready|available)"
            # a model version that does not exist or the key may not use (Replicate 422 "Invalid version or not
            # permitted", "The specified version does not exist")
            r"|\binvalid version or not permitted\b|\bspecified version does not exist\b"
            r"|\bmodel version\b[^.]{0,30}\b(?:does not exist|not found)"
            # a relay with no channel serving the model (new-api "No available channel for model …", "无可用渠道"),
            # Chinese "the model does not exist"
            r"|\bno available channels? for model\b|无可用渠道|模型.{0,20}不存在|模型(?:暂时|暂|当前)?不可用"
            # (or no valid one: new-api "No valid upstream channel")
            r"|\bno valid upstream channels?\b"
            # (or none available at all: one-api "no channels available after cache check")
            r"|\bno channels? available (?:after|for)\b"
            # a relay or router with nothing that serves the model (AIClient2API "No available providers for type: …
            # that support model: …"); not LiteLLM's "No deployments available", deployments cooling down after
            # rate limits
            r"|\bno (?:available |eligible |allowed |active )?(?:providers?|channels?|endpoints?|backends?"
            r"|upstreams?)\b[^.]{0,60}\b(?:that |which )?(?:supports?|serves?|serving|for) (?:the )?model\b"
            # a server that serves another model than the one asked for (Houston "The local endpoint serves \"x\", not
            # \"y\""), a model said to be unavailable with no word that it is temporary (Kiro "The selected model is
            # currently unavailable")
            r"|\b(?:endpoint|server|backend|host|provider|instance)\b[^.\n]{0,20}\bserv(?:es|ing)\b[^\n]{0,60}?, not\b"
            r"|\bmodels?(?: (?!server|service|provider|endpoint|backend|host|api|gateway)[\w.:/@'\"-]+)? (?:is|are) "
            r"(?:currently )?unavailable\b",
            E.model_unavailable,
            0.92,
        ),
        # the provider does not serve the caller's country or region (Gemini FAILED_PRECONDITION, OpenAI 403)
        (
            "region_unsupported",
            r"user location is not supported|country, region,? or territory not supported"
            # Cursor "This model provider doesn't serve your region"
            r"|(?:does(?:n.t| not)|do(?:n.t| not)) serve your (?:region|country)"
            # the caller's place named as what does not support the service (LobeHub "your current location does not
            # support this model service … regional restrictions"), in Chinese too ("你的所在地区不支持此模型服务")
            r"|\b(?:location|region|country)\b[^.]{0,30}\b(?:does(?:n.t| not)|do(?:n.t| not)) support\b"
            r"|\bregional restrictions?\b|(?:所在|当前)?(?:地区|区域|国家)(?:暂)?不支持|区域限制"
            # (Junie "Junie is not available in this country"; not "This model is not available in your region", which
            # refuses one model while the provider's others answer)
            r"|(?<!model )(?<!models )\bis not available in (?:this|your) (?:country|region)\b",
            E.provider_not_configured,
            0.95,
        ),
        # a route whose provider the tool in between does not know (LiteLLM "LLM Provider NOT provided",
        # "Bedrock HTTPX: Unknown provider=us"): the route's configuration, not the provider, is wrong
        (
            "unknown_provider",
            r"\bunknown (?:llm )?provider\b|\bllm provider not provided\b|\bprovider not (?:found|supported)\b"
            # a tool that cannot set its provider up (Crush "Failed to configure providers: bedrock provider only
            # supports anthropic models")
            r"|\bprovider only supports\b"
            # a provider the agent could not set up (OpenCode ProviderInitError "Failed to initialize provider", the AI
            # SDK's NoSuchProviderError)
            r"|\bfailed to initiali[sz]e (?:the )?provider\b|\b(?:ProviderInit|NoSuchProvider|ProviderNotFound)Error\b"
            # a setting the provider requires that the route does not give (a Google Cloud project, an Azure endpoint or
            # api version): "requires a Google Cloud project", "set `provider.google.options.projectId` in your config"
            r"|\brequires? (?:a |an )?(?:google cloud |gcp |cloud )?project\b|\bset\W{0,2}[\w.]+\W{0,2} in your "
            r"(?:\w+ )?config\b|\b(?:project(?: id)?|region|location|endpoint|base url|api version) (?:is )?(?:required"
            r"|missing|not (?:set|configured))\b"
            # an SDK that cannot tell which project or region to call (AnthropicVertex "Could not resolve project_id")
            r"|\b(?:could not|couldn.t|unable to) (?:resolve|determine|find) (?:the |your )?"
            r"(?:project(?:[_ ]id)?|region|location)\b"
            # a route with no model set (OpenHuman "no model configured: role 'chat' resolved to an empty model id …
            # set default_model")
            r"|\bno (?:default )?models? (?:is |are )?(?:configured|set|specified|selected)\b"
            # no provider or model set up at all, in a tool's words (Hermes "No LLM provider configured", Dify "Model is
            # not configured", MetaGPT's NotConfiguredException "You should config a LLM configuration first")
            r"|\bno (?:llm |ai |model )?providers? (?:is |are )?(?:configured|set up|selected|found to)\b"
            r"|\b(?:llm |ai )?(?:provider|model) (?:is )?not (?:yet )?configured\b|\bNotConfigured(?:Exception|Error)\b"
            r"|\bempty model (?:id|name)\b"
            # the same in the other order (watsonx "Missing either space_id or project_id or wml_instance_crn")
            r"|\bmissing (?:either )?(?:\w+ or ){0,3}(?:space|project|deployment|workspace)[ _]id\b"
            # the application or project the credential names, unknown to the provider (Qianfan 15 "app not exists or
            # create failed")
            r"|\b(?:app|application|project)(?:[ _]id)? (?:does not exist|not exists?|not found|doesn.t exist)\b",
            E.provider_not_configured,
            0.92,
        ),
        # a tool's headline that it could not set the provider up (Goose "Failed to configure provider: init chat
        # completion request with tool did not succeed"): the cause printed with it decides (a status, a reply it could
        # not decode, a refused key), as for an agent's connection headline; alone, the route's configuration
        ("configure_headline", r"\bfailed to configure (?:the )?providers?\b", E.provider_not_configured, 0.49),
        # a command the tool ran that exited with a code and no reason (Goose "Command failed with exit code: Some(1)"
        # under its configure headline, Cline's "Command failed with exit code 1"): nothing is known of why, so it stays
        # unknown (fail closed), a step above the headline and below any status or words printed with it. Not an agent
        # process the office itself saw exit (its exit code, routing/classifier.py), which is a lost transport
        ("command_exit_no_reason", r"\bcommand failed with exit (?:code|status)\b", E.unknown, 0.495),
        # a base URL whose path the gateway does not route (Kong's "no Route matched with those values"): the
        # route's endpoint is misconfigured, whatever model the failing URL names; a step above the model wording
        ("route_not_found", r"\bno route matched\b", E.provider_not_configured, 0.93),
        # a 404 for the endpoint, not the model: the text names the HTTP path that is not served (OpenAI "Invalid URL
        # (POST /v1/chat/completion)", Express "Cannot POST /v1/…", Go's "404 page not found", Apache's "The requested
        # URL … was not found on this server"). A base URL or path to fix in the route, a step above a bare 404
        # (which reads as the model the request named, see routing/classifier.py STATUS_CODES)
        (
            "endpoint_not_found",
            r"\binvalid url \((?:GET|POST|PUT|DELETE|PATCH) /|\bcannot (?:GET|POST|PUT|DELETE|PATCH) /"
            r"|\b404 page not found\b|\brequested URL\b[^.]{0,80}\bwas not found on this server"
            r"|\b(?:unknown|unrecognized|no such|invalid) (?:api )?(?:endpoint|route|path)\b"
            r"|\b(?:endpoint|route|path|url) (?:was )?(?:not found|does not exist)\b"
            # (Qianfan 3 "Unsupported openapi method": the API called does not exist)
            r"|\bunsupported (?:open ?api |api )method\b",
            E.provider_not_configured,
            0.6,
        ),
        # a request whose shape the provider refuses: the same request fails wherever it goes. Message order and
        # roles, tool schemas, Bedrock's own validation ("Malformed input request")
        (
            "request_shape",
            r"malformed input request|invalid schema for function|\bmust alternate between\b"
            r"|roles must alternate|must be followed by tool messages"
            r"|tool_use\W{0,2} ids were found without \W?tool_result"
            r"|invalid assistant message|must be a response to a preceeding message"
            r"|function (?:call|response) turn comes immediately after"
            # a parameter the model does not take (OpenAI "Unsupported parameter: 'max_tokens' is not supported with
            # this model", Azure "Unrecognized request argument supplied")
            r"|\bunsupported param(?:eter)?\b|unrecognized request arguments? supplied"
            # parameters the model takes only one of (Anthropic and Bedrock "`temperature` and `top_p` cannot both be
            # specified for this model"), "mutually exclusive", "only one of … may be set"
            r"|\bcannot both be (?:specified|set|used|provided|present)\b|\bare mutually exclusive\b"
            r"|\bonly one of\b[^.]{0,60}\b(?:may|can|must|should) be (?:specified|set|provided|used)\b"
            # a parameter allowed only beside another setting (Anthropic "`temperature` may only be set to 1 when
            # thinking is enabled")
            r"|\b(?:may|can) only be (?:set|used|specified)\b[^.]{0,20}\bwhen\b"
            # a history whose length the provider fixes (ERNIE 336003 "the length of messages must be an odd number")
            r"|\b(?:length|number) of messages must be (?:an )?(?:odd|even)\b",
            E.invalid_request,
            0.93,
        ),
        # Chinese: the request's format or parameters are wrong (Hunyuan 4003 "请求格式有误", Zhipu 1210
        # "API 调用参数有误"): a headline that a more specific reason beside it (a context overflow) outranks
        ("request_wrong_zh", r"(?:请求|参数|格式)(?:格式)?(?:有误|错误|不合法|无效)", E.invalid_request, 0.9),
        # a request the provider refused as ill-formed, by the vocabulary of its validation: a field path into the
        # message or tool list ("messages.12.content.0: …", "Invalid 'messages[2].content': …"), tool calls and their
        # results that do not pair up ("unexpected `tool_use_id` found in `tool_result` blocks"), turns out of order
        # ("must be followed by", "must be a response to a preceding message"), reasoning a thinking model needs
        # back ("`reasoning_content` … must be passed back to the API"), a thinking block's signature, a body the
        # gateway could not read ("invalid request body"). The same history fails wherever it is sent; any specific
        # reason beside it (a context overflow, a key, a model) says more, so it ranks below them.
        (
            "malformed_history",
            r"\b(?:messages|tools|functions|contents|input)(?:\.\[?\d+\]?|\[\d+\])[\w.\[\]]*\W{0,2}:\s"
            r"|\b(?:tool_use|tool_result|tool_call|function_call)(?:_id)?s?\b\W{0,2}[^.]{0,60}"
            r"\b(?:must have a corresponding|without (?:a |any )?(?:corresponding )?\W?(?:tool|function)|mismatch"
            r"|do(?:es)? not match|not found in|immediately after)"
            r"|\bunexpected\W{0,2}(?:tool_use_id|tool_call_id|tool_use|tool_result|role|message)\b"
            r"|\bmust be (?:followed by|preceded by|a response to)\b|\bpreceding message with\b"
            r"|\bmust be passed back to the api\b|\binvalid\W{0,2}signature\W{0,2} in\W{0,2}thinking"
            r"|\b(?:first|last) message must (?:be|have|use)\b|\bconversation must (?:start|begin|end) with\b"
            # (or named with where it sits: LlamaEdge "The last message in the chat history should be a user message")
            r"|\blast message in the (?:chat |conversation )?history (?:must|should) be\b"
            r"|\b(?:malformed|invalid)[ _]request[ _](?:body|payload)\b|\bextra inputs are not permitted\b"
            # a field of a message named by its path and found empty (Bedrock "The text field in the ContentBlock object
            # at messages.11.content.0 is blank")
            r"|\b(?:object|field) at (?:messages|contents|tools|system)(?:\.\d+|\[\d+\])[\w.\[\]]* "
            r"is (?:blank|empty)\b",
            E.invalid_request,
            0.88,
        ),
        # capacity, throttling
        (
            "model_capacity",
            r"model is (?:currently )?(?:overloaded|at capacity)|at capacity"
            # (as an identifier too: Groq's flex tier `498 capacity_exceeded`, Vertex AI's 503
            # "MODEL_CAPACITY_EXHAUSTED: The model is temporarily unable to serve your request.")
            r"|capacity(?: is |_| )(?:exceeded|constraints|exhausted)"
            r"|no capacity available|out of capacity"
            # a model said to be busy (DeepInfra "Model busy, retry later", Hugging Face "Model too busy, unable to get
            # response in less than 60 second(s)"): that model's capacity, not the server's
            r"|\bmodel (?:is )?(?:currently |too |very |temporarily )?busy\b",
            E.model_capacity,
            0.9,
        ),
        (
            "overloaded",
            # (not a compiler's overloaded function: MSVC C2668 "ambiguous call to overloaded function", GCC "call of
            # overloaded 'foo(int)' is ambiguous")
            r"(?<!call to )(?<!call of )overloaded(?! (?:function|method|operator)\b| ')|high demand"
            # more traffic than the service can take, in its own words (Antigravity "Our servers are experiencing high
            # traffic right now", Cursor "We're getting more traffic than we can handle right now")
            r"|\b(?:high|heavy|unusually high|increased|unprecedented) (?:traffic|load|volume of requests)\b"
            # (Onyx's rewrite of Bedrock's "Too many connections": "bedrock is experiencing high connection volume")
            r"|\bexperiencing (?:a )?(?:high|heavy|unusually high) (?:connection |request )?volume\b"
            # (Kiro "The model you've selected is experiencing a high volume of traffic")
            r"|\b(?:a )?high volume of (?:traffic|requests)\b"
            r"|\bmore (?:traffic|requests|load|demand) than (?:we|it|they|the servers?) can (?:handle|serve|process)\b"
            # a load said to be saturated (new-api "Current group upstream load is saturated, please try again later")
            r"|\b(?:upstream|server|service|backend|cluster|capacity|load)s?\b[^.\n]{0,20}\b(?:is |are )?saturated\b",
            E.provider_overloaded,
            0.9,
        ),
        # a server whose slots or queue are all taken (llama.cpp and Ollama slots, Ollama's OLLAMA_MAX_QUEUE,
        # DeepSeek's "The server is busy"): free again as soon as a request ends
        (
            "server_busy",
            r"\bserver (?:is )?busy\b|\bllm busy\b"
            # the server or the whole system said to be busy for now (SiliconFlow 50508/50603 "System is too busy now",
            # Open Assistant "The server is currently busy")
            r"|\b(?:server|system|service|platform) (?:is|appears to be|seems to be) "
            r"(?:currently |too |very |extremely |temporarily )?busy\b"
            r"|\bno (?:free |idle )?slots? (?:is |are )?available"
            r"|maximum pending requests|\bqueue (?:is )?full\b|\ball slots (?:are )?(?:busy|occupied|in use)"
            # a slot, a worker or the server itself taken in other words (llamafile "slot unavailable", llama.cpp's
            # `server_overloaded`, KoboldCpp "Server is busy", "too many pending requests")
            r"|\bslots? (?:is |are )?(?:unavailable|busy|occupied|full)\b|\bno (?:free |idle )?slots? (?:left|free)\b"
            r"|\b(?:too many|max(?:imum)? (?:number of )?) ?(?:pending|queued|waiting) requests\b"
            r"|\b(?:engine|worker|backend) (?:is )?(?:currently )?busy\b"
            # a request put in a queue behind others (Trae "Too many current requests. Your queue position is 66")
            r"|\bqueue position is \d+|\bposition in (?:the )?queue\b",
            E.provider_overloaded,
            0.9,
        ),
        # Chinese: "the model's traffic is too high right now" (Zhipu 1305), a server busy or its load too high
        # (DeepSeek's 503 "服务器繁忙 … 服务器负载过高"), a server fully loaded (a relay's 524 "服务器已经满载")
        (
            "overloaded_zh",
            r"访问量过大|(?:服务器|系统|服务|平台)(?:当前|目前|现在)?(?:繁忙|忙碌)|负载过(?:高|大|重)"
            r"|(?:已经?|目前|当前)满载",
            E.provider_overloaded,
            0.9,
        ),
        # a hosted model still being loaded onto a server: its estimated wait is read as the reset
        # a model still being deployed or warmed up ("finetuned model … is not ready for serving", TorchServe's
        # "Model with name mnist is not ready."): it will serve once it is up
        (
            "model_loading",
            r"\bis (?:currently |still )?loading\b|\bmodel\b[^.]{0,60}\bnot ready\b|ModelNotReadyException"
            # llama.cpp's 503 "Loading model" while the weights come up
            r"|^\W*loading model\W*$|\bException - Loading model\b"
            # a serving process still coming up (a RunPod worker "Service not ready yet. Retrying...", "Server not ready
            # after timeout (30s)"): it will answer once up
            r"|\b(?:service|server|worker|backend|engine|container)(?: is| still| yet|_){0,3}[ _]not[ _]"
            r"(?:yet )?ready\b"
            # a service scaled to zero and starting again (Tencent CloudBase `SERVICE_NOT_READY` "… in an unready
            # state. Service nodes may have been scaled down to 0 or the service version is undergoing a cold start")
            r"|\bunready state\b|\bscaled (?:down )?to (?:0|zero)(?![.\d])\b|\b(?:undergoing|in) a cold start\b"
            # in the passive (OpenAI's 429 "That model is still being loaded" for a fine-tuned model's first requests)
            # (and reloaded: mistral.rs's ModelReloading "model `Qwen/Qwen3-8B` is being reloaded")
            r"|\b(?:is|are) (?:currently |still )?being (?:re)?loaded\b|\bstill (?:being )?loading\b",
            E.model_capacity,
            0.9,
        ),
        # a local server that cannot hold the model in its memory (Ollama "model requires more system memory (5.0 GiB)
        # than is available", llama.cpp "unable to fit model into system memory"): no retry here frees the memory,
        # another route may serve the run
        (
            "model_too_large",
            r"requires more (?:system |gpu |video |device )?memory|(?:unable|failed) to fit (?:the )?model"
            # (also as a hint: Ollama "llama runner exited, you may not have enough available memory to run this model")
            r"|(?:insufficient|not (?:have )?enough) (?:available |free )?(?:system |gpu |video |device )?memory"
            r" (?:to|for) (?:load|run"
            # (or to create the instance or hold the window the server was started with: exo "Insufficient memory to
            # create instance. Required: 39.7GB, Available: 24.0GB" under 400, TGI "Backend failed: Not enough memory
            # to handle `max_total_tokens=16000`")
            r"|create (?:the |an? )?instance|handle\W{1,2}max_(?:total|input|batch)_\w+)"
            # LM Studio's load guardrail ("insufficient system resources", "Not enough resources to load the model")
            r"|insufficient system resources|not enough resources to (?:load|run) (?:the )?model"
            # the accelerator's own allocator ("llama runner process has terminated: CUDA error: out of memory")
            r"|\b(?:CUDA|cudaMalloc|hipMalloc|ROCm|Metal|GPU)\b[^.\n]{0,30}\bout of memory"
            # llama.cpp's loader: "error loading model: unable to allocate CUDA0 buffer"
            r"|unable to allocate \w+ buffer"
            # (TabbyAPI "Insufficient VRAM in split for model and cache")
            r"|\binsufficient VRAM\b"
            # the host or device allocator refusing the weights' size (KoboldCpp "failed to allocate 10965.24 MiB of
            # pinned memory")
            r"|\bfailed to allocate [\d.,]+ ?[KMGT]i?B of (?:pinned |host |device |gpu |system |shared )?memory\b"
            # a runtime that could not bring the model up (LM Studio "Failed to load the model", llama.cpp's loader
            # "error loading model", Lemonade `model_load_error`): this route cannot serve it, another may
            r"|\bfailed to load (?:the )?model\b|\berror loading model\b|\bmodel_load_error\b"
            # Ollama "Error: failed to start a llama runner": the process that would serve the model never came up
            r"|\bfailed to start (?:a |the )?(?:[\w-]+ )?runner\b"
            # vLLM's KV cache that does not fit beside the weights ("No available memory for the cache blocks. Try
            # increasing `gpu_memory_utilization`", "… larger than the maximum number of tokens that can be stored in KV
            # cache")
            r"|\bno available memory for the cache blocks\b|\bthat can be stored in KV cache\b"
            # a model over the devices' memory (mistral.rs's auto device map "This model does not fit on the devices
            # [\"cuda[0] (avail: 22416MB)\", …], and exceeds total capacity by 18234MB")
            r"|\b(?:does not|doesn.t|cannot|can.t|will not|won.t) fit (?:on|in|into) (?:the |its |your |this )?"
            r"(?:devices?|gpus?|vram|(?:gpu |device |system )?memory)\b|\bexceeds total capacity by\b"
            # the accelerator's allocator in its own vocabulary (Metal's command buffer "Insufficient Memory
            # (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)", the CUDA driver's `CUDA_ERROR_OUT_OF_MEMORY`,
            # TensorRT-LLM "insufficient GPU memory", Xinference "Model actor is out of memory", a KV cache with no
            # memory to allocate), above a context hint printed after it ("Check your context buffer sizes!")
            r"|\bkIOGPUCommandBufferCallbackErrorOutOfMemory\b|\bcommand buffer\b[^\n]{0,80}\binsufficient memory\b"
            r"|\bCUDA_ERROR_OUT_OF_MEMORY\b|\binsufficient (?:GPU|device|VRAM|video) memory\b"
            r"|\bmodel actor is out of memory\b"
            r"|\bnot enough memory for (?:the )?KV cache\b",
            E.model_unavailable,
            0.93,
        ),
        # a local inference server whose engine is down or not up yet (vLLM's `EngineDeadError`, "Request … failed
        # (engine dead)", "Engine core proc EngineCore_DP0 died unexpectedly", "EngineCore failed to start"; TGI
        # `ShardCannotStart`; a SageMaker production variant that "did not pass the ping health check";
        # LocalAI's model backend unreachable; WebGPU's device lost under WebLLM): the server,
        # not the model or the request; above the model-loading words the same log line carries
        (
            "inference_engine_down",
            r"\b\w*EngineDeadError\b|\(engine dead\)"
            # (vLLM's engine loop, stopped: "Background loop is not running", "Engine loop is not running", "Background
            # loop has errored already", "Task finished unexpectedly"; its RPC client's "Heartbeat failed")
            r"|\b(?:background|engine) loop (?:is not running|has errored)\b"
            r"|\bTask finished unexpectedly\. This should never happen\b"
            r"|\bValueError: Heartbeat failed\b|\bunable to start RPC server\b"
            # (TGI's launcher and router: "Shard disconnected", "Webserver failed", "Webserver cannot start",
            # "Sharded results are empty", "Waiting for shard to be ready"; SGLang "Rank 0 scheduler is dead",
            # "Received sigquit from a child process", "wait for sglang server to become ready")
            r"|\bshard disconnected\b|\bwebserver (?:failed|cannot start)\b|\bsharded results are empty\b"
            r"|\bwaiting for shard to be ready\b|\bscheduler is dead\b|\breceived sigquit from a child process\b"
            r"|\b(?:sglang|vllm|tgi|llm|inference|model) server to become (?:ready|available)\b"
            r"|\bllm server (?:not responding|loading model)\b"
            # (Ray Serve's replicas and actors: "The actor died unexpectedly", a deployment "unavailable because it
            # failed to deploy"; Xinference's actor pool "xoscar.errors.ServerClosed: Remote server … closed")
            r"|\bActorDiedError\b|\bactor died unexpectedly\b|\bunavailable because it failed to deploy\b"
            r"|\bServerClosed\b|\bremote server \S+ closed\b"
            r"|\bengine ?core\w*\b[^.\n]{0,40}\b(?:died|failed to start)\b"
            r"|\bShardCannotStart\b|\bshard \d+ failed to start\b"
            # (a hosted endpoint's container: SageMaker "did not pass the ping health check")
            r"|\bproduction variant\b[^.\n]{0,60}\bdid not pass the (?:ping )?health check\b"
            r"|\bdevice (?:was )?lost (?:during|while|on)\b"
            # (the backend process a model loader calls, unreachable: LocalAI "could not load model: rpc error: code =
            # Unavailable desc = error reading from server: EOF")
            r"|\bload model\b[^\n]{0,60}\brpc error: code = Unavailable\b",
            E.provider_unavailable,
            0.935,
        ),
        # a local server (LM Studio) with no model in memory: this route cannot answer until someone loads one
        (
            "model_not_loaded",
            r"no models? (?:is |are )?(?:currently )?loaded"
            r"|model (?:with key )?\S+ (?:is )?not loaded|model is unloaded"
            # LM Studio "No loaded model satisfies all requirements", "This model has already been unloaded"
            r"|\bno loaded model satisfies\b|\bmodel has (?:already )?been unloaded\b",
            E.model_unavailable,
            0.93,
        ),
        (
            "limit_reached",
            r"(?:reached|hit|exceeded) (?:your|the) (?:[\w.-]+ ){0,3}limit\b|\blimit (?:has been )?(?:reached|hit)\b",
            E.rate_limited,
            0.8,
        ),
        (
            "rate_limit",
            r"rate[ _-]?limit|too many requests|requests per min|tokens per min|\bRPM\b|\bTPM\b"
            # Bedrock Agents "Your request rate is too high. Reduce the frequency of requests."
            r"|request rate is too high|reduce the frequency of (?:your )?requests"
            # an API gateway's rate policy by its name (Apigee "Spike arrest violation", `SpikeArrestViolation`)
            r"|\bspike ?arrest\b"
            # LiteLLM's router with every deployment of the model cooling down after failures, which its proxy answers
            # with a 429 ("No deployments available for selected model, Try again in 60 seconds")
            r"|\bno (?:healthy )?deployments? available\b"
            # Alibaba "Request rate increased too quickly", Databricks REQUEST_LIMIT_EXCEEDED ("token bucket limit"),
            # throttled requests
            r"|request rate increased too quickly|request[ _-]?limit[ _-]?exceeded|\btoken bucket\b|\bthrottled\b"
            r"|requests? (?:are |is )?too frequent|too many (?:current|concurrent|simultaneous|parallel) requests"
            # Chinese: too frequent, concurrency over or at its cap (ERNIE; "并发数已达上限"), rate limit (Zhipu 1302)
            r"|过于频繁|并发(?:数)?(?:超限|超过|超出)|速率限制|(?:并发(?:数|量)?|请求频率)已?(?:达到?|到达)了?上限"
            # (the cap named after the verb: Dify "已达频率上限")
            r"|已(?:达到?|到达)了?(?:请求)?(?:频率|速率|并发(?:数|量)?)上限",
            E.rate_limited,
            0.85,
        ),
        # a 429 named in the words under another status: a gateway whose own dependency limited it (Cody "failed with
        # 400 Bad Request: … reason fetching subscription from SSC: unexpected status code 429") is rate limited, not
        # refused as malformed; above the generic 4xx statuses, a step below a 429 read as the status itself
        ("status_429_named", r"\bstatus(?: code)?\W{0,3}429\b|\b429 Too Many Requests\b", E.rate_limited, 0.69),
        # transport: Node (undici, node-fetch), Rust (reqwest/hyper), Python
        (
            "network",
            r"connection (?:refused|reset|aborted)|name or service not known|network is unreachable"
            r"|temporary failure in name resolution|connecterror|actively refused"
            r"|error sending request|connection failed|fetch failed|connection error|socket hang up|other side closed"
            # (Safari's fetch failure: "TypeError: Load failed")
            r"|\bTypeError: Load failed\b(?!:? ?\d)"
            # (the same as the whole message, as an app shows the fetch's error text: Cove "Load failed")
            r"|^\W*Load failed\W*$"
            # (the browser's and Electron's fetch TypeError, as an editor rewrites it: Void "Failed to fetch from
            # Ollama. … your local model provider like Ollama is powered off.")
            r"|\bfailed to fetch\b(?! (?:the )?(?:models?|subscription|usage|quota|billing|credits?|account)\b)"
            # (a browser request that never got an answer, as an XHR client words it: superagent "Request has been
            # terminated. Possible causes: the network is offline, …"; an SDK's class for no response at all: the
            # Mistral SDK's `NoResponseError`)
            r"|\bthe network is offline\b|\brequest has been terminated\b|\bNoResponseError\b"
            r"|\b(?:ECONNRESET|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EPIPE|EHOSTUNREACH|ENETUNREACH|ECONNABORTED)\b"
            r"|getaddrinfo|UND_ERR_SOCKET|network socket disconnected|SSL routines|ssl/tls alert"
            r"|socket connection was closed|unexpected EOF during handshake|hyper::Error\(Connect"
            r"|dial tcp|i/o timeout|no route to host|failed to connect to"
            # a socket's error number as Rust, Python and C print it (EPIPE, ENETDOWN … EHOSTUNREACH on Linux and
            # macOS, getaddrinfo's negatives, Windows' WSA codes), not any number: "No such file or directory (os
            # error 2)", "[Errno 28] No space left on device" are the worker's own
            r"|(?:\bos error|\[Errno|\berrno =) ?(?:-[2-5]|8|32|5[0-4]|6[0-5]|99|10[0-4]|11[0-3]|1005[34]|1006[015]"
            r"|1100[1-4])\b"
            # exception class names: openai/anthropic SDKs, httpx, aiohttp, requests/urllib3, Node, Dart, hyper
            r"|ClientConnectorError|ServerDisconnectedError|ClientOSError|RemoteDisconnected"
            r"|NewConnectionError|RemoteProtocolError|ConnectTimeoutError|SocketException|SocketError"
            r"|hyper(?:_util)?::[\w:]*Error\(|max retries exceeded|cannot connect to host"
            # reqwest's Debug form of a connect failure (`reqwest::Error { kind: Connect, … }`, `kind: Request` with a
            # hyper source): the transport, whatever its source says
            r"|\breqwest::Error \{ kind: (?:Connect|Request)\b|\bkind: Connect\b"
            # agent CLIs' own wording and Bun's ("Unable to connect. Is the computer able to access the url?",
            # "Unable to connect to API (ConnectionRefused)")
            r"|unable to connect\b|\b(?:ConnectionRefused|ConnectionClosed|FailedToOpenSocket)\b"
            # Haskell http-client's HttpExceptionContent for a connection (`HttpExceptionRequest Request {…}
            # (ConnectionFailure …)`, NoResponseDataReceived, ProxyConnectException): the transport, above the
            # `responseTimeout` field the request's dump prints beside it
            r"|\b(?:ConnectionFailure|NoResponseDataReceived|ProxyConnectException|TlsNotSupported)\b"
            # Cloudflare Workers' fetch ("Network connection lost."), relayed by gateways built on it
            r"|network connection (?:was )?lost"
            # Windows sockets: Go's wsarecv/wsasend, Python's WinError, WSAECONNRESET (10054) and its kin
            r"|forcibly closed by the remote host|\bwsa(?:recv|send|connect)\b|\bWSAE[A-Z]+\b|WinError 100\d\d"
            # .NET HttpClient and sockets
            r"|connected party did not properly respond|unable to (?:read data from|write data to) the transport"
            r"|an error occurred while sending the request"
            # Java: java.net and javax.net.ssl exception classes, the JDK's certificate path failure
            r"|\b(?:ConnectException|NoRouteToHostException|UnknownHostException|SSLHandshakeException"
            r"|SSLException|HttpConnectTimeoutException)\b|PKIX path building failed"
            # Chromium's net error codes, as Electron clients (VS Code, Cursor) report them
            r"|\bnet::ERR_(?:CONNECTION_\w+|NAME_NOT_RESOLVED|INTERNET_DISCONNECTED|NETWORK_\w+|TIMED_OUT|EMPTY_RESPONSE"
            r"|PROXY_\w+|TUNNEL_CONNECTION_FAILED|ADDRESS_UNREACHABLE|SSL_\w+|CERT_\w+|SOCKET_\w+)\b"
            # a client's own words for a connection it could not make (Goose "Could not connect to the provider —
            # check your network connection")
            r"|check your (?:network|internet) connection"
            # Apple's URL loading system (NSURLErrorDomain: "The Internet connection appears to be offline.",
            # "A server with the specified hostname could not be found."), Dart's TLS, botocore's connect failure
            r"|internet connection appears to be offline|specified hostname could not be found|NSURLErrorDomain"
            r"|\bHandshakeException\b|EndpointConnectionError"
            r"|(?:could not|couldn.t|cannot|can.t|failed to) (?:connect to|establish (?:a |the )?connection)",
            E.network_unavailable,
            0.8,
        ),
        # the SDKs' catch-all connection class (openai's and LiteLLM's APIConnectionError, which LiteLLM also raises for
        # errors it could not map): a connection failure when nothing else is said, below any words of what happened
        # ("APIConnectionError: OpenAIException - Service Unavailable" is the provider's 503)
        ("connection_class", r"\bAPIConnectionError\b", E.network_unavailable, 0.74),
        # an agent's own UI headline for a connection it could not make or keep (Cursor "We're having trouble
        # connecting to the model provider", "Unable to reach the model provider", "Network disconnected"):
        # a headline, so any status or cause printed under it decides (Cursor prints a provider's 400 under
        # "Unable to reach the model provider"); alone, it is the network
        (
            "connection_headline",
            r"\btrouble (?:connecting|reaching)\b|\bnetwork disconnected\b|\blost (?:the |its |your )?connection\b"
            # (a client's headline for a connect that failed, or its advice to check the network: Alex Sidebar "Error
            # connecting to LLM API.", Trae "Request service failed, please check your network configuration")
            r"|\berror connecting to (?:the )?(?:LLM|AI|model|language model|API|provider|endpoint)\b"
            r"|\bcheck (?:your )?(?:network|internet)"
            r"(?: connection| configuration| settings)?\b"
            r"|\b(?:could(?:n.t| not)|can(?:no|.)t|unable to|failed to) reach (?:the )?(?:[\w-]+ ){0,3}"
            r"(?:server|provider|api|endpoint|host|service|backend)\b",
            E.network_unavailable,
            0.48,
        ),
        # "Network error" as a client's or relay's headline (Goose, a relay's `network_error`): the generic word,
        # below what a stream cut or a named cause says
        ("network_word", r"\bnetwork[ _]error\b", E.network_unavailable, 0.7),
        # HTTP/2: a peer that reset the stream (RST_STREAM) or the connection (GOAWAY), as Go's x/net/http2, Rust's
        # h2, nghttp2 and Node word it
        (
            "http2_reset",
            r"(?:stream|connection) error (?:received|sent):|stream error: stream ID \d+"
            r"|\bRST_STREAM\b|\bGOAWAY\b|; received from peer|\bNGHTTP2_[A-Z_]+|\bERR_HTTP2_[A-Z_]+"
            r"|connection error: PROTOCOL_ERROR"
            # Go's net/http2 ("http2: client connection lost"), the AWS SDK's node-http2 handler
            r"|\bhttp2: (?:client connection|server sent|timeout)|http2 request did not get a response"
            # OkHttp ("StreamResetException: stream was reset: INTERNAL_ERROR")
            r"|\bstream was reset\b|\bStreamResetException\b"
            # libcurl's CURLE_HTTP2_STREAM (92) "HTTP/2 stream 0 was not closed cleanly: PROTOCOL_ERROR (err 1)"
            r"|\bHTTP/2 stream \d+ was not closed cleanly\b",
            E.network_unavailable,
            0.8,
        ),
        # curl's own exit codes for a transport failure: 6 resolve, 7 connect, 35 TLS, 52 empty reply, 55/56
        # send/receive, 18 partial transfer, 92 HTTP/2 stream
        # and libcurl's own messages for them (curl_easy_strerror), as clients built on it relay them
        (
            "curl",
            r"\bcurl: \((?:6|7|18|35|52|55|56|92)\)|server returned nothing \(no headers|empty reply from server"
            # (the same numbers as Python's bindings relay them: curl_cffi "Failed to perform, ErrCode: 92, Reason: …",
            # pycurl "pycurl.error: (7, 'Failed to connect …')")
            r"|\bErrCode: (?:6|7|18|35|52|55|56|92)\b|\bpycurl\.error: \((?:6|7|18|35|52|55|56|92),"
            r"|failure when receiving data from the peer|failed sending data to the peer|SSL connect error"
            r"|couldn.t (?:resolve host|connect to server)"
            # libcurl's CURLE_RECV_ERROR / CURLE_SEND_ERROR as the curl tool prints them, with the OS's reason in
            # any locale ("curl: Recv failure: Connection reset by peer", "Recv failure:连接被对方重设")
            r"|\bcurl: (?:\(\d+\) )?(?:Recv|Send) failure\b"
            # (the exit code as a script that shells out to curl reports it: "curl command failed with exit code 7")
            r"|\bcurl\b[^\n]{0,40}\bexit (?:code|status):? (?:6|7|18|35|52|55|56|92)\b",
            E.network_unavailable,
            0.8,
        ),
        # an agent's stream retry loop waiting for the network to come back (Codex "Reconnecting... 2/5")
        ("reconnecting", r"\bre-?connecting\.{3}|waiting for network", E.network_unavailable, 0.8),
        (
            "dns",
            r"failed host lookup|no such host|nodename nor servname|could not resolve host|dns error"
            r"|lookup \S+ on \S+"
            # Go's resolver over musl or glibc: "lookup api.example.com: Try again", "…: server misbehaving"
            r"|lookup \S+: (?:try again|temporary failure|server misbehaving)"
            # Rust's std resolver ("failed to lookup address information: Try again"), .NET "No such host is known"
            r"|failed to lookup address information|no such host is known"
            # libcurl's resolver in its threaded and c-ares builds, as PHP, C++ and R clients relay it ("Could not
            # resolve: api.openai.com (Could not contact DNS servers)", "Could not resolve host: …", "Could not resolve
            # proxy: …", "Resolving timed out after 10000 milliseconds"): a host name with its dot, not a reference or
            # a model a tool "could not resolve"
            r"|\bcould(?:n.t| not) resolve(?: host(?:name)?| proxy)?\W{1,3}[\w-]+(?:\.[\w-]+)+|\bcould not contact DNS"
            r" servers?\b|\bresolving timed out after\b"
            # musl's and glibc's getaddrinfo strings ("Name does not resolve", "No address associated with hostname"),
            # a DNS answer named by its code (NXDOMAIN, SERVFAIL), the resolver's own words in any runtime ("DNS
            # resolution failed", "DNS lookup failed", "failed to resolve host")
            r"|\bname does not resolve\b|\bno address associated with (?:the )?host ?name\b|\b(?:NXDOMAIN|SERVFAIL)\b"
            r"|\bDNS (?:resolution|lookup|query|resolver) (?:failed|error|timed out)\b"
            r"|\bfailed to resolve (?:the )?(?:host(?:name)?|address|DNS)\b",
            E.network_unavailable,
            0.8,
        ),
        (
            "tls",
            r"\bSSL(?:EOF)?Error\b|CERTIFICATE_VERIFY_FAILED|certificate verify failed|tls handshake"
            r"|EOF occurred in violation of protocol|before secure TLS connection"
            # certificate verification in each runtime's words: Node/Bun error codes and messages, Go crypto/x509,
            # rustls/webpki
            r"|\b(?:UNABLE_TO_(?:GET_ISSUER_CERT|VERIFY_LEAF_SIGNATURE)\w*|SELF_SIGNED_CERT_IN_CHAIN"
            r"|DEPTH_ZERO_SELF_SIGNED_CERT|CERT_HAS_EXPIRED|CERT_UNTRUSTED|ERR_TLS_CERT_ALTNAME_INVALID)\b"
            r"|unable to (?:get|verify) (?:the )?(?:local )?(?:issuer|first) cert|self[- ]signed certificate"
            r"|certificate verification (?:error|failed)|SSL certificate (?:error|problem)|\bx509: "
            r"|failed to verify certificate"
            r"|certificate (?:has expired|signed by unknown authority|is not trusted|is valid for)"
            r"|does not match certificate|invalid peer certificate|\bUnknownIssuer\b"
            # a TLS alert in the JDK's words ("Received fatal alert: handshake_failure")
            r"|received fatal alert"
            # Python's ssl module names OpenSSL's reason ("[SSL: WRONG_VERSION_NUMBER] wrong version number")
            r"|\[SSL: [A-Z0-9_]+\]"
            # Go's crypto/tls: an alert the peer sent ("remote error: tls: handshake failure", "… tls: bad certificate")
            # or one the client raised ("local error: tls: bad record MAC"), and its other failures ("tls: failed to
            # verify certificate", "tls: first record does not look like a TLS handshake")
            r"|\b(?:remote|local) error: tls: |\btls: (?:failed to|first record|handshake|bad (?:certificate|record)"
            r"|unknown (?:certificate|authority)|protocol version|internal error|no (?:application|cipher))"
            # libcurl's TLS messages (curl_easy_strerror): CURLE_PEER_FAILED_VERIFICATION "SSL peer certificate or SSH
            # remote key was not OK", its TLS backends' words (OpenSSL "SSL_ERROR_SYSCALL", "sslv3 alert handshake
            # failure"; GnuTLS "server certificate verification failed"; Schannel "schannel: …")
            r"|\bSSL peer certificate\b|\bpeer.s certificate\b[^.\n]{0,40}\bnot (?:ok|trusted)"
            r"|\bSSL_ERROR_(?:SYSCALL|SSL|ZERO_RETURN)\b|\b(?:sslv3|tlsv1) alert\b"
            r"|\bserver certificate verification failed\b|\bschannel: "
            r"|\bno alternative certificate subject name\b|\bOpenSSL SSL_(?:connect|read|write)\b"
            # Python's subclasses (SSLCertVerificationError, SSLZeroReturnError), the JDK's SSLPeerUnverifiedException,
            # Node's "write EPROTO … alert" and ERR_SSL_* codes, rustls' alerts and certificate errors
            r"|\bSSL(?:CertVerification|ZeroReturn|Want\w+)Error\b|\bSSLPeerUnverifiedException\b|\bEPROTO\b"
            r"|\bERR_SSL_[A-Z_]+\b|\bAlertReceived\(|\bInvalidCertificate\(|\bpeer is incompatible\b"
            r"|\bhandshake (?:failure|alert)\b|\bTLS (?:handshake|connection|negotiation) (?:failed|error|timeout)",
            E.network_unavailable,
            0.8,
        ),
        # .NET words a failed TLS handshake as authentication ("The SSL connection could not be established … --->
        # System.Security.Authentication.AuthenticationException: Authentication failed"): a step above the
        # credential wording, which those words would otherwise match
        (
            "tls_authentication",
            r"SSL connection could not be established|System\.Security\.Authentication\.AuthenticationException"
            r"|authentication failed because the remote party (?:has )?closed the transport stream"
            r"|remote certificate is invalid"
            # the alert the peer sent, in .NET's words ("Authentication failed because the remote party sent a TLS
            # alert: 'HandshakeFailure'")
            r"|remote party sent a TLS alert",
            E.network_unavailable,
            0.93,
        ),
        # a proxy between the office and the provider that refused or failed the tunnel (CPython's "Tunnel connection
        # failed: 407 Proxy Authentication Required", requests' ProxyError, Go's "proxyconnect tcp"): the path, not
        # the provider or its credential, a step above the credential wording "authentication" would match
        (
            "proxy",
            r"tunnel connection failed|proxy authentication required|\bProxyError\b|proxyconnect tcp"
            r"|(?:unable|cannot|can.t|could not) (?:to )?connect to (?:the )?proxy"
            # the proxy's 407 named by its number beside its reason or a status (.NET "does not indicate success: 407
            # (authenticationrequired)", axios "Request failed with status code 407"), or by .NET's enum name
            r"|\b407\W{0,3}\(?(?:proxy ?)?authentication ?required\b|\bProxyAuthenticationRequired\b"
            r"|\bstatus code\W{0,3}407\b"
            # (OkHttp's ConnectPlan when the proxy keeps answering 407: "Failed to authenticate with proxy")
            r"|\bfailed to authenticate (?:with|to) (?:the )?proxy\b"
            # the JDK's HttpURLConnection when the proxy refused the CONNECT tunnel ("java.io.IOException: Unexpected
            # response code for CONNECT: 400"): read by the vocabulary stage alone before
            r"|\bunexpected response code for CONNECT\b"
            # undici's ProxyAgent when the proxy answers the CONNECT with anything but 200 ("Proxy response (502) !==
            # 200 when HTTP Tunneling")
            r"|\bproxy response \(\d{3}\) !== 200\b|\bwhen HTTP tunnel+ing\b"
            # (Node's tunnel-agent under request: "tunneling socket could not be established, statusCode=502")
            r"|\btunnel+ing socket could not be established\b",
            E.network_unavailable,
            0.93,
        ),
        (
            "peer_closed",
            r"server disconnected|remote end closed connection|peer closed connection"
            r"|connection (?:was )?closed (?:before|unexpectedly)|IncompleteMessage|ChannelClosed|peer disconnected"
            # the JVM's end of a stream read where a reply was due (OkHttp "java.io.EOFException: \\n not found"
            # reusing a keep-alive connection the server had closed)
            r"|\bEOFException\b",
            E.network_unavailable,
            0.8,
        ),
        # a peer that closed before sending any reply (httpx "Server disconnected without sending a response",
        # raised as RemoteProtocolError): nothing began, so nothing was cut short; a step above the class name,
        # which httpx raises for a body cut mid-way too
        (
            "no_response",
            r"\b(?:disconnected|closed|ended|hung up|dropped)\b[^.]{0,40}\bwithout (?:sending |returning |giving )?"
            # (not an event named after the response: "SSE stream ended without response.completed" is a stream cut)
            r"(?:a |any )?(?:response|reply)\b(?!\.(?-i:[a-z_]))",
            E.network_unavailable,
            0.91,
        ),
        # an answer that was empty or a page, where JSON was expected, in each runtime's parser words (Python "Expecting
        # value: line 1 column 1 (char 0)", V8 "Unexpected token '<', "<!DOCTYPE "... is not valid JSON", Firefox
        # "JSON.parse: unexpected end of data at line 1 column 1", Go "invalid character '<' looking for beginning of
        # value", Jackson "No content to map due to end-of-input"): a proxy's or a starting server's answer, not the
        # model's; one step above a cut stream's words
        (
            "answer_not_json",
            # (not a server that could not parse the request's body: mlx-lm "Invalid JSON in request body: Expecting
            # value: …", an invalid request)
            # (nor a local file the agent reads: "… while reading .mcp.json")
            # (nor a model's tool call whose arguments did not parse: the request's)
            r"^(?!.*\b(?:request body|while reading|tool call|arguments)\b|.*\.json\b).*?(?:"
            r"\bExpecting value: line 1 column 1 \(char 0\)|\bUnexpected token '?<'?,? \W{0,2}<!DOCTYPE"
            r"|\bUnexpected token < in JSON at position 0\b|\bunexpected end of data at line 1 column 1\b"
            r"|\binvalid character '[<a-z]' looking for beginning of value\b|\bNo content to map due to end-of-input\b"
            r"|\b(?:Ollama)?ServiceUnavailable(?:Error)?\b|\bJSON parsing failed: Text: <)",
            E.provider_unavailable,
            0.76,
        ),
        (
            "stream_cut",
            r"stream (?:ended|closed|terminated|truncated|disconnected)|incomplete (?:chunked )?read|broken pipe"
            # (with its source named between: Zed "stream from Anthropic ended unexpectedly")
            r"|\bstream\b[^.]{0,30}\b(?:ended|closed|terminated|stopped|cut off|interrupted) "
            r"(?:unexpectedly|abruptly|prematurely|early)\b"
            # a reply that stopped coming or ended before it was whole (Claude Code "The response stopped arriving. The
            # response above may be incomplete.", "Streaming response ended before any complete data was received")
            r"|\b(?:response|reply|stream|data) (?:stopped|ceased) (?:arriving|coming|streaming)\b"
            r"|\bresponse above may be incomplete\b|\b(?:stream(?:ing)?|response|reply)\b[^.]{0,20}\bended before\b"
            r"|premature(?:ly)? (?:end|close)|without a final"
            # Claude Code: "Connection closed mid-response. The response above may be incomplete."
            r"|closed mid-(?:response|stream)"
            # a body that ended early in each runtime's words: undici "TypeError: terminated", aiohttp
            # ClientPayloadError, OkHttp "unexpected end of stream", .NET "The response ended prematurely", Go/Ktor
            # "unexpected EOF"
            r"|\b(?:TypeError|Error): terminated\b|response payload is not completed|ClientPayloadError"
            r"|unexpected end of stream|\bended prematurely|\bunexpected EOF\b"
            # a reply body the client could not read to its end (reqwest's Decode and Body kinds "error decoding
            # response body", "error reading a body from connection"; "Unexpected end of JSON input"; serde "EOF while
            # parsing")
            r"|\berror decoding response body\b|\berror reading a body from connection\b"
            r"|\bunexpected end of JSON input\b|\bEOF while parsing an? (?:value|object|string|list)\b"
            # (a JSON chunk cut short: V8 "Unterminated string in JSON", Jackson "Unexpected end-of-input: expected
            # close marker", the AI SDK's "JSON parsing failed"; a body cut in the browser's and Node's words:
            # "ERR_INCOMPLETE_CHUNKED_ENCODING", "ERR_STREAM_PREMATURE_CLOSE"; openai-python's "An error occurred during
            # streaming"; LocalAI "Failed to process stream")
            r"|\bunterminated string in JSON\b|\bunexpected end-of-input\b|\bJSON parsing failed\b"
            r"|\bERR_INCOMPLETE_CHUNKED_ENCODING\b|\bERR_STREAM_PREMATURE_CLOSE\b"
            r"|\ban error occurred during streaming\b|\bfailed to process (?:the )?stream\b"
            # (Zed's ACP connection to the agent's server, gone mid-turn: "server shut down unexpectedly")
            r"|(?<!MCP )\bserver shut down unexpectedly\b",
            E.stream_truncated,
            0.75,
        ),
        # a client that retried on its own and gave up ("Failed to get response from the AI model; retried 5 times",
        # "All 3 attempts failed", "failed after 4 retries"): what it carries as the last error decides (any
        # status or words beat this); with no cause given, only the retrying is known, and a client retries what it
        # took for transient
        (
            "retries_exhausted",
            r"\bretried \d+ times\b|\b(?:failed|gave up|giving up) after \d+ (?:attempts|retries|tries)\b"
            r"|\ball \d+ (?:attempts|retries|tries) failed\b|\b(?:retries|retry attempts) (?:exhausted|exceeded)\b"
            r"|\bretry_exhausted\b",
            E.provider_unavailable,
            0.45,
        ),
        # (the verb in any tense: Bito "looks your request is timing out")
        # (and in the words of one who waited: "The AI service took too long to respond", micasa "Ollama is taking
        # too long to respond")
        (
            "timeout",
            r"timed? ?out|deadline exceeded|timeout|\btiming out\b|\btimes out\b"
            r"|\b(?:took|taking|takes) too long to (?:respond|reply|answer)\b",
            E.timeout,
            0.75,
        ),
        # a timeout that names its own limit elapsing (libcurl 28 "Operation timed out after 90000 milliseconds",
        # Azure.Core "exceeded the configured timeout of 0:01:40", .NET's HttpClient.Timeout, axios "timeout of
        # 60000ms exceeded"): the cause, above the socket words the cancellation leaves behind it
        (
            "timeout_elapsed",
            r"\bcurl(?: error:?|: \()\s?28\b|\bcurl\b[^\n]{0,40}\bexit (?:code|status):? 28\b"
            r"|\boperation timed out after \d|exceeded the configured timeout"
            r"|\bHttpClient\.Timeout\b|\btimeout of \d+\s?(?:ms|s|seconds?)\b(?: has been)? (?:exceeded|elapsing)"
            # the SDKs' own timeout classes (LiteLLM's litellm.Timeout inside its APIConnectionError, openai's
            # APITimeoutError)
            r"|\blitellm\.Timeout\b|\bAPITimeoutError\b"
            # tokio's Elapsed ("deadline has elapsed"), as Rust gateways relay it ("upstream call failed: Connect:
            # deadline has elapsed")
            r"|\bdeadline has elapsed\b"
            # (a request's whole-duration option elapsing: Symfony HttpClient "Max duration was reached for …"; Swift's
            # AsyncHTTPClient enum cases `HTTPClientError.deadlineExceeded`, `.readTimeout`, `.connectTimeout`)
            r"|\bmax(?:imum)? duration (?:was |has been )?(?:reached|exceeded)\b"
            r"|\bHTTPClientError\.(?:deadlineExceeded|readTimeout|connectTimeout|writeTimeout"
            r"|getConnectionFromPoolTimeout)\b",
            E.timeout,
            0.85,
        ),
        (
            "unavailable",
            r"service unavailable|temporarily unavailable|bad gateway|internal server error|server error"
            # (Dify's "[xinference] Server Unavailable Error")
            r"|\bserver (?:is )?(?:currently )?unavailable\b"
            # the upstream failed ("no healthy upstream", Envoy's "upstream connect error", a relay's "Upstream request
            # failed"); not "upstream" alone, which only says where a status came from ("Upstream provider X returned
            # HTTP 404": the status decides)
            r"|\bno healthy upstream"
            # (or no healthy worker, back end or node behind a local router: OllamaMax "No healthy workers available")
            r"|\bno healthy (?:workers?|backends?|servers?|nodes?|instances?|replicas?) available\b"
            # (a server said down or offline as the message's headline: "Server down and offline", never a question,
            # a mode or the agent's own language or MCP server)
            r"|^\W*server (?:is )?(?:down|offline)\b(?! (?:mode|for maintenance window)\b)"
            r"|\bupstream[ _](?:connect |request |call )?(?:error|failed|failure|timeout|timed out)"
            r"|\bupstream (?:is |server is |service is )?(?:unavailable|down)\b"
            # OpenAI "The server had an error while processing your request. Sorry about that! You can retry …"
            r"|server had an error|you can retry your request",
            E.provider_unavailable,
            0.75,
        ),
        # a Go server's access log line with a 5xx status (Ollama's gin "[GIN] 2025/03/06 - 11:42:21 | 503 | … | POST
        # "/api/generate""): the status the server answered, as a status field is read; the last line's, the latest
        ("gin_log_5xx", r"\[GIN\][^|\n]*\|\s*5\d\d\s*\|(?![\s\S]*\[GIN\])", E.provider_unavailable, 0.74),
        # a CDN's or front door's error page rendered as text: Google Front End, CloudFront, Azure Front Door
        (
            "gateway_page",
            r"services aren.t available right now|request could not be satisfied"
            r"|(?:wasn.t able|was not able|couldn.t|could not|unable) to connect to the origin"
            r"|establish a connection with the origin|server encountered a temporary error|That.s an error\.",
            E.provider_unavailable,
            0.8,
        ),
        # a web application firewall in front of the provider that blocked this client (Cloudflare's "Sorry, you have
        # been blocked … This website is using a security service to protect itself from online attacks"), a 403:
        # the path to the provider, not a verdict on the credential, a step above the status and the SDKs'
        # PermissionDenied class that carries it
        (
            "waf_block",
            r"\byou have been blocked\b|\busing a security service to protect itself\b"
            r"|\bAttention Required!? \| Cloudflare\b|\bRequest blocked by (?:the )?(?:WAF|web application firewall)\b"
            # its bot challenge, which a client that runs no JavaScript never passes ("<title>Just a moment...</title>")
            r"|<title>Just a moment\.\.\.</title>|\bEnable JavaScript and cookies to continue\b",
            E.network_unavailable,
            0.9,
        ),
        # eleventh round, by class
        # a generation a policy stopped, in a stream's words ("Model stream ended due to safety settings (SAFETY)",
        # "… due to recitation settings"): the refusal, not the cut stream it shows as
        (
            "policy_ended_stream",
            r"\b(?:ended|stopped|terminated|blocked) (?:due to|because of|by) (?:the )?(?:safety|recitation"
            r"|prohibited[ _]content|blocklist)\b",
            E.content_policy,
            0.95,
        ),
        # moderation in Chinese: unsafe or violating content, intercepted by the system
        ("unsafe_content_zh", r"不安全内容|违规内容|已被系统拦截", E.content_policy, 0.95),
        # an allowance used up or a count limit reached, in Chinese relays' and providers' words (one-api's token
        # quota "额度已用尽", Zhipu 1304 "已达今日调用次数限额")
        (
            "quota_used_up_zh",
            r"额度已用(?:尽|完)|调用次数(?:限额|已用尽|超限)|次数已用(?:尽|完)"
            # a quota used beyond (Tencent CloudBase "大模型 Token 用量已超出配额,请购买资源包以提升配额")
            r"|(?:用量|使用量|额度)已?(?:超出|超过|用尽|用完)了?配额|配额(?:已)?(?:用尽|用完|耗尽)"
            # (usage or points used up, whatever counts them: Easydict "Claude Code 用量已用尽", FastGPT's
            # `aiPointsNotEnough` "AI积分已用完~")
            r"|(?:用量|使用量|积分|点数|余量)已(?:用尽|用完|耗尽)",
            E.quota_limited,
            0.96,
        ),
        # an overage allowance reached (Kiro "You've reached your overage limit", "… the limit for overages"): paid
        # use beyond the plan is spent
        ("overage_limit", r"\boverage limit\b|\blimit (?:for|on) overages?\b", E.quota_limited, 0.96),
        # a plan that expired or does not cover what was asked (Zhipu 1309 "套餐已到期", "Your ChatGPT subscription may
        # not include Codex access", "make sure the selected model is included in your plan")
        (
            "plan_lapsed",
            r"套餐已(?:到期|过期)|\b(?:plan|subscription) (?:has )?(?:expired|lapsed)\b"
            r"|\bsubscription (?:may |does )?not include\b|\bincluded in your (?:plan|subscription)\b",
            E.subscription_required,
            0.96,
        ),
        # context overflow in bare words (Zed "Context too large", Plandex "Max tokens exceeded before adding context",
        # Zhipu 1261 "Prompt 超长"), and a request body over the server's size ("Request Entity Too Large" without its
        # 413, KoboldCpp "Payload is too big")
        (
            "context_too_large",
            r"\bcontext (?:is |window )?too (?:large|long|big)\b|\bmax tokens exceeded before\b"
            r"|(?:prompt|输入|上下文|请求)\s*超长|\brequest entity too large\b|\bpayload (?:is )?too (?:big|large)\b",
            E.context_length_exceeded,
            0.92,
        ),
        # a credential named missing or expired when the tool writes `apikey` as one word (Baichuan "Missing apikey",
        # "apikey has expired"), or in Chinese ("未提供令牌": no token provided)
        ("apikey_missing", r"\bmissing apikey\b|未提供(?:令牌|密钥|api ?key)", E.missing_credentials, 0.95),
        ("apikey_expired", r"\bapikey (?:has |is )?expired\b", E.auth_required, 0.92),
        # a credential that cannot be used as given: malformed, the wrong kind for the endpoint, unreadable
        (
            "credential_unusable",
            r"\b(?:api[ _-]?key|private key|credentials?)\b[^.]{0,40}\b(?:invalid characters|not compatible with"
            r"|must contain a valid)\b|\bfailed to load (?:\w+ )?credentials\b"
            r"|\bmust contain a valid (?:private key|api[ _-]?key|credentials?)\b",
            E.auth_required,
            0.92,
        ),
        # an account blocked for what the provider saw from it (Cursor "detected suspicious activity from your
        # account"): the account, not the request, so another provider
        ("suspicious_activity", r"\bsuspicious activity\b", E.auth_required, 0.93),
        # a model that cannot run here: retired for this runtime version, its weights absent, failed to load
        (
            "model_cannot_load",
            r"\bno longer compatible with\b|\bmodel failed to load\b|\bno safetensors found\b",
            E.model_unavailable,
            0.92,
        ),
        # a local runtime or tool set up incompletely (Jan "Default engine variant … is not set", Continue "No chat
        # model selected", Gemini CLI "requires setting the GOOGLE_CLOUD_PROJECT … env var", one-api "invalid tecent
        # config", 5ire "… not found, verify your API base")
        (
            "setup_incomplete",
            r"\bengine variant\b[^!]{0,40}\bnot set\b|\bno (?:chat )?model selected\b"
            r"|\brequires setting (?:the )?\w+ (?:or \w+ )?env(?:ironment)? var|\binvalid \w+ config(?:uration)?\b"
            r"|\bverify your api base\b",
            E.provider_not_configured,
            0.93,
        ),
        # turns out of order in a validator's words (Perplexity "user or tool message(s) should alternate with
        # assistant message(s)")
        ("turns_alternate", r"\bmessage\(?s?\)? (?:should|must) alternate with\b", E.invalid_request, 0.88),
        # a local server with no free slot for the model (Xinference "No available slot found for the model")
        ("no_slot", r"\bno available slot\b", E.model_capacity, 0.9),
        # a service's own error or busy notice that asks for a later try (Roo "OpenAI Codex service error. Please try
        # again later.", DeepSeek "search service is busy … try again in a few minutes")
        (
            "service_error_later",
            r"\bservice (?:error|is busy)\b[^.]{0,60}\.?\s*(?:please )?(?:\w+ \w+ or )?(?:try again|retry)",
            E.provider_unavailable,
            0.75,
        ),
        # twelfth round, by class
        # a provider, service or server said to be unavailable, in a UI's words and its translations (OpenHands "The LLM
        # provider is currently unavailable. Please try again later.", LobeHub "Ollama service is unavailable"): the
        # path or the server, as a 503 is; not a service unavailable "in your region" or "on your plan", which the plan
        # and region rules read
        (
            "service_unavailable_words",
            r"\b(?:provider|service|server|api|backend|endpoint|upstream)\b (?:is |are )?(?:currently |temporarily )?"
            r"(?:unavailable|not available|unreachable)\b(?! (?:in|on|for|to) (?:your|this|the) )"
            # (all of them: a router's "All servers are unavailable (banned, in cooldown, …)"; never the machine's own
            # NIS servers)
            r"|\ball (?:providers|services|servers|backends|endpoints|upstreams) (?:are )?(?:currently |temporarily )?"
            r"(?:unavailable|not available|unreachable)\b"
            # (an agent unavailable, to be tried later: "Agent unavailable. Please try again later.")
            r"|^\W*agent (?:is )?(?:currently |temporarily )?unavailable\b\W{0,3}(?:please )?try again later\b"
            r"|\b(?:fournisseur|service|serveur)\b[^.]{0,30}\b(?:n.est (?:actuellement |temporairement )?pas disponible"
            r"|(?:est )?(?:actuellement |temporairement )?indisponible)"
            r"|\b(?:Anbieter|Dienst|Server)\b[^.]{0,30}\bnicht (?:verfügbar|erreichbar)"
            r"|\b(?:proveedor|servicio|servidor)\b[^.]{0,30}\bno (?:está|esta) disponible"
            r"|(?:プロバイダー?|サービス|サーバー?)[^。]{0,10}(?:利用できません|利用不可|使用できません)"
            r"|(?:服务|服务器|提供商|供应商)(?:暂时|当前|目前)?不可用"
            r"|(?:제공자|공급자|서비스|서버)[^.]{0,20}사용할 수 없",
            E.provider_unavailable,
            0.75,
        ),
        # a request that could not be sent, or a reply that could not be read, in a client's own words (Zed "error
        # sending HTTP request to Ollama API", "I/O error reading response from OpenAI's API"): a headline, so the
        # cause printed after it ("Failed to send the request: … request has timed out") and any status decide
        (
            "request_not_sent",
            r"\b(?:error|failed|failure) (?:while )?sending (?:the |an? )?(?:HTTPS? |API )?request\b"
            r"|\bfailed to send (?:the |an? )?(?:HTTPS? |API |streaming |stream )?request\b"
            r"|\bI/?O error (?:while )?(?:reading|writing|receiving|sending)\b",
            E.network_unavailable,
            0.69,
        ),
        # context overflow in more words: the length the model can handle (LobeHub "The current request content exceeds
        # the length that the model can handle"), a count of tokens against a count of tokens (Aider "Your estimated
        # chat context of 140,303 tokens exceeds the 128,000 token limit"), and in Japanese, Chinese and Korean
        # (LibreChat "トークン制限 (4095) を超えています")
        (
            "context_over_words",
            r"\bexceeds? the (?:maximum )?(?:length|size|tokens?|context) (?:that )?(?:the |this )?model can "
            r"(?:handle|process|accept|take|support)\b"
            r"|\b\d[\d,]* tokens? exceeds? (?:the )?(?:model.s )?\d[\d,]*[- ]tokens? (?:limit|maximum|context|window)\b"
            # (the count in parentheses: "number of input tokens (204703) has exceeded max_prompt_tokens (202752)")
            r"|\b(?:input|prompt) tokens \(\d[\d,]*\) (?:has |have )?exceeded\b"
            r"|トークン[^。]{0,20}(?:を?超え|超過|長すぎ)|コンテキスト[^。]{0,15}(?:を?超え|超過|長すぎ)"
            r"|token\s*(?:数|数量|长度)[^。]{0,10}(?:超出|超过|超限)|토큰[^.]{0,20}초과",
            E.context_length_exceeded,
            0.92,
        ),
        # an answer that hit its output limit in a tool's report (Aider "Model gpt-4o has hit a token limit! … possibly
        # exceeded output limit!"): the answer's length, not a budget window
        (
            "output_limit_hit",
            r"\b(?:model|response|output|answer)\b[^.!]{0,40}\bhit a token limit\b"
            r"|\bexceeded (?:the |its )?output (?:token )?limit\b",
            E.context_length_exceeded,
            0.93,
        ),
        # content a filter blocked, named by what it holds: copyright (Gemini's RECITATION as LobeHub words it "blocked
        # because it may involve copyright issues"), personal data (SPII: "may contain sensitive personally
        # identifiable information"), prohibited words (BLOCKLIST: "contains prohibited words")
        (
            "content_kind_blocked",
            r"\bblocked\b[^.]{0,40}\b(?:copyright\w*|personally identifiable|PII)\b"
            r"|\b(?:involv|infring|violat)\w* (?:on )?(?:\w+ )?copyright\b"
            r"|\b(?:content|input|prompt|request|message|text|output|response)\b[^.]{0,30}\bcontains?\b[^.]{0,30}"
            r"\b(?:personally identifiable information|PII|(?:prohibited|forbidden|banned|blocked) (?:words|terms))\b",
            E.content_policy,
            0.95,
        ),
        # moderation in other languages: a content policy violated, a moderation system's verdict (OpenHands
        # "コンテンツポリシー違反", "内容政策违规"; LibreChat "投稿監視システムによって検知",
        # "コミュニティガイドラインに準拠していない")
        (
            "content_policy_i18n",
            r"コンテンツ(?:ポリシー|フィルタ)|ポリシー違反|モデレーション|投稿監視|ガイドラインに(?:準拠していない|違反)"
            r"|内容(?:政策|策略|安全策略)|内容过滤|콘텐츠 (?:정책|필터)|정책 위반"
            r"|pol[íi]tica de contenido|politique de contenu|Inhaltsrichtlinie",
            E.content_policy,
            0.95,
        ),
        # no key at all, in more words: empty (LobeHub "OpenAI API Key is empty"), missing with the provider named (Zed
        # "missing Mistral API key"), to be set (google-genai "Project or API key must be set"), none provided (Vercel's
        # gateway "No authentication provided"), or the variable named as the remedy (Cohere "… or setting
        # CO_API_KEY"): a credential to add, one step above the word "authentication"
        (
            "key_absent",
            r"\bapi[ _-]?key (?:is )?(?:empty|blank)\b|\bmissing (?:(?!or\b|and\b)[\w-]+ ){1,2}api[ _-]?key\b"
            r"|\bapi[ _-]?key (?:must|should|needs to) be (?:set|provided|specified|passed|configured)\b"
            r"|\bno (?:authentication|auth|credentials?|api[ _-]?key|token) (?:was |were )?"
            r"(?:provided|supplied|given|configured)\b"
            r"|\b(?:or|by|please|try) (?:setting|set|export(?:ing)?) (?:the )?`?[A-Z][A-Z0-9_]*_(?:API_KEY|TOKEN)\b"
            # (TabbyAPI "Please provide an API key"; LangChain "Did not find openai_api_key, please add an environment
            # variable `OPENAI_API_KEY`")
            r"|\bplease provide an? api[ _-]?key\b(?! with)"
            r"|\bdid not find (?:openai|azure_openai|anthropic|google|gemini|mistral|cohere|groq|together|fireworks"
            r"|deepseek|openrouter|xai)_api_key\b",
            E.missing_credentials,
            0.95,
        ),
        # a login the provider refused, in other verbs and languages (OpenHands "Error authenticating with the LLM
        # provider", "Fehler bei der Authentifizierung mit dem LLM-Anbieter"; LobeHub "Bedrock 鉴权未通过")
        (
            "auth_i18n",
            r"\b(?:error|failed|failure) (?:while |when )?authenticating\b"
            r"|Fehler bei der Authentifizierung|Authentifizierung (?:ist )?fehlgeschlagen"
            r"|échec de l.authentification|erreur d.authentification|error de autenticaci[óo]n"
            r"|(?:falha|erro) (?:na |de )?autentica[çc][ãa]o|errore di autenticazione"
            r"|認証(?:に失敗|エラー|失敗)|인증(?:에)? ?(?:실패|오류)|(?:鉴权|认证|授权)(?:未通过|不通过)",
            E.auth_required,
            0.92,
        ),
        # a prepaid balance spent, in other languages (OpenHands "Te has quedado sin créditos",
        # "크레딧이 소진되었습니다")
        (
            "credits_i18n",
            r"\bsin cr[ée]ditos\b|\bcr[ée]ditos? insuficientes?\b|\bsaldo insuficiente\b|크레딧이? (?:소진|부족)"
            r"|잔액(?:이)? 부족|クレジット(?:が不足|を使い切|残高が不足)|残高(?:が)?不足|\bkein Guthaben\b"
            r"|\bGuthaben (?:ist )?(?:aufgebraucht|reicht nicht|unzureichend)\b"
            r"|\bcr[ée]dits? (?:insuffisants?|épuisés?)"
            r"|\bsolde insuffisant\b",
            E.subscription_required,
            0.96,
        ),
        # a feature kept from free users, in Chinese (LobeHub "当前为免费用户，无法使用该功能，请升级到付费计划")
        (
            "plan_required_zh",
            r"免费(?:用户|版|计划|套餐)[^。]{0,20}(?:无法|不能|不支持|不可)|升级(?:到|至)?(?:付费|专业|高级|会员)(?:计划|版|套餐)"
            r"|(?:需要|请)(?:升级|订阅)(?:付费)?(?:计划|套餐|会员)",
            E.subscription_required,
            0.95,
        ),
        # the limit of a plan, reached (Eigent "You've reached the limit of your current plan"): the plan's allowance,
        # which no short retry refills; a per-minute rate said of a plan is that rate
        (
            "plan_limit",
            r"(?:\blimits? (?:of|on|for|in) (?:your|the) (?:current |free |[\w-]+ )?(?:plan|tier|subscription)\b"
            r"|\b(?:plan|tier|subscription)(?:.s)? (?:usage )?limits? (?:has been |have been )?"
            r"(?:reached|exceeded|hit)\b"
            # a trial's allowance (Cursor "You've reached your trial request limit")
            r"|\b(?:free )?trial(?:.s)? (?:(?!rate\b)[\w-]+ ){0,2}limits?\b)"
            # (not a rate the plan allows per minute: "the rate limit of the free tier (15 RPM)" is a short wait)
            r"(?![^.\n]{0,60}\b(?:per (?:minute|min|second)|[RT]P[MS])\b)",
            E.quota_limited,
            0.96,
        ),
        # too many requests in flight at once (Codex "reached concurrency limit"): clears as one finishes
        (
            "concurrency_limit",
            r"\bconcurrency limit\b|\bconcurrent (?:request |connection |session )?limit\b"
            r"|\bmax(?:imum)? concurren(?:cy|t requests?)\b"
            # one task at a time, a previous one still running (TopView 4007 "Exists unfinished task": wait and retry)
            r"|\b(?:exists?|there (?:is|are)|(?:you )?(?:already )?ha(?:ve|s)) (?:an? |another )?(?:unfinished|running"
            r"|in-progress|ongoing) (?:task|job|generation)s?\b",
            E.rate_limited,
            0.85,
        ),
        # an API or endpoint retired with its successor named (Cohere "Generate API was removed on September 15 2025.
        # Please migrate to Chat API."): this route no longer serves the request; another may
        (
            "api_retired",
            r"\b(?:api|endpoint|method|route|version)\b[^.]{0,20}\b(?:was|has been|were|have been|is) "
            r"(?:removed|retired|discontinued|sunset|shut down|decommissioned)\b[^.]{0,40}\.\s*(?:please )?"
            r"(?:migrate|switch|move|upgrade) to\b",
            E.model_unavailable,
            0.92,
        ),
        # a data-retention or privacy setting that rules the model out (Zed "… cannot be offered with Zero Data
        # Retention"): the route's settings, another provider may be allowed (OpenRouter's "No endpoints found matching
        # your data policy" names the model it leaves without an endpoint: openrouter.no_endpoints)
        (
            "data_policy",
            r"\bzero data retention\b|\bdata (?:retention|privacy) (?:settings?|polic(?:y|ies)|requirements?)\b",
            E.provider_not_configured,
            0.93,
        ),
        # no credential at all, named by any of its names (API key, token, license key, credentials) and said to be
        # not found, not entered or not set (gptel "No `gptel-api-key' found in the auth source", CodeCompanion "No
        # Hugging Face API key found", "No token found", Chatbox "a license key has not been entered yet"), or the
        # user's own key asked for (Hugging Face routing "please use your own OpenAI API key")
        (
            "credential_not_given",
            r"\bno [`'\"‘]?(?:[\w-]+?[ _-]){0,3}?(?:api[ _-]?key|token|licen[cs]e key|credentials?)['`\"’]? "
            r"(?:was |were )?found\b"
            r"|\b(?:api[ _-]?key|token|licen[cs]e key|credentials?)\b[^.\n]{0,10}\b(?:has|have|was|were|is|are) "
            r"(?:not|never) (?:yet )?(?:been )?(?:entered|set|provided|configured|supplied)\b"
            r"|\b(?:please )?use your own (?:[\w-]+ ){0,2}(?:api[ _-]?key|token|credentials?)\b",
            E.missing_credentials,
            0.95,
        ),
        # a route's own settings missing or switched off: an endpoint, region, base URL or configuration that must be
        # specified or is missing (avante "Ollama: endpoint must be specified in config", "no aws_region specified",
        # RubyLLM "Missing configuration for Bedrock"), a model not in the settings (mods "… is not in the settings
        # file"), a setting named in quotes that is not valid (gptel "`gptel-api-key' is not valid"), an integration
        # disabled (Open WebUI "The Ollama API is disabled"): another route may be set up
        (
            "route_settings_missing",
            r"\b(?:endpoint|region|base[ _-]?url|api[ _-]?base|host|deployment|project(?:[ _-]id)?|\w+_region)\b"
            r"[^.\n]{0,30}\b(?:must|should|needs to) be (?:specified|set|configured|provided)\b"
            # (a region said to be required: AnythingLLM "AWS_BEDROCK_LLM_REGION is required for AWS Bedrock.")
            r"|\b(?:\w+_)?region\b(?: setting| variable)? is required\b"
            r"|\bno (?:[\w-]+ ){0,2}(?:endpoint|region|base[ _-]?url|api[ _-]?base|\w+_region)\b (?:was |is )?"
            r"(?:specified|set|configured|provided|given)\b"
            r"|\bmissing (?:configuration|config|settings?) (?:for|of)\b"
            r"|\bis not (?:in|defined in|listed in) (?:the |your )?(?:settings|config(?:uration)?)(?: file)?\b"
            r"|\bplease specify an? (?:api )?(?:endpoint|base url|region)\b"
            r"|`[\w-]+' is not valid\b"
            r"|\b(?:api|provider|integration|backend|connection) (?:is|has been) disabled\. please enable\b",
            E.provider_not_configured,
            0.93,
        ),
        # a model identifier the tool does not know (gptel "Unknown Bedrock model: claude-opus-4-1", aichat "Unknown
        # chat model 'deepseek:deepseek-coder'"), the model's terms not agreed or the account not allowed that model
        # (Workers AI 5016, 3041): this model is out of reach, another may not be
        (
            "model_unknown_or_barred",
            r"\b(?:unknown|unsupported|unrecognized|unrecognised) (?:[\w-]+ ){0,2}model(?: name| id)?\s*[:'\"`‘“]"
            r"|\bnot (?:allowed|permitted|authorized|entitled) to (?:access|use) (?:this|the|that) model\b"
            r"|\bnot (?:yet )?agreed to (?:the )?[\w.-]{0,30} ?model (?:terms|licen[cs]e|agreement)\b",
            E.model_unavailable,
            0.93,
        ),
        # a model said to be unavailable for now (Amazon Q "The model you've selected is temporarily unavailable"): its
        # capacity, back after a wait; a step above "unavailable" said of a service
        (
            "model_unavailable_for_now",
            r"\bmodel\b[^.\n]{0,30}\b(?:is|are) (?:temporarily|currently|momentarily) unavailable\b"
            r"|\bno (?:more )?(?:data ?cent(?:er|re)s|servers|workers|replicas|instances|regions) "
            r"(?:left )?to (?:forward|route|send|serve)\b",
            E.model_capacity,
            0.9,
        ),
        # a license or plan that does not cover the model, or has lapsed (Chatbox "Your current License (Chatbox AI
        # Lite) does not support the claude-sonnet-4 model", "Your license has expired"), a request that costs more
        # than the balance (Codegraff "Estimated request cost … exceeds available balance")
        (
            "plan_excludes",
            r"\b(?:licen[cs]e|plan|tier|subscription|package)\b[^.\n]{0,40}\b(?:does not|doesn.t|do not|cannot) "
            r"(?:support|include|cover) (?:the |this )?[^.\n]{0,40}\bmodels?\b"
            r"|\b(?:licen[cs]e|subscription|trial)(?: key)? (?:has |is |was )?(?:expired|lapsed)\b"
            # (none held at all: Telerik "no valid license found for the requested product")
            r"|\bno valid licen[cs]e (?:found|available)\b"
            r"|\bexceeds? (?:your |the )?(?:available|remaining|current) (?:balance|credits?|funds)\b",
            E.subscription_required,
            0.96,
        ),
        # a license key refused, or access to the service not granted to this account (Chatbox "The license key you
        # entered is invalid", SystemSculpt "Invalid or expired license key", gptel "You might not have access to
        # GitHub Copilot Chat", Workers AI 3023 "Service unavailable for account")
        (
            "access_not_granted",
            r"\blicen[cs]e key\b[^.\n]{0,30}\b(?:is|was) (?:invalid|not valid|incorrect|revoked)\b"
            r"|\b(?:invalid|expired)(?: or (?:invalid|expired))? licen[cs]e key\b"
            r"|\b(?:might|may) not have access to\b|\bunavailable for (?:this |your |the )?account\b",
            E.auth_required,
            0.92,
        ),
        # a safety system that filtered, blocked or did not pass the output (Imagen "generated image was filtered",
        # "Your current safety settings … filtered out images", "not passing Google's safety review") or guardrails
        # that triggered or intervened (OpenSearch "guardrails triggered for user input", Bedrock "guardrail
        # intervened")
        (
            "safety_filtered",
            r"\b(?:image|images|output|response|content|prompt|completion|generation)s? (?:was|were|has been|have been)"
            r" (?:filtered|blocked by (?:the )?safety)\b"
            r"|\bsafety (?:settings?|filters?|system)\b[^.\n]{0,60}\bfiltered\b"
            r"|\bnot pass(?:ing|ed)? (?:the |\w+(?:'|’)s )?safety (?:review|check|filter)s?\b"
            r"|\bsafety (?:review|check)s? (?:failed|not passed)\b"
            r"|\bguardrails? (?:was |were |has been |have been )?(?:triggered|intervened|tripped)\b"
            # a prompt said to violate the service's guardrails (ChatGPT images "the prompt may violate our guardrails
            # around nudity")
            r"|\bviolat\w* (?:our |the |its |their |your )?(?:[\w-]+ )?guardrails?\b"
            r"|\bGUARDRAIL_INTERVENED\b",
            E.content_policy,
            0.95,
        ),
        # a prompt over the tool's own input limit (mods "Maximum prompt size exceeded", aichat "Exceed
        # max_input_tokens limit", gpt-pilot "We sent too large request to the LLM"); a request too large for a
        # per-minute budget is that budget's (windows), so not when a minute or TPM is named
        (
            "prompt_over_limit",
            r"(?:\bmax(?:imum)?[ _](?:prompt|input|context)[ _](?:size|length|tokens?) (?:limit )?exceeded\b"
            r"|\bexceed(?:s|ed)? (?:the )?max(?:imum)?[ _](?:input|prompt|context)[ _](?:tokens|length|size)\b"
            r"|\btoo large (?:a )?request\b)"
            r"(?![^\n]{0,80}\b(?:per min(?:ute)?|TPM|RPM)\b)",
            E.context_length_exceeded,
            0.92,
        ),
        # a request too large for a per-minute token budget with nothing to compare (Kerlig "Request too large for
        # used model on tokens per minute (TPM)"): larger than the whole budget, a quota no short retry clears (one
        # step below the budget read from numbers, which names the same thing where they are printed)
        (
            "request_over_minute_budget",
            r"\brequest too large for\b[^\n]{0,60}\b(?:tokens per min(?:ute)?|TPM)\b",
            E.quota_limited,
            0.97,
        ),
        # a rate limit in the user's words with a short wait asked for (mods "You've hit your openai API rate limit",
        # Amazon Q "rate limit reached: Request quota exceeded. Please wait a moment", Open WebUI "Unusual activities
        # detected, please try again in a few minutes"): a short retry, above the quota and session-limit words
        (
            "rate_limit_short_wait",
            r"\bhit your (?:[\w-]+ ){0,2}rate limit\b"
            r"|\brate limit (?:reached|exceeded|hit)\b[\s\S]{0,80}\bwait a (?:moment|minute|few (?:seconds|moments))\b"
            r"|\bunusual (?:activit(?:y|ies)|traffic)\b[^\n]{0,40}\btry again in (?:a few|\d+) (?:seconds|minutes)\b",
            E.rate_limited,
            0.985,
        ),
        # a reply that never came within the server's own wait (LMDeploy 10402 "Failed to get response after a
        # period of time")
        # (GitLab Duo A1004 "I couldn't respond in time")
        (
            "response_wait_elapsed",
            r"\bfailed to (?:get|receive) (?:a )?response after\b|\b(?:couldn.t|could not|failed to) respond in time\b",
            E.timeout,
            0.85,
        ),
        # the server's own error reported after a client's reconnects (Codex "Reconnecting... 4/5" then "Stream
        # disconnected before completion: An error occurred while processing your request"): the provider failed the
        # request, above the reconnecting notice; a network cause printed instead still reads as the network
        (
            "server_processing_error",
            r"\ban error occurred while processing your request\b",
            E.provider_unavailable,
            0.81,
        ),
        # a request whose parameters the service refused, in its own words (Chatbox "Invalid request parameters
        # detected")
        ("request_parameters_invalid", r"\binvalid request param(?:eter)?s\b", E.invalid_request, 0.9),
        # (a concurrency limit "of 3 requests" is a rate whatever date its reset names: not these words)
        # a spending cap named with its period (xAI "has either used all available credits or reached its monthly
        # spending limit"): a cap the period resets, one step above the balance words beside it
        (
            "period_spend_cap",
            r"\b(?:daily|weekly|monthly|annual|yearly) (?:spend(?:ing)?|usage|cost|budget) (?:limit|cap)\b",
            E.quota_limited,
            0.965,
        ),
        # the provider's own quota sentence quoted beside a wrapper's paraphrase of it (gpt_academic "[Local Message]
        # You exceeded your current quota. OpenAI以账户额度不足为由, 拒绝服务"): the provider's words decide, one step
        # above the paraphrase's balance word
        ("quota_sentence_quoted", r"\byou exceeded your current quota\b", E.quota_limited, 0.965),
        # an allowance counted without a period whose reset is a calendar date (Cody Gateway "you have exceeded the
        # rate limit of 2000 requests. Retry after 2024-06-27 03:57:26 +0000 UTC"): a day's or a plan's allowance,
        # not a per-second rate; a rate with its period ("100 requests per minute") stays a rate
        (
            "allowance_until_date",
            r"\b(?:rate|usage|request|daily|monthly) limit of \d[\d,]* (?:requests|messages|tokens|calls|completions)\b"
            r"(?!\s*(?:per|/|every|an?|each|in)\b)[^\n]{0,40}\b(?:retry|try again) (?:after|at|on) \d{4}-\d{2}-\d{2}\b",
            E.quota_limited,
            0.97,
        ),
        # a pool of accounts or keys all cooling down (Antigravity Manager "All accounts are currently limited. Please
        # wait 8s."): a short rate wait, whatever the pool's wrapper calls it
        (
            "pool_cooling_down",
            r"\b(?:all )?(?:accounts|keys|tokens|credentials|channels) (?:for (?:model )?\S+ )?(?:are )?(?:all )?"
            r"(?:currently |temporarily )?(?:limited|rate[- ]limited|throttled|cooling down|on cooldown)\b"
            # (in Chinese: WindsurfAPI "所有可用账号暂时不可用")
            r"|所有(?:可用)?(?:账号|账户|密钥)暂时(?:不可用|受限|冷却)",
            E.rate_limited,
            0.9,
        ),
        # an HTTP/2 stream the server reset while the body was being read (reqwest's `kind: Decode` or hyper's
        # `Error(Body, … Reset(StreamId(19), INTERNAL_ERROR, Remote))`): the answer was cut mid-way, a step above the
        # transport words a hyper error matches
        (
            "body_stream_reset",
            r"\bkind: (?:Decode|Body)\b[^\n]{0,80}\bReset\(|\bhyper::Error\(Body,[^\n]{0,60}\bReset\(",
            E.stream_truncated,
            0.85,
        ),
        # Go's net/http client deadline ("Client.Timeout exceeded while awaiting headers", "net/http: timeout awaiting
        # response headers"): the client's own timeout, above the socket's "i/o timeout" it leaves behind
        (
            "go_client_timeout",
            r"\bClient\.Timeout exceeded\b|\btimeout awaiting response headers\b",
            E.timeout,
            0.85,
        ),
        # the OS's connection reset in its errno form (macOS 54, Linux 104, Windows 10054) under any exception class
        # (httpx "ReadError: [Errno 54] Connection reset by peer"): the connection, a step above a read class that
        # also names a body cut mid-way
        (
            "reset_errno",
            r"\[(?:Errno|WinError) (?:54|104|10054)\] (?:Connection reset by peer|An existing connection was forcibly)",
            E.network_unavailable,
            0.91,
        ),
        # socket failures in Chinese locales (glibc's strerror and curl under zh_CN: "连接被对方重设" connection reset
        # by peer, "拒绝连接" connection refused, "网络不可达", "没有到主机的路由", "无法解析主机")
        (
            "network_zh",
            r"连接被对方重(?:设|置)|连接被重置|(?:连接)?被?拒绝连接|连接被拒绝|网络不可达|没有到主机的路由|无法解析(?:主机|域名)"
            # (the advice to check the network, Trae "请求服务失败，请检查网络后重试")
            r"|请检查(?:您的)?网络",
            E.network_unavailable,
            0.8,
        ),
        # Envoy's own 503 when its upstream (the provider's servers) could not be reached ("upstream connect error or
        # disconnect/reset before headers. reset reason: remote connection failure … Connection refused"): the
        # provider's side of its proxy, above the refused connection it names
        (
            "envoy_upstream",
            r"\bupstream connect error or disconnect/reset before headers\b",
            E.provider_unavailable,
            0.85,
        ),
        # a message or input said to be too long in Chinese (a Java SDK's "BaseResponse(code=40000, message=消息过长)",
        # "输入内容过长", "文本长度超出限制")
        (
            "context_too_long_zh",
            r"(?:消息|内容|输入|文本|提示词?|上下文|请求|问题|对话)(?:内容)?(?:过长|太长|超长)"
            r"|(?:长度|字数|token ?数)(?:已)?超(?:过|出)(?:了)?(?:最大|模型)?(?:限制|上限|长度)",
            E.context_length_exceeded,
            0.9,
        ),
        # a model identifier malformed as built by its settings (YandexGPT "invalid model_uri" when the folder id is
        # wrong): the route's own configuration, not a model that is gone, one step above the model words
        (
            "model_uri_invalid",
            r"\binvalid model[ _-]?(?:uri|url|path|resource[ _-]?name)\b",
            E.provider_not_configured,
            0.93,
        ),
        # a local server's runner that dropped the request (Ollama "POST predict: Post \"http://127.0.0.1:35943/
        # completion\": EOF", "llama runner process no longer running"): the server cannot serve the model right now
        (
            "runner_dropped",
            r"\bPOST predict: Post \S+: EOF\b|\brunner process no longer running\b",
            E.provider_unavailable,
            0.85,
        ),
        # a local server's engine process that exited or could not make a context (Ollama "llama runner process has
        # terminated: error:failed to create context with model …", LM Studio "Engine protocol runtime llama-server …
        # exited before becoming healthy", llama.cpp "llama_init_from_model: failed to initialize the context"): the
        # server, not the request, a step below the memory words that name the model too large for it
        (
            "engine_exited",
            r"\b(?:runner|server|engine|backend|worker) process (?:has )?(?:terminated|exited|died|crashed)\b"
            r"|\bexited before becoming (?:healthy|ready)\b|\bfailed to (?:create|initiali[sz]e) (?:the |a )?"
            r"(?:llama )?context\b"
            r"|\bllama runner (?:exited|terminated)\b"
            r"|\b(?:llama-server|llama runner|runner|engine) (?:has )?(?:exited|terminated|crashed)"
            r" (?:unexpectedly|with)\b",
            E.provider_unavailable,
            0.8,
        ),
        # a local server's KV cache with no room for the prompt: the context it was started with is full (KoboldCpp
        # "failed to find KV cache slot for ubatch … Check your context buffer sizes!", ik_llama.cpp "Input prompt is
        # too big compared to KV size", WebLLM "The KV cache is full", TensorRT-LLM "Couldn't assign past_key_value_0
        # with shape …" for an engine built shorter, LM Studio "Trying to keep the first N tokens when context the
        # overflows"): the conversation is longer than the window the route serves
        (
            "kv_cache_full",
            r"\b(?:failed to|could(?:n.t| not)) find (?:a )?(?:free )?KV (?:cache )?slot\b|\bKV cache (?:is )?full\b"
            # (node-llama-cpp "could not find a KV slot for the batch (try reducing the size of the batch or increase
            # the context)", llama.cpp "failed to find free space in the KV cache")
            r"|\bfailed to find free space in the KV cache\b"
            r"|\b(?:prompt|input)\b[^.]{0,30}\btoo (?:big|large|long) (?:compared to|for) (?:the )?KV\b"
            r"|\bincreas\w* (?:the )?KV(?: cache)? size\b|\bcheck your context buffer sizes?\b"
            r"|\bcouldn.t assign past_key_values?\w* with shape\b|\btokens when (?:the )?context (?:the )?overflows\b"
            r"|\bcontext shift is disabled\b"
            # (LLamaSharp "llama_decode failed: 'NoKvSlot'"; exllamav2 "Job requires 33 pages (only 32 available) and
            # cannot be enqueued"; llama.cpp "input is too large to process. increase the physical batch size")
            r"|\bNoKvSlot\b|\bjob requires \d+ pages \(only \d+ available\)|\binput is too large to process\b",
            E.context_length_exceeded,
            0.92,
        ),
        # a model that declined or refused to answer (ChatGPTBox "Claude declined to respond to this request." for
        # Anthropic's `stop_reason: refusal`): a refusal of the text, in words rather than a field
        (
            "model_declined",
            r"\b(?:declined|refused|refuses|declines|unwilling) to (?:respond|answer|reply|generate|comply|assist"
            r"|continue|help with)\b",
            E.content_policy,
            0.95,
        ),
        # output withheld from the user by a safeguard (Codex "This content can't be shown. We take extra caution with
        # cybersecurity requests"), and a prompt filter's verdict with nothing named (Stability's 400 "Invalid prompts
        # detected", "banned words detected")
        (
            "content_withheld",
            r"\b(?:this |the )?(?:content|response|answer|output|message) (?:can(?:no|.)t|could(?:n.t| not)) be "
            r"(?:shown|displayed)\b(?![^.\n]{0,30}\b(?:render|format|encod|font|browser))"
            r"|\bextra caution with [\w ]{0,20}requests\b"
            r"|\b(?:invalid|banned|prohibited|forbidden|disallowed|blocked|inappropriate) (?:prompts?|words?|terms?)"
            r" (?:were |was |is |are )?(?:detected|found)\b"
            # the same filter's verdict as a Bedrock/SageMaker wrapper relays it ("(400, 'invalid_prompts', 'One or more
            # prompts contains filtered words.')")
            r"|\bcontains? (?:filtered|banned|prohibited|forbidden|blocked) words?\b|\binvalid_prompts\b",
            E.content_policy,
            0.95,
        ),
        # a plan's token or message allowance spent (bolt.new "You've used all your remaining tokens"): a window of
        # the plan that resets, not a balance to top up
        (
            "allowance_used_up",
            r"\bused (?:up )?all (?:of )?(?:your|the|its) (?:remaining |available |included |daily |monthly |weekly )*"
            r"(?:tokens|messages|requests|prompts|usage)\b",
            E.quota_limited,
            0.96,
        ),
        # sixteenth round, by class
        # a closed or lost connection in the BEAM's words (Elixir Mint/Finch/Req "** (Mint.TransportError) socket
        # closed", the struct `%Mint.TransportError{reason: :closed}`, Erlang's `{:error, :closed}`), and a connection
        # said to be lost in any client's words (Ollama's app "Connection lost", `turbo_connection_lost`): the path
        # to the provider, not the request
        (
            "transport_closed",
            r"\b(?:Mint|Finch|Req|Gun|Hackney)\.(?:TransportError|HTTPError)\b(?!\{reason: :timeout\})"
            r"|%Mint\.\w+\{reason: :(?:closed|econnrefused|econnreset|nxdomain)\}"
            r"|\{:error, (?:%\w+\{reason: )?:(?:closed|econnrefused|econnreset|nxdomain|ehostunreach)\}?\}"
            r"|\bsocket (?:was |has been |is )?(?:unexpectedly )?closed\b"
            r"|\bconnection (?:was |has been )?(?:unexpectedly )?lost\b|\bconnection_lost\b",
            E.network_unavailable,
            0.82,
        ),
        # a tunnel or edge in front of a self-hosted server with nothing behind it (ngrok ERR_NGROK_3200 "The endpoint
        # is offline", ERR_NGROK_724 "No backend is available to serve requests for endpoint …", ERR_NGROK_8012
        # "Traffic successfully made it to the ngrok agent, but the agent failed to establish a connection to the
        # upstream"): the server that answers for the route is down, it may be back
        (
            "tunnel_no_backend",
            r"\bERR_NGROK_\d+\b|\b(?:the )?endpoint (?:\S+ )?is offline\b"
            r"|\bno (?:backends?|upstreams?|origins?) (?:is |are )?available to (?:serve|handle)\b"
            r"|\btunnel (?:\S+ )?(?:not found|is offline|is closed)\b",
            E.provider_unavailable,
            0.85,
        ),
        # no serving worker free for the model (Featherless "Service Temporarily Unavailable / No valid Executor", its
        # "insufficient model capacity"; NVIDIA's hosted NIM "failed to establish link to worker" when every instance
        # is busy): the model's capacity, above the 503 and the generic server words
        (
            "no_worker_free",
            r"\bno (?:valid|available|free|idle|ready) (?:executors?|workers?|instances?|replicas?|runners?|slots?)\b"
            r"|\bfailed to (?:establish|create|open) (?:a )?(?:link|connection|session) to (?:a |the )?"
            r"(?:worker|executor|instance|replica)\b"
            # (SGLang's router "No available workers (all circuits open or unhealthy)", TorchServe's 503 "No worker is
            # available to serve request: densenet161")
            r"|\bno (?:\w+ )?(?:executor|worker|instance|replica|runner)s? (?:is |are )?available to (?:serve|handle"
            r"|process)\b",
            E.model_capacity,
            0.88,
        ),
        # a gateway that gave up waiting on the server behind it (g4f's "Response 504: Gateway Timeout" raised as
        # its RateLimitError class, "504 Gateway Time-out", Envoy "upstream request timeout"): the wait, whatever
        # class carries it; above a rate-limit class name
        (
            "gateway_timeout",
            r"\bGateway Time-?out\b",
            E.timeout,
            0.88,
        ),
        # a routing gateway with no provider left for the model under the request's constraints (OpenRouter's 503
        # "There is no available model provider that meets your routing requirements"): this model on this route
        (
            "no_provider_for_route",
            r"\bno (?:available |eligible )?(?:model )?providers? (?:that )?(?:meets?|match(?:es)?|satisf\w+)"
            r" (?:your |the )?(?:routing|provider) (?:requirements|preferences|constraints)\b",
            E.model_unavailable,
            0.9,
        ),
        # a key the client gave up on after repeated refusals (g4f "API key has failed too many times."): the key
        (
            "key_failed_repeatedly",
            r"\b(?:api[ _-]?)?(?:key|token|credentials?)\b[^.]{0,30}\b(?:has |have )?(?:failed|been (?:rejected"
            r"|refused|denied)) too many times\b",
            E.auth_required,
            0.95,
        ),
        # an account locked or held for a person to clear, whatever status or code carries it (Kiro's 403 "Your User
        # ID … temporarily is suspended. We've locked your account as a security precaution" under
        # `insufficient_quota`; Z.AI's 429 "Account anomaly: Account has violation, please contact platform customer
        # service to unlock"): above the quota words and the 429 (a suspension for an unpaid invoice says none of this)
        (
            "account_held",
            r"\blocked (?:it|your (?:account|user id)|the account) as a security precaution\b|\blocked your account\b"
            r"|\baccount (?:anomaly|has (?:a |been flagged for )?"
            r"violations?)\b|\bcontact [\w ]{0,40}(?:support|customer service)[\w ]{0,20} to (?:unlock|unblock"
            r"|verify your identity|restore access)\b"
            # a plan's use held for breaching its fair-use policy until the user asks for access back (Z.ai's Coding
            # Plan "does not comply with the Fair Usage Policy, and your request frequency has been limited … To restore
            # access, please submit a request")
            r"|\b(?:not comply|non-?complian\w*|violat\w*|breach\w*|abus\w*)\b[^.\n]{0,30}\bfair[ -]us(?:e|age) polic"
            r"|\bto restore access, (?:please )?(?:submit|file|send|open) (?:a |an )?(?:request|appeal|ticket)\b",
            E.auth_required,
            0.97,
        ),
        # a CDN edge that refused this client before any origin (Akamai's "Access Denied … Reference
        # #18.2f580317.… https://errors.edgesuite.net/…"): the path to the provider, not the credential; above the
        # "access denied" words it prints
        (
            "edge_denied",
            r"\berrors\.edgesuite\.net\b|\bReference #\d{1,3}\.[0-9a-f]{6,}\.\d{9,}\.[0-9a-f]{6,}\b"
            r"|\bAkamaiGHost\b",
            E.network_unavailable,
            0.94,
        ),
        # a lock whose reason is a top-up (fal "User is locked. Reason: TOP_UP."): billing, above the lock
        (
            "locked_for_top_up",
            r"\breason\W{1,3}(?:top[ _-]?up|unpaid\w*|billing)\b",
            E.subscription_required,
            0.97,
        ),
        # a gateway's guardrail checks that denied the request (Portkey's 446 "The guardrail checks defined in the
        # config failed", `hooks_failed`): the request's content under a policy the route enforces
        (
            "guardrail_checks_failed",
            r"\bguardrail (?:checks?|hooks?|rules?|policies) (?:[\w ]{0,30})?(?:failed|denied|blocked)\b",
            E.content_policy,
            0.95,
        ),
        # a completion stopped at the output-token limit, in a client's template (langchaingo's Bedrock "completed due
        # to max_tokens. Maybe try increasing max tokens"): the answer ran out of room
        (
            "stopped_at_max_tokens",
            r"\b(?:completed|stopped|ended|finished|terminated) (?:due to|because of|with) \W?(?:max_tokens|length"
            r"|max_output_tokens)\b|\btry increasing (?:the )?max[ _](?:output[ _])?tokens\b",
            E.context_length_exceeded,
            0.93,
        ),
        # one request larger than a gateway's per-request capacity (NexoRouter `request_too_large` "the single
        # request is estimated to exceed the gateway's per-request token capacity"): no wait lets it fit, another
        # provider might
        (
            "over_per_request_capacity",
            r"\bexceed\w* (?:the )?(?:[\w'’]+ )?per[ -]request (?:token )?(?:capacity|budget|limit)\b",
            E.quota_limited,
            0.96,
        ),
        # a tool's name for a model nothing installed serves (simonw/llm "'o1-mini' is not a known model")
        (
            "not_a_known_model",
            r"\bis not a (?:known|recogni[sz]ed|valid|supported|registered) model\b",
            E.model_unavailable,
            0.93,
        ),
        # an allowance counted over a stretch of minutes ("the public API is limited to around 20 queries per every
        # 30 minutes"): a limit whose window decides the wait
        (
            "limited_per_window",
            r"\blimited to (?:around |about |roughly |up to )?[\d,]+ (?:queries|requests|calls|messages|generations)"
            r" (?:per|every|each)\b",
            E.rate_limited,
            0.85,
        ),
        # seventeenth round, by class
        # a cap spent for a named calendar period or worded as a plan's allowance ("Maximum … reached for this month"
        # from Amazon Q, Warp's "Out of requests", its `QuotaLimit` error name): a quota, never a short retry
        (
            "maximum_reached_for_period",
            r"\bmaximum\b[^\n]{0,120}?\breached for (?:this|the current|the) (?:month|week|day|billing (?:cycle|period)"
            r"|period)\b|\bout of (?:requests|messages|queries|prompts|generations)\b"
            # (the count's maximum for the period: Happy "You've reached the maximum number of voice conversations
            # this month")
            r"|\b(?:reached|hit) the maximum (?:number of )?(?:[\w-]+ ){1,3}(?:this|per|a|each|for the) "
            r"(?:day|week|month)\b"
            r"|\bQuota_?Limit(?:Exceeded|Reached|Error)?\b",
            E.quota_limited,
            0.95,
        ),
        # a credit limit reached (Warp "You've reached your credit limit. Your credit limit resets on February 21."):
        # the plan's allowance, above the rate-limit words
        (
            "credit_limit_reached",
            r"\b(?:reached|hit|exceeded|used up) (?:your |the |its )?(?:monthly |plan(?:'s)? )?credit "
            r"(?:limit|allowance|cap)\b|\bcredit (?:limit|allowance) (?:resets|renews)\b",
            E.quota_limited,
            0.95,
        ),
        # unpaid invoices or a payment to update (Zed "Outstanding invoices. Please update your payment information"):
        # billing, above the "permission error" words around it
        (
            "unpaid_invoices",
            r"\b(?:outstanding|unpaid|overdue) (?:invoices?|payments?|balances?)\b"
            r"|\bupdate your (?:payment|billing) (?:information|method|details)\b",
            E.subscription_required,
            0.96,
        ),
        # a free tier, plan or trial that no longer exists (Qwen Code "Qwen OAuth free tier has been discontinued"):
        # the plan, above the 429 that carried it
        (
            "free_tier_discontinued",
            r"\bfree (?:tier|plan|trial|quota|access)\b[^.\n]{0,30}\b(?:has been |was |is (?:being )?)?(?:discontinued"
            r"|ended|retired|terminated|no longer (?:available|offered|supported))\b",
            E.subscription_required,
            0.96,
        ),
        # a gateway's guardrail that blocked the prompt or the answer (Cloudflare AI Gateway 2016 "Prompt blocked due
        # to security configurations", 2017 "Response blocked …"), a relay's compliance block in Chinese
        # (内容由于合规问题已被阻止生成), Runware's `sensitiveContentDetected` / `invalidProviderContent`, CLOVA
        # Studio's 40005 "Unavailable output" (a result withheld under internal policy): moderation
        (
            "content_blocked_by_policy",
            r"\b(?:prompt|response|request|input|output|completion|content|message)s? (?:was |were |has been )?"
            r"(?:blocked|filtered|rejected) (?:due to|by|because of) (?:the |your |our )?(?:\w+ )?(?:security "
            r"(?:configurations?|polic(?:y|ies))|(?:safety|content|moderation|guardrail)\w*(?: (?:configurations?"
            r"|polic(?:y|ies)|settings?|rules?|filters?))?)\b"
            r"|合规问题|(?:已被|被)(?:阻止|拦截|屏蔽)(?:生成|输出)|\bsensitiveContentDetected\b|\binvalidProviderContent\b"
            r"|\bunavailable output\b",
            E.content_policy,
            0.95,
        ),
        # the request over the model's own maximum in a runtime's words (Embedia "is longer than max_input_tokens",
        # TabbyAPI "Request length 71599 + 2048 is greater than max_seq_len 65536") and in Chinese
        # ("tokens数量（5000）超过了最大限制4096"): the request, not a wait
        (
            "over_max_input",
            r"\b(?:longer|greater|larger|more) than (?:the )?(?:model'?s )?max(?:imum)?[_ ]"
            r"(?:input[_ ](?:tokens|length)|seq(?:uence)?[_ ]len(?:gth)?|model[_ ]len(?:gth)?"
            r"|context[_ ](?:length|window|size)|prompt[_ ]tokens"
            r"|position[_ ]embeddings)\b|tokens?\s*数量.{0,20}超过.{0,6}最大",
            E.context_length_exceeded,
            0.94,
        ),
        # a local runtime that cannot hold the model (Jan's "ggml_vulkan: Memory allocation of size … failed", "Model
        # size exceeds available RAM") or cannot find its file (LocalAI "could not load model: … no such file or
        # directory"): this route cannot serve the model
        (
            "model_memory_or_file",
            r"\bmemory allocation of (?:size )?\d+ (?:bytes )?failed\b"
            r"|\bmodel(?:'s)? size exceeds (?:the )?(?:available|free|device) (?:V?RAM|memory)\b"
            r"|\b(?:could not|failed to|unable to|can'?t|cannot) load (?:the )?model\b[^\n]{0,300}\bno such file"
            r" or directory\b",
            E.model_unavailable,
            0.93,
        ),
        # a model retired or not found by the tool that names it (CLOVA Studio 40082 "Model fade out", RAGFlow's
        # "LLM(deepseek-r1___OpenAI-API@OpenAI-) not found", MixRoute's 503 "Model Unavailable: Please verify if the
        # model name is correct"): the model, not the server
        (
            "model_retired_or_unknown",
            r"\bmodel (?:fade[ -]?out|faded out|sunset(?:ted)?)\b|\(model retired\)"
            r"|\b(?:LLM|model)\s?\([^)\n]{1,120}\) (?:is )?not found\b"
            r"|\bverify (?:if |that |whether )?the model name is correct\b",
            E.model_unavailable,
            0.94,
        ),
        # the selected model too busy, with another model suggested (Kiro "The model you've selected is experiencing a
        # high volume of traffic. Try changing the model"): the model's capacity, above the provider's overload words
        (
            "model_high_traffic",
            r"\bmodel (?:you(?:'ve| have)? selected |selected )?is experiencing (?:a )?high (?:volume of )?(?:traffic"
            r"|demand|load)\b",
            E.model_capacity,
            0.93,
        ),
        # a provider or market over its capacity (GoToAI 503 `provider_over_capacity`), load shed by backpressure (Ray
        # Serve "Request dropped due to backpressure"): the provider too busy now, a short retry
        (
            "over_capacity_or_shed",
            r"\b\w*over_capacity\b|\b(?:dropped|rejected|shed) due to backpressure\b",
            E.provider_overloaded,
            0.92,
        ),
        # a queue in front of the model over its maximum size (Triton's per-model scheduler "Exceeds maximum queue
        # size", behind a NIM or alone) or with no room (Groq's legacy 503 `ErrorQueueFull`, "request queue is full",
        # `queue_full`, gradio_client's `QueueError` "Queue is full! Please try again." from a Space): no room for the
        # model's next request now, a short retry (until the twenty-first round read as the provider's overload; the
        # lines that taught it accept both)
        (
            "queue_full",
            r"\bexceeds? (?:the )?max(?:imum)? queue (?:size|length|depth)\b"
            r"|\bErrorQueueFull\b|\bqueue_full\b|\b(?:request |job |task |inference |server )?queue (?:is )?"
            r"(?:currently )?(?:full|at (?:max(?:imum)? )?capacity)\b"
            r"|\bmax(?:imum)? queue (?:size|length|depth) (?:reached|exceeded)\b",
            E.model_capacity,
            0.92,
        ),
        # a gateway that could not reach the inference backend behind it (RunComfy 11007
        # `InferenceServiceConnectionError`): the server, a short retry
        (
            "backend_connection_error",
            r"\b\w*(?:Service|Backend|Upstream|Deployment)ConnectionError\b",
            E.provider_unavailable,
            0.88,
        ),
        # a TLS connect that failed in Perl LWP's words ("500 Can't connect to host (SSL connect attempt failed)",
        # its internal response): the path to the provider
        (
            "lwp_cannot_connect",
            r"\bCan't connect to \S+ \((?:SSL connect attempt failed|Connection refused|Name or service not known"
            r"|timeout)[^)]*\)|\bSSL connect attempt failed\b",
            E.network_unavailable,
            0.9,
        ),
        # an account that no longer exists or was switched off (OpenAI "You do not have an account because it has
        # been deleted or deactivated"), a key limited to HTTP referrers called from elsewhere (Gemini "Requests from
        # referer <empty> are blocked"), a key "missing, expired, or incorrect": the user's to fix
        (
            "account_gone_or_key_restricted",
            r"\baccount\b[^.\n]{0,30}\b(?:has been|was|is) (?:deleted|deactivated)\b|\bdeleted or deactivated\b"
            r"|\brequests from referr?er \S+ (?:are|is) blocked\b|\bAPI_KEY_HTTP_REFERRER_BLOCKED\b"
            r"|\bkey is missing, (?:expired|invalid|incorrect)\b",
            E.auth_required,
            0.96,
        ),
        # eighteenth round, by class
        # a serving worker's own count of requests in flight over its maximum (NVIDIA NIM's 503 "ResourceExhausted:
        # Worker local total request limit reached (163/32)"): the model's servers are full now, not the user's quota;
        # above the quota words a "total request limit" reads otherwise
        (
            "worker_request_limit",
            r"\b(?:worker|replica|pod)\b(?: local)?"
            r"(?: total| concurrent| in-?flight| max(?:imum)?)? requests? limit (?:reached|exceeded|hit)\b",
            E.model_capacity,
            0.97,
        ),
        # a limit reached with nothing said of what it counts (Amazon Q "You have reached the limit."): an agent's plan
        # allowance as its notice words it, not a per-minute rate, which names itself ("rate limit", "too many
        # requests") or the wait (a limit followed by "try again in 20 seconds" is left to the generic limit words);
        # one step above the generic limit words
        (
            "bare_limit_reached",
            r"\byou(?:'ve| have) reached (?:the|your) limit\s*(?:[.!]|$)"
            r"(?![^\n]{0,80}\b(?:try again|retry|wait|seconds?|minutes?)\b)",
            E.quota_limited,
            0.82,
        ),
        # a limit on accounts or logins per device (Trae "Account limit reached on this device", "too many accounts are
        # logged in"): the login is the user's to sort out, no model window
        (
            "device_account_limit",
            r"\b(?:accounts?|logins?|sessions?|users?) limit (?:has been )?(?:reached|exceeded) on this (?:device"
            r"|machine|computer)\b|\btoo many accounts (?:are |have been )?(?:logged|signed) in\b"
            r"|\b(?:device|login) limit (?:has been )?(?:reached|exceeded)\b",
            E.auth_required,
            0.9,
        ),
        # a task failed by a safety check, named by its failure code (Runway's `SAFETY.INPUT.TEXT`,
        # `SAFETY.INPUT.IMAGE`, `SAFETY.OUTPUT.VIDEO` …): moderation, never retried
        (
            "safety_failure_code",
            r"(?-i:\bSAFETY\.(?:INPUT|OUTPUT)\.[A-Z_]+\b)",
            E.content_policy,
            0.95,
        ),
        # nineteenth round, by class
        # a model the server in front of the route does not serve, in the inference servers' and gateways' own words
        # (MLC LLM's 400 'The requested model "…" is not served.', FastChat's 40301 "Only vicuna-7b-v1.5&&chatglm3-6b
        # allowed now, your model gpt-3.5-turbo", a gateway's `model_not_allowed` "The model is not enabled for your
        # key.", AnythingLLM "DeepSeek chat: deepseek-coder is not valid for chat completion!"): another route may serve
        # it; above the 400 that carries it
        (
            "model_not_served",
            r"\bmodels?\b[^.\n]{0,60}\b(?:is|are) not (?:being )?served\b"
            r"|\bonly\b[^\n]{1,80}?\b(?:allowed|supported|served|available)(?: now)?\W{1,3}"
            r"(?:your|the requested) model\b"
            r"|\bmodel_not_allowed\b"
            r"|\bmodels?\b[^.\n]{0,40}\bnot (?:enabled|allowed|permitted) for (?:your|this) (?:api )?"
            r"(?:key|token|account|project)\b"
            r"|\bis not (?:a )?valid (?:model )?for (?:chat|completions?|chat completions?|embeddings?)\b",
            E.model_unavailable,
            0.92,
        ),
        # a model its provider marked legacy or end of life (Bedrock "Access denied. This Model is marked by provider as
        # Legacy and you have not been actively using the model in the last 30 days"): no longer served to this
        # account, above the "access denied" that heads it
        (
            "model_marked_legacy",
            r"\bmodels?\b[^.\n]{0,40}\b(?:is |has been )?marked (?:by (?:the |its )?provider )?as "
            r"(?:legacy|deprecated|retired|end[- ]of[- ]life)\b",
            E.model_unavailable,
            0.93,
        ),
        # a subscription disabled (Azure `ReadOnlyDisabledSubscription` "The subscription '…' is disabled and therefore
        # marked as read only", `SubscriptionDisabled`; Claude Code "Your organization has disabled Claude subscription
        # access for Claude Code"): a person must re-enable or pay, nothing resets by itself
        (
            "subscription_disabled",
            r"\b(?:ReadOnly)?DisabledSubscription\b|\bSubscriptionDisabled\b"
            r"|\bsubscription\b(?! key)[^.\n]{0,60}\b(?:is|has been|was) (?:disabled|deactivated)\b"
            r"|\bdisabled (?:[\w-]+ ){0,2}subscription\b(?! key)",
            E.subscription_required,
            0.96,
        ),
        # a limit named with its calendar period and said to be reached (SuperDocs' 429 "Monthly operation limit (500)
        # reached. Upgrade your plan for more operations.", LangWatch's 429 "Monthly limit of 10000 traces reached"):
        # the period's allowance, which resets, above the upsell beside it and the 429
        (
            "period_limit_reached",
            r"\b(?:daily|weekly|monthly|yearly|annual)\b (?:[\w-]+ ){0,2}limit\b(?: \(\d[\d,]*\)| of [\d,]+ [\w-]+)? "
            r"(?:has been |was |is )?(?:reached|exceeded|hit)\b",
            E.quota_limited,
            0.96,
        ),
        # a canned refusal that stands as the whole answer (Llama Stack's Llama Guard shield "I can't answer that. Can I
        # help with something else?", Higress ai-security-guard's default deny message "很抱歉，我无法回答您的问题"): a
        # safety verdict on the text
        (
            "canned_refusal",
            r"^\W*(?:(?:I.m |I am )?sorry,? (?:but )?)?I (?:can(?:no|.)t|can not|am unable to|won.t) "
            r"(?:answer|help with|assist with|respond to|do) (?:that|this)\b"
            # (a rail's canned answer naming the behaviour it refuses: NeMo Guardrails' ActiveFence flows "I will not
            # engage in any self harm behavior.", "… any abusive_or_harmful behavior.")
            r"|^\W*I (?:will not|won.t|cannot|can.t) engage in (?:any )?[\w ]{1,40} behaviou?r\b"
            r"|^\W*(?:很抱歉|抱歉|对不起)[，,]?\s*我(?:无法|不能)(?:回答|提供|协助)",
            E.content_policy,
            0.9,
        ),
        # a finish reason a client's validator refused, read by the value it refused (any-llm's pydantic "choices.0.
        # finish_reason Input should be 'stop', 'length', … 'content_filter' … [type=literal_error, input_value=
        # 'model_context_window_exceeded']"): the allowed values it lists are not the failure; above them
        (
            "finish_reason_refused_value",
            r"\bfinish_reason\b[^\n]{0,240}\binput_value=\W?(?:model_context_window_exceeded|context_length_exceeded"
            r"|context_window_exceeded)\b",
            E.context_length_exceeded,
            0.96,
        ),
        # a client or channel the provider does not approve (CodeBuddy 11128 "Illegal API invocation from an unapproved
        # channel", its display text "blocked by security policy"): the credential's use, not the request's content
        (
            "client_not_approved",
            r"\b(?:illegal|unapproved|unauthori[sz]ed) api (?:invocation|call|access)\b"
            r"|\bfrom an? (?:unapproved|unofficial|unauthori[sz]ed) (?:channel|client|application|app)\b",
            E.auth_required,
            0.92,
        ),
        # a prediction the platform interrupted, to be retried (Replicate "Prediction interrupted; please retry (code:
        # PA)"): the provider's side, not the request
        (
            "prediction_interrupted",
            r"\b(?:prediction|task|job|generation)s? (?:was |has been )?interrupted\b[^.\n]{0,10}\b(?:please )?retry\b",
            E.provider_unavailable,
            0.8,
        ),
        # a payment method to add before the account may use the model (Open Interpreter "You do not have access to
        # gpt-4o. If you are using an OpenAI model, you may need to add a payment method and purchase credits"): a
        # billing step; below the rate-limit words, since OpenAI's free-tier rate limit offers the same remedy
        (
            "payment_method_needed",
            r"\b(?:add|set up|attach|update) (?:a |your |an? valid )?payment method\b",
            E.subscription_required,
            0.8,
        ),
        # the agent's process gone when the client writes to it (CodeCompanion's ACP client "[acp::write_message]
        # Process not running"): the agent exited mid-session
        (
            "agent_process_gone",
            r"\b(?:agent |acp |child |the )?process (?:is )?(?:not|no longer) running\b",
            E.provider_unavailable,
            0.8,
        ),
        # twentieth round, by class
        # an answer that never came: an empty response or a stream that ended before any content or tool call (Kimi
        # CLI "The server returned an empty response.", pydantic-ai "Streamed response ended without content or tool
        # calls", Roo Code "The language model returned an empty response without any text or tool calls", whose
        # notice lists rate limiting among possible causes), a stream reader left with a partial chunk (js-genai
        # "Incomplete JSON segment at the end"): the transport, a short retry; above the rate-limit words a notice
        # names as a possible cause
        (
            "empty_answer",
            r"\b(?:returned|sent|gave|got|received) an empty (?:response|reply|answer)\b"
            r"|\b(?:streamed )?(?:response|stream|reply|answer) ended (?:without|before) (?:any )?"
            r"(?:content|text|output|tool calls|choices)\b"
            r"|\bincomplete (?:json|sse|stream) (?:segment|chunk|frame|event)s?\b"
            # (a response with no choices or an empty one, as clients report it: Copilot "Response contained no
            # choices.", LangChain "Received response with null value for `choices`", Cline "Model returned empty
            # response", CopilotChat.nvim "Failed to get response: empty response", FastGPT "LLM model response
            # empty", Budibase "The model completed without producing text or a tool call")
            # (not a chunk's missing attribute: "Chunk has no choices attribute" carries a server's own error)
            r"|\b(?:contained|returned (?:a )?response with) no choices\b|\bnull value for\W{0,2}choices\b"
            # (the model's answer, not a setup call's: Gemini CLI's "loadCodeAssist returned empty response" is its
            # account's setup)
            r"|\b(?:model|llm|provider|assistant|ollama|server)\b[^.\n]{0,20}\breturned (?:an )?empty (?:or \w+ )?"
            r"(?:response|reply|answer)\b|\bresponse: empty response\b"
            r"|\bmodel response (?:is |was )?empty\b"
            # (a response said empty, a stream with no data, no response at all from the provider or a session:
            # rsrch "Response was empty or whitespace only", one-api "no stream data received", MongoDB's chatbot "No
            # response from OpenAI", pi-agent-dashboard "No response from session")
            # (not one still awaited, "No response from provider yet", nor a form's field, "The survey response is
            # empty")
            r"|^\W*response (?:was|is) empty\b|\bno stream(?:ing)? data (?:was )?received\b(?! yet)"
            r"|\bno response from (?:the )?(?:provider|LLM|AI|assistant|session|OpenAI|Anthropic|Gemini)\b(?! yet)"
            # (in Chinese: "AI服务返回为空", "OpenAI API 返回空响应")
            r"|返回(?:为空|空响应|空内容|空结果)"
            # (BenchAI "code generation failed: empty response from model")
            # (not curl's 52 "Empty reply from server", a connection closed before any answer: the transport's)
            r"|\bempty (?:response|reply|answer) from (?:the )?(?:model|llm|provider)\b"
            r"|\bmodel completed without producing (?:any )?(?:text|output|content)\b"
            # (in German: Kilo Code "Die Antwort des Modells endete unerwartet (keine Assistant-Nachrichten)")
            r"|\bAntwort des Modells endete unerwartet\b|\bkeine Assistant-Nachrichten\b"
            # (the AI SDK: "AI_NoOutputGeneratedError: No output generated.")
            r"|\bNoOutputGeneratedError\b",
            E.stream_truncated,
            0.87,
        ),
        # the bridge or channel to an agent closed before its turn ended (the AI SDK's harnesses "gemini-cli ACP
        # bridge closed before turn end.", "OpenCode bridge closed before the turn finished."): the agent gone
        # mid-turn
        (
            "agent_bridge_closed",
            r"\b(?:bridge|channel|agent connection)\b[^.\n]{0,20}\bclosed before (?:the )?turn"
            r"(?: (?:end|ended|finished|completed|complete))?\b"
            # (or before it answered the handshake: the ACP Rust SDK's HTTP transport "agent closed before initialize
            # response")
            r"|\b(?:agent|bridge|channel)\b[^.\n]{0,20}\b(?:closed|exited|died) before (?:the )?"
            r"initiali[sz](?:e|ation)\b",
            E.provider_unavailable,
            0.8,
        ),
        # a WebSocket session closed under the client (openai-python's Responses WebSocket
        # `WebSocketConnectionClosedError` "WebSocket connection closed with unsent messages"): the network path
        (
            "websocket_closed",
            r"\bWebSocket connection (?:was )?closed\b|\bWebSocketConnectionClosedError\b"
            # (or by its close code, with no reason: pi's Codex transport "WebSocket closed 1006")
            r"|\bWebSocket (?:was )?closed\W{1,3}10(?:0[0-9]|1[0-5])\b",
            E.network_unavailable,
            0.8,
        ),
        # a Node process that crashed on an unhandled 'error' event (the pi coding agent's "throw er; // Unhandled
        # 'error' event" with "Error: write EPIPE" on its host's pipe): the agent process died mid-turn, whatever the
        # errno it died of; one step above the network words of that errno
        (
            "node_process_crashed",
            r"\bthrow er; // Unhandled 'error' event\b",
            E.provider_unavailable,
            0.81,
        ),
        # a guardrail's or shield's verdict in its own words (NeMo Guardrails' `JailbreakDetectionRailException`
        # "Jailbreak attempt detected", Open WebUI's Detoxify filter "Toxic message detected", the OpenAI Agents SDK's
        # `InputGuardrailTripwireTriggered` "Guardrail InputGuardrail triggered tripwire" and `ModelRefusalError` "Model
        # refused to produce output", APISIX's "Request blocked by Lakera Guard", Kong's "candidate breached Gemini
        # content safety"): a refusal of the content, above the 400 or 500 a gateway or pipeline carries it under
        (
            "guardrail_verdict",
            r"\b(?:jailbreak|prompt injection)(?: attempt)? detected\b|\b\w*(?:Jailbreak|Injection)\w*RailException\b"
            r"|\b(?:toxic|harmful|unsafe|offensive) (?:message|content|prompt|input|language|output) detected\b"
            r"|\bguardrail\b[^.\n]{0,40}\btriggered (?:a |the )?tripwire\b"
            r"|\b(?:Input|Output)GuardrailTripwireTriggered\b"
            r"|\bmodel refused to (?:produce|generate|give|return) (?:an? |any )?(?:output|answer|response)\b"
            r"|\bModelRefusalError\b"
            r"|\bblocked by (?:[\w.-]+ ){0,2}(?:guard|guardrails?|shield)\b"
            r"|\bbreached (?:the )?(?:[\w-]+ ){0,2}(?:content )?safety\b"
            # (a validator's verdict on sentences: Guardrails AI's ToxicLanguage "The following sentences in your
            # response were found to be toxic")
            r"|\b(?:were|was|is|are) found to be (?:toxic|harmful|unsafe|offensive|profane|abusive)\b"
            # (a gateway's guard named by its id: LangDB "Guard 'toxicity-check' not passed" under its 446, Otoroshi's
            # `guardrail_denied` "This message has been blocked by the 'semantic_contains' guardrails !"; a PII guard:
            # vLLM's router "PII detected in request", Akamai's Firewall for AI "Detected potential PII in user input")
            r"|\bguard(?:rail)?s? '[^'\n]{1,80}' (?:not passed|failed|denied|triggered)\b|\bguardrail_denied\b"
            r"|\bblocked by the '[^'\n]{1,80}' guardrails?\b|\bPII (?:was )?(?:detected|found)\b"
            r"|\bdetected (?:potential |possible )?PII\b",
            E.content_policy,
            0.95,
        ),
        # the answer stopped at its output limit, in an agent's words (Copilot Chat "Sorry, the response hit the
        # length limit", Kilo Code "The maximum number of completion tokens was reached."): the same request stops
        # there again; above the bare "limit reached" words
        (
            "answer_hit_length_limit",
            r"\b(?:response|answer|output|reply) hit the (?:length|token|output|max(?:imum)? tokens?) limit\b"
            r"|\bmax(?:imum)? (?:number of )?(?:completion|output|response) tokens (?:was |were |has been |have been )?"
            r"reached\b"
            # (in German: Kilo Code "Die maximale Anzahl an Completion-Tokens wurde erreicht.")
            r"|\bmaximale Anzahl an (?:Completion-|Ausgabe-|Antwort-)?Tokens wurde erreicht\b"
            # (an agent loop's exception for the stop reason: Strands `MaxTokensReachedException` "Agent has reached an
            # unrecoverable state due to max_tokens limit")
            r"|\bMaxTokensReached(?:Exception|Error)?\b|\bdue to \W?max_(?:output_|completion_)?tokens\W? limit\b",
            E.context_length_exceeded,
            0.92,
        ),
        # a window overflowed in a server's own error words (llamafile's plain-text `out_of_context` and
        # `out_of_context_due_to_long_message`, under a 400 or its prefill's 500), a conversation over a pipeline's
        # turn limit (Open WebUI's "Conversation turn limit exceeded. Max turns: 10" under 500): the same
        # conversation fails again anywhere
        (
            "server_out_of_context",
            r"\bout_of_context(?:_\w+)?\b|\bconversation (?:turn|message) limit (?:exceeded|reached)\b"
            # (a session's own token limit: Qwen Code over ACP "Session token limit exceeded: 210000 tokens > 200000
            # limit. Please start a new session")
            r"|\b(?:session|conversation|chat|thread) token limit (?:exceeded|reached)\b",
            E.context_length_exceeded,
            0.92,
        ),
        # gRPC's message-size check (grpc-go "grpc: received message larger than max (5242880 vs. 4194304)", "trying
        # to send message larger than max") under ResourceExhausted: the request's size, not a rate or a window
        (
            "grpc_message_too_large",
            r"\b(?:received|receiving|sent|sending|send) message (?:larger|bigger|longer) than max(?:imum)?\b",
            E.invalid_request,
            0.9,
        ),
        # a local server's model slots or devices taken by other models (Lemonade's 409 `slots_pinned_error` "All
        # loaded models … are pinned. Unload a model first.", `router_residency_conflict` "cannot coexist with resident
        # model … requires exclusive NPU access"), a pending-token queue at its maximum (vLLM `MaxPendingTokensError`
        # "Request queue reached max pending tokens limit." under 503): no room for the model now, above the 409/503
        (
            "model_slots_taken",
            r"\bunload (?:a|another|some|one) model first\b|\bloaded models?\b[^.\n]{0,40}\b(?:are|is) pinned\b"
            r"|\bcannot coexist with (?:the )?(?:resident|loaded) model\b|\bresidency conflict\b"
            r"|\brequires? exclusive (?:NPU|GPU|device|accelerator) access\b"
            r"|\bmax(?:imum)? pending (?:tokens|requests)(?: limit)?\b|\bMaxPending\w*Error\b",
            E.model_capacity,
            0.9,
        ),
        # a backend process that died during the request and was reset (Lemonade `backend_watchdog_reset` "llamacpp was
        # unresponsive and has been reset by the backend watchdog. The model will be reloaded automatically on
        # retry."): the server's own backend, a short retry
        (
            "backend_reset",
            r"\breset by (?:the )?(?:backend |server )?watchdog\b"
            r"|\b(?:backend|runner|worker|engine) process (?:exited|crashed|died) during (?:the )?request\b",
            E.provider_unavailable,
            0.8,
        ),
        # a relay's channel disabled for the request (new-api "The channel selected by channel affinity has been
        # disabled, and retry was stopped by rule"): that relay's route is down for now
        (
            "relay_channel_disabled",
            r"\bchannel\b[^.\n]{0,50}\b(?:has been|was|is) disabled\b",
            E.provider_unavailable,
            0.8,
        ),
        # a plan that does not include the model, in a tool's words (Ollama's agent "plan upgrade required:
        # gpt-oss:120b-cloud needs plan pro, you have free"): a person must upgrade
        (
            "plan_upgrade_required",
            r"\b(?:plan|tier|subscription) upgrade (?:is )?required\b"
            r"|\bneeds? (?:the |a )?(?:plan|tier) [\w-]+\W{1,3}you (?:have|are on) [\w-]+\b",
            E.subscription_required,
            0.96,
        ),
        # a login the CLI asks for by its slash command (Kimi CLI 'LLM not set, send "/login" to login'), or to be
        # logged in with the selected provider (Kilo Code "make sure you are connected and logged in with the selected
        # provider"): credentials
        (
            "login_command",
            r"\b(?:send|type|use|enter|run)\W{1,2}/log ?in\b"
            r"|\b(?:signed|logged) in (?:with|to) the (?:selected|chosen|current|configured) provider\b",
            E.auth_required,
            0.92,
        ),
        # abuse protection over failed requests (Venice "Too many failed attempts (> 20) resulting in a non-success
        # status code. Please wait 30s and try again."): a short block that lifts by itself
        (
            "failed_attempts_block",
            r"\btoo many failed (?:attempts|requests)\b",
            E.rate_limited,
            0.85,
        ),
        # a model refused by its name or by the group's permission, in Chinese (AIHubMix's 503
        # "模型名字错误…或当前分组下对于模型无使用权限"): the model is not served to this key; above the 503
        (
            "model_name_or_permission_zh",
            r"模型名(?:字|称)?(?:错误|不存在|有误)|(?:对于?|对该)?模型(?:无|没有)(?:使用)?权限",
            E.model_unavailable,
            0.92,
        ),
        # the same classes in Japanese (LobeChat's locale: "Anthropic APIキーが正しくないか空です" a key wrong or
        # empty, "お住まいの地域ではこのモデルサービスをサポートしていません" a region not served,
        # "リクエストが多すぎて" too many requests)
        (
            "key_invalid_ja",
            r"APIキーが(?:正しくない|無効|間違っ|空)",
            E.auth_required,
            0.92,
        ),
        (
            "region_unsupported_ja",
            r"(?:お住まいの|現在の|所在)?地域(?:では|で|は)[^。]{0,30}サポートしていません|地域制限",
            E.provider_not_configured,
            0.95,
        ),
        (
            "too_many_requests_ja",
            r"リクエストが多すぎ",
            E.rate_limited,
            0.85,
        ),
        # a request refused for its conversation's shape in an inference server's words (SGLang "Assistant message at
        # index 3 has no content or tool calls", "First message should be from 'user' or 'system'"; Zhipu 1214 "The
        # messages parameter is illegal"): the same history fails wherever it is sent
        (
            "conversation_shape",
            r"\b(?:assistant|user|system|tool) message (?:at index \d+ )?has no (?:content|text)\b"
            r"|\bfirst message (?:should|must) be from\b"
            r"|\bmessages? parameter is (?:illegal|invalid)\b",
            E.invalid_request,
            0.88,
        ),
        # twenty-first round, by class
        # Go's net/http transport in its own words (errServerClosedIdle "http: server closed idle connection" when a
        # pooled keep-alive connection is closed under a POST, http2's "client connection lost", a GOAWAY): the path
        (
            "go_http_transport",
            r"\bhttp2?: (?:server closed idle connection|client connection (?:lost|force closed)"
            r"|server sent GOAWAY|Transport received (?:Server's )?(?:graceful shutdown )?GOAWAY)\b",
            E.network_unavailable,
            0.8,
        ),
        # a local server's process that died under the session (RamaLama "Server process (PID 48213) was terminated by
        # signal 9 … the server is no longer running", LM Studio "The model crashed without additional information"):
        # the server, which a retry starts again
        (
            "server_process_died",
            r"\b(?:server|backend|runner|worker|engine|model|inference) process\b[^.\n]{0,30}\b(?:was )?"
            r"(?:terminated|killed) by signal\b|\bserver is no longer running\b"
            r"|\b(?:the )?(?:model|runner|engine|backend) (?:process )?(?:has )?crashed\b"
            # (or never came up: Alpaca "Managed Ollama instance failed to start")
            r"|\b(?:instance|server|runner|backend|engine) (?:failed to|could not|couldn.t|did not) start\b",
            E.provider_unavailable,
            0.8,
        ),
        # a stream that stopped producing chunks and was given up by a stall watchdog (nanobot "Error calling LLM:
        # stream stalled"): cut short, a short retry
        (
            "stream_stalled",
            r"\bstream(?:ing)? (?:has |was )?stalled\b|\bstalled (?:stream|response)\b",
            E.stream_truncated,
            0.75,
        ),
        # a request left to wait on the server and expired there (the xAI SDK's deferred completion "Deferred request
        # expired."): it ran out of time, a short retry
        (
            "deferred_request_expired",
            r"\b(?:deferred|queued|pending|background|async) (?:request|completion|job|task) (?:has |had )?expired\b",
            E.timeout,
            0.75,
        ),
        # no server, worker or node of a swarm or a pool able to serve the model now (Petals `MissingBlocksError` "No
        # servers holding blocks [16, 17, 18] are online", AI Horde through SillyTavern "There are no Horde workers that
        # are able to generate text with your request"): the model's capacity
        (
            "no_servers_online",
            r"\bno (?:[\w-]+ ){0,2}?(?:servers|workers|nodes|peers|replicas)\b[^.\n]{0,60}?\b(?:are|is) "
            r"(?:online|available|able to)\b|\bMissingBlocksError\b",
            E.model_capacity,
            0.9,
        ),
        # a model no provider serves (huggingface.js "No Inference Provider available for model meta-llama/…"): the
        # model here, another route may have it
        (
            "no_provider_for_model",
            r"\bno (?:inference )?providers? (?:is |are )?available for (?:the |this )?model\b",
            E.model_unavailable,
            0.92,
        ),
        # a local server with no model at all (Tabby's Ollama binding "Ollama instances does not have any models"),
        # a model that needs a newer runtime (Nexa "model requires higher version"), an API a model or config cannot be
        # driven through (Wave Terminal "Chat completions API not available (must use newer OpenAI models)"): this
        # route cannot serve the model
        (
            "model_not_servable_here",
            r"\b(?:does not|doesn.t|do not|don.t) have any models\b"
            r"|\bmodel requires (?:a )?(?:higher|newer|later) (?:version|release)\b"
            r"|\b(?:chat completions|completions|responses|messages) api (?:is )?not (?:available|supported)\b"
            # (a server with no model loaded for the task: LlamaEdge "There is no model available in the chat graphs")
            r"|\bthere (?:is|are) no models? (?:available|loaded) in\b",
            E.model_unavailable,
            0.92,
        ),
        # a request that names no model (Tabby "No model name is provided but prompt or chat templates are set. Please
        # set model name explicitly"), or one a client refuses to send as it stands (the Anthropic SDK's "Streaming is
        # required for operations that may take longer than 10 minutes"): the caller must change it
        (
            "request_needs_change",
            r"\bno model(?: name)? (?:is |was )?(?:provided|specified|given)\b|\bset (?:the )?model name explicitly\b"
            r"|\bstreaming is (?:strongly )?required for (?:operations|requests)\b",
            E.invalid_request,
            0.88,
        ),
        # a server's memory that cannot be had right now (a Petals server's attention cache "AllocationFailed: Could not
        # allocate 1073741824 bytes immediately: out of memory"), a pipeline not loaded yet (OpenVINO Model Server
        # "Mediapipe is not loaded yet"): the model's capacity for now, a short retry; above the memory and
        # not-loaded words of a model that cannot fit
        (
            "capacity_not_yet",
            r"\bcould not allocate [\d,]+ ?(?:bytes|[KMGT]i?B)? immediately\b|\bAllocationFailed\b"
            r"|\b(?:is |are )?not (?:yet )?loaded yet\b"
            # (a fine-tune's adapter still being fetched onto the shard: LoRAX "Adapter my-org/x/3 is not yet
            # available" under 424)
            r"|\b(?:adapter|lora|model|pipeline) \S{1,120} is not yet (?:available|loaded|ready)\b",
            E.model_capacity,
            0.94,
        ),
        # a plan this account cannot use (Cline "Organization accounts cannot use ClinePass subscriptions"), a
        # subscription the tool could not find (SillyTavern "Could not load NovelAI subscription data. Are you
        # subscribed?"): a person must sort out the plan
        (
            "plan_not_for_account",
            r"\b(?:organi[sz]ation|team|personal|individual|enterprise|free) accounts? (?:cannot|can.t|can not|may not"
            r"|are not allowed to) use\b[^.\n]{0,40}\bsubscriptions?\b"
            r"|\bare you subscribed\b|\b(?:could not|couldn.t|failed to) (?:load|fetch|read) (?:[\w-]+ ){0,2}"
            r"subscription (?:data|status|info)\b",
            E.subscription_required,
            0.96,
        ),
        # a prompt larger than its own token budget (SillyTavern "Token budget exceeded. Not enough free tokens for
        # mandatory prompts. Raise your token Limit"): the context, one step above a gateway's budget words
        (
            "prompt_over_token_budget",
            r"\bnot enough (?:free |remaining |available )?tokens (?:left )?for (?:the )?(?:mandatory |required )?"
            r"(?:prompts?|messages?|context)\b",
            E.context_length_exceeded,
            0.965,
        ),
        # twenty-second round, by class
        # a response body that ended before its declared length, in each client's words (AWS SDK for JavaScript
        # `StreamContentLengthMismatch` "Received 20480 of 65536 bytes", Symfony HttpClient and libcurl "Transfer
        # closed with 18342 bytes remaining to read", axios "stream has been aborted"): cut short, a short retry
        (
            "body_short_of_length",
            r"\bStreamContentLengthMismatch\b|\bcontent[- ]length mismatch\b|\breceived \d+ of \d+ bytes\b"
            r"|\btransfer closed with \d+ bytes remaining\b|\b(?:response )?stream has been aborted\b",
            E.stream_truncated,
            0.8,
        ),
        # an agent's process gone under the host writing to it (the Claude Agent SDK's `CLIConnectionError` "Cannot
        # write to terminated process (exit code: 137)"): the agent, which a retry starts again; above the SDK's
        # connection class, which is its transport's
        (
            "agent_process_terminated",
            r"\b(?:cannot|can.t|unable to|failed to) (?:write|send|read) (?:to|from) (?:a |the )?"
            r"(?:terminated|exited|dead|closed) process\b",
            E.provider_unavailable,
            0.9,
        ),
        # a prompt over the server's own maximum length in its scheduler's words (rtp-llm "input len 32760 … exceeds
        # max seq len 32768", "input len 98304 is greater than kv cache max available tokens num 65536", with the
        # `511_LONG_PROMPT_ERROR` / `607_EXCEEDS_KV_CACHE_MAX_LEN` codes) under a 500: the context
        (
            "input_len_over_max",
            r"\binput (?:len(?:gth)?|tokens?)\W{0,3}\d+\b[^.\n]{0,60}?\b(?:exceeds?|is (?:greater|larger|longer) than)"
            r" (?:the )?(?:[\w-]+ ){0,3}?max\w*\b(?![^.\n]{0,30}\bper (?:second|minute|min|hour|day)\b)"
            r"|\b\d*_?(?:LONG_PROMPT_ERROR|EXCEEDS_KV_CACHE_MAX_LEN)\b",
            E.context_length_exceeded,
            0.92,
        ),
        # ChatLuna's numbered errors, whose message is only the number ("使用 ChatLuna 时出现错误，错误码为 104。",
        # ChatLunaErrorCode): API_KEY_UNAVAILABLE 100, API_REQUEST_TIMEOUT 102, API_UNSAFE_CONTENT 104
        ("chatluna_code_key", r"(?:ChatLuna|ChatHub) ?时出现错误，错误码为 ?100\b", E.auth_required, 0.97),
        ("chatluna_code_timeout", r"(?:ChatLuna|ChatHub) ?时出现错误，错误码为 ?102\b", E.timeout, 0.97),
        ("chatluna_code_unsafe", r"(?:ChatLuna|ChatHub) ?时出现错误，错误码为 ?104\b", E.content_policy, 0.97),
        # twenty-third round, by class
        # a stream that ended without the message that closes it, in a client's words (ollama-js "Did not receive done
        # or success response in stream."): cut short, a short retry
        (
            "stream_without_final",
            r"\bdid not receive (?:a |the )?(?:done|final|success|end)\b[^.\n]{0,30}\bin (?:the )?stream\b"
            r"|\bstream ended without (?:a |the )?(?:done|final|end|success)\b",
            E.stream_truncated,
            0.8,
        ),
        # a model or server silent for a stated time (Grok Build's SamplingError::IdleTimeout "No response from model
        # for 180s — the model may be stuck"): the client's idle timeout, a timeout
        (
            "no_response_for_duration",
            r"\bno (?:response|output|tokens?|data|reply) from (?:the )?"
            r"(?:model|server|provider|upstream|backend|agent)s? (?:for|in|after|within) (?:over |more than )?"
            r"\d+(?:\.\d+)?\s*(?:ms|s|secs?|seconds?|m|mins?|minutes?)\b",
            E.timeout,
            0.85,
        ),
        # a service's endpoint named not reachable (Javelin's GUARDRAIL_ENDPOINT_UNREACHABLE "Guardrail service endpoint
        # is not reachable"): the path to it, a short retry
        (
            "endpoint_unreachable",
            r"\b(?:service|server|api|host) endpoint (?:is |was )?(?:not reachable|unreachable)\b",
            E.network_unavailable,
            0.85,
        ),
        # a content filter's verdict in its own words (Upsonic's safety policies "This content has been blocked as it
        # contains …", vLLM semantic router "Response blocked: jailbreak content detected in LLM output" under 403,
        # Kling's 1300 "Platform policy triggered" under 400): moderation, above the status that carries it
        (
            "blocked_as_it_contains",
            r"\b(?:content|request|message|response|input|output|prompt) (?:has been|was|is) blocked "
            r"(?:as|because|since) it contains\b"
            r"|\b(?:response|request|content) blocked: [^.\n]{0,40}\b(?:detected|jailbreak|unsafe|harmful)\b"
            r"|\bjailbreak (?:content |attempt |prompt )?detected\b|\bplatform policy triggered\b",
            E.content_policy,
            0.95,
        ),
        # a conversation over its token budget with both counts (Grok Build's sampler "[conversation] Current message
        # (1000000 tokens) exceeds budget (500000 tokens)" inside a 400), and a request too large for the chosen model
        # (SurfSense MODEL_CONTEXT_LIMIT "This request is too large for the selected model"): the context
        (
            "tokens_over_budget",
            r"\(\d[\d,]* tokens\) exceeds (?:the )?(?:token |context )?budget\b"
            r"|\brequest is too large for the (?:selected |current |chosen )?model\b",
            E.context_length_exceeded,
            0.92,
        ),
        # a spending cap reached, on a gateway's key or an agent's run (octopus "API key has reached the max cost" under
        # 401, SWE-agent's `CostLimitExceededError` exit "Exit due to cost limit"): a budget, a wait or a fallback
        (
            "cost_limit_reached",
            r"\b(?:reached|exceeded|hit) (?:the |its |your )?max(?:imum)? cost\b|\bexit(?:ed)? due to cost limit\b"
            r"|\bcost limit (?:was |has been )?(?:exceeded|reached)\b|\bCostLimitExceeded(?:Error)?\b",
            E.quota_limited,
            0.97,
        ),
        # a free allowance used up (SurfSense ANON_QUOTA_EXCEEDED "You've used all your free tokens. Create an account
        # for 5M more!" under 429): a quota, above the 429
        (
            "free_allowance_used",
            r"\b(?:you.ve|you have) used (?:up )?all (?:of )?(?:your |the )?free (?:tokens|queries|requests|messages"
            r"|generations|uses|runs)\b",
            E.quota_limited,
            0.9,
        ),
        # requests over a limit in Chinese (Hunyuan FailedOperation.EngineServerLimitExceeded
        # "引擎层请求超过限额；请稍后重试。"): a rate limit
        ("requests_over_limit_zh", r"请求(?:数|次数|量)?超过(?:了)?(?:限额|限制|上限)", E.rate_limited, 0.9),
        # a router's queue full (Dynamo's KV router QueueRejection "router policy class "default" queue requests limit
        # reached (current=256, limit=256)" under 529): the server's capacity, above the limit words
        (
            "queue_limit_reached",
            r"\bqueue (?:requests |size |depth |length )?limit (?:was |has been )?(?:reached|exceeded)\b",
            E.provider_overloaded,
            0.92,
        ),
        # a request the SDK refuses before sending, for what the chosen model cannot take (token.js "Detected a 'tools'
        # parameter, but the following model does not support tools", nullclaw "The current provider does not support
        # image input"; OpenAI's JSON mode "must include the string 'JSON' somewhere in your prompt"): the request
        (
            "model_cannot_take_input",
            r"\b(?:model|provider) (?:does not|doesn.t) support (?:tools|tool (?:calls|calling|use)|function calling"
            r"|image (?:input|inputs)|images|vision)\b|\bmust (?:include|contain) the (?:string|word) \W?json\W? "
            r"(?:somewhere )?in\b",
            E.invalid_request,
            0.9,
        ),
        # more tools than the provider takes in one request (Antigravity's executor "number of tools exceeds 128"): the
        # request, which no other route takes either
        ("too_many_tools", r"\bnumber of tools exceeds \d+\b", E.invalid_request, 0.9),
        # a model the SDK's own table does not list (token.js InputError "Invalid 'model' field: gpt-4.5-turbo.")
        ("invalid_model_field", r"\binvalid \W?model\W? field\b", E.model_unavailable, 0.85),
        # a subscription named inactive (Augment "Your subscription for … is inactive. Please update your plan")
        (
            "subscription_inactive",
            r"\bsubscription (?:for \S{1,120} )?(?:is|has become) (?:inactive|not active|no longer active)\b",
            E.subscription_required,
            0.95,
        ),
        # a response with no status at all (Faraday::NilStatusError "http status could not be derived from the server
        # response"): the server's reply, not the path to it
        (
            "nil_status",
            r"\bNilStatusError\b|\bhttp status could not be derived\b",
            E.provider_unavailable,
            0.8,
        ),
        # every provider of a client's own chain failed, no cause named (nullclaw AllProvidersFailed "All configured
        # providers failed for this request")
        (
            "all_providers_failed",
            r"\ball (?:configured |available )?providers (?:have )?failed\b",
            E.provider_unavailable,
            0.75,
        ),
        # a request the client's abort signal ended (Google Gen AI JS "Request aborted when fetching …: This operation
        # was aborted", its controller fired by the SDK's own timeout): a timeout. The office's own cancel never
        # reaches the classifier (the turn is cancelled, not failed), so in a run the signal is the SDK's timer
        (
            "request_aborted",
            r"\brequest aborted (?:when|while)\b|\bthis operation was aborted\b",
            E.timeout,
            0.78,
        ),
        # an abort the caller asked for in so many words (openai-node's APIUserAbortError "Request was aborted.", the
        # words Claude Code prints on it, "aborted by user"): nobody's fault that a retry would mend, unknown above the
        # abort and timeout words. Not .NET's "The request was aborted: <cause>", which names the cause after it
        (
            "user_aborted",
            r"\bAPIUserAbortError\b|\brequest was aborted\b(?!:)|\buser aborted a request\b"
            r"|\baborted by (?:the )?user\b",
            E.unknown,
            0.95,
        ),
        # a reply the client could not read as a stream or as JSON (Google Gen AI JS "Failed to parse stream", "Error
        # parsing JSON response: …" with half an object): the answer was cut on its way, a short retry. Not a model
        # that answered prose where JSON was asked (Gemini CLI "Failed to parse JSON response from generateJson"), a
        # page that is no JSON ("Unexpected token '<'"), nor a stream in another protocol (the AI SDK's "Failed to
        # parse stream string")
        (
            "answer_unreadable",
            r"\bfailed to parse stream\b(?! string)|\berror parsing json response: [\"']?[{\[]",
            E.stream_truncated,
            0.78,
        ),
        # Apple's URL loading system names a timeout by its code (NSURLErrorTimedOut, -1001), above the domain's
        # network words
        (
            "nsurl_timed_out",
            r"\bNSURLErrorTimedOut\b|\bNSURLErrorDomain\W{1,3}code\W{1,3}-1001\b",
            E.timeout,
            0.82,
        ),
        # a limit over the whole life of a key or an account ("Total API call limit reached"): no short wait resets
        # it, a quota above the generic limit words
        (
            "lifetime_total_limit",
            r"\btotal (?:api )?(?:calls?|requests?) limit\b"
            r"(?![^.\n]{0,40}\b(?:second|minute|hour|day|week|month)s?\b)",
            E.quota_limited,
            0.85,
        ),
        # the input itself over a limit in a server's words (MemOS "Input content has reached the limit", TEI
        # "`inputs` must have less than 2048 characters", Amazon Q "too large for me to use as context"): the context,
        # above the generic limit words and a 422
        (
            "input_over_limit",
            r"\binput (?:content|text|length) (?:has )?(?:reached|exceeded|exceeds) (?:the |its )?(?:max\w* )?limit\b"
            r"|\binputs?`? must have less than \d+ (?:characters|tokens)\b|\btoo large (?:for me )?to use as context\b"
            # (CLOVA Studio's 400, the whole message "Text too long"; not a chat app's "text is too long" for its own
            # message)
            r"|^text too long\b",
            E.context_length_exceeded,
            0.92,
        ),
        # a proxy that could not read the request it was given (Higress "failed to process request body: missing
        # model in request"): the request, whatever 5xx the proxy answered with
        (
            "request_body_refused",
            r"\bfailed to (?:process|parse) (?:the )?request body\b|\bmissing model in (?:the )?request\b",
            E.invalid_request,
            0.88,
        ),
        # a moderation scanner's verdict by category and threshold (APISIX ai-aws-content-moderation "request body
        # exceeds toxicity threshold", LLM Guard "Prompt … is not valid, scores: {'Toxicity': 0.92}"), an image
        # model's banned prompt words ("Banned Prompt: gore")
        (
            "moderation_verdict",
            r"\bexceeds (?:the )?(?:toxicity|hate[ _]speech|harassment|violence|sexual|self[ _-]harm|insult|profanity"
            r"|graphic|threat)\w* threshold\b|\bbanned prompt\b"
            # (LLM Guard: a content scanner's score above zero; its TokenLimit, Language or Secrets verdicts are not)
            r"|\bis not valid, scores: \{[^}]*'(?:Toxicity|NoRefusal|BanTopics|BanSubstrings|PromptInjection|Bias"
            r"|Sentiment|MaliciousURLs)': (?:0\.\d*[1-9]|1(?:\.0+)?\b)",
            E.content_policy,
            0.95,
        ),
        # a plan to subscribe to before a model or feature can be used (Zed "You must subscribe to a plan in order to
        # use models provided by Zed"): an account step, above the 403 that carries it
        # Go's url.Error for a connection the server closed before any reply (Antigravity "Post \"https://…\": EOF"):
        # the network path, not an answer
        (
            "go_url_eof",
            r"\b(?:Get|Post|Put|Patch|Delete|Head) \"[^\"\n]{1,300}\": (?:unexpected )?EOF\b",
            E.network_unavailable,
            0.8,
        ),
        # a relay's own 4xx over its upstream's named 429 (Joplin Cloud "Error: Upstream returned 429"): the rate limit
        (
            "upstream_rate_limited",
            r"\bupstream (?:returned|responded with|status(?: code)?:?) 429\b",
            E.rate_limited,
            0.85,
        ),
        # a proxy that holds no credential to send (CLIProxyAPI "auth_unavailable: no auth available"), whatever 5xx
        ("no_auth_available", r"\bno auth(?:entication)? (?:available|configured)\b", E.missing_credentials, 0.9),
        # a balance or a prepaid resource package used up (Zhipu's 1113 "Insufficient balance or no resource package.
        # Please recharge."): billing, as 1113 is, above the "Rate limit exceeded. Please wait a moment" headline an
        # agent puts over it
        (
            "resource_package_spent",
            r"\bno resource package\b|\bresource package (?:is )?(?:exhausted|used up|insufficient)\b",
            E.subscription_required,
            0.99,
        ),
        # a limit reached with a plan's upgrade offered as the way past it (Zed "Model request limit reached. Upgrade
        # to Zed Pro for more requests."): the plan's allowance, which no short retry outlasts; not a rate limit's
        # own words, which a higher tier only raises ("Rate limit reached. Upgrade to the next tier for more requests")
        (
            "limit_then_upgrade",
            r"^(?!.*\b(?:rate[ _-]?limit|per minute|RPM|TPM|requests per min)).*?"
            r"(?:\b(?:reached|hit|exceeded)\b[^.\n]{0,30}\blimit\b|\blimit\b[^.\n]{0,30}\b(?:reached|hit|exceeded)\b)"
            r"[^\n]{0,80}\bupgrade (?:to|your)\b",
            E.quota_limited,
            0.96,
        ),
        # a limit reached with the user's own key offered as the other way past it (VT Chat "You have reached the daily
        # limit of requests. Please try again tomorrow or use your own API key."): the allowance, above the key words
        (
            "limit_or_own_key",
            r"\blimit\b[^\n]{0,120}\bor use your own (?:[\w-]+ ){0,2}api[ _-]?key\b",
            E.quota_limited,
            0.96,
        ),
        # a prompt the model's chat template cannot render (LM Studio "Error rendering prompt with jinja template: …"):
        # this request with this model
        (
            "chat_template_failed",
            r"\berror rendering prompt with jinja template\b",
            E.invalid_request,
            0.9,
        ),
        # a server started without what tools or templates need (llama.cpp without `--jinja`: "tools param requires
        # --jinja flag", "Unsupported param: tools"; vLLM serving a model with no chat template): its configuration,
        # another provider may serve the same request
        (
            "server_lacks_templates",
            r"\brequires --jinja\b|\bunsupported param: tools\b|\bChatTemplateResolutionError\b"
            r"|\bmust provide a chat template\b",
            E.provider_not_configured,
            0.94,
        ),
        # a KV cache's blocks all taken by other requests (TGI "Out of available cache blocks: asked 107, only 4 free
        # blocks"): capacity for now
        # a model being swapped out for another (TabbyAPI "Model is being unloaded. Cannot process new generation
        # requests."): the server, for a moment
        ("model_being_swapped", r"\bmodel is being unloaded\b", E.provider_unavailable, 0.9),
        ("cache_blocks_taken", r"\bout of available cache blocks\b", E.model_capacity, 0.9),
        # a model that needs a newer server than the one that would run it (Ollama's 412 "requires a newer version of
        # Ollama"): the model, on this provider
        (
            "model_needs_newer_server",
            r"\brequires a newer version of (?:ollama|llama\.cpp|lm studio|vllm|the server)\b",
            E.model_unavailable,
            0.9,
        ),
        # a panel or tool with no provider set up (Zed "Configure at least one LLM provider"): another route may be
        (
            "no_provider_configured",
            r"\bconfigure (?:at least one|an?) (?:LLM |AI |language model )?provider\b",
            E.provider_not_configured,
            0.9,
        ),
        # an answer the model never gave (Copilot "The model unexpectedly did not return a response, which may
        # indicate a service issue"): the provider, a short retry
        (
            "answer_not_returned",
            r"\bmodel (?:unexpectedly )?did not return (?:a|any) response\b",
            E.stream_truncated,
            0.87,
        ),
        # a parameter over the maximum the server allows (vLLM "Requested sample logprobs of 21, which is greater than
        # max allowed: 20"): the request
        ("param_over_max_allowed", r"\bwhich is greater than (?:the )?max(?:imum)? allowed\b", E.invalid_request, 0.85),
        # a relay group's upstream saturated (new-api/one-api "当前分组上游负载已饱和，请稍后再试"): capacity for now,
        # above the billing type one-api sends it under
        ("group_load_saturated", r"负载已饱和", E.rate_limited, 0.97),
        # an account restricted until a subscription is bought (Augment "To continue, purchase a subscription")
        ("purchase_subscription", r"\bpurchase a subscription\b", E.subscription_required, 0.93),
        # an answer cut at the output limit the settings allow (Obsidian Copilot "cut off because it reached the token
        # limit"): the output limit, not a rate
        (
            "answer_cut_at_token_limit",
            r"\bcut off because it reached the (?:output )?token limit\b",
            E.context_length_exceeded,
            0.92,
        ),
        # the key's header missing from the request (Anthropic "x-api-key header is required" under its
        # authentication_error): no key was sent, above the authentication words
        (
            "key_header_missing",
            r"(?<!valid )(?<!valid x-)\b(?:x-api-key|api[ _-]?key|authorization) header is (?:required|missing)\b",
            E.missing_credentials,
            0.97,
        ),
        # Localized agents (Roo Code's and LobeChat's locale files) name each failure class in their user's language:
        # each class's words in Russian, German, French, Spanish, Portuguese, Japanese and Korean (Chinese has its own
        # rows). A connection cut or a wait that ran out, and the advice to check the network connection
        (
            "network_localized",
            r"\bсоединени\w* [^.]{0,60}прерван|\bсетев\w* (?:подключени|соединени)|\bошибка сети\b"
            r"|\bNetzwerk(?:fehler|verbindung)\b|\bUpstream-Gateway\b"
            r"|\bVerbindung\b[^.]{0,40}\b(?:unterbrochen|fehlgeschlagen)"
            r"|\berreur (?:de )?réseau\b|\bconnexion (?:réseau )?(?:interrompue|perdue|impossible)\b"
            r"|\berror de (?:red|conexión)\b|\berro de (?:rede|conexão)\b"
            r"|ネットワーク(?:エラー|接続)|接続(?:が|に)?(?:失敗|切断|中断)"
            r"|네트워크 (?:오류|연결)|연결(?:이|에)? (?:실패|끊)",
            E.network_unavailable,
            0.8,
        ),
        (
            "timeout_localized",
            r"\bистекло время ожидания\b|\bпревышено время ожидания\b|\bтайм-?аут\b|\bZeitüberschreitung\b"
            r"|\bdélai d.attente (?:dépassé|expiré)\b|\btiempo de espera (?:agotado|excedido)\b"
            r"|\btempo (?:limite )?(?:de espera )?esgotado\b|タイムアウト|長時間アイドル状態|시간 초과",
            E.timeout,
            0.82,
        ),
        (
            "overloaded_localized",
            r"\bперегружен(?!\w* функци)|\büberlastet\b|(?<!fonction )\bsurchargé|\bsobrecargad[oa]\b|過負荷|과부하",
            E.provider_overloaded,
            0.85,
        ),
        (
            "content_policy_localized",
            r"\bполитик\w* (?:контента|содержимого)\b|\bнастройками безопасности\b"
            r"|\bSicherheitsfilter\b|\bInhaltsrichtlinie|\bpolitique de contenu\b|\bpolítica de conte[nú]\w*\b"
            r"|安全設定により|引用チェック|コンテンツポリシー|안전 설정|콘텐츠 정책",
            E.content_policy,
            0.93,
        ),
        (
            "context_localized",
            r"\bпревышает длину\b|\bурезан из-за лимита токенов\b|\bKontextfenster\b"
            r"|\bfenêtre de contexte\b|\bventana de contexto\b|\bjanela de contexto\b"
            r"|トークン制限|コンテキスト(?:ウィンドウ|長)|토큰 제한|컨텍스트 (?:창|길이)",
            E.context_length_exceeded,
            0.9,
        ),
        (
            "provider_config_localized",
            r"\bконфигураци\w* провайдера некорректн|\bAnbieterkonfiguration\b[^.]{0,30}\b(?:ungültig|fehlerhaft)",
            E.provider_not_configured,
            0.9,
        ),
        # a parameter a model no longer takes (Bedrock and OpenCode Zen "temperature is deprecated for this model"):
        # the request, above the words of a deprecated model
        (
            "param_deprecated_for_model",
            r"\b[`'\"]?\w+[`'\"]? is deprecated for this model\b",
            E.invalid_request,
            0.93,
        ),
        # a chat model sent to the completions endpoint (OpenAI "This is a chat model and not supported in the
        # v1/completions endpoint"): the request's path, not the model
        (
            "wrong_endpoint_for_model",
            r"\bnot supported in the v1/completions endpoint\b|\bis a chat model and not supported\b",
            E.invalid_request,
            0.93,
        ),
        # a path the provider does not serve (xAI's 404 "No handler found on route. Please double check your URL"):
        # the route's base URL as configured
        ("route_not_served", r"\bno handler found on route\b", E.provider_not_configured, 0.93),
        # a model's own malformed tool call (Gemini's finish reason MALFORMED_FUNCTION_CALL, Gemini CLI's "Response
        # stopped due to malformed function call."): Gemini CLI retries it as an invalid stream, a short retry
        ("malformed_function_call", r"\bmalformed[ _]function[ _]call\b", E.stream_truncated, 0.88),
        # a tool's argument schema a model cannot take (Cursor "The argument schema for tool … is incompatible with
        # gemini-2.5-pro"): the request's tools
        (
            "tool_schema_incompatible",
            r"\bschema for tool\b[^.]{0,120}\bis incompatible with\b",
            E.invalid_request,
            0.88,
        ),
        # Bedrock's model reached only through an inference profile ("The provided model doesn't support on-demand
        # throughput"): the model, on this route
        ("model_not_on_demand", r"\bdoesn.t support on-demand throughput\b", E.model_unavailable, 0.93),
        # an answer cut at its own length limit, in a client's words (RAGFlow "Due to the length, the response was
        # truncated", SillyTavern MemoryBooks "Try increasing Max Response Length")
        (
            "answer_cut_at_length",
            r"\bdue to (?:the )?length, the response was truncated\b|\btry increasing max(?:imum)? response length\b",
            E.context_length_exceeded,
            0.9,
        ),
        # a local inference server not running (Second Me "LLama server is not running", Warp "The LLM is currently
        # unavailable"): the provider, a short retry
        (
            "inference_server_down",
            r"\b(?:llama|llm|inference) server is not running\b|\bthe LLM is currently unavailable\b"
            # (a local runtime named: "Failed: Ollama is not running", "check if Ollama serve is running")
            r"|\b(?:ollama|lm studio)(?: serve)? is (?:not|n.t) running\b|\bcheck if ollama(?: serve)? is running\b",
            E.provider_unavailable,
            0.85,
        ),
        # MLX's Metal allocator refusing an allocation (`[metal::malloc] Resource limit (499000) exceeded`, "… greater
        # than the maximum allowed buffer size"): the GPU's capacity, above the words of a parameter over its maximum
        # the local server itself not available, named beside the models it could not list (ollama-code "Cannot load
        # models: Ollama server is not available."): the provider, above the model words around it
        (
            "inference_server_not_available",
            r"\b(?:ollama|lm studio|llama|llm|inference) server is (?:not|n.t) (?:available|reachable)\b"
            r"(?! (?:in|on|for|yet)\b)",
            E.provider_unavailable,
            0.93,
        ),
        ("metal_malloc_refused", r"\[metal::malloc\]", E.model_capacity, 0.9),
        # A local tool's own failure carried in an agent's stderr or error (the agent's git, its sandbox's disk, the
        # repository's database, registry or CLI): words that a provider's rules read as auth, a quota, a missing
        # model or the network, but no other provider would meet it differently. Unknown (fail closed, no provider
        # blamed), above every provider reading
        (
            "local_tool_failure",
            # the worker's disk (EDQUOT, ENOSPC in Node's, Rust's and Python's words)
            r"\bEDQUOT\b|\bdisk quota (?:exceeded|reached)\b|\bENOSPC\b|\bno space left on device\b"
            # git and ssh (git's "fatal: Authentication failed for '<url>'", GitHub's "remote: Repository not found")
            r"|\bfatal: Authentication failed for '|\bPermission denied \(publickey\)|\bremote: Repository not found\b"
            r"|\bremote: Invalid username or (?:password|token)\b"
            # databases (PostgreSQL, MySQL, Redis, MongoDB)
            r"|\bpassword authentication failed for user\b|\bAccess denied for user '[^'\n]{0,64}'@"
            r"|\bNOAUTH Authentication required\b|\bMongoServerError: Authentication failed\b"
            # container and package registries, GitHub's CLI
            r"|\bpull access denied for\b|\bnpm (?:ERR!|error) (?:code E(?:401|403|404|NEEDAUTH)\b|404 Not Found)"
            r"|\bBad credentials \(https://api\.github\.com/"
            # the agent's MCP servers and its own commands: their timeouts and closed connections are not the
            # provider's (the MCP SDK's -32000 "Connection closed" and -32001 "Request timed out", Codex "MCP client
            # for `x` failed to start: request timed out", a shell command or hook over its time)
            r"|\bMCP error -3200[01]\b|\bMCP (?:server|client)\b[^\n]{0,120}\b(?:timed out|connection (?:closed|failed)"
            r"|failed to start|ECONNREFUSED)|\bhandshaking with MCP server failed\b|\bMCP connection manager\b"
            r"|\berror (?:connecting to|during discovery for) MCP server\b"
            r"|\bcommand timed out after\b|\bsandbox error: command timed out\b|\btimeout waiting for child process\b"
            r"|\bhook timed out after\b"
            # the worker's files and services, not an inference server's: a path that is no directory (Codex "failed
            # to load rules: Not a directory (os error 20)"), a database or Docker that is not up or not healthy
            r"|\bNot a directory \(os error 20\)"
            r"|\b(?:PostgreSQL|Postgres|MySQL|MariaDB|Redis|MongoDB|Docker)\b[^.\n]{0,40}\b(?:is not running"
            r"|did not become (?:healthy|ready)|(?:is )?(?:not healthy|unhealthy)"
            r"|to become (?:healthy|ready|available))\b"
            # the agent's own configuration files, and a runtime's task that ended (not vLLM's engine task, "Task
            # finished unexpectedly. This should never happen!")
            r"|\.mcp\.json\b|\bwhile reading \S+\.(?:json|toml|ya?ml)\b"
            r"|\btask finished unexpectedly\b(?!\. This should never happen)",
            E.unknown,
            0.99,
        ),
        (
            "subscribe_first",
            r"\bmust subscribe to (?:a |an |the )?(?:[\w-]+ ){0,2}plan\b",
            E.subscription_required,
            0.93,
        ),
        # a spend counted against a period's amount (aiproxy's 429 "On 2025-02 you used $2.0022, exceeding $2",
        # aipipe's "Usage $2.01 / $2 in 7 days"): the period's budget, which resets, above the 429
        (
            "spend_over_period_amount",
            r"\byou used \$\d[\d.,]*,? (?:exceeding|over|above) (?:your |the )?\$\d"
            r"|\busage \$\d[\d.,]* ?/ ?\$\d[\d.,]* (?:in|per|over|for) (?:the (?:last )?)?\d* ?"
            r"(?:days?|weeks?|months?)\b",
            E.quota_limited,
            0.96,
        ),
        # a plan's own allowance named by the plan (Onit "You have reached your Pro edit limit"): the plan's, which
        # resets or is raised, above the words of a limit reached
        (
            "plan_named_limit",
            r"\b(?:reached|hit|exceeded) your (?:free|pro|plus|premium|team|trial|starter|basic|hobby)\b "
            r"(?:[\w-]+ ){0,2}(?:limit|cap|allowance)\b",
            E.quota_limited,
            0.96,
        ),
        # a conversation with no room left, in an app's words rather than a provider's (llama.rn "context full, n_ctx:
        # 4096", PocketPal "The conversation ran out of room", a compaction that cannot bring it under the window,
        # Omnara's inputs over the configured window or input budget, father-bot's history "reduced to zero, but still
        # has too many tokens"): the same conversation fails again anywhere
        (
            "conversation_out_of_room",
            r"\bcontext (?:is )?full\b|\b(?:conversation|chat|context) ran out of (?:room|space)\b"
            r"|\b(?:can(?:no|'|’)t|cannot|unable to) fit (?:a |the )?(?:larger |bigger |longer )?context\b"
            r"|\bstill (?:has|have|contains?) too many tokens\b|\bcannot be compacted within\b"
            r"|\bcompaction (?:summary |source )?\b[^.\n]{0,40}\b(?:exceeds?|did not reduce|was truncated)\b"
            r"|\bexceeds? the configured (?:input budget|model window|context(?: window)?)\b"
            r"|\btoo large for (?:one|a single) model request\b|\breached the maximum token limit\b"
            r"|\btoken limit (?:exceeded|reached)\b[^\n]{0,40}\b(?:start|open|begin) a (?:new|fresh) "
            r"(?:session|chat|conversation)\b",
            E.context_length_exceeded,
            0.92,
        ),
        # a host out of reach in an app's words (Enchanted "Ollama is unreachable", Ollama App "It cannot be reached",
        # Reins "Could not find server"), a download or stream "Disconnected, try again": the transport, a short retry
        (
            "host_out_of_reach",
            r"\b(?:ollama|server|host|endpoint|api|provider|service|gateway|proxy)\b[^.\n]{0,30}"
            r"\b(?:(?:is|are) unreachable|(?:is |are )?not reachable)\b"
            r"|\bcannot be reached\b|\bcould not find (?:the )?server\.(?!\w)"
            r"|^disconnected\W{0,3}(?:please )?(?:try again|retry|reconnect)",
            E.network_unavailable,
            0.8,
        ),
        # the credential's header absent (aipipe's 401 "Missing Authorization: Bearer token"), a key to add before any
        # message (Onit "Add the provider API key to send a message"): missing, above the 401
        (
            "authorization_missing",
            r"\bmissing (?:the )?authorization(?: header)?\s*[:.]|\bmissing bearer token\b"
            r"|\badd (?:the |your |an? )?(?:[\w-]+ ){0,2}api[ _-]?key to\b",
            E.missing_credentials,
            0.95,
        ),
        # a sign-in that expired (Hapi "Cursor authentication expired. Re-run 'agent login' or set CURSOR_API_KEY"),
        # a gateway that could not sign in upstream (ferro's 502 "the gateway could not authenticate with the upstream
        # provider"): the credential's, above a variable named as the remedy and the 502
        (
            "sign_in_expired_or_refused_upstream",
            r"\bauthentication (?:has )?expired\b|\bcould not authenticate with the upstream\b",
            E.auth_required,
            0.955,
        ),
        # a model the backend does not have (Oatmeal "No model named llama3:70b found in backend ollama"), or one the
        # account's tier may not use (Agnai "Your account is ineligible for this model"): the model, on another route
        (
            "model_not_in_backend",
            r"\bno model named \S+ (?:found|exists|available)\b|\bineligible for (?:this|the) model\b",
            E.model_unavailable,
            0.965,
        ),
        # a per-account throttle that delays requests (better-ccflare's 529 "Usage throttling is delaying requests …
        # Retry after 60 seconds"): a rate, above the 529 read as overload
        ("usage_throttling", r"\busage throttling\b(?! for\b)", E.rate_limited, 0.85),
        # transport failures in other languages' words, below every English reading (routing/rules/translated.py)
        *TRANSLATED,
        # a request's or an account's failures in other languages' words (routing/rules/translated_requests.py)
        *TRANSLATED_REQUESTS,
    ],
)

# Provider error type/code/status/reason fields, matched whole (case-insensitive) against each key of the body.
BODY = table(
    "body",
    "body",
    [
        # specific keys (0.95)
        ("invalid_api_key", r"invalid_api_key|api_key_invalid", E.auth_required, 0.95),
        # Tencent Cloud's auth family (`AuthFailure.SignatureFailure`, `AuthFailure.SecretIdNotFound`)
        ("auth_failure", r"authfailure(?:\.\w+)?", E.auth_required, 0.95),
        # Text Generation Inference's stream that ended before the generation did
        ("incomplete_generation", r"incomplete_generation(?:_stream)?", E.stream_truncated, 0.95),
        # AWS names the kind in `__type` / `x-amzn-ErrorType` / an SDK's `name`, also at a 400
        (
            "authentication_error",
            r"authentication_error|unauthenticated|unrecognizedclientexception|expiredtokenexception",
            E.auth_required,
            0.95,
        ),
        # (and AWS's common `NotAuthorized`)
        (
            "permission_error",
            r"permission_error|permission_denied|accessdeniedexception|notauthorized(?:exception)?",
            E.auth_required,
            0.9,
        ),
        # quota kinds: OpenAI insufficient_quota, Google ErrorInfo reason QUOTA_EXHAUSTED, Copilot quota_exceeded
        (
            "insufficient_quota",
            r"insufficient_quota(?:_error)?|quota_exhausted|quota_exceeded|exceeded_current_quota(?:_error)?"
            # a free users' allowance as the error's type (BytePower `ai_free_limit`)
            r"|\w*free_(?:tier_)?limit",
            E.quota_limited,
            0.96,
        ),
        ("rate_limit", r"rate_limit_exceeded|rate_limit_error", E.rate_limited, 0.95),
        ("resource_exhausted", r"resource_exhausted", E.rate_limited, 0.85),
        # AWS error types (`__type`, `x-amzn-ErrorType`, an SDK's `name`) and other providers' throttle types
        # (a service quota's window, when the text names one, still decides between a short retry and a quota)
        (
            "throttling",
            r"throttlingexception|too_many_requests|rate_limit_reached_error|servicequotaexceededexception"
            r"|toomanyrequestsexception",
            E.rate_limited,
            0.9,
        ),
        (
            "model_not_found",
            r"model_not_found|deploymentnotfound|resourcenotfoundexception"
            # a model not served, or its dedicated endpoint stopped (Together `model_not_available`,
            # `dedicated_endpoint_not_running`)
            r"|model_not_available|dedicated_endpoint_not_(?:running|ready)"
            # (Cast AI's 410 `"type": "model_gone"` for a retired model)
            r"|model_gone"
            # a model being retired as an error type (Azure AI Foundry `ServiceModelDeprecating`)
            r"|\w*model_?deprecat\w*",
            E.model_unavailable,
            0.95,
        ),
        (
            "context_length_exceeded",
            r"context_length_exceeded|request_too_large|exceed_context_size_error",
            E.context_length_exceeded,
            0.95,
        ),
        (
            "content_policy",
            r"content_policy_violation|content_filter|responsibleaipolicyviolation|data_inspection_failed"
            r"|sensitive_words?_detected"
            # a safety verdict as an ErrorInfo reason or a code (Google "PUBLIC_ERROR_UNSAFE_GENERATION")
            r"|\w*unsafe_(?:generation|content|prompt|image)\w*|prohibited_content|\w*safety_(?:violation|breach|block\w*)"
            # Volcano Ark's codes (`SensitiveContentDetected`, `InputTextSensitiveContentDetected`,
            # `OutputImageRiskDetection`)
            r"|\w*sensitivecontentdetected(?:\.\w+)?|\w*(?:text|image|video|audio)riskdetection"
            # a gateway's content-security verdict as the error's type (`"type": "security_violation"` under a 403,
            # its message a refusal): the request's content, not the caller's credentials
            r"|\w*(?:security|content|policy|moderation)_violation"
            # a gateway's block detail by its kind (Higress ai-security-guard `blockedDetails: [{"type":
            # "contentModeration"}]` under a 403)
            r"|content_?moderation",
            E.content_policy,
            0.95,
        ),
        ("overloaded_error", r"overloaded_error", E.provider_overloaded, 0.95),
        # a gateway whose upstream failed (Vercel AI Gateway's 424 `failed_dependency`), a gateway's guardrail hooks
        # that denied the request (Portkey's 446 `hooks_failed`)
        ("failed_dependency", r"failed_dependency", E.provider_unavailable, 0.9),
        ("hooks_failed", r"hooks_failed", E.content_policy, 0.95),
        # a gRPC or Connect deadline that elapsed (`DEADLINE_EXCEEDED`, Connect's `[deadline_exceeded]`): the call's own
        # timeout, above the transport words its client class leaves ("ConnectError")
        ("deadline_exceeded", r"deadline_exceeded", E.timeout, 0.85),
        # a body the gateway could not read as a request (Copilot's `invalid_request_body`)
        ("invalid_request_body", r"invalid_request_body", E.invalid_request, 0.88),
        # the generic kind of a refused request (`invalid_request_error`): weakest of all, any status or words
        # beside it decide
        ("invalid_request", r"invalid_request_error|invalid_request", E.invalid_request, 0.45),
        # a caching proxy's error page named by its kind (Squid's templates `<body id=ERR_DNS_FAIL>`, ERR_CONNECT_FAIL
        # …, read from the page: routing/classifier.py): the path to the provider, above the 503 that carries the page
        (
            "proxy_page_kind",
            r"err_(?:dns_fail|connect_fail|secure_connect_fail|cannot_forward|socket_failure|read_error|write_error)"
            # (a forwarding proxy's own page, signed: tinyproxy "Unable to connect to upstream proxy", "Could not send
            # data to remote server")
            r"|tinyproxy",
            E.network_unavailable,
            0.8,
        ),
        # a Node/libuv system error's name in a relayed cause object (`{"code": "EAI_AGAIN", "syscall": …}`)
        (
            "errno",
            r"e(?:connreset|connrefused|connaborted|notfound|ai_again|hostunreach|netunreach|pipe|timedout)"
            r"|esockettimedout|und_err_\w+"
            # a client's or relay's own transport kind (`"type": "network_error"`, `api_connection_error`)
            r"|network_error|(?:api_)?connection_error|\w*connection_lost",
            E.network_unavailable,
            0.8,
        ),
        # billing kinds: DashScope's account in arrears, a relay's or provider's INSUFFICIENT_BALANCE
        (
            "billing",
            r"arrearage|insufficient_\w*(?:balance|funds|credits?)(?:_error)?|billing_not_active"
            # Volcano Ark's account in arrears (`AccountOverdueError`, `OperationDenied.ServiceOverdue`)
            r"|accountoverdue(?:error)?|serviceoverdue",
            E.subscription_required,
            0.96,
        ),
        # an agent's own name for an error it could not place (OpenCode's catch-all `UnknownError`, whose message is
        # its server's "Unexpected server error. Check server logs for details."): no provider fault is known, so it
        # stays unknown (fail closed), a step above the generic server words; what its message names (a network
        # word, a rate limit, a model) still decides
        ("agent_unknown", r"unknownerror", E.unknown, 0.76),
        # an agent's own stop for a loop it detected (Gemini CLI's `_meta.code` `LOOP_DETECTED` under `INTERNAL`): the
        # agent's own catch-all, not the provider's; stays unknown above the generic kind
        ("agent_loop_detected", r"loop_detected", E.unknown, 0.76),
        # a model still loading as the error's kind (LocalAI's distributed mode 503 `model_loading`, staging on a node
        # with its ETA): the model has no capacity yet, above the 503
        ("model_loading", r"model_(?:is_)?loading|model_not_(?:yet_)?loaded|model_staging", E.model_capacity, 0.9),
        # generic keys (0.55): any specific message beats them
        (
            "server_error",
            r"server_error|api_error|internal|unavailable"
            r"|internalserverexception|serviceunavailableexception|modelerrorexception|modelstreamerrorexception",
            E.provider_unavailable,
            0.55,
        ),
    ],
    target="key",
)

EXCEPTIONS = table(
    "exception",
    "exception",
    [
        # (a fetch's AbortError: the SDK's own timeout fired, GoogleGenerativeAIAbortError)
        ("timeout", r"Timeout|TimedOut|DeadlineExceeded|AbortError", E.timeout, 0.9),
        (
            "stream_cut",
            r"RemoteProtocolError|IncompleteRead|StreamTruncated|ChunkedEncodingError|ReadError|BrokenPipe",
            E.stream_truncated,
            0.9,
        ),
        (
            "network",
            # (Apache HttpClient's NoHttpResponseException: the peer closed without a reply)
            r"ConnectError|ConnectionRefused|ConnectionReset|NetworkError|gaierror|(?<!API)ConnectionError|NoHttpResponse",
            E.network_unavailable,
            0.9,
        ),
        # a rate limit's own class (openai.RateLimitError, erniebot.errors.RequestLimitError, TooManyRequests):
        # any quota or billing wording still outranks it
        ("rate_limit", r"RateLimit|RequestLimit|TooManyRequests", E.rate_limited, 0.85),
        # google-api-core's PermissionDenied, the OpenAI SDK's PermissionDeniedError (403): a wording that names
        # billing or a quota still outranks it
        ("permission_denied", r"^PermissionDenied(?:Error)?$", E.auth_required, 0.85),
        # the SDKs' server-side classes (LiteLLM's and openai's ServiceUnavailableError, InternalServerError): a
        # provider fault when nothing more is said, below any words of what happened
        (
            "server_class",
            r"ServiceUnavailable(?:Error)?$|InternalServerError$|BadGateway(?:Error)?$",
            E.provider_unavailable,
            0.7,
        ),
    ],
    target="exception",
)
