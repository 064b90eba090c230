"""Every word the table page shows, in French and in English.

Why here and not in the page's script: the words come with the game's facts (who took,
which card, how many points), which Python knows; the page only places them. One table
per language, the same keys in both (a test checks it), French by default when the
system speaks French, since that is where most Tarot players are.
"""

from __future__ import annotations

import locale
import os
from typing import Final

from tarot_p2p.rules.cards import EXCUSE, RANK_OF, SUIT_OF, TRUMP_SUIT, Card

LANGUAGES: Final = ("fr", "en")
SUIT_SYMBOLS: Final = ("♠", "♥", "♦", "♣")
"""Spades, hearts, diamonds, clubs (the suits' numbering in :mod:`tarot_p2p.rules.cards`)."""

_FR: Final[dict[str, str]] = {
    "title": "Tarot entre pairs",
    "you": "vous",
    "dealer": "donne",
    "cards_left": "{n} cartes",
    "last_trick": "Dernier pli",
    "hide": "Masquer",
    "tricks": "Plis",
    "trick_line": "Pli {n} : {name}",
    "undo": "Annuler",
    "done": "Valider l'écart",
    "leave": "Quitter la table",
    "quit": "Partir",
    "left_lobby": (
        "Vous avez quitté la table avant le début de la partie. Vous pouvez fermer cette page."
    ),
    "download": "Télécharger la transcription",
    "sheet": "Feuille de marque",
    "deal": "Donne",
    "total": "Total",
    "trust": "Confiance",
    "score": "Résultat de la donne",
    "chart": "Totaux au fil des donnes",
    "connecting": "Connexion à votre programme…",
    "disconnected": (
        "La page a perdu son programme : elle l'attend. Si vous l'avez arrêté, relancez la "
        "même commande pour reprendre votre place."
    ),
    "over_closed": (
        "La partie est finie et son programme s'est arrêté. Votre feuille de marque et "
        "l'enregistrement de la partie sont gardés (tarot-p2p history liste vos parties). "
        "Vous pouvez fermer cette page."
    ),
    "new_page": (
        "Votre programme a été relancé et sa page a une nouvelle clé : utilisez la page qu'il "
        "a ouverte (ou le fichier écrit après « your table: » dans son terminal). Vous pouvez "
        "fermer celle-ci."
    ),
    "left_table": (
        "Vous avez quitté la table. Votre feuille de marque et l'enregistrement de la partie "
        "sont gardés (tarot-p2p history liste vos parties). Pour rejouer : tarot-p2p host, ou "
        "tarot-p2p join avec le code d'un ami. Vous pouvez fermer cette page."
    ),
    "page_refused": (
        "Le programme a ignoré un message de cette page (trop long, trop rapide ou "
        "incompréhensible)."
    ),
    "door_title": "Tarot : cette table est privée",
    "door_text": (
        "Cette page est à la personne dont le programme l'a ouverte. Pour y entrer, ouvrez "
        "dans un navigateur de cet ordinateur le fichier que tarot-p2p a écrit dans son "
        "terminal après « your table: »."
    ),
    "door_used": (
        "Cette clé a déjà servi (elle ne sert qu'une fois). Rouvrez la table avec le fichier "
        "que tarot-p2p a écrit dans son terminal après « your table: »."
    ),
    "draw": "Tirage des places…",
    "dealing": "Donne {hand} : chaque joueur mélange le paquet masqué, preuve à l'appui…",
    "waiting_table": "En attente des autres joueurs…",
    "join_help": "Pour s'asseoir à cette table, les autres joueurs tapent :",
    "waiting_more_one": "En attente d'un joueur de plus…",
    "waiting_more": "En attente de {n} joueurs de plus…",
    "seated": "À la table : {names}",
    "copy": "Copier",
    "turn_of": "À {name} de jouer.",
    "turn_bid": "À {name} de parler.",
    "turn_call": "À {name} d'appeler un roi.",
    "turn_ecart": "{name} fait son écart.",
    "you_bid": "À vous de parler.",
    "short_bid": "À vous de parler.",
    "short_call": "À vous d'appeler un roi.",
    "short_ecart": "À vous de faire l'écart.",
    "short_go": "À vous d'entamer.",
    "short_play": "À vous de jouer.",
    "you_call": "Appelez un roi (le joueur qui l'a sera votre partenaire, en secret).",
    "you_ecart": (
        "Faites votre écart : choisissez {n} cartes. Ni roi ni bout ; un atout seulement "
        "si vous ne pouvez pas faire autrement, et il sera montré."
    ),
    "ecart_chosen": "{k} sur {n} choisies.",
    "ecart_trumps": "Vous devez écarter des atouts : ils seront montrés à tous.",
    "you_go": "Avant d'entamer : annoncez-vous un chelem ?",
    "you_play": "À vous de jouer.",
    "you_announce": "Vous pouvez annoncer avant votre première carte.",
    "go": "Non, jouer",
    "go_chelem": "Annoncer un chelem",
    "go_petit_chelem": "Annoncer un petit chelem",
    "pass": "Passe",
    "prise": "Prise",
    "garde": "Garde",
    "garde_sans": "Garde sans",
    "garde_contre": "Garde contre",
    "petit_sec": "Petit sec (la donne est annulée)",
    "misere_trump": "Misère d'atout",
    "misere_head": "Misère de tête",
    "poignee": "{level} poignée ({n} atouts)",
    "poignee_1": "Simple",
    "poignee_2": "Double",
    "poignee_3": "Triple",
    "call": "Appeler {card}",
    "contract": "{name} : {contract}",
    "called": "Roi appelé : {card}",
    "partner_is": "Partenaire : {name}",
    "partner_you": "Vous êtes le partenaire de {taker} (vous avez {card}).",
    "partner_unknown": "Partenaire inconnu",
    "alone": "{name} joue seul",
    "alone_you": "Vous jouez seul (vous avez appelé votre propre roi).",
    "alone_short": "aucun (seul)",
    "chien": "Chien",
    "chien_taken": "Chien, pris par {name}",
    "chien_of": "Chien : {cards}",
    "ecart_shown": "Atouts écartés",
    "ecart_mine": "Votre écart (vous seul le voyez)",
    "bid_of": "{name} : {bid}",
    "played": "{name} joue {card}",
    "takes": "{name} remporte le pli {n}",
    "chelem_announced": "{name} annonce un chelem",
    "petit_chelem_announced": "{name} annonce un petit chelem",
    "poignee_of": "{name} montre une poignée : {cards}",
    "misere_of": "{name} annonce {kind}",
    "petit_sec_of": "{name} a le petit sec : donne annulée",
    "all_pass": "Tout le monde passe : donne annulée",
    "seats_drawn": (
        "Places tirées (chacun a tiré un atout) : {name} a le petit et donne en premier."
    ),
    "hand_agreed": "Donne {hand} signée par tous.",
    "refused": "Refusé : {reason}",
    "game_over": "Partie terminée. Gagnant : {names}.",
    "game_over_shared": "Partie terminée. {names} se partagent la victoire.",
    "game_over_level": "Partie terminée à égalité : personne ne gagne.",
    "and": "et",
    "score_taker": "Preneur",
    "score_contract": "Contrat",
    "score_partner": "Partenaire",
    "score_oudlers": "Bouts",
    "score_points": "Points faits",
    "score_needed": "Points demandés",
    "score_result": "Résultat",
    "made_by": "réussi de {n}",
    "failed_by": "chuté de {n}",
    "score_base": "Base (25 + écart) × contrat",
    "score_petit": "Petit au bout",
    "score_poignees": "Poignées",
    "score_chelem": "Chelem",
    "score_miseres": "Misères",
    "score_offence": "Faute relevée par l'audit",
    "score_hand": "Marque de la donne",
    "attack": "attaque",
    "defence": "défense",
    "void_petit_sec": "Donne annulée (petit sec)",
    "void_all_pass": "Donne annulée (tout le monde a passé)",
    "misere_deal": "Donne de misère",
    "trust_messages": (
        "{n} messages reçus, chacun signé par son auteur et vérifié par votre programme."
    ),
    "trust_shuffle": "Paquet mélangé par chacun des {n} joueurs, chaque mélange prouvé.",
    "trust_cards": "Chaque carte ouverte l'a été avec une preuve : personne n'a pu tricher.",
    "trust_hands": "{n} donnes : marque vérifiée et signée par tous.",
    "trust_hands_one": "1 donne : marque vérifiée et signée par tous.",
    "trust_none": "Rien à vérifier pour l'instant.",
    "notice_waiting": "En attente de {name} ({time})",
    "notice_waiting_back": "En attente de {name} (reconnexion, {time})",
    "notice_back": "{name} revient à la table (reconnexion)",
    "notice_reconnecting": "Connexion perdue : reconnexion en cours ({time})",
    "notice_connected": "De retour à la table",
    "notice_confirming": (
        "Reprise depuis vos fichiers : vous ne jouez pas avant que {name} dise où en est la "
        "partie (vos fichiers sont peut-être plus anciens que vos coups) ({time})"
    ),
    "abandon_title": "{name} est resté silencieux : le remplaçant a joué sa main",
    "abandon_title_you": "Vous étiez absent : le remplaçant a joué votre main",
    "notice_absent": (
        "{name} ne répond plus depuis {time} : le remplaçant (un robot) jouera sa main "
        "quand tous les joueurs l'auront constaté"
    ),
    "notice_claimed": (
        "Un joueur constate l'absence de {name} ; "
        "le remplaçant (un robot) jouera sa main quand tous l'auront constatée"
    ),
    "notice_claimed_you": (
        "Un joueur constate votre absence ; "
        "le remplaçant (un robot) jouera votre main quand tous l'auront constatée"
    ),
    "notice_turn": "Il vous reste {time} pour {what}",
    "notice_turn_plain": "À vous ({time})",
    "notice_turn_over": (
        "Votre temps est écoulé : quand tous les autres joueurs l'auront constaté, "
        "le remplaçant (un robot) jouera votre main"
    ),
    "notice_waiting_left": "Il reste {time} à {name} pour {what}",
    "notice_waiting_over": (
        "Le temps de {name} est écoulé : quand tous les joueurs l'auront constaté, "
        "le remplaçant (un robot) jouera sa main"
    ),
    "notice_unheard": (
        "Les autres ne reçoivent pas vos messages : ils ne passent pas le relais (le "
        "programme de l'hôte ou le serveur relais). Vous n'étiez pas absent ; vérifiez votre "
        "connexion, ou demandez à l'hôte de vérifier la sienne."
    ),
    "notice_overtaken": (
        "Votre coup n'est pas parvenu aux autres à temps (perdu au relais : le programme de "
        "l'hôte ou le serveur relais) : le remplaçant (un robot) joue votre main"
    ),
    "what_bid": "enchérir",
    "what_call": "appeler un roi",
    "what_ecart": "faire l'écart",
    "what_play": "jouer",
    "what_answer": "répondre (son programme)",
    "what_answer_you": "répondre (votre programme)",
    "what_speak": "parler",
    "stand_in_log": "Le remplaçant (un robot) joue la main de {name}",
    "stand_in_log_you": "Le remplaçant (un robot) joue votre main",
    "stand_in_other": (
        "{name} n'a rien envoyé pendant {time} quand c'était à lui de {what} : le "
        "remplaçant, un robot que chaque programme calcule à l'identique, a joué sa main. "
        "La donne est comptée telle que jouée."
    ),
    "stand_in_you": (
        "Les autres n'ont rien reçu de vous pendant {time} quand c'était à vous de {what} : "
        "le remplaçant, un robot que chaque programme calcule à l'identique, a joué votre "
        "main. La donne est comptée telle que jouée."
    ),
    "stand_in_you_unheard": (
        "Vos messages ne sont pas parvenus aux autres (perdus au relais : le programme de "
        "l'hôte ou le serveur relais) pendant {time} quand c'était à vous de {what} : le "
        "remplaçant, un robot que chaque programme calcule à l'identique, a joué votre "
        "main. La donne est comptée telle que jouée."
    ),
    "someone": "un joueur",
    "why_follow": "Vous devez fournir à {suit}.",
    "why_must_trump": "Vous n'avez pas de {suit} : vous devez couper (jouer un atout).",
    "why_trump_led": "Atout demandé : vous devez jouer un atout.",
    "why_overtrump": "Vous devez monter : jouez un atout plus fort que le {n}.",
    "why_not_now": "Cette carte n'est pas permise maintenant.",
    "why_ecart_full": "Votre écart est complet : validez-le, ou annulez une carte.",
    "why_ecart_king": "Un roi ne va jamais à l'écart.",
    "why_ecart_oudler": "Un bout (le 1, le 21, l'Excuse) ne va jamais à l'écart.",
    "why_ecart_trump": "Un atout ne va à l'écart que faute d'autres cartes : il vous en reste.",
    "tab_log": "Journal",
    "tab_score": "Donne",
    "tab_sheet": "Marque",
    "suit_0": "pique",
    "suit_1": "cœur",
    "suit_2": "carreau",
    "suit_3": "trèfle",
    "rank_1": "As",
    "rank_11": "Valet",
    "rank_12": "Cavalier",
    "rank_13": "Dame",
    "rank_14": "Roi",
    "card_suit": "{rank} de {suit}",
    "card_trump": "{n} d'atout",
    "excuse": "Excuse",
    "face_11": "V",
    "face_12": "C",
    "face_13": "D",
    "face_14": "R",
}

