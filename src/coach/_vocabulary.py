"""The words constraint extraction listens for, EN and FR, accent-free, in the keyword notation
of `coach._text` (word, stem*, phrases, =literal). Data, not logic: extend a list to teach the
coach a new synonym."""

from __future__ import annotations

# fmt: off
NEGATIONS: frozenset[str] = frozenset({
    "aren", "aucun", "aucune", "doesn", "don", "dont", "isn", "jamais", "longer", "n", "never",
    "ni", "no", "none", "not", "nothing", "pas", "plus", "sans", "without",
})

WEIGHT_CHANGE: frozenset[str] = frozenset({
    "down", "drop", "gain", "gained", "lose", "losing", "lost", "minus", "moins", "perdre",
    "perdu", "prendre", "pris", "shed",
})

GOAL_WORDS: dict[str, tuple[str, ...]] = {
    "muscle": (
        "build muscle*", "gain muscle*", "muscle gain*", "muscle growth", "muscle mass",
        "put on muscle", "more muscle*", "bulk*", "hypertroph*", "get bigger", "gain mass",
        "mass gain", "get stronger", "stronger", "strength", "muscl*", "prise de masse",
        "prendre du muscle", "prendre de la masse", "masse musculaire", "se muscler",
        "musculation", "plus fort*", "gagner en force", "force",
    ),
    "fat_loss": (
        "lose fat", "losing fat", "fat loss", "burn fat", "burning fat", "fat burning",
        "lose weight", "losing weight", "weight loss", "cut", "cutting", "slim*", "shred*",
        "get lean*", "leaner", "lose belly", "drop weight", "perdre du gras", "perte de gras",
        "perdre du poids", "perte de poids", "maigrir", "mincir", "seche", "secher",
        "bruler les graisses", "bruler des graisses", "bruler du gras", "perdre de la graisse",
        "perdre mon ventre", "affiner",
    ),
    "endurance": (
        "endurance", "stamina", "marathon*", "half-marathon*", "triathlon*", "10k", "5k",
        "run longer", "run faster", "running race", "cardio fitness", "aerobic", "semi-marathon*",
        "courir plus", "souffle", "trail",
    ),
}

EQUIPMENT_WORDS: dict[str, tuple[str, ...]] = {
    "dumbbells": (
        "dumbbell*", "haltere*", "kettlebell*", "weights at home", "adjustable weights",
    ),
    "bodyweight": (
        "no equipment", "without equipment", "bodyweight", "body weight", "at home",
        "home workout*", "from home", "no gym", "without a gym", "don t have a gym",
        "sans materiel", "pas de materiel", "poids du corps", "a la maison", "chez moi",
        "pas de salle", "sans salle", "calisthenic*", "in my living room",
    ),
    "gym": (
        "gym*", "fitness center", "fitness centre", "salle de sport", "salle de gym",
        "salle de musculation", "en salle", "a la salle", "machines", "barbell*",
    ),
}

BODY_PART_WORDS: dict[str, tuple[str, ...]] = {
    "knee": (
        "knee*", "acl", "mcl", "menisc*", "patell*", "genou*", "menisque*", "ligament croise*",
        "rotule*",
    ),
    "shoulder": (
        "shoulder*", "rotator cuff*", "epaule*", "coiffe des rotateurs",
    ),
    "back": (
        "back", "lower back", "upper back", "spine", "spinal", "disc", "herniat*", "sciatica",
        "lumbar", "dos", "lombaire*", "hernie*", "sciatique", "colonne", "lumbago",
    ),
    "wrist": (
        "wrist*", "carpal", "poignet*",
    ),
    "ankle": (
        "ankle*", "achilles", "foot", "feet", "plantar", "cheville*", "achille", "pied", "pieds",
        "voute plantaire",
    ),
    "hip": (
        "hip", "hips", "hanche*",
    ),
    "elbow": (
        "elbow*", "tennis elbow", "coude*", "epicondyl*",
    ),
    "neck": (
        "neck", "cervical", "cou", "nuque", "cervicale*",
    ),
}

