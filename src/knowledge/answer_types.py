"""What *kind of fact* a question asks for, and whether a text states one (EN/FR).

Classic question answering: "how much" wants an amount, "what time" a clock time, "how long"
a duration, "where" a place (a menu path in an app, a city), "how old" an age, "what must be
switched on first" a requirement ("You need both X and Y", "only if", "il faut"). A sentence that
states no expression of the asked type is rarely the answer, however close its words are; one
that does is a strong candidate even when it names the subject in other words. The recognisers
are generic typed-expression patterns (currencies, clock times, number + time unit, weekday names
and ranges, menu paths…), never a list of one knowledge base's words.

Days are read as sets: "en semaine" and "on weekdays" mean Monday–Friday, so they match
"Du lundi au vendredi" and not "Saturday and Sunday".
"""

from __future__ import annotations

import re

from knowledge.question_kind import asked_clause
from relais.language import fold_accents

MONEY = "money"
TIME = "time"
DURATION = "duration"
AGE = "age"
FREQUENCY = "frequency"
PLACE = "place"
CONTACT = "contact"
BENEFIT = "benefit"
QUANTITY = "quantity"  # "how much <something>": any stated number
IDENTIFIER = "identifier"  # "which decorator / setting / command / URL": a name written as code
REQUIREMENT = "requirement"  # "what must be switched on first?": a condition or a prerequisite
DATE = "date"  # "since when / from what date?": a calendar date ("July 1, 2026", "1er juillet 2026")
VERSION = "version"  # "which version do I need?": a release number ("2.9.6", "python>=3.9", "v2")
CHOICES = "choices"  # "what values does it take?": the values a setting accepts ("`hidden`, `tool_call`, or `full`")
DEFAULT = "default"  # "is it switched off by default?": what holds before anyone changes it ("OFF by default", "opt-in")
NAME = "name"  # "which app do I pick / what is the option called?": a name the question does not hold ("ProConnect")
ALL_TYPES = frozenset({MONEY, TIME, DURATION, AGE, FREQUENCY, PLACE, CONTACT, BENEFIT, QUANTITY, IDENTIFIER,
                       REQUIREMENT, DATE, VERSION, CHOICES, DEFAULT, NAME})

_I = re.IGNORECASE