_EN: Final[dict[str, str]] = {
    "title": "Peer-to-peer Tarot",
    "you": "you",
    "dealer": "deals",
    "cards_left": "{n} cards",
    "last_trick": "Last trick",
    "hide": "Hide",
    "tricks": "Tricks",
    "trick_line": "Trick {n}: {name}",
    "undo": "Undo",
    "done": "Confirm the écart",
    "leave": "Leave the table",
    "quit": "Leave",
    "left_lobby": "You left the table before the game started. You can close this page.",
    "download": "Download the transcript",
    "sheet": "Score sheet",
    "deal": "Deal",
    "total": "Total",
    "trust": "Trust",
    "score": "Result of the deal",
    "chart": "Totals over the deals",
    "connecting": "Connecting to your program…",
    "disconnected": (
        "This page lost its program and waits for it. If you stopped it, run the same "
        "command again to take your seat back."
    ),
    "over_closed": (
        "The game is over and its program has stopped. Your score sheet and the game's "
        "record are kept (tarot-p2p history lists your games). You can close this page."
    ),
    "new_page": (
        "Your program was started again and its page has a new key: use the page it opened "
        '(or the file printed after "your table:" in its terminal). You can close this one.'
    ),
    "left_table": (
        "You left the table. Your score sheet and the game's record are kept (tarot-p2p "
        "history lists your games). To play again: tarot-p2p host, or tarot-p2p join with a "
        "friend's code. You can close this page."
    ),
    "page_refused": (
        "The program ignored a message from this page (too long, too fast, or not understood)."
    ),
    "door_title": "Tarot: this table is private",
    "door_text": (
        "This page belongs to the player whose program opened it. To get in, open the file "
        'that tarot-p2p printed in its terminal after "your table:", in a browser on this '
        "computer."
    ),
    "door_used": (
        "This key was already used (it works once). Open the table again with the file "
        'that tarot-p2p printed in its terminal after "your table:".'
    ),
    "draw": "Drawing the seats…",
    "dealing": "Deal {hand}: every player shuffles the masked deck, with a proof…",
    "waiting_table": "Waiting for the other players…",
    "join_help": "To sit at this table, the other players type:",
    "waiting_more_one": "Waiting for 1 more player…",
    "waiting_more": "Waiting for {n} more players…",
    "seated": "At the table: {names}",
    "copy": "Copy",
    "turn_of": "{name} to play.",
    "turn_bid": "{name} to bid.",
    "turn_call": "{name} to call a king.",
    "turn_ecart": "{name} makes the écart.",
    "you_bid": "Your bid.",
    "short_bid": "Your bid.",
    "short_call": "Call a king.",
    "short_ecart": "Make your écart.",
    "short_go": "Your lead.",
    "short_play": "Your card.",
    "you_call": "Call a king (whoever holds it is your partner, secretly).",
    "you_ecart": (
        "Make your écart: choose {n} cards. No king nor oudler; a trump only when nothing "
        "else is left, and it will be shown."
    ),
    "ecart_chosen": "{k} of {n} chosen.",
    "ecart_trumps": "You must discard trumps: they will be shown to everyone.",
    "you_go": "Before the lead: do you announce a chelem?",
    "you_play": "Your card.",
    "you_announce": "You may announce before your first card.",
    "go": "No, play",
    "go_chelem": "Announce a chelem",
    "go_petit_chelem": "Announce a petit chelem",
    "pass": "Pass",
    "prise": "Prise",
    "garde": "Garde",
    "garde_sans": "Garde sans",
    "garde_contre": "Garde contre",
    "petit_sec": "Petit sec (the deal is void)",
    "misere_trump": "Misère d'atout (no trump, no Excuse)",
    "misere_head": "Misère de tête (no face card)",
    "poignee": "{level} poignée ({n} trumps)",
    "poignee_1": "Single",
    "poignee_2": "Double",
    "poignee_3": "Triple",
    "call": "Call {card}",
    "contract": "{name}: {contract}",
    "called": "King called: {card}",
    "partner_is": "Partner: {name}",
    "partner_you": "You are {taker}'s partner (you hold {card}).",
    "partner_unknown": "Partner unknown",
    "alone": "{name} plays alone",
    "alone_you": "You play alone (you called your own king).",
    "alone_short": "none (alone)",
    "chien": "Chien",
    "chien_taken": "Chien, taken by {name}",
    "chien_of": "Chien: {cards}",
    "ecart_shown": "Trumps discarded",
    "ecart_mine": "Your écart (only you see it)",
    "bid_of": "{name}: {bid}",
    "played": "{name} plays {card}",
    "takes": "{name} wins trick {n}",
    "chelem_announced": "{name} announces a chelem",
    "petit_chelem_announced": "{name} announces a petit chelem",
    "poignee_of": "{name} shows a poignée: {cards}",
    "misere_of": "{name} announces {kind}",
    "petit_sec_of": "{name} has the petit sec: deal void",
    "all_pass": "Everybody passed: deal void",
    "seats_drawn": "Seats drawn (each player drew a trump): {name} has the 1 and deals first.",
    "hand_agreed": "Deal {hand} signed by everyone.",
    "refused": "Refused: {reason}",
    "game_over": "Game over. Winner: {names}.",
    "game_over_shared": "Game over. {names} share the win.",
    "game_over_level": "Game over, level: nobody wins.",
    "and": "and",
    "score_taker": "Taker",
    "score_contract": "Contract",
    "score_partner": "Partner",
    "score_oudlers": "Oudlers",
    "score_points": "Points made",
    "score_needed": "Points needed",
    "score_result": "Result",
    "made_by": "made by {n}",
    "failed_by": "failed by {n}",
    "score_base": "Base (25 + difference) × contract",
    "score_petit": "Petit au bout",
    "score_poignees": "Poignées",
    "score_chelem": "Chelem",
    "score_miseres": "Misères",
    "score_offence": "Offence found by the audit",
    "score_hand": "Deal score",
    "attack": "attack",
    "defence": "defence",
    "void_petit_sec": "Deal void (petit sec)",
    "void_all_pass": "Deal void (everybody passed)",
    "misere_deal": "Misère deal",
    "trust_messages": (
        "{n} messages received, each signed by its sender and checked by your program."
    ),
    "trust_shuffle": "Deck shuffled by each of the {n} players, every shuffle proven.",
    "trust_cards": "Every card opened came with a proof: nobody could cheat.",
    "trust_hands": "{n} deals: score checked and signed by everyone.",
    "trust_hands_one": "1 deal: score checked and signed by everyone.",
    "trust_none": "Nothing to check yet.",
    "notice_waiting": "Waiting for {name} ({time})",
    "notice_waiting_back": "Waiting for {name} (reconnecting, {time})",
    "notice_back": "{name} is coming back (reconnecting)",
    "notice_reconnecting": "Connection lost: reconnecting ({time})",
    "notice_connected": "Back at the table",
    "notice_confirming": (
        "Taken back from your files: you play nothing until {name} says where the game "
        "stands (your files may be older than your moves) ({time})"
    ),
    "abandon_title": "{name} went silent: the stand-in played their hand",
    "abandon_title_you": "You were away: the stand-in played your hand",
    "notice_absent": (
        "{name} has not answered for {time}: the stand-in (a bot) will play their hand "
        "once every player has noted it"
    ),
    "notice_claimed": (
        "A player has noted that {name} is away; "
        "the stand-in (a bot) plays their hand once every player has"
    ),
    "notice_claimed_you": (
        "A player has noted that you are away; "
        "the stand-in (a bot) plays your hand once every player has"
    ),
    "notice_turn": "You have {time} to {what}",
    "notice_turn_plain": "Your turn ({time})",
    "notice_turn_over": (
        "Your time is up: once every other player has noted it, "
        "the stand-in (a bot) plays your hand"
    ),
    "notice_waiting_left": "{name} has {time} to {what}",
    "notice_waiting_over": (
        "{name}'s time is up: once every player has noted it, the stand-in (a bot) plays their hand"
    ),
    "notice_unheard": (
        "The others are not receiving your messages: they are not getting through the hub "
        "(the host's program or the relay). You were not away; check your connection, or ask "
        "the host to check theirs."
    ),
    "notice_overtaken": (
        "Your move did not reach the others in time (lost at the hub: the host's program or "
        "the relay): the stand-in (a bot) plays your hand"
    ),
    "what_bid": "bid",
    "what_call": "call a king",
    "what_ecart": "make the écart",
    "what_play": "play",
    "what_answer": "answer (their program)",
    "what_answer_you": "answer (your program)",
    "what_speak": "speak",
    "stand_in_log": "The stand-in (a bot) plays {name}'s hand",
    "stand_in_log_you": "The stand-in (a bot) plays your hand",
    "stand_in_other": (
        "{name} sent nothing for {time} when it was their turn to {what}: the stand-in, a "
        "bot every program computes the same way, played their hand. The deal is scored as "
        "played."
    ),
    "stand_in_you": (
        "The others received nothing from you for {time} when it was your turn to {what}: "
        "the stand-in, a bot every program computes the same way, played your hand. The "
        "deal is scored as played."
    ),
    "stand_in_you_unheard": (
        "Your messages did not reach the others (lost at the hub: the host's program or the "
        "relay) for {time} when it was your turn to {what}: the stand-in, a bot every "
        "program computes the same way, played your hand. The deal is scored as played."
    ),
    "someone": "a player",
    "why_follow": "You must follow {suit}.",
    "why_must_trump": "You have no {suit}: you must trump.",
    "why_trump_led": "Trumps were led: you must play a trump.",
    "why_overtrump": "You must play a trump higher than the {n}.",
    "why_not_now": "This card is not allowed now.",
    "why_ecart_full": "Your écart is complete: confirm it, or undo a card.",
    "why_ecart_king": "A king never goes into the écart.",
    "why_ecart_oudler": "An oudler (the 1, the 21, the Excuse) never goes into the écart.",
    "why_ecart_trump": "A trump goes into the écart only when no other card can: you have others.",
    "tab_log": "Log",
    "tab_score": "Deal",
    "tab_sheet": "Scores",
    "suit_0": "spades",
    "suit_1": "hearts",
    "suit_2": "diamonds",
    "suit_3": "clubs",
    "rank_1": "Ace",
    "rank_11": "Jack",
    "rank_12": "Knight",
    "rank_13": "Queen",
    "rank_14": "King",
    "card_suit": "{rank} of {suit}",
    "card_trump": "Trump {n}",
    "excuse": "Excuse",
    "face_11": "J",
    "face_12": "C",
    "face_13": "Q",
    "face_14": "K",
}