FOOD_WORDS: dict[str, tuple[str, ...]] = {
    "peanuts": (
        "peanut*", "groundnut*", "arachide*", "cacahu*",
    ),
    "tree_nuts": (
        "tree nut*", "nuts", "nut", "almond*", "cashew*", "walnut*", "hazelnut*", "pecan*",
        "pistachio*", "noix", "amande*", "noisette*", "cajou", "pistache*", "fruits a coque",
    ),
    "dairy": (
        "dairy", "milk", "cow s milk", "lait", "laitier*", "produits laitiers", "cheese*",
        "fromage*", "yogurt*", "yoghurt*", "yaourt*", "casein*", "caseine",
    ),
    "lactose": (
        "lactose",
    ),
    "eggs": (
        "egg", "eggs", "oeuf*",
    ),
    "gluten": (
        "gluten*", "wheat", "ble", "coeliac", "celiac", "coeliaque", "celiaque",
    ),
    "soy": (
        "soy", "soya", "soja", "tofu", "edamame",
    ),
    "fish": (
        "fish", "poisson*", "salmon", "tuna", "saumon", "thon",
    ),
    "shellfish": (
        "shellfish", "shrimp*", "prawn*", "crab*", "lobster*", "crustace*", "mollus*", "seafood",
        "fruits de mer", "crevette*", "homard*",
    ),
    "sesame": (
        "sesame*", "tahini", "tahin*",
    ),
    "pork": (
        "pork", "bacon", "ham", "porc", "jambon", "lard",
    ),
    "red_meat": (
        "red meat", "beef", "viande rouge", "boeuf", "steak*",
    ),
    "poultry": (
        "chicken", "turkey", "poulet", "dinde", "volaille*",
    ),
}

GOAL_CHANGE: tuple[str, ...] = (
    "instead", "rather", "actually", "changed my mind", "change my goal", "new goal", "switch",
    "now i want", "no longer", "plutot", "finalement", "en fait", "a la place", "desormais",
    "maintenant je veux", "nouvel objectif", "changer d objectif",
)

DAILY: tuple[str, ...] = (
    "every day", "each day", "daily", "tous les jours", "chaque jour",
)

INJURY_CUES: tuple[str, ...] = (
    "injur*", "hurt*", "pain*", "painful", "sore*", "ache*", "aching", "bad", "problem*", "issue*",
    "surgery", "operat*", "torn", "tear", "strain*", "sprain*", "tendin*", "broke*", "broken",
    "fractur*", "tore", "ruptur*", "recovering", "rehab*", "arthrit*", "weak", "dislocat*",
    "bless*", "mal", "douleur*", "douloureu*", "souffre", "opere*", "entorse*", "tendinite*",
    "fragile*", "probleme*", "dechir*", "arthrose", "hernie*", "sciati*", "herniat*", "lumbago",
    "luxation", "rupture", "injured", "gene", "genant*",
)

HEALED: tuple[str, ...] = (
    "healed", "recovered", "fine now", "better now", "no longer hurts", "doesn t hurt", "gueri*",
    "va mieux", "ne me fait plus mal", "plus mal", "retabli*",
)

VEGAN: tuple[str, ...] = (
    "vegan*", "vegetalien*", "plant-based", "plant based", "100 vegetal*", "no animal product*",
)

VEGETARIAN: tuple[str, ...] = (
    "vegetarian*", "vegetarien*", "veggie", "vege", "don t eat meat", "do not eat meat", "no meat",
    "meat-free", "sans viande", "pas de viande", "mange pas de viande", "mange plus de viande",
    "eat meat anymore", "stopped eating meat",
)

PESCATARIAN: tuple[str, ...] = (
    "pescatarian*", "pescetarian*", "pescetarien*", "pescatarien*", "only eat fish", "only fish",
)