# --- what the question asks (patterns run on accent-folded, lower-cased text) -------------------
_TIME_UNITS_EN = r"(?:seconds?|minutes?|mins?|hours?|days?|weeks?|months?|years?)"
_TIME_UNITS_FR = r"(?:secondes?|minutes?|heures?|jours?|semaines?|mois|ans?|annees?)"
_COMES_FROM = r"\s+(?:\w+\s+){1,3}?come\s+from\b"  # "where do these tags come from?" asks a cause, not a place
# "how much do the chunks overlap?": a thing's measure, not a price ("how much does it cost?" keeps one)
_THING_DOES = r"\s+(?:do|does|did|will|would|should|can|could)\s+(?:they|it|these|those|the\s+\w+)\s+(?!cost|charge|pay)[a-z]+"
# an age the question states ("my 12-year-old", "pour les 15-17 ans"): asked about only when nothing else is counted
_STATED_AGE = re.compile(r"\b\d{1,2}\s+ans\b|\byears?\s+old\b|\b\d{1,2}[- ]year[- ]old\b", _I)
_COUNTED = re.compile(r"\bhow\s+many\b|\bcombien\s+de\b|\bnumber\s+of\b|\bnombre\s+de\b", _I)
_ASKS: list[tuple[str, re.Pattern[str]]] = [
    (TIME, re.compile(r"\b(?:what|which)\s+time\b|\buntil\s+when\b|\bopening\s+(?:hours|times)\b|"
                      r"\bwhen\s+(?:does|do|is|are)\b.*\b(?:open|close|opens|closes|staffed)\b|"
                      r"\bhow\s+(?:late|early)\s+(?:is|are|does|do)\b|"
                      r"\ba\s+quelles?\s+heures?\b|\bquelles?\s+heures?\b|\bjusqu\W*a\s+quelle\s+heure\b|"
                      r"\bquand\s+(?:ouvre|ferme)|\bheures?\s+d\W*(?:ouverture|accueil)\b|\bhoraires?\b", _I)),
    (DURATION, re.compile(rf"\bhow\s+(?:long|soon|quickly|fast|far\s+(?:ahead|back|in\s+advance)|"
                          rf"much\s+(?:time|notice)|late|early)\b|\bhow\s+many\s+{_TIME_UNITS_EN}\b|"
                          r"\bwithin\s+what\b|\bcombien\s+de\s+temps\b|\ben\s+combien\s+de\s+temps\b|"
                          rf"\bcombien\s+(?:de\s+)?{_TIME_UNITS_FR}\b|\bsous\s+quel\s+delai\b|\bquel\s+delai\b|"
                          r"\bduree\b|\bjusqu\W*a\s+quand\b|\bcombien\s+de\s+temps\s+a\s+l\W*avance\b|"
                          r"\bpendant\s+combien\b|\bdes\s+combien\b|"
                          # "the longest a link can stay open", "the shortest time I can…" (not "the longest password")
                          r"\b(?:longest|shortest)(?:\s+(?:time|period|delay|duration|wait))?\s+"
                          r"(?:a|an|the|my|your|our|its|their|i|we|you|it|they|one|someone)\b|"
                          r"\b(?:maximum|minimum|max|min)\s+(?:time|period|delay|duration|lifetime|lifespan)\b|"
                          r"\ble\s+plus\s+longtemps\b|\bau\s+plus\s+tard\b|"
                          # a duration named to compare with: "longer than a year", "plus longtemps qu'un an"
                          rf"\b(?:longer|shorter|more|less|beyond|past|over)\s+(?:than\s+)?(?:a|an|one|\d+)\s+{_TIME_UNITS_EN}\b|"
                          rf"\b(?:plus|moins)\s+(?:longtemps|long)\s+qu\W*(?:un|une|\d+)\s+{_TIME_UNITS_FR}|"
                          rf"\bau[- ]dela\s+d\W*(?:un|une|\d+)\s+{_TIME_UNITS_FR}", _I)),
    (MONEY, re.compile(rf"\bhow\s+much\b(?!\s+(?:time|notice|memory|space|data|storage|history)|{_THING_DOES})|"
                       r"\b(?:cost|costs|price|prices|priced|fee|fees|charge|charged|pay|paid|refund\w*|"
                       r"discount|cheaper|expensive)\b|"
                       r"\bcombien\b.*\b(?:cout\w*|pai\w*|pay\w*|regl\w*|recupere\w*|rembours\w*|factur\w*)\b|"
                       r"\b(?:prix|tarifs?|montant|frais|cout\w*)\b|\bcombien\s+d\W*argent\b|"
                       r"\bcombien\b.*\beconomis\w*|\bhow\s+much\b.*\bsav(?:e|es|ed|ings?)\b", _I)),
    (QUANTITY, re.compile(rf"\bhow\s+much\s+(?:memory|space|data|storage)\b|\bhow\s+much{_THING_DOES}|"
                          r"\bhow\s+(?:big|large|small|wide|heavy)\b|\bhow\s+many\b|\bnumber\s+of\b|"
                          r"\bcombien\s+de\b|\bnombre\s+de\b|\bmaximum\b|\bminimum\b|\bat\s+most\b|\bau\s+plus\b|"
                          r"\blimit\b|\blimite\b|\b(?:maxima|minima)(?:l|le|ux|les)?\b|\b(?:biggest|largest|smallest)\b|"
                          r"\b(?:max|min)\s+(?:size|file)|\b(?:file|attachment|upload)\s+size\b|\btaille\b|\bpoids\b", _I)),
    (AGE, re.compile(r"\bhow\s+old\b|\b(?:what|minimum|maximum)\s+age\b|\bage\s+(?:limit|minimum)\b|"
                     rf"\bquel\s+age\b|\bage\s+minimum\b|{_STATED_AGE.pattern}", _I)),
    (FREQUENCY, re.compile(r"\bhow\s+(?:often|frequently)\b|\bhow\s+many\s+times\b|\ba\s+quelle\s+frequence\b|"
                           r"\btous\s+les\s+combien\b|\bcombien\s+de\s+fois\b", _I)),
    (PLACE, re.compile(r"\b(?:which|what)\s+(?:\w+\s+)?(?:page|screen|web\s*page|url|link)\b|"
                       r"\bquel(?:le)?s?\s+(?:\w+\s+)?(?:page|ecran|url|lien)\b|"
                       rf"^\s*(?:where|ou)\b(?!\s+(?:do|does|did){_COMES_FROM})|"
                       r"\b(?:where|ou)\s+(?:can|do|does|is|are|puis|peut|peux|se\s+trouve|"
                       rf"sont|est|trouver)\b(?!{_COMES_FROM})|\bin\s+which\s+(?:country|city|place|menu|screen|tab)\b|"
                       r"\bdans\s+quel(?:le)?\s+(?:pays|ville|endroit|menu|ecran|onglet)\b|\ba\s+quel\s+endroit\b", _I)),
    # "call" the verb ("can I call the club?"), not the noun of code ("which call sets it up?")
    (CONTACT, re.compile(r"\b(?:contact|reach|(?<!which\s)(?<!what\s)(?<!api\s)(?<!the\s)(?<!this\s)call(?!\s+(?:it|that|this|these|those)\b)|"
                         r"by\s+phone|phone\s+(?:number|support)|e-?mail\s+address|get\s+in\s+touch|talk\s+to)\b|\b(?:joindre|contacter|appeler|par\s+telephone|"
                         r"numero\s+de\s+telephone|telephoner|ecrire\s+(?:a|au|aux)|quel(?:le)?s?\s+(?:adresses?|courriels?)|"
                         r"par\s+courriel)\b", _I)),
    (BENEFIT, re.compile(r"\bwhat\s+(?:do|does|will|would|can)\s+(?:i|we|you|they|my\s+\w+)\s+(?:get|receive|earn|win)\b|"
                         r"\bwhat\W*s\s+in\s+it\s+for\b|\bqu\W*est-ce\s+que\s+(?:je|j|on|nous)\W*\s*"
                         r"(?:gagne|recoi|obtien|touche)\w*|\bque\s+(?:gagne|recoit|obtient)\w*", _I)),
]
_ASKS.append((IDENTIFIER, re.compile(  # words that name code, never a bare "option" or "setting"
    r"\b(?:which|what)\s+(?:\w+\s+){0,2}?(?:decorators?|callbacks?|hooks?|functions?|calls?|objects?|"
    r"flags?|arguments?|parameters?|(?:(?:environment|env|query)\s+)?variables?|endpoints?|urls?|file\s*names?|files?(?!\s+(?:formats?|types?|sizes?))|"
    r"(?:graphql\s+)?(?:quer(?:y|ies)|mutations?)|"
    r"key\s+combinations?|keyboard\s+shortcuts?|modules?|(?:npm|pip|pypi|python|node)\s+packages?|packages?(?=\s+(?:\w+\s+){0,4}?install)|http\s+(?:verb|method)s?|"
    r"(?:config(?:uration)?|cli|command[- ]line)\s+(?:options?|settings?|keys?|flags?))\b|"
    r"\b(?:which|what)\s+options?\s+of\s+the\s+\w+\s+command\b|\b(?:which|what)\s+methods?\s+(?!of\b|to\b|for\b)|"
    # the literal to write somewhere: "what do I pass to the export command", "…put in the item's URI"
    r"\bwhat\s+(?:do|should|must|would|can)\s+(?:i|we|you)\s+(?:pass|put|add|type|write|enter|call)\b|"
    # one value of a named setting ("which OAuth prompt value"), not "what value" (worth) nor the values it takes
    r"\b(?:which|what)\s+(?:\w+\s+){1,2}value\b(?!s)|"
    r"\bquel(?:le)?s?\s+(?:\w+\s+){0,2}?(?:url|verbe\s+http|methode\s+http|variable\s+d\W*environnement|"
    r"nom\s+de\s+fichier|fichier(?!s?\s+(?:au\s+)?(?:formats?|types?))|raccourci\s+clavier|decorateur|mutation|requete\s+graphql|query|argument|"
    r"variable)s?\b|\ba\s+quelle\s+url\b", _I)))
