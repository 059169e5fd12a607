"""A two-player hand of gin rummy played move by move: the simulator behind self-play and tests.

``Table`` holds the whole (hidden) deal and applies legal moves; ``Table.view`` is what the
player to move can see, as the hint engine's ``GameState``. The flow follows the rules notes:

* the first upcard is offered to the non-dealer, then to the dealer; if both pass, the
  non-dealer must draw from the stock (the refused upcard stays at the bottom of the pile); under
  ``rules.first_turn`` plain the non-dealer's first turn is an ordinary draw instead;
  with ``rules.eleven_card_deal`` no card is turned up: the non-dealer gets an eleventh card
  and its first turn is a discard;
* a turn is a draw (stock, or the top of the pile) and then a discard, a knock, gin, or big gin;
* the card just taken from the pile may be discarded again only if the rules allow it, and then
  the player who first discarded it may retake it only to knock or go gin;
* when a discard without a knock leaves ``rules.stock_end`` cards in the stock, the hand is a
  draw; with ``rules.stock_end_discard`` the other player is first offered that card, to take
  only to knock or go gin (``pass`` declines it, and the hand is a draw).

A knock is scored by ``scoring.score_round``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field

from .cards import ALL_CARDS, Card, Hand, card_bit, format_card, hand_cards
from .errors import GinError
from .hints import HAND_SIZE, Action, GameState, Phase, knock_rules, legal_actions
from .rules import Rules, check_rules
from .scoring import RoundResult, score_round


class IllegalMoveError(GinError):
    """A move that the rules do not allow in the table's current state."""


@dataclass(frozen=True)
class HandOutcome:
    """How a hand ended: ``result`` is None for a draw at the stock end; ``knocker`` is 0 or 1."""

    result: RoundResult | None
    knocker: int | None

    @property
    def winner(self) -> int | None:
        """The player (0 or 1) who scored, None for a draw or a tie."""
        if self.result is None or self.result.winner is None or self.knocker is None:
            return None
        return self.knocker if self.result.winner == "knocker" else 1 - self.knocker

    @property
    def points(self) -> int:
        """Points scored by the winner (0 for a draw or a tie)."""
        return 0 if self.result is None else self.result.points