TABLES: Final[dict[str, dict[str, str]]] = {"fr": _FR, "en": _EN}


def system_language(environ: dict[str, str] | None = None) -> str:
    """``fr`` when the system locale is French, else ``en``: the POSIX variables in their
    order of precedence, then Python's idea of the locale."""
    env = os.environ if environ is None else environ
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = env.get(var, "")
        if value:
            return "fr" if value.lower().startswith("fr") else "en"
    if environ is None:
        name = locale.getlocale()[0] or ""
        if name.lower().startswith("fr"):
            return "fr"
    return "en"


class Words:
    """One language's words: ``words("key", name=...)``."""

    def __init__(self, lang: str) -> None:
        if lang not in TABLES:
            raise ValueError(f"language is one of {', '.join(LANGUAGES)}")
        self.lang = lang
        self.table = TABLES[lang]

    def __call__(self, key: str, **values: object) -> str:
        return self.table[key].format(**values)

    def count(self, key: str, n: int, **values: object) -> str:
        """The words of ``key`` for ``n`` things: ``key_one`` when there is one and the
        table has it ("1 deal", not "1 deals")."""
        if n == 1 and f"{key}_one" in self.table:
            return self(f"{key}_one", n=n, **values)
        return self(key, n=n, **values)

    def card(self, c: Card) -> str:
        """A card's full name: "Roi de cœur", "12 d'atout", "Excuse"."""
        if c == EXCUSE:
            return self("excuse")
        if SUIT_OF[c] == TRUMP_SUIT:
            return self("card_trump", n=RANK_OF[c])
        rank = RANK_OF[c]
        label = self.table.get(f"rank_{rank}", str(rank))
        return self("card_suit", rank=label, suit=self(f"suit_{SUIT_OF[c]}"))

    def suit(self, suit: int) -> str:
        """A suit's name with its symbol: "cœur ♥"."""
        return f"{self(f'suit_{suit}')} {SUIT_SYMBOLS[suit]}"

    def duration(self, seconds: int) -> str:
        """A length of time as players say it: "30 s", "5 min", "1 min 30 s"."""
        minutes, rest = divmod(max(0, seconds), 60)
        if not minutes:
            return f"{rest} s"
        return f"{minutes} min" + (f" {rest} s" if rest else "")

    def clock(self, seconds: float) -> str:
        whole = max(0, int(seconds))
        return f"{whole // 60}:{whole % 60:02d}"