_ASKS.append((REQUIREMENT, re.compile(  # what has to hold first, not how to do it
    r"\bwhat\s+(?:\w+\s+){0,2}?(?:must|needs?\s+to|has\s+to|have\s+to)\s+be\b|"
    r"\bwhat\s+do\s+(?:i|we|you)\s+need\b|\b(?:requirements?|prerequisites?)\b|"
    r"\bwhat\W*(?:s|is|are)\s+(?:required|needed)\b|"
    r"\bque\s+faut-il\b|\bqu\W*(?:est-ce\s+qu\W*)?il\s+faut\b|\bpre-?requis\b|"
    r"\bquel(?:le)?s\s+(?:sont\s+les\s+)?conditions\b|\bde\s+quoi\s+(?:ai-je|a-t-on|avons-nous)\s+besoin\b", _I)))
_PAY_MEANS = re.compile(r"\b(?:ways?|methods?|means|options?|forms?)\s+(?:to|of)\s+pay\w*|\bpayment\s+(?:methods?|options?|types?)\b|"
                        r"\bpay\s+(?:with|by|using|via)\b|\b(?:moyens?|modes?)\s+de\s+(?:paiement|payer|reglement)\b|"
                        r"\bpayer\s+(?:par|avec)\b", _I)  # how to pay, not how much