OMNIVORE: tuple[str, ...] = (
    "i eat meat", "eat everything", "omnivor*", "je mange de la viande", "je mange de tout",
)

ALLERGY_CUES: tuple[str, ...] = (
    "allerg*", "anaphyla*", "epipen",
)

INTOLERANCE_CUES: tuple[str, ...] = (
    "intoleran*", "sensitiv*", "sensible", "coeliac", "celiac", "coeliaque", "celiaque",
    "ne supporte pas", "can t digest", "don t tolerate", "digere mal", "digere pas",
)

AVOID_CUES: tuple[str, ...] = (
    "no", "without", "avoid*", "free", "can t eat", "cannot eat", "don t eat", "do not eat",
    "won t eat", "never eat", "not eat", "sans", "pas de", "evite*", "mange pas", "mange jamais",
    "ne mange", "excl*", "hate", "dislike", "deteste",
)

# --- scope (coach.scope) ------------------------------------------------------------------------
# Questions the help center answers, not the coach: membership, billing, the app, the club.
HELP_CENTER_TOPICS: tuple[str, ...] = (
    "membership*", "member", "subscription*", "subscrib*", "billing", "bill", "billed", "invoice*",
    "refund*", "payment*", "pay", "charged", "price*", "pricing", "cost", "fee*", "cancel*",
    "account*", "password*", "log in", "login", "sign in", "the app", "your app", "application",
    "opening hours", "open on", "locker*", "parking", "contract*", "abonnement*", "adhesion*",
    "facture*", "factur*", "rembours*", "paiement*", "payer", "prelevement*", "tarif*", "prix",
    "resili*", "annuler", "annulation", "compte", "mot de passe", "connexion", "l appli",
    "appli", "horaires", "ouvert*", "vestiaire*", "casier*", "contrat*",
)
# Domain words that only name the place: "cancel my gym membership" is still a help-center question.
VENUE_KEYWORDS: frozenset[str] = frozenset({
    "gym*", "gym", "salle", "salle de sport", "salle de gym", "club",
})
# Words of a request to a coach that name neither domain: "build me a plan", "un programme ?"
COACH_REQUEST: tuple[str, ...] = (
    "plan", "plans", "program*", "routine*", "schedule*", "coach*", "fitness", "healthy",
    "health", "shape", "sante", "forme", "planning", "conseil*", "advice", "tips",
)
# A follow-up to the advisor in charge: it points back at the last answer or asks for more of it.
FOLLOW_UP_CUES: tuple[str, ...] = (
    "more", "detail*", "explain*", "why", "what about", "how about", "and for", "and what",
    "instead", "swap*", "replace*", "change*", "adjust*", "modify", "tweak*", "harder", "easier",
    "shorter", "longer", "lighter", "heavier", "another", "alternative*", "other", "again",
    "example*", "it", "this", "that", "those", "these", "them", "same", "next",
    "plus", "davantage", "explique*", "pourquoi", "et pour", "et si", "a la place", "remplace*",
    "change", "changer", "modifie*", "ajuste*", "adapte*", "autre*", "encore", "exemple*",
    "cela", "celui*", "celle*", "cet", "cette", "ces", "meme", "suivant*", "plus dur",
    "plus facile", "plus court", "plus long", "suggest*", "recommend*", "advice", "advise", "idea*",
    "propos*", "recommand*", "conseil*", "idee*",
)

# A reply made of these alone approves the last answer ("👍", "👌🏽", "✅"). A mere smile ("🙂") is not
# an answer to anything and stays out of scope.
APPROVAL_EMOJI: frozenset[str] = frozenset({
    "\U0001F44D", "\U0001F44C", "\u2705", "\u2714", "\U0001F64F", "\U0001F44F", "\U0001F4AA", "\U0001F197",
    "\U0001F4AF", "\U0001F64C", "\U0001F91D",
})

# fmt: on
