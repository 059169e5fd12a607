"""Cards as ints, hands as bitmasks.

Bit layout of a hand (python-chess style: plain ints with names)::

    bit  63 ........ 48 47 ........ 32 31 ........ 16 15 ......... 0
         | clubs lane  | diamonds lane | hearts lane  | spades lane  |
    lane bit 0 = Ace, 1 = Two, ..., 12 = King; bits 13-15 of a lane are always 0.

A card is the index of its bit: ``suit * 16 + rank`` with rank 0 (Ace) to 12 (King).
Because each suit has its own 16-bit lane with three empty bits on top, a run is found
with shifts and ANDs (``h & h >> 1 & h >> 2`` marks the low card of every 3-run) and a
shift can never wrap a King onto the next suit's Ace.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from .errors import GinError

Card = int
Hand = int

RANK_CHARS = "A23456789TJQK"
SUIT_CHARS = "shdc"
SUIT_SYMBOLS = "♠♥♦♣"
LANE_BITS = 16
RANK_MASK = (1 << 13) - 1
RANK_COLUMN: Hand = 1 | 1 << 16 | 1 << 32 | 1 << 48
"""The four Aces; ``RANK_COLUMN << rank`` is every card of that rank."""
FULL_DECK: Hand = RANK_MASK | RANK_MASK << 16 | RANK_MASK << 32 | RANK_MASK << 48
ALL_CARDS: tuple[Card, ...] = tuple(s * LANE_BITS + r for s in range(4) for r in range(13))
SPADES = 0


class CardError(GinError):
    """A card or hand that cannot be parsed or is not valid for the request; ``card`` names the card at
    fault, ``index`` the position, in a list of hands or melds, of the one at fault, and ``field`` the input
    that holds it (each if known)."""

    def __init__(self, message: str, card: str | None = None, index: int | None = None,
                 field: str | None = None) -> None:
        super().__init__(message)
        self.card = card
        self.index = index
        self.field = field


def make_card(rank: int, suit: int) -> Card:
    """The card of rank 0-12 (Ace..King) and suit 0-3 (s, h, d, c)."""
    if not (0 <= rank < 13 and 0 <= suit < 4):
        raise CardError(f"no card has rank {rank} and suit {suit}: ranks are 0-12, suits 0-3", card=None)
    return suit * LANE_BITS + rank


def card_rank(card: Card) -> int:
    """Rank index 0 (Ace) to 12 (King)."""
    return card & 15


def card_suit(card: Card) -> int:
    """Suit index 0-3 (spades, hearts, diamonds, clubs)."""
    return card >> 4


def card_value(card: Card) -> int:
    """Deadwood value: Ace 1, 2-10 face value, J/Q/K 10."""
    return min(card_rank(card) + 1, 10)


def card_bit(card: Card) -> Hand:
    """The one-card hand holding ``card``."""
    return 1 << card


SPACE = r"\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
r"""The white space allowed around a card, as the body of a regular-expression class: exactly what
``\s`` matches in ECMAScript, the dialect of the OpenAPI patterns. (Python's ``\s`` is not the same:
it also matches U+001C-U+001F and U+0085, and not U+FEFF.)"""
# A suit symbol may carry a presentation selector: the emoji one (U+FE0F) that phone keyboards add,
# 5♣️, or the text one (U+FE0E).
_CARD_RE = re.compile(rf"^[{SPACE}]*(10|[2-9atjqkAJQKT])[{SPACE}]*([shdcSHDC♠♥♦♣♤♡♢♧])[\uFE0E\uFE0F]?[{SPACE}]*$")
_SEPARATORS_RE = re.compile(rf"[{SPACE},]+")
_SUIT_OF = {
    **{c: i for i, c in enumerate(SUIT_CHARS)},
    **{c: i for i, c in enumerate(SUIT_CHARS.upper())},
    **{c: i for i, c in enumerate(SUIT_SYMBOLS)},
    **{c: i for i, c in enumerate("♤♡♢♧")},
}


CARD_SPELLING = "a rank (A 2-9 T/10 J Q K) and a suit (s h d c or ♠ ♥ ♦ ♣)"
"""How a card is written, as the faults of unknown cards say it."""


def parse_card(text: str) -> Card:
    """Parse ``As``, ``AS``, ``10h``, ``Th``, ``T♥``, ``a♠`` into a card."""
    if isinstance(text, str):
        card = _SPELLINGS.get(text)
        if card is not None:
            return card
    match = _CARD_RE.match(text) if isinstance(text, str) else None
    if match is None:
        raise CardError(
            f"unknown card {text!r}: expected {CARD_SPELLING}",
            card=str(text),
        )
    rank_text, suit_text = match.groups()
    return _SPELLINGS[rank_text + suit_text]


# Every spelling of every card without spaces (the regular expression is only needed for spaces).
_SPELLINGS = {
    rank_text + suit_text: make_card(rank, suit)
    for rank, rank_char in enumerate(RANK_CHARS)
    for rank_text in {rank_char, rank_char.lower(), *(("10",) if rank_char == "T" else ())}
    for suit_text, suit in _SUIT_OF.items()
}


CARD_NAMES: tuple[str, ...] = tuple(RANK_CHARS[c & 15] + SUIT_CHARS[c >> 4] if c & 15 < 13 else "" for c in range(64))
"""``CARD_NAMES[card]`` is ``format_card(card)``, without the call (for loops that name many cards)."""


def format_card(card: Card) -> str:
    """Canonical two-character form: rank upper case, suit lower case (``Th``)."""
    return CARD_NAMES[check_card(card)]


def check_card(card: Card) -> Card:
    """``card``, or CardError when it is no card of the deck (cards are ints: ``make_card``)."""
    if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < 64 or card & 15 > 12:
        raise CardError(f"{card!r} is not a card: cards are the ints of make_card(rank, suit)", card=None)
    return card


def check_hand(hand: Hand, sizes: Iterable[int] | None = None) -> Hand:
    """``hand``, or CardError when it holds anything but cards of the deck or (with ``sizes``) a number
    of cards not among them (hands are ints: ``parse_hand``, ``hand_from_cards``)."""
    if isinstance(hand, bool) or not isinstance(hand, int) or hand < 0 or hand & ~FULL_DECK:
        raise CardError(f"{hand!r} is not a hand: hands are the ints of parse_hand or hand_from_cards", card=None)
    if sizes is not None:
        _check_size(hand, sizes)
    return hand


def lowest_card(hand: Hand) -> Card:
    """The first card of a hand that is not empty, in bit order (the card an error about a set of cards names)."""
    return (hand & -hand).bit_length() - 1


def iter_cards(hand: Hand) -> Iterator[Card]:
    """The cards of a hand, in bit order (by suit s h d c, then rank)."""
    while hand:
        low = hand & -hand
        yield low.bit_length() - 1
        hand ^= low


def hand_cards(hand: Hand) -> list[Card]:
    """The cards of a hand as a list, in bit order."""
    return list(iter_cards(hand))


def _rank_order(hand: Hand) -> int:
    """The hand with bit ``4 * rank + suit`` for each card: its bits run by rank, then suit.

    Each suit's lane is spread to every fourth bit, and the four suits are interleaved.
    """
    spread = _SPREAD_LANE
    return (spread[hand & RANK_MASK] | spread[hand >> 16 & RANK_MASK] << 1
            | spread[hand >> 32 & RANK_MASK] << 2 | spread[hand >> 48 & RANK_MASK] << 3)


def hand_repr(hand: Hand) -> str:
    """Code that makes ``hand``, ``parse_hand('7h 8h 9h')``: value objects holding hands print so, to paste back
    (an int that is no hand as itself)."""
    try:
        return f"parse_hand({' '.join(format_hand(check_hand(hand)))!r})"
    except CardError:
        return repr(hand)


def card_repr(card: Card) -> str:
    """Code that makes ``card``, ``parse_card('9h')`` (an int that is no card as itself)."""
    try:
        return f"parse_card({format_card(card)!r})"
    except CardError:
        return repr(card)


def _spread_lanes() -> tuple[int, ...]:
    """For each 13-bit lane, its bit ``rank`` moved to bit ``4 * rank`` (each from a smaller lane's)."""
    spread = [0] * (1 << 13)
    for lane in range(1, 1 << 13):
        low = lane & -lane
        spread[lane] = spread[lane ^ low] | 1 << 4 * (low.bit_length() - 1)
    return tuple(spread)


_SPREAD_LANE = _spread_lanes()
_CARD_AT_RANK_ORDER = tuple((index & 3) * LANE_BITS + (index >> 2) for index in range(52))


def hand_size(hand: Hand) -> int:
    """Number of cards in a hand."""
    return hand.bit_count()


def hand_value(hand: Hand) -> int:
    """Sum of the deadwood values of the cards of a hand."""
    total = 0
    for suit in range(4):
        lane = hand >> (suit * LANE_BITS) & RANK_MASK
        total += _LOW_RANKS_VALUE[lane & 0x7F] + _LANE_HIGH_VALUE[lane >> 7]
    return total


_LOW_RANKS_VALUE = tuple(sum(r + 1 for r in range(7) if m >> r & 1) for m in range(128))
_LANE_HIGH_VALUE = tuple(sum(min(r + 8, 10) for r in range(6) if m >> r & 1) for m in range(64))


def split_hand_text(text: str) -> list[str]:
    """Split ``"As 2s,3s"`` into card tokens (white space, as ``SPACE``, and/or commas)."""
    return [token for token in _SEPARATORS_RE.split(text) if token]


def parse_cards(cards: str | Iterable[str]) -> list[Card]:
    """Parse a list of card strings, or one string of cards, keeping order; rejects duplicates."""
    tokens = split_hand_text(cards) if isinstance(cards, str) else list(cards)
    seen: dict[Card, str] = {}
    for token in tokens:
        card = parse_card(token)
        if card in seen:
            raise CardError(f"duplicate card {format_card(card)}", card=str(token))
        seen[card] = token
    return list(seen)


def parse_hand(cards: str | Iterable[str], sizes: Iterable[int] | None = None, noun: str = "hand") -> Hand:
    """Parse cards into a hand (duplicates rejected); ``sizes`` lists the allowed numbers of cards, and
    ``noun`` names the cards in the error when their number is not one of them."""
    hand = hand_from_cards(parse_cards(cards))
    if sizes is not None:
        _check_size(hand, sizes, noun)
    return hand


def _check_size(hand: Hand, sizes: Iterable[int], noun: str = "hand") -> None:
    if error := card_count_error(hand.bit_count(), sizes, noun):
        raise error


def allowed_counts(sizes: Iterable[int]) -> str:
    """The numbers allowed, as text: ``10 or 11``, or ``1 to 11`` for more than two in a row."""
    allowed = sorted(set(sizes))
    contiguous = len(allowed) > 2 and allowed[-1] - allowed[0] == len(allowed) - 1
    return f"{allowed[0]} to {allowed[-1]}" if contiguous else " or ".join(map(str, allowed))


def card_count_error(count: int, sizes: Iterable[int], noun: str = "hand") -> CardError | None:
    """The error for ``count`` cards where ``sizes`` lists the numbers allowed (``noun`` names the cards), or None."""
    allowed = tuple(sizes)
    if count in allowed:
        return None
    return CardError(f"a {noun} here has {allowed_counts(allowed)} cards, got {count}")


def format_hand(hand: Hand) -> list[str]:
    """A hand as canonical card strings, by rank then suit.

    The rank order is read a byte (two ranks) at a time, from a table of the names in each byte.
    """
    order = _rank_order(hand)
    names = _NAMES_IN_BYTE
    return [
        *names[0][order & 255], *names[1][order >> 8 & 255], *names[2][order >> 16 & 255],
        *names[3][order >> 24 & 255], *names[4][order >> 32 & 255], *names[5][order >> 40 & 255],
        *names[6][order >> 48],
    ]


_NAMES_IN_BYTE = tuple(
    tuple(tuple(CARD_NAMES[_CARD_AT_RANK_ORDER[8 * byte + i]] for i in range(8) if bits >> i & 1 and 8 * byte + i < 52)
          for bits in range(256))
    for byte in range(7)
)


def hand_from_cards(cards: Iterable[Card]) -> Hand:
    """The hand holding the given cards."""
    hand = 0
    for card in cards:
        hand |= 1 << card
    return hand