_EXPLICIT_MONEY = re.compile(r"\bhow\s+much\b(?!\s+(?:time|notice))|\bcombien\s+(?:cout|pai|pay|regl)|\bprix\b|\btarif", _I)
_ASKS.append((DATE, re.compile(  # a calendar date, not a delay ("until when" is one) nor a clock time
    r"\b(?:since|from|starting|as\s+of|effective)\s+when\b|\b(?:on|from|since|as\s+of)\s+(?:what|which)\s+date\b|"
    r"\b(?:what|which)\s+(?:date|year)\b|\bin\s+what\s+year\b|"
    r"\b(?:a\s+partir|depuis)\s+(?:de\s+)?quand\b|\b(?:a\s+partir\s+de\s+|depuis\s+)?quelle\s+date\b|"
    r"\ben\s+quelle\s+annee\b|\bdepuis\s+quelle\s+annee\b", _I)))
_ASKS.append((VERSION, re.compile(
    r"\b(?:which|what)\s+(?:\w+\s+){0,2}?(?:versions?|releases?)\b|\b(?:since|from|as\s+of)\s+(?:which|what)\s+"
    r"(?:version|release)\b|\bquelles?\s+(?:\w+\s+){0,2}?versions?\b|\b(?:depuis|a\s+partir\s+de)\s+quelle\s+version\b",
    _I)))
_ASKS.append((CHOICES, re.compile(  # the values a setting takes, not one value to set ("what value should I use?")
    r"\b(?:which|what)\s+(?:\w+\s+){0,2}?(?:values|choices)\b|\b(?:possible|allowed|accepted|valid|supported)\s+"
    r"values?\b|\bquel(?:le)?s\s+(?:\w+\s+){0,2}?(?:valeurs|choix)\b|\bvaleurs\s+(?:possibles|autorisees|acceptees)\b",
    _I)))
_ASKS.append((DEFAULT, re.compile(  # the state out of the box, not "the default avatar" named as a thing
    r"\bby\s+default\b|\bout\s+of\s+the\s+box\b|\b(?:what|which)\s+is\s+the\s+default\b|\bdefaults?\s+to\b|"
    r"\bpar\s+defaut\b|\bd\W*office\b", _I)))
_ASKS.append((NAME, re.compile(  # a thing the product names (an app, an option, a feature), not a code name
    r"\b(?:which|what)\s+(?:\w+\s+){0,2}?(?:apps?|applications?|options?|settings?|buttons?|features?|accounts?|"
    r"widgets?|toggles?|switch(?:es)?|packages?|librar(?:y|ies)|plugins?|integrations?|templates?|connectors?|"
    r"services?|tools?|policy|policies|roles?|modes?|products?)\b(?!\s+(?:do|does|did|can)\s+\w+\s+have\b)|"
    r"\bwhat\s+(?:is|are)\s+(?:it|they|this|that|the\s+\w+)\s+called\b|"
    r"\bquel(?:le)?s?\s+(?:\w+\s+){0,2}?(?:comptes?|applications?|options?|boutons?|fonctionnalites?|parametres?|"
    r"services?|outils?|modeles?|modes?|roles?|rubriques?)\b|\bcomment\s+s\W*appelle", _I)))
_WHEN = re.compile(r"\b(?:when|quand)\b", _I)
# "what do I need to switch on (in the portal)?" asks what to act on, not a prerequisite: the verb
# has no object, the "what" is it ("what do I need to run Chainlit?" keeps its object: a requirement)
_WHAT_TO_ACT_ON = re.compile(
    r"\bwhat\s+do\s+(?:i|we|you)\s+need\s+to\s+[a-z]+(?:-[a-z]+)?(?:\s+(?:on|off|up|out|down|in))?\s*"
    r"(?:$|[?.!,;]|\b(?:in|on|at|for|from|with|within|inside|under|via|through|there|here)\b)", _I)
