"""Food table and meal templates for the rule-based nutrition provider.

Values are per 100 g (cooked where relevant), rounded from common food-composition tables.
Tags drive every restriction: a meal is offered only if none of its foods carries an excluded
tag (diet, allergy, intolerance or dislike), so an allergen can never slip in.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Food:
    key: str
    en: str
    fr: str
    kcal: float
    protein: float
    carbs: float
    fat: float
    tags: frozenset[str] = frozenset()
    unit_g: float | None = None  # one piece (egg), to print "3 eggs"
    unit_en: str = ""
    unit_fr: str = ""


def _f(key: str, en: str, fr: str, kcal: float, p: float, c: float, f: float, tags: set[str] = set(),
       unit: tuple[float, str, str] | None = None) -> Food:
    return Food(key, en, fr, kcal, p, c, f, frozenset(tags),
                unit[0] if unit else None, unit[1] if unit else "", unit[2] if unit else "")


FOODS: dict[str, Food] = {f.key: f for f in [
    _f("oats", "rolled oats", "flocons d'avoine", 379, 13, 67, 7, {"gluten"}),
    _f("greek_yogurt", "Greek yogurt 0 %", "yaourt grec 0 %", 59, 10, 3.6, 0.4, {"dairy", "lactose"}),
    _f("skyr", "skyr", "skyr", 63, 11, 4, 0.2, {"dairy", "lactose"}),
    _f("milk", "semi-skimmed milk", "lait demi-écrémé", 47, 3.4, 4.8, 1.6, {"dairy", "lactose"}),
    _f("soy_drink", "soy drink", "boisson au soja", 33, 3.3, 0.6, 1.8, {"soy"}),
    _f("pea_protein", "pea protein powder", "protéine de pois en poudre", 380, 80, 5, 6),
    _f("whey", "whey protein", "protéine whey", 400, 80, 8, 6, {"dairy", "lactose"}),
    _f("eggs", "eggs", "œufs", 143, 12.6, 0.7, 9.5, {"eggs"}, (50, "eggs", "œufs")),
    _f("bread", "wholemeal bread", "pain complet", 247, 13, 41, 3.4, {"gluten"}),
    _f("rice", "brown rice (cooked)", "riz complet (cuit)", 123, 2.7, 25.6, 1),
    _f("quinoa", "quinoa (cooked)", "quinoa (cuit)", 120, 4.4, 21.3, 1.9),
    _f("potato", "potatoes", "pommes de terre", 87, 1.9, 20, 0.1),
    _f("sweet_potato", "sweet potato", "patate douce", 90, 2, 20.7, 0.2),
    _f("pasta", "wholewheat pasta (cooked)", "pâtes complètes (cuites)", 149, 5.8, 30, 1.7, {"gluten"}),
    _f("chicken", "chicken breast", "blanc de poulet", 165, 31, 0, 3.6, {"meat", "poultry"}),
    _f("turkey", "turkey breast", "blanc de dinde", 135, 30, 0, 1.5, {"meat", "poultry"}),
    _f("beef", "lean beef mince (5 %)", "bœuf haché 5 %", 137, 21, 0, 5, {"meat", "red_meat"}),
    _f("salmon", "salmon fillet", "pavé de saumon", 208, 20, 0, 13, {"fish"}),
    _f("tuna", "tuna in water", "thon au naturel", 116, 26, 0, 1, {"fish"}),
    _f("shrimp", "shrimp", "crevettes", 99, 24, 0.2, 0.3, {"shellfish"}),
    _f("tofu", "firm tofu", "tofu ferme", 144, 17, 3, 8.7, {"soy"}),
    _f("tempeh", "tempeh", "tempeh", 192, 20, 7.6, 10.8, {"soy"}),
    _f("edamame", "edamame", "edamame", 121, 11.9, 8.9, 5.2, {"soy"}),
    _f("paneer", "paneer", "paneer", 296, 19, 3.6, 22.6, {"dairy", "lactose"}),
    _f("cottage", "cottage cheese", "cottage cheese", 98, 11, 3.4, 4.3, {"dairy", "lactose"}),
    _f("lentils", "lentils (cooked)", "lentilles (cuites)", 116, 9, 20, 0.4),
    _f("chickpeas", "chickpeas (cooked)", "pois chiches (cuits)", 164, 8.9, 27.4, 2.6),
    _f("black_beans", "black beans (cooked)", "haricots noirs (cuits)", 132, 8.9, 23.7, 0.5),
    _f("hummus", "hummus", "houmous", 166, 7.9, 14.3, 9.6, {"sesame"}),
    _f("lentil_pasta", "red lentil pasta (cooked)", "pâtes de lentilles corail (cuites)", 150, 11, 22, 1),
    _f("seitan", "seitan", "seitan", 370, 75, 14, 1.9, {"gluten"}),
    _f("peanut_butter", "peanut butter", "beurre de cacahuète", 588, 25, 20, 50, {"peanuts"}),
    _f("almonds", "almonds", "amandes", 579, 21, 22, 50, {"tree_nuts"}),
    _f("pumpkin_seeds", "pumpkin seeds", "graines de courge", 559, 30, 10.7, 49),
    _f("chia", "chia seeds", "graines de chia", 486, 17, 42, 31),
    _f("banana", "banana", "banane", 89, 1.1, 22.8, 0.3),
    _f("berries", "mixed berries", "fruits rouges", 57, 0.7, 14.5, 0.3),
    _f("apple", "apple", "pomme", 52, 0.3, 14, 0.2),
    _f("vegetables", "mixed vegetables", "légumes variés", 35, 2.4, 7, 0.3),
    _f("salad", "green salad and tomatoes", "salade verte et tomates", 18, 1.1, 3.2, 0.2),
    _f("olive_oil", "olive oil", "huile d'olive", 884, 0, 0, 100),
    _f("avocado", "avocado", "avocat", 160, 2, 8.5, 14.7),
    _f("rice_cakes", "rice cakes", "galettes de riz", 387, 8, 81, 3),
]}


@dataclass(frozen=True)
class MealTemplate:
    key: str
    en: str
    fr: str
    items: tuple[tuple[str, float], ...]  # (food key, grams at the template's size)

    @property
    def tags(self) -> frozenset[str]:
        out: set[str] = set()
        for food, _grams in self.items:
            out |= FOODS[food].tags
        return frozenset(out)


def _m(key: str, en: str, fr: str, *items: tuple[str, float]) -> MealTemplate:
    return MealTemplate(key, en, fr, tuple(items))


MEALS: dict[str, MealTemplate] = {m.key: m for m in [
    # breakfasts
    _m("yogurt_oats", "Greek yogurt and oat bowl", "Bol de yaourt grec et d'avoine",
       ("greek_yogurt", 250), ("oats", 60), ("berries", 100), ("chia", 10)),
    _m("eggs_toast", "Eggs on wholemeal toast", "Œufs sur pain complet",
       ("eggs", 150), ("bread", 80), ("banana", 100)),
    _m("tofu_scramble", "Tofu scramble on toast", "Brouillade de tofu sur pain complet",
       ("tofu", 180), ("bread", 80), ("vegetables", 80), ("olive_oil", 5)),
    _m("quinoa_porridge", "Quinoa porridge with pea protein", "Porridge de quinoa à la protéine de pois",
       ("quinoa", 180), ("pea_protein", 30), ("banana", 100), ("pumpkin_seeds", 15), ("berries", 80)),
    _m("soy_oats", "Overnight oats with soy drink and seeds", "Flocons d'avoine au lait de soja et graines",
       ("oats", 70), ("soy_drink", 250), ("pea_protein", 20), ("berries", 100), ("pumpkin_seeds", 10)),
    # snacks
    _m("cottage_fruit", "Cottage cheese with an apple", "Cottage cheese et une pomme",
       ("cottage", 200), ("apple", 150)),
    _m("edamame_snack", "Edamame with an apple", "Edamame et une pomme", ("edamame", 150), ("apple", 150)),
    _m("hummus_bowl", "Hummus bowl with vegetables and rice cakes",
       "Bol de houmous, crudités et galettes de riz", ("hummus", 80), ("vegetables", 150), ("rice_cakes", 20)),
    _m("pea_shake", "Pea protein shake with a banana", "Shake de protéine de pois et une banane",
       ("pea_protein", 30), ("banana", 120)),
    _m("yogurt_banana", "Greek yogurt with a banana", "Yaourt grec et une banane",
       ("greek_yogurt", 200), ("banana", 120)),
    _m("almonds_apple", "Almonds and an apple", "Amandes et une pomme", ("almonds", 25), ("apple", 150)),
    _m("tuna_rice_cakes", "Tuna on rice cakes", "Thon sur galettes de riz", ("tuna", 100), ("rice_cakes", 30)),
    _m("seeds_fruit", "Pumpkin seeds and berries", "Graines de courge et fruits rouges",
       ("pumpkin_seeds", 25), ("berries", 150)),
    # lunches
    _m("chicken_rice", "Chicken, brown rice and vegetables", "Poulet, riz complet et légumes",
       ("chicken", 160), ("rice", 200), ("vegetables", 200), ("olive_oil", 10)),
    _m("tuna_quinoa", "Tuna quinoa salad", "Salade de quinoa au thon",
       ("tuna", 150), ("quinoa", 200), ("salad", 150), ("olive_oil", 10)),
    _m("paneer_curry", "Paneer and chickpea curry with rice", "Curry de paneer et pois chiches, riz",
       ("paneer", 100), ("chickpeas", 150), ("rice", 150), ("vegetables", 150)),
    _m("tofu_stirfry", "Tofu stir-fry with brown rice", "Tofu sauté au riz complet",
       ("tofu", 200), ("rice", 200), ("vegetables", 200), ("olive_oil", 10)),
    _m("lentil_bowl", "Lentil, quinoa and vegetable bowl", "Bol de lentilles, quinoa et légumes",
       ("lentils", 250), ("quinoa", 150), ("vegetables", 150), ("olive_oil", 10), ("pumpkin_seeds", 15)),
    _m("lentil_pasta_bowl", "Red lentil pasta with beans and vegetables",
       "Pâtes de lentilles corail, haricots et légumes",
       ("lentil_pasta", 250), ("black_beans", 100), ("vegetables", 200), ("olive_oil", 10), ("pea_protein", 15)),
    # dinners
    _m("salmon_potato", "Salmon, sweet potato and greens", "Saumon, patate douce et légumes verts",
       ("salmon", 150), ("sweet_potato", 250), ("vegetables", 200)),
    _m("beef_chili", "Lean beef and bean chili with rice", "Chili de bœuf maigre aux haricots, riz",
       ("beef", 150), ("black_beans", 100), ("rice", 150), ("vegetables", 150)),
    _m("turkey_potato", "Turkey, potatoes and vegetables", "Dinde, pommes de terre et légumes",
       ("turkey", 160), ("potato", 300), ("vegetables", 200), ("olive_oil", 10)),
    _m("shrimp_pasta", "Shrimp wholewheat pasta", "Pâtes complètes aux crevettes",
       ("shrimp", 150), ("pasta", 200), ("vegetables", 150), ("olive_oil", 10)),
    _m("tofu_lentil_dahl", "Tofu and lentil dahl with rice", "Dahl de lentilles et tofu, riz",
       ("lentils", 200), ("tofu", 150), ("rice", 150), ("vegetables", 100)),
    _m("tempeh_potato", "Tempeh, sweet potato and greens", "Tempeh, patate douce et légumes verts",
       ("tempeh", 150), ("sweet_potato", 250), ("vegetables", 200)),
    _m("veggie_omelette", "Vegetable omelette with potatoes", "Omelette aux légumes et pommes de terre",
       ("eggs", 200), ("potato", 250), ("vegetables", 150), ("olive_oil", 5)),
    _m("bean_bowl", "Black bean, sweet potato and avocado bowl", "Bol haricots noirs, patate douce et avocat",
       ("black_beans", 250), ("sweet_potato", 250), ("vegetables", 150), ("avocado", 50),
       ("pumpkin_seeds", 15)),
]}

# slot → (EN, FR, time, share of the day's kcal, preferred meals per diet, safe last resort)
SLOTS: list[tuple[str, str, str, float, dict[str, list[str]], str]] = [
    ("Breakfast", "Petit-déjeuner", "07:30", 0.25, {
        "omnivore": ["yogurt_oats", "eggs_toast", "soy_oats", "tofu_scramble", "quinoa_porridge"],
        "pescatarian": ["yogurt_oats", "eggs_toast", "soy_oats", "tofu_scramble", "quinoa_porridge"],
        "vegetarian": ["yogurt_oats", "eggs_toast", "tofu_scramble", "soy_oats", "quinoa_porridge"],
        "vegan": ["tofu_scramble", "soy_oats", "quinoa_porridge"],
    }, "quinoa_porridge"),
    ("Morning snack", "Collation du matin", "10:30", 0.10, {
        "omnivore": ["cottage_fruit", "almonds_apple", "yogurt_banana", "pea_shake", "seeds_fruit"],
        "pescatarian": ["cottage_fruit", "tuna_rice_cakes", "almonds_apple", "pea_shake", "seeds_fruit"],
        "vegetarian": ["edamame_snack", "cottage_fruit", "hummus_bowl", "pea_shake", "seeds_fruit"],
        "vegan": ["edamame_snack", "hummus_bowl", "pea_shake", "seeds_fruit"],
    }, "seeds_fruit"),
    ("Lunch", "Déjeuner", "13:00", 0.30, {
        "omnivore": ["chicken_rice", "tuna_quinoa", "lentil_bowl", "lentil_pasta_bowl"],
        "pescatarian": ["tuna_quinoa", "paneer_curry", "lentil_bowl", "lentil_pasta_bowl"],
        "vegetarian": ["paneer_curry", "tofu_stirfry", "lentil_bowl", "lentil_pasta_bowl"],
        "vegan": ["tofu_stirfry", "lentil_bowl", "lentil_pasta_bowl"],
    }, "lentil_bowl"),
    ("Pre/post-workout snack", "Collation autour de l'entraînement", "16:30", 0.10, {
        "omnivore": ["yogurt_banana", "pea_shake", "seeds_fruit"],
        "pescatarian": ["yogurt_banana", "pea_shake", "seeds_fruit"],
        "vegetarian": ["hummus_bowl", "yogurt_banana", "pea_shake", "seeds_fruit"],
        "vegan": ["hummus_bowl", "pea_shake", "seeds_fruit"],
    }, "pea_shake"),
    ("Dinner", "Dîner", "19:30", 0.25, {
        "omnivore": ["salmon_potato", "turkey_potato", "beef_chili", "tofu_lentil_dahl", "lentil_pasta_bowl",
                     "bean_bowl"],
        "pescatarian": ["salmon_potato", "shrimp_pasta", "veggie_omelette", "tofu_lentil_dahl", "lentil_pasta_bowl",
                        "bean_bowl"],
        "vegetarian": ["tofu_lentil_dahl", "veggie_omelette", "tempeh_potato", "lentil_pasta_bowl", "bean_bowl"],
        "vegan": ["tofu_lentil_dahl", "tempeh_potato", "lentil_pasta_bowl", "bean_bowl"],
    }, "bean_bowl"),
]
