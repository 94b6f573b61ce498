"""Per-language similarity baselines for the relevance bar.

A sentence encoder gives any two texts of the same language a non-zero cosine, and MiniLM
(English-only) gives French text a high one: every French question scores ~0.3-0.45 against
every French passage. The relevance bar therefore also asks a hit to beat what the question
scores against *ordinary text in its language*: the mean cosine to a fixed set of everyday
sentences about unrelated topics, below. It does not depend on the size of the knowledge
base (a per-base average would be dominated by the relevant chunks in a small base).
"""

from __future__ import annotations

import threading

import numpy as np

from relais.embeddings import Embedder

REFERENCE_SENTENCES: dict[str, list[str]] = {
    "en": [
        "The weather will be sunny tomorrow with a light breeze.",
        "She bought fresh bread and cheese at the market this morning.",
        "The train to the city leaves every twenty minutes.",
        "Our team won the football match last Saturday.",
        "The museum opens a new exhibition about ancient Egypt next week.",
        "He is learning to play the guitar in his free time.",
        "The recipe needs two eggs, flour and a cup of milk.",
        "The company reported higher profits in the last quarter.",
        "Children played in the park until the sun went down.",
        "The new smartphone has a larger screen and a better camera.",
        "Please send me the report before the meeting on Monday.",
        "The river flooded several villages after the heavy rain.",
        "They are planning a holiday in the mountains this summer.",
        "The library lends books, films and music for free.",
        "A new road will connect the two towns by next year.",
        "The doctor advised him to drink more water.",
        "Elections will be held in the spring.",
        "The cat is sleeping on the sofa near the window.",
        "Prices of vegetables went up because of the drought.",
        "The concert was cancelled because the singer was ill.",
        "How do I get to the airport from the station?",
        "What time does the bakery close on Sunday?",
        "Who painted this picture hanging in the hall?",
        "Can you recommend a good restaurant nearby?",
        "Why is the sky blue during the day?",
        "Where can I buy tickets for the show?",
        "The printer on the second floor is out of paper.",
        "Scientists discovered a new species of frog in the rainforest.",
        "My neighbour repaired his car in the garage.",
        "The school year starts at the beginning of September.",
    ],
    "fr": [
        "Il fera beau demain avec un léger vent d'ouest.",
        "Elle a acheté du pain frais et du fromage au marché ce matin.",
        "Le train pour le centre-ville part toutes les vingt minutes.",
        "Notre équipe a gagné le match de football samedi dernier.",
        "Le musée ouvre une nouvelle exposition sur l'Égypte ancienne la semaine prochaine.",
        "Il apprend à jouer de la guitare pendant son temps libre.",
        "La recette demande deux œufs, de la farine et un verre de lait.",
        "L'entreprise a annoncé des bénéfices en hausse au dernier trimestre.",
        "Les enfants ont joué dans le parc jusqu'au coucher du soleil.",
        "Le nouveau téléphone a un écran plus grand et un meilleur appareil photo.",
        "Merci de m'envoyer le rapport avant la réunion de lundi.",
        "La rivière a inondé plusieurs villages après les fortes pluies.",
        "Ils prévoient des vacances à la montagne cet été.",
        "La bibliothèque prête gratuitement des livres, des films et de la musique.",
        "Une nouvelle route reliera les deux villes l'année prochaine.",
        "Le médecin lui a conseillé de boire plus d'eau.",
        "Les élections auront lieu au printemps.",
        "Le chat dort sur le canapé près de la fenêtre.",
        "Le prix des légumes a augmenté à cause de la sécheresse.",
        "Le concert a été annulé parce que la chanteuse était malade.",
        "Comment aller à l'aéroport depuis la gare ?",
        "À quelle heure ferme la boulangerie le dimanche ?",
        "Qui a peint ce tableau accroché dans l'entrée ?",
        "Pouvez-vous me conseiller un bon restaurant près d'ici ?",
        "Pourquoi le ciel est-il bleu pendant la journée ?",
        "Où puis-je acheter des billets pour le spectacle ?",
        "L'imprimante du deuxième étage n'a plus de papier.",
        "Des scientifiques ont découvert une nouvelle espèce de grenouille dans la forêt tropicale.",
        "Mon voisin a réparé sa voiture dans le garage.",
        "L'année scolaire commence au début du mois de septembre.",
    ],
}

_CACHE: dict[tuple[str, str], np.ndarray] = {}
_LOCK = threading.Lock()


def reference_centroid(embedder: Embedder, language: str) -> np.ndarray:
    """Mean vector of the reference sentences: q·centroid = q's mean cosine to them."""
    language = language if language in REFERENCE_SENTENCES else "en"
    key = (embedder.name, language)
    with _LOCK:
        if key not in _CACHE:
            vectors = embedder.embed_documents(REFERENCE_SENTENCES[language])
            _CACHE[key] = np.asarray(vectors, dtype=np.float32).mean(axis=0)
        return _CACHE[key]


def baseline_similarity(embedder: Embedder, query_vector: np.ndarray, language: str) -> float:
    """The question's mean cosine to ordinary text in `language`."""
    return float(np.dot(reference_centroid(embedder, language), query_vector))