_ASKS_REQUIREMENT = dict(_ASKS)[REQUIREMENT]
_ASKS_AGE = dict(_ASKS)[AGE]
_HOW_MANY_TIME = re.compile(rf"\bhow\s+many\s+{_TIME_UNITS_EN}\b|\bcombien\s+de\s+{_TIME_UNITS_FR}\b", _I)

# --- what a text states (patterns run on the original text) --------------------------------------
_WORDS_EN = (r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|"
             r"fifty|sixty|ninety|hundred")
_WORDS_FR = (r"deux|trois|quatre|cinq|six|sept|huit|neuf|dix|onze|douze|quinze|vingt|trente|quarante|"
             r"cinquante|soixante|cent")
_NUM = rf"(?:\d+(?:[.,]\d+)?|{_WORDS_EN}|{_WORDS_FR}|an?|a\s+few|several|half\s+an?|un|une|quelques)"
# an English unit takes an English count ("un second temps" is "a second stage", not a duration)
_NUM_EN = rf"(?:\d+(?:[.,]\d+)?|{_WORDS_EN}|an?|a\s+few|several|half\s+an?)"
_PERIOD_EN = r"(?:day|week|month|year|hour|minute|morning|evening|night|monday|tuesday|wednesday|thursday|" \
             r"friday|saturday|sunday)s?"
_PERIOD_FR = r"(?:jours?|semaines?|mois|ans|ann[ée]es?|heures?|minutes?|matins?|soirs?|lundis?|mardis?|" \
             r"mercredis?|jeudis?|vendredis?|samedis?|dimanches?)"