@dataclass
class Table:
    """A hand in progress. Player ``dealer`` dealt; ``1 - dealer`` moves first (offered the upcard first, or under
    a plain first turn drawing)."""

    rules: Rules
    dealer: int
    hands: list[Hand]
    stock: list[Card]
    pile: list[Card]
    upcard: Card | None
    to_move: int
    phase: Phase = "first_upcard"
    passes: int = 0
    drawn_from_discard: Card | None = None
    taken: list[Hand] = field(default_factory=lambda: [0, 0])
    discards: list[list[Card]] = field(default_factory=lambda: [[], []])
    returned: Card | None = None
    """The card the last player threw straight back to the one who first discarded it (the player to move)."""
    outcome: HandOutcome | None = None

    @classmethod
    def deal(cls, rules: Rules, deck: Iterable[Card], dealer: int = 0) -> Table:
        """Deal a hand from ``deck`` (52 cards, top of the deck last): ten each, then the upcard (or, in
        an eleven-card deal, an eleventh card to the non-dealer)."""
        check_rules(rules)
        if type(dealer) is not int or dealer not in (0, 1):
            raise GinError(f"the dealer is player 0 or 1, got {dealer!r}")
        stock = list(deck)  # read once: it may be an iterator
        if any(type(card) is not int for card in stock) or sorted(stock) != sorted(ALL_CARDS):
            raise GinError("a deck holds each of the 52 cards once")
        hands = [0, 0]
        for _ in range(HAND_SIZE):
            for player in (1 - dealer, dealer):
                hands[player] |= card_bit(stock.pop())
        if rules.eleven_card_deal:
            hands[1 - dealer] |= card_bit(stock.pop())
            return cls(rules, dealer, hands, stock, [], None, to_move=1 - dealer, phase="discard")
        upcard = stock.pop()
        phase: Phase = "draw" if rules.first_turn == "plain" else "first_upcard"
        return cls(rules, dealer, hands, stock, [upcard], upcard, to_move=1 - dealer, phase=phase)

    @classmethod
    def shuffled(cls, rules: Rules, rng: random.Random, dealer: int = 0) -> Table:
        """Deal from a deck shuffled by ``rng``."""
        if not isinstance(rng, random.Random):
            raise GinError(f"expected a random.Random to shuffle with, got {rng!r}")
        deck = list(ALL_CARDS)
        rng.shuffle(deck)
        return cls.deal(rules, deck, dealer)

    @property
    def over(self) -> bool:
        """True once the hand has ended (a knock, gin, or a draw at the stock end)."""
        return self.outcome is not None

    def view(self) -> GameState:
        """What the player to move can see."""
        player = self.to_move
        return GameState(
            hand=tuple(hand_cards(self.hands[player])),
            phase=self.phase,
            upcard=self.upcard,
            discard_pile=tuple(self.pile),
            stock_count=len(self.stock),
            opponent_hand_known=tuple(hand_cards(self.taken[1 - player])),
            opponent_discards=tuple(self.discards[1 - player]),
            drawn_from_discard=self.drawn_from_discard,
            returned_discard=self._returned_to_mover(),
        )

    def _returned_to_mover(self) -> bool:
        """Whether the pile's top card, or the card just taken from it, was thrown straight back to the player
        to move."""
        if self.returned is None:
            return False
        if self.phase == "discard":
            return self.drawn_from_discard == self.returned
        return self.pile[-1:] == [self.returned]

    def legal_actions(self) -> list[Action]:
        """Every move the player to move may make (knocks and gins with each allowed discard)."""
        return legal_actions(self.view(), self.rules)

    def play(self, action: Action) -> None:
        """Apply one move of the player to move."""
        if self.over:
            raise IllegalMoveError("the hand is over")
        legal = self.legal_actions()
        if action not in legal:
            raise IllegalMoveError(f"{action} is not legal in the {self.phase} phase")
        action = legal[legal.index(action)]  # equal to it, with the card as an int (True == 1 too)
        player = self.to_move
        kind = action.type
        if kind == "pass" and self.phase == "draw":  # the stock-end offer declined
            self.outcome = HandOutcome(None, None)
        elif kind == "pass":
            self.passes += 1
            self.to_move = 1 - player
            if self.passes == 2:
                self.phase = "draw"
        elif kind == "take_upcard":
            card = self.pile.pop()
            self.hands[player] |= card_bit(card)
            self.taken[player] |= card_bit(card)
            self.drawn_from_discard = card
            self.phase = "discard"
        elif kind == "draw_stock":
            self.hands[player] |= card_bit(self.stock.pop())
            self.phase = "discard"
        elif kind == "discard":
            assert action.card is not None
            self._discard(player, action.card)
            if len(self.stock) <= self.rules.stock_end and self.rules.stock_end_discard == "draw":
                self.outcome = HandOutcome(None, None)
            else:
                self.to_move = 1 - player
                self.phase = "draw"
        else:
            self._knock(player, action)

    def _discard(self, player: int, card: Card) -> None:
        thrown_back = card == self.drawn_from_discard and self.discards[1 - player][-1:] == [card]
        self.returned = card if thrown_back else None
        self.hands[player] &= ~card_bit(card)
        self.taken[player] &= ~card_bit(card)
        self.discards[player].append(card)
        self.pile.append(card)
        self.drawn_from_discard = None

    def _knock(self, player: int, action: Action) -> None:
        result = score_round(
            self.hands[player],
            self.hands[1 - player],
            knock_rules(self.view(), self.rules),
            upcard=self.upcard if self.rules.oklahoma else None,
            discard=None if action.type == "big_gin" else action.card,
            drawn_from_discard=self.drawn_from_discard,
        )
        self.outcome = HandOutcome(result, player)

    def __repr__(self) -> str:
        shown = [" ".join(format_card(c) for c in hand_cards(h)) for h in self.hands]
        return f"Table(hands={shown}, stock={len(self.stock)}, pile={len(self.pile)}, phase={self.phase!r})"