_ORDINAL_EN = r"(?:first|second|third|fourth|fifth|last|\d+(?:st|nd|rd|th))"
_ORDINAL_FR = r"(?:premi[eè]re?|second[e]?|deuxi[eè]me|troisi[eè]me|quatri[eè]me|cinqui[eè]me|derni[eè]re?)"
_NUMBER = re.compile(rf"\d|\b(?:{_WORDS_EN}|{_WORDS_FR}|unlimited|illimit[ée]e?s?|once|twice)\b", _I)
_STATES: dict[str, re.Pattern[str]] = {
    MONEY: re.compile(r"[$€£¥]\s?\d|\d(?:[\d,.\s]*\d)?\s?(?:[$€£¥]|dollars?\b|euros?\b|usd\b|eur\b|cents?\b)|"
                      r"\d+(?:[.,]\d+)?\s?%|\bhalf[- ]price\b|\bmoiti[ée]\s+prix\b|\bfree\b|"
                      r"\bno\s+(?:\w+\s+)?(?:fee|charge|cost)\b|\bat\s+no\s+(?:cost|charge)\b|\bgratuit\w*|"
                      r"\bsans\s+frais\b|\baucuns?\s+frais\b|\bpas\s+de\s+frais\b|\bnot\s+charged\b|"
                      r"\bfull\s+refund\b|\brembours\w+\s+int[ée]gral\w*", _I),
    TIME: re.compile(r"\b\d{1,2}(?::\d{2})?\s*(?:a\.m\.|p\.m\.|am\b|pm\b)|\b\d{1,2}:\d{2}\b|"
                     r"\b\d{1,2}\s?h(?:\s?\d{2})?\b(?!\s*/)|\b(?:noon|midnight|midi|minuit)\b|"
                     r"\baround\s+the\s+clock\b|\b24/7\b|\bjour\s+et\s+nuit\b", _I),
    DURATION: re.compile(rf"\b{_NUM_EN}[\s-]+(?:business\s+|working\s+|calendar\s+|full\s+)?{_TIME_UNITS_EN}\b|"
                         rf"\b{_NUM}[\s-]+{_TIME_UNITS_FR}(?:\s+ouvr[ée]s)?\b|\b\d+-(?:day|week|month|year|minute|"
                         r"hour)\b|"
                         # written short ("au minimum 48h à l'avance", "de 72h", "30 min"), not a clock time ("de 8h à 18h", "avant 18h", "24h/24")
                         r"(?<!\bà\s)(?<!\ba\s)(?<!\bdès\s)(?<!\bavant\s)(?<!\bvers\s)(?<!\bat\s)(?<!\bfrom\s)"
                         r"(?<!\buntil\s)(?<!\bbefore\s)(?<![-–—]\s)(?<![-–—])\b\d+\s?(?:h|min|mn)\b(?!\s*(?:à|a|-|–|—|to)\s*\d)(?!\s*/)|"
                         r"\b(?:immediately|instantly|at\s+once|straight\s+away|right\s+away|"
                         r"imm[ée]diatement|tout\s+de\s+suite|aussit[ôo]t)\b", _I),
    AGE: re.compile(r"\b\d{1,2}\s*(?:\+|or\s+(?:older|over|more)|and\s+(?:older|over)|years?\s+old|ou\s+plus|ans)\b|"
                    r"\baged?\s+\d{1,2}\b|\bunder\s+\d{1,2}\b|\bmoins\s+de\s+\d{1,2}\b|"
                    r"\b\d{1,2}\s+(?:to|à|a)\s+\d{1,2}\b", _I),
    # "once"/"une fois" alone is "as soon as" ("Once you have logged in", "Une fois la fonctionnalité activée")
    FREQUENCY: re.compile(rf"\b(?:every|each)\s+(?:\d+\s+|other\s+|{_ORDINAL_EN}\s+)?{_PERIOD_EN}\b|\btwice\b|"
                          rf"\bonce\s+(?:a|an|per|every|each|in)\b|\b\d+\s+times\b|"
                          rf"\b(?:per|a)\s+{_PERIOD_EN}\b|\b(?:daily|weekly|monthly|yearly|annually)\b|"
                          rf"\btou(?:te)?s\s+les\s+(?:\d+\s+)?{_PERIOD_FR}|\bchaque\s+(?:{_ORDINAL_FR}\s+)?{_PERIOD_FR}|"
                          rf"\bune\s+fois\s+(?:par|tous|toutes|chaque|dans|l['’]an)\b|\b(?:deux|trois|\d+)\s+fois\b|"
                          rf"\bpar\s+{_PERIOD_FR}", _I),
    # a menu path ("Settings > Options", "Settings → Options"), an address of any scheme ("chrome://settings");
    # not a screen named in passing ("from the Two-step Login screen": measured, it beat the page's address)
    PLACE: re.compile(r"\w[^>→›\n]{0,40}\s[>→›]\s\w|\b[a-z][a-z0-9+.-]*://\S+|\b[\w-]+(?:\.[\w-]+)+/[#\w/-]*\w|"
                      # a directory: `./bwdata/mssql/backups`, /etc/ssl/certs, `public/elements/` (an import's "@/ui" is none)
                      r"(?:^|(?<=[\s(\"'`]))(?:\.{1,2}|~)?/[\w.-]+/[\w./-]*\w|`[\w.~-]*(?:/[\w.-]+)+/?`|"
                      r"\b(?:in|at|from|on)\s+(?:the\s+)?(?:app|front\s+desk|club|website|settings|profile)\b|"
                      r"\b(?:[Ii]n|[Aa]t|near)\s+(?:the\s+)?[A-Z][\w-]+|"
                      r"\(\s*[A-Z][a-z]+,\s+[A-Z][a-z]+\s*\)|"
                      r"\b(?:dans|[àa]|en|au)\s+(?:l['’]\s*)?(?:application|accueil|appli|club)\b|"
                      r"\b(?:dans|à|en|au)\s+(?:l['’]\s*|la\s+|le\s+)?[A-ZÀ-Ý][\w-]+"),
    CONTACT: re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+|https?://\S+|\+?\d[\d\s().-]{7,}\d|\b(?:chat|e-?mail|phone|"
                        r"front\s+desk|accueil|t[ée]l[ée]phon\w*|courriel)\b", _I),
    QUANTITY: _NUMBER,
    # inline code, snake_case or CONSTANT_CASE, a --flag, a dotted call, a file name, a URL path, an HTTP verb
    IDENTIFIER: re.compile(r"`[^`\n]+`|\b[A-Za-z]+_[A-Za-z0-9_]+\b|(?<![\w-])--?[a-z][\w-]*\b|\b[a-z]\w*\.[a-z_]\w*\(|"
                           r"\b[\w-]+\.(?:toml|json|ya?ml|py|js|ts|css|png|svg|md|csv|env|txt)\b|\w/[\w-]+/\w|"
                           r"\b(?:GET|POST|PUT|PATCH|DELETE)\b"),
}
_MONTH = (r"(?:January|February|March|April|May|June|July|August|September|October|November|December|"
          r"janvier|f[ée]vrier|mars|avril|mai|juin|juillet|ao[uû]t|septembre|octobre|novembre|d[ée]cembre)")
_STATES[DATE] = re.compile(  # "July 1, 2026", "1er juillet 2026", "September 2020", "2021-09-21", "03/07/2025", "in 2019"
    rf"\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}\b|\b\d{{1,2}}(?:er|st|nd|rd|th)?\s+{_MONTH}(?:\s+\d{{4}})?\b|"
    rf"\b{_MONTH}\s+\d{{4}}\b|\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b\d{{1,2}}/\d{{1,2}}/\d{{2,4}}\b|"
    r"\b(?:in|since|until|before|after|from|en|depuis|avant|apr[èe]s|d[èe]s)\s+(?:19|20)\d{2}\b")
_STATES[VERSION] = re.compile(r"\b[vV]?\d+\.\d+(?:\.\d+)*\b|\b(?:version|release|v)\s?\d+\b", _I)
_CHOICE = r"(?:`[^`\n]+`|\"[^\"\n]+\"|'[^'\n]+'|“[^”\n]+”|«[^»\n]+»)"
_STATES[CHOICES] = re.compile(  # "can be set to `a`, `b`, or `c`", "Choices are…", "one of", "valeurs possibles"
    rf"{_CHOICE}(?:\s*,\s*{_CHOICE})*,?\s+(?:or|and|ou|et)\s+{_CHOICE}|"
    r"\bcan\s+be\s+(?:set\s+to|one\s+of|either)\b|\b(?:choices|options|values)\s+are\b|\bone\s+of\b|"
    r"\b(?:possible|allowed|accepted|valid|supported)\s+values\b|\b(?:takes?|accepts?)\s+(?:the\s+)?values?\b|"
    r"\bvaleurs\s+(?:possibles|autoris[ée]es|accept[ée]es)\b|\bpeut\s+(?:prendre|valoir)\b", _I)
_STATES[REQUIREMENT] = re.compile(
    r"\b(?:need|needs|must|required|requires?|requiring|prerequisites?|have\s+to|has\s+to|"
    r"only\s+(?:if|when|after|once)|as\s+long\s+as|unless)\b|\bn[ée]cessit\w*|\bil\s+faut\b|"
    r"\bdoi(?:t|vent|s)\b|\bobligatoire\w*|\b(?:uniquement|seulement)\s+si\b|\bexig\w*|\bà\s+condition\b", _I)
_STATES[DEFAULT] = re.compile(r"\b(?:by\s+default|defaults?\s+to|default(?:\s+value)?\s*[:=(`]|default\s+is|"
                              r"out\s+of\s+the\s+box|opt-in|par\s+d[ée]faut|d['’]office)|\(default\)|"
                              r",\s+default\s+`", _I)
# a name written as one: a code span, a quoted or guillemeted label, a capitalised word inside the sentence
_STATES[NAME] = re.compile(r"`[^`\n]+`|«[^»\n]+»|“[^”\n]+”|\"[^\"\n]+\"|"
                           r"(?<=[a-zà-ÿ0-9,;)’']\s)[A-ZÀ-Ý][\w’'.-]*(?:\s+(?:[A-Z0-9][\w.-]*|to|for|of|de|du|des))*\w")
_STATES[BENEFIT] = re.compile(_STATES[MONEY].pattern + r"|\b(?:credit|discount|bonus|reward|voucher|cr[ée]dit|"
                              r"r[ée]duction|remise|offert\w*)\b", _I)


def asked_types(question: str) -> frozenset[str]:
    """The kinds of fact `question` asks for (empty when none is recognised), read from what it
    asks, not from the situation told first ("…I can no longer write to the office. Why?" asks
    no contact)."""
    folded = fold_accents(asked_clause(question).lower())
    found = {name for name, pattern in _ASKS if pattern.search(folded)}
    if REQUIREMENT in found and _WHAT_TO_ACT_ON.search(folded) and not _ASKS_REQUIREMENT.search(
            _WHAT_TO_ACT_ON.sub(" ", folded)):
        found.discard(REQUIREMENT)
    if AGE in found and QUANTITY in found and _COUNTED.search(folded) and \
            not _ASKS_AGE.search(_STATED_AGE.sub(" ", folded)):
        found.discard(AGE)  # "how many requests did the pass for 15-17 ans get?" counts requests
    if DURATION in found and _HOW_MANY_TIME.search(folded):
        found.discard(QUANTITY)
    if TIME in found and re.search(r"\bhow\s+late\b", folded) and not re.search(r"\b(?:open|close)", folded):
        found.discard(TIME)  # "how late can I cancel?" wants a delay, not a clock time
    if (found & {DURATION, TIME, AGE, FREQUENCY, PLACE} or _WHEN.search(folded) or _PAY_MEANS.search(folded)) \
            and not _EXPLICIT_MONEY.search(folded):
        found.discard(MONEY)  # "how long until the refund arrives?" wants a delay, not an amount
    if found & {DURATION, TIME, AGE, FREQUENCY}:
        found.discard(QUANTITY)
    if NAME in found and found - {NAME}:
        found.discard(NAME)  # "which version / which page / which setting key": the narrower type
    return frozenset(found)


def states_type(text: str, kinds: frozenset[str] | set[str], asked: str = "") -> bool:
    """Whether `text` holds an expression of one of `kinds` (an amount, a time, a duration…); a
    name counts when `asked` (the question) does not hold it already ("RDV Service Public" is
    what was asked about, "ProConnect" the answer)."""
    return any(_STATES[k].search(text) for k in kinds if k in _STATES and k != NAME) \
        or (NAME in kinds and _new_name(text, asked))


def _new_name(text: str, asked: str) -> bool:
    """Whether `text` writes a name `asked` does not hold as words ("`id`" is not in "widget")."""
    folded = fold_accents(asked.lower())

    def held(name: str) -> bool:
        written = re.escape(fold_accents(name.strip("`«»“”\" .").lower()))
        return re.search(rf"(?<!\w){written}(?!\w)", folded) is not None

    return any(not held(m.group(0)) for m in _STATES[NAME].finditer(text))


# --- days ---------------------------------------------------------------------------------------
_DAYS = {
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6,
    "lundi": 0, "mardi": 1, "mercredi": 2, "jeudi": 3, "vendredi": 4, "samedi": 5, "dimanche": 6,
}
_DAY_NAME = r"(monday|tuesday|wednesday|thursday|friday|saturday|sunday|lundi|mardi|mercredi|jeudi|vendredi|" \
            r"samedi|dimanche)s?"
_DAY_RANGE = re.compile(rf"\b(?:from\s+|du\s+|de\s+)?{_DAY_NAME}\s*(?:to|through|until|till|au|a|–|-|—)\s*{_DAY_NAME}\b")
_DAY_GROUPS: list[tuple[re.Pattern[str], frozenset[int]]] = [
    (re.compile(r"\bweek-?days?\b|\bduring\s+the\s+week\b|\ben\s+semaine\b|\bjours?\s+de\s+(?:la\s+)?semaine\b|"
                r"\bworking\s+days?\b|\bbusiness\s+days?\b|\bjours?\s+ouvr[ae]bles?\b"), frozenset(range(5))),
    (re.compile(r"\bweek-?ends?\b|\ble\s+week-?end\b"), frozenset({5, 6})),
    (re.compile(r"\bevery\s+day\b|\bdaily\b|\btous\s+les\s+jours\b|\b7\s+days\s+a\s+week\b|\b7\s*j/7\b"),
     frozenset(range(7))),
    (re.compile(r"\bpublic\s+holidays?\b|\bbank\s+holidays?\b|\bjours?\s+f[eé]ri[eé]s?\b"), frozenset({7})),
]


def days_named(text: str) -> frozenset[int]:
    """The days of the week `text` speaks of (0 = Monday … 6 = Sunday, 7 = public holidays)."""
    low = fold_accents(text.lower())
    days: set[int] = set()
    for match in _DAY_RANGE.finditer(low):
        start, end = _DAYS[match.group(1)], _DAYS[match.group(2)]
        days.update(range(start, end + 1) if start <= end else [*range(start, 7), *range(end + 1)])
    low = _DAY_RANGE.sub(" ", low)
    for pattern, group in _DAY_GROUPS:
        if pattern.search(low):
            days.update(group)
    days.update(_DAYS[m.group(1)] for m in re.finditer(rf"\b{_DAY_NAME}\b", low))
    return frozenset(days)
