"""A person plays against policies: the game driver behind ``fudasim play``, free of any UI.

The driver walks a game's forward model (``simcore.reference.forward.State``) round by round.
Every decision of the person's seat that has more than one legal action is put to a ``prompt``
callback as a ``Question`` (what is asked, the options in the engine's legal order, the screen
as that seat may see it); the callback returns the index of the option taken, or raises
``Quit``.  Every other seat's decision is answered by its policy object, built by the game's
``seat_policies`` exactly as the reference engine builds it (each seat drawing from its own
stream of the round).  What happens is reported to a ``show`` callback as plain text lines:
only what the person may see (guarantee 6 of docs/guarantees.md), never another hand or the draw
order.

A round is recorded in the vocabulary of ``fudasim replay --deck --decisions``
(docs/replay.md): the deck in dealing order (the field, the hands from the dealer in turn order,
the draw pile top first, then any cards never dealt) and the list of decisions in the order
they arose (a forced move takes no entry, except a seat's last card, written out).  The deck is rebuilt from what the forward model
shows: the dealt field and hands of the round's result, and the order in which cards left the
draw pile (``card_places()["draw"]`` at every pause).  ``RoundRecord.replay_problem`` says why
the saved files would not reproduce the round, after the driver has replayed them itself.

A match is ``rounds`` rounds of one seed (round indices 0, 1, ...); the round winner deals the
next round (``<game>.next_dealer = rotate``: the next seat), a drawn or void round keeps its
dealer, and the match standing is each seat's summed payoff.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simcore.cards import ids_of
from simcore.lines import keep, plain, wrap
from simcore.policies import searches
from simcore.reference.forward import Decision, State, watch

__all__ = [
    "MatchRecord",
    "PlaySession",
    "Question",
    "Quit",
    "RoundRecord",
    "RoundScreen",
    "decision_entry",
    "save_round",
]

YES_NO_KINDS = ("mizu_kotsu", "kotsu", "join", "fuke")
YAKU_SHOWN = 3  # yaku in progress shown per pile (the closest to completion); the rest are counted
class RoundScreen:
    """What a game adds to the play screen; this default, for a game without its own ``screen``
    module (``Game.screen``), adds nothing.

    A game's module defines ``make_screen(compiled)`` returning an object with these methods
    (``simcore.games.enshu.screen``: card points, the count as it forms, the settlement);
    ``question_text``, ``option_label`` and ``decision_entry``, for decisions of a kind of the
    game's own (``simcore.games.koikoi.screen``: koi-koi or stop), are optional.
    """

    def start_round(self) -> None:
        """A round begins."""

    def see(self, event: dict[str, Any]) -> None:
        """Follow a trace event of the round (any event: use only what is public)."""

    def describe(self, event: dict[str, Any], who: str) -> str | None:
        """The line for an event the game words itself; None: the driver's own line."""
        return None

    def event_note(self, event: dict[str, Any]) -> str:
        """Text added to the end of an event's line (e.g. the points a capture brought)."""
        return ""

    def pile_note(self, seat: int, pile: int) -> str:
        """Text shown after a capture pile's size (e.g. its card points)."""
        return ""

    def count_lines(self, obs: Any, names: list[str]) -> list[str]:
        """Lines of the screen on how the round stands (e.g. each seat's count if it ended now)."""
        return []

    def settlement(self, result: Any, names: list[str]) -> list[str]:
        """Lines at the end of a round that say why each seat scored and was paid what it was
        (empty: the driver lists the result's points, score and payoff per seat)."""
        return []

    def question_text(self, decision: Decision) -> str | None:
        """What the person is asked at a decision of the game's own kind (None: the driver's
        wording)."""
        return None

    def option_label(self, decision: Decision, action: Any) -> str | None:
        """The label of an option of a decision of the game's own kind (None: the driver's)."""
        return None

    def decision_entry(self, decision: Decision, action: Any) -> Any:
        """The decision list's entry (docs/replay.md) that takes ``action``: ``decision_entry``'s,
        unless the game words a kind of its own."""
        return decision_entry(decision, action)


class Quit(Exception):  # noqa: N818  (it is a request, not an error)
    """Raised by a ``prompt`` callback when the person quits."""


@dataclass(frozen=True)
class Question:
    """One decision put to the person.

    ``options`` are the labels of the legal actions in the engine's order; the prompt answers
    with an index into them.  ``screen`` is the table as the deciding seat may see it.
    """

    kind: str
    seat: int
    text: str
    options: tuple[str, ...]
    screen: str


@dataclass
class RoundRecord:
    """A round played: its result, and the deck and decisions that replay it.

    ``redraw`` is the draw pile's order after dropped hands were shuffled into it (Enshu-bana
    C, 4-5 players; ``fudasim replay --redraw`` takes it), None when there was no such shuffle.  ``replay_problem`` is None when the deck and decisions replay to this result.
    """

    round_index: int
    dealer: int
    result: Any
    deck: list[int]
    decisions: list[Any]
    redraw: list[int] | None = None
    replay_problem: str | None = None


@dataclass
class MatchRecord:
    """The rounds played so far and each seat's summed payoff."""

    rounds: list[RoundRecord] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)


def decision_entry(decision: Decision, action: Any) -> Any:
    """The entry of a decision list (docs/replay.md) that takes ``action`` at ``decision``."""
    kind = decision.kind
    if kind == "play":
        return int(action)
    if kind == "capture":
        return "decline" if action is None else ids_of(int(action))[0]
    if kind in YES_NO_KINDS:
        return "yes" if action else "no"
    if kind == "declare_teyaku":
        return "no" if action is None else action.label()
    if kind == "opening_claim":
        return "decline" if action is None else sorted(int(card) for card in action)
    if kind == "bank_six":
        return "bank" if action else "keep"
    if kind == "yaku_set":
        return int(action)
    raise ValueError(f"no replay entry for a {kind!r} decision")


class _DrawTracker:
    """Learns the draw pile's order from the cards that leave it between pauses."""

    def __init__(self) -> None:
        self.previous = 0
        self.turned: list[int] = []
        self.ambiguous = False

    def see(self, places: dict[str, int]) -> None:
        draw = places.get("draw", 0)
        gone = self.previous & ~draw
        if draw & ~self.previous:
            self.turned = []  # a deal, redeal or shuffle: no card was turned from it yet
        elif gone:
            if gone.bit_count() > 1:
                self.ambiguous = True
            self.turned += ids_of(gone)
        self.previous = draw


class PlaySession:
    """A match between a person in seat ``seat`` and the policies ``specs`` of the other seats.

    Parameters
    ----------
    game : the ``simcore.games.Game`` of the rules
    compiled : the compiled rules
    specs : one ``PolicySpec`` per seat (the person's own is never asked)
    seat : the person's seat
    seed : the seed whose round streams deal the rounds and feed the policies
    rounds : rounds in the match
    prompt : ``prompt(question) -> index`` of the option taken (may raise ``Quit``)
    show : ``show(text)`` receives every line the person is shown (a long line broken at spaces
        into lines of at most ``width`` characters, joined by newlines)
    rules_label : the name the rules are shown by
    thinking : ``thinking(text)`` before a policy that searches (``simcore.policies.searches``)
        decides, e.g. "Seat 1 (pimc) is thinking…", and ``thinking(None)`` once it has
    width : the width lines are wrapped to
    """

    def __init__(self, game: Any, compiled: Any, specs: Sequence[Any], seat: int, seed: int, rounds: int,
                 prompt: Callable[[Question], int], show: Callable[[str], None],
                 rules_label: str | None = None, thinking: Callable[[str | None], None] | None = None,
                 width: int = 100) -> None:
        self.game = game
        self.compiled = compiled
        self.rules = compiled.rules
        self.specs = list(specs)
        self.players = int(game.players(compiled))
        if not 0 <= seat < self.players:
            raise ValueError(f"seat {seat} is outside 0..{self.players - 1}")
        self.seat = seat
        self.seed = seed
        self.rounds = rounds
        self.prompt = prompt
        self.show = show
        self.thinking = thinking
        self.width = max(int(width), 40)
        self.rules_label = rules_label or self.rules.name
        self.hooks = game.screen(compiled) or RoundScreen()
        self.names = [f"seat {s} (you)" if s == seat else f"seat {s} ({self.specs[s]})" for s in range(self.players)]
        self.match = MatchRecord(totals=[0] * self.players)
        self.state: State | None = None  # the round in progress (for a caller's checks; never shown)
        self.round_index = 0
        self.dealer = 0
        self.played: list[int] = []  # the cards played and turned this round, in order
        self._events_shown = 0

    # --- the match -----------------------------------------------------------------------------

    def play(self, on_round: Callable[[RoundRecord], None] | None = None) -> MatchRecord:
        """Play the match; ``on_round(record)`` after each round (``Quit`` propagates)."""
        dealer = 0
        rotate = str(self.rules.options.get(f"{self.game.name}.next_dealer", "")) == "rotate"
        for k in range(self.rounds):
            record = self.play_round(k, dealer)
            self.match.rounds.append(record)
            for s, payoff in enumerate(record.result.payoff):
                self.match.totals[s] += int(payoff)
            if on_round is not None:
                on_round(record)
            if self.rounds > 1:
                standing = ", ".join(f"{self.names[s]} {t:+d}" for s, t in enumerate(self.match.totals))
                self.say(f"Match after round {k + 1} of {self.rounds} (summed payoff): {standing}")
            winner = int(record.result.winner)
            if winner >= 0:
                dealer = (dealer + 1) % self.players if rotate else winner
        if self.rounds > 1:
            self.say(self.match_result())
        return self.match

    def say(self, text: str) -> None:
        """Hand ``text`` to ``show``, each of its lines wrapped to ``width``."""
        self.show("\n".join(wrap(line, self.width) for line in text.split("\n")))

    def match_result(self) -> str:
        """The line that ends a match: who leads on summed payoff."""
        best = max(self.match.totals)
        leaders = [s for s, t in enumerate(self.match.totals) if t == best]
        if len(leaders) > 1:
            return f"Match over: tied between {' and '.join(self.names[s] for s in leaders)} at {best:+d}."
        return f"Match over: {self.names[leaders[0]]} wins the match with {best:+d}."

    # --- one round -----------------------------------------------------------------------------

    def play_round(self, round_index: int, dealer: int) -> RoundRecord:
        """Play round ``round_index`` of the seed, dealt by ``dealer``; the person answers prompts."""
        game = self.game
        state = game.new_state(self.compiled, self.seed, round_index, dealer)
        self.state = state
        if hasattr(state, "trace"):
            state.trace = True  # the trace events say what happened (filtered to what is public)
        policies = game.seat_policies(self.compiled, self.specs, self.seed, round_index)
        tracker = _DrawTracker()
        decisions: list[Any] = []
        self.round_index, self.dealer, self.played = round_index, dealer, []
        self._events_shown = 0
        self.hooks.start_round()
        self.say("")
        self.say(f"=== Round {round_index + 1}{f' of {self.rounds}' if self.rounds > 1 else ''}: "
                  f"{self.names[dealer]} deals ===")
        while True:
            tracker.see(state.card_places())
            self._report_events(state)
            decision = state.decision()
            if decision is None:
                break
            if len(decision.actions) == 1:
                action = decision.actions[0]
            elif decision.seat == self.seat:
                question = self.question(state, decision)
                index = self.prompt(question)
                if not 0 <= index < len(decision.actions):
                    raise ValueError(f"prompt answered {index}; options are 0..{len(decision.actions) - 1}")
                action = decision.actions[index]
            else:
                action = self._ask_policy(policies[decision.seat], state, decision)
                if not self._public_events_follow(state, decision, action):
                    self.say(f"{self._name(decision.seat)}: {self._option_label(state, decision, action)}")
            if len(decision.actions) > 1 or decision.kind == "play":
                # a seat's last card is written out too: the replay accepts it, and leaving it
                # out is ambiguous when the next entry names that card as a field card to take
                entry = getattr(self.hooks, "decision_entry", None)  # optional (``RoundScreen``)
                decisions.append(decision_entry(decision, action) if entry is None else entry(decision, action))
            watch(policies, state, decision, action)
            state.apply(action)
        result = state.result
        record = self._record(round_index, dealer, result, tracker, decisions, state)
        self.say(self.result_text(result))
        return record

    def _ask_policy(self, policy: Any, state: State, decision: Decision) -> Any:
        """The policy's action; ``thinking`` is told while a searching policy decides."""
        thinking = self.thinking if searches(self.specs[decision.seat]) else None
        if thinking is not None:
            thinking(f"{self._name(decision.seat)} is thinking…")
        try:
            return self.game.ask_policy(policy, state, decision)
        finally:
            if thinking is not None:
                thinking(None)

    def _name(self, seat: int) -> str:
        name = self.names[seat]
        return name[0].upper() + name[1:]

    def _public_events_follow(self, state: State, decision: Decision, action: Any) -> bool:
        """Whether the decision's own trace event will say what the policy did (a play, a claim,
        an announcement); otherwise the driver names the option taken where it is public."""
        if decision.kind == "declare_teyaku" and action is None:
            return True  # declining is not announced
        if decision.kind == "bank_six" and not action:
            return True  # keeping the 6 of clubs is not announced
        return hasattr(state, "events")

    def _report_events(self, state: State) -> None:
        events = getattr(state, "events", None)
        if events is None:
            return
        for event in events[self._events_shown:]:
            if event.get("type") in ("play", "draw"):
                self.played.append(int(event["card"]))
            self.hooks.see(event)
            line = self._event_line(event)
            if line:
                self.say(line)
        self._events_shown = len(events)

    # --- the record ----------------------------------------------------------------------------

    def _record(self, round_index: int, dealer: int, result: Any, tracker: _DrawTracker, decisions: list[Any],
                state: State) -> RoundRecord:
        size = int(self.rules.deck.size)
        field_cards = ids_of(int(result.field_dealt))
        hands = [ids_of(int(result.hand_dealt[(dealer + k) % self.players])) for k in range(self.players)]
        dealt = set(field_cards).union(*hands)
        final_draw = ids_of(state.card_places().get("draw", 0))
        draw_order = tracker.turned + final_draw
        redraw = None
        if any(card in dealt for card in draw_order):  # dropped hands were shuffled into the draw pile
            redraw = draw_order
            draw_order = []
        rest = [card for card in range(size) if card not in dealt and card not in draw_order]
        deck = field_cards + [card for hand in hands for card in hand] + draw_order + rest
        record = RoundRecord(round_index, dealer, result, deck, decisions, redraw)
        record.replay_problem = self.check_replay(record, ambiguous=tracker.ambiguous)
        return record

    def check_replay(self, record: RoundRecord, ambiguous: bool = False) -> str | None:
        """Replay the record's deck and decisions; why they do not give its result (None: they do)."""
        if ambiguous:
            return "the draw pile's order could not be followed"
        replay = self.game.replay()
        extra = {} if record.redraw is None else {"redraw": record.redraw}
        try:
            again = replay.replay_deck(self.compiled, record.deck, record.decisions, self.specs,
                                       dealer=record.dealer, **extra)
        except Exception as error:  # noqa: BLE001  (any failure means the files do not replay)
            return f"the saved deck and decisions do not replay: {' '.join(str(error).split())}"
        differ = [name for name in COMPARED if _field(again, name) != _field(record.result, name)]
        if differ:
            return f"the replay differs in {', '.join(differ)}"
        return None

    # --- what the person sees ------------------------------------------------------------------

    def label(self, card: int) -> str:
        """A card's name in the rules' skin."""
        return str(self.rules.card_label(int(card)))

    def cards(self, ids: Sequence[int]) -> str:
        """Card names, comma-separated (``-`` for none)."""
        return plain(self._cards(ids))

    def _cards(self, ids: Sequence[int]) -> str:
        return ", ".join(keep(self.label(card)) for card in ids) or "-"

    def question(self, state: State, decision: Decision) -> Question:
        """The ``Question`` for the person's ``decision``."""
        options = tuple(self.option_label(state, decision, action) for action in decision.actions)
        return Question(decision.kind, decision.seat, self.question_text(state, decision), options,
                        self.screen(state, decision))

    def question_text(self, state: State, decision: Decision) -> str:
        """What the person is asked."""
        asks = getattr(self.hooks, "question_text", None)  # optional (``RoundScreen``)
        own = None if asks is None else asks(decision)
        if own is not None:
            return own
        kind, info = decision.kind, decision.info
        obs = state.observation(decision.seat)
        if kind == "play":
            return "Your turn: which card do you play?"
        if kind == "capture":
            verb = "turned" if info.get("source") == "draw" else "played"
            return f"The {verb} card {self.label(info['card'])} matches several field cards: which do you take?"
        if kind == "opening_claim":
            return f"Three or more rank-{info.get('rank')} cards lie on the field: claim two of them?"
        if kind == "bank_six":
            return "You hold the 6 of clubs: bank it into your capture pile now?"
        if kind == "yaku_set":
            return "You deal: which yaku set is played this round?"
        if kind == "mizu_kotsu":
            return "Declare mizu-kotsu (raise the multiplier before the deal)?"
        if kind == "kotsu":
            return f"Declare kotsu (the multiplier is {getattr(obs, 'multiplier', '?')}; kotsu adds 1)?"
        if kind == "join":
            return f"Join the round, or drop out (dropout pass {getattr(obs, 'dropout_pass', '?')})?"
        if kind == "fuke":
            return "Declare Fuke (void the round: nobody pays)?"
        if kind == "declare_teyaku":
            return f"Your hand qualifies for a group-{info.get('group')} teyaku: declare one?"
        return f"Decide: {kind}"

    def option_label(self, state: State, decision: Decision, action: Any) -> str:
        """The label of ``action`` at ``decision``."""
        return plain(self._option_label(state, decision, action))

    def _option_label(self, state: State, decision: Decision, action: Any) -> str:
        labels = getattr(self.hooks, "option_label", None)  # optional (``RoundScreen``)
        own = None if labels is None else labels(decision, action)
        if own is not None:
            return own
        kind, info = decision.kind, decision.info
        if kind == "play":
            return self.label(action) + self._match_hint(state, int(action), decision.seat)
        if kind == "capture":
            if action is None:
                return f"leave {self.label(info['card'])} on the field"
            return "take " + self._cards(ids_of(int(action)))
        if kind == "opening_claim":
            return "decline (leave them on the field)" if action is None else "take " + self._cards(list(action))
        if kind == "bank_six":
            return "bank it" if action else "keep it in the hand"
        if kind == "join":
            return "join" if action else "drop out"
        if kind in YES_NO_KINDS:
            return "yes" if action else "no"
        if kind == "declare_teyaku":
            if action is None:
                return "declare nothing"
            teyaku = getattr(self.rules, "teyaku", ())
            english = teyaku[action.index].english if action.index < len(teyaku) else action.key
            stops = ", ends the round" if getattr(action, "stops", False) else ""
            return f"declare {english} [{action.label()}] ({action.value}{stops}), showing {self._cards(ids_of(action.cards))}"
        if kind == "yaku_set":
            return f"yaku set {action}"
        return str(action)

    def _match_hint(self, state: State, card: int, seat: int) -> str:
        obs = state.observation(seat)
        deck = self.rules.deck
        rank = deck.cards[card].rank
        matches = [c for c in ids_of(int(obs.field)) if deck.cards[c].rank == rank]
        return f"  (matches {self._cards(matches)})" if matches else ""

    def _yaku_members(self, obs: Any) -> list[Any]:
        """The yaku of the round (of its yaku set, where the game has sets)."""
        yaku = list(self.rules.yaku)
        yaku_set = int(getattr(obs, "yaku_set", 0) or 0)
        sets = self.game.yaku_sets(self.rules)
        if sets and yaku_set in sets:
            members = sets[yaku_set][0]
            yaku = [y for y in yaku if (members >> y.index) & 1]
        return yaku

    def yaku_progress(self, pile: int, yaku: list[Any], others: int = 0) -> str:
        """The yaku of a pile worth a look: each complete one (``done``), and the ones it may still
        make (no card of them in ``others``, the other piles) closest to completion, as cards held
        / needed (naming the card when one is missing), at most ``YAKU_SHOWN``; the rest counted."""
        return plain(self._yaku_progress(pile, yaku, others))

    def _yaku_progress(self, pile: int, yaku: list[Any], others: int) -> str:
        done, going = [], []
        for y in yaku:
            mask = int(y.mask)
            held = (mask & pile).bit_count()
            if held and held == mask.bit_count():
                done.append(keep(f"{y.english} done"))
            elif held and not mask & others:
                missing = ids_of(mask & ~pile)
                text = keep(f"{y.english} {held}/{mask.bit_count()}")
                if len(missing) == 1:
                    text += " " + keep(f"(needs {self.label(missing[0])})")
                going.append((len(missing), y.index, text))
        going.sort()
        parts = done + [text for _, _, text in going[:YAKU_SHOWN]]
        more = len(going) - YAKU_SHOWN
        if more > 0:
            parts.append(keep(f"{more} more started"))
        if not parts:
            return "none under way"
        return "; ".join(parts)

    def screen(self, state: State, decision: Decision | None) -> str:
        """The table as the person's seat may see it (its observation only)."""
        obs = state.observation(self.seat)
        lines = []
        title = f"{self.rules.title} ({self.rules_label})"
        head = [f"round {self.round_index + 1}" + (f" of {self.rounds}" if self.rounds > 1 else ""),
                f"dealer {self.names[self.dealer]}"]
        if int(getattr(obs, "yaku_set", 0) or 0):
            head.append(f"yaku set {obs.yaku_set}")
        if getattr(obs, "multiplier", None) is not None:
            head.append(f"multiplier {obs.multiplier}")
        lines.append(f"== {title}: " + ", ".join(head) + " ==")
        turn = int(getattr(obs, "turn", 0))
        whose = "-" if decision is None else self.names[decision.seat]
        lines.append(f"Turn {turn}; to move: {whose}; draw pile: {obs.draw_size} cards")
        lines.append(f"Field: {self._cards(ids_of(int(obs.field)))}")
        yaku = self._yaku_members(obs)
        active = getattr(obs, "active", None)
        exposed = getattr(obs, "exposed", None)
        piles = [int(pile) for pile in obs.piles]
        for s in range(self.players):
            pile = piles[s]
            if active is not None and not active[s]:
                lines.append(f"{self._name(s)}: dropped out")
                continue
            note = self.hooks.pile_note(s, pile)
            size = f"{pile.bit_count()}" + (f" ({note})" if note else "")
            lines.append(f"{self._name(s)} captured {size}: {self._cards(ids_of(pile))}")
            if pile:
                others = 0
                for other, other_pile in enumerate(piles):
                    others |= other_pile if other != s else 0
                lines.append(f"    yaku: {self._yaku_progress(pile, yaku, others)}")
            if exposed is not None and s != self.seat and int(exposed[s]):
                lines.append(f"    shows in hand: {self._cards(ids_of(int(exposed[s])))}")
        lines += self.hooks.count_lines(obs, self.names)
        lines.append(f"Played and turned so far: {self._cards(self.played)}")
        hand = ids_of(int(obs.hand))
        lines.append("Your hand: " + ("  ".join(keep(f"{i + 1}) {self.label(c)}") for i, c in enumerate(hand))
                                     or "-"))
        return "\n".join(wrap(line, self.width) for line in lines)

    def describe_event(self, event: dict[str, Any]) -> str | None:
        """A line for a public trace event (None: nothing the person may see)."""
        line = self._event_line(event)
        return None if line is None else plain(line)

    def _event_line(self, event: dict[str, Any]) -> str | None:
        seat = event.get("seat")
        who = self._name(seat) if isinstance(seat, int) and 0 <= seat < self.players else ""
        own = self.hooks.describe(event, who)
        if own is not None:
            return own
        line = self._describe(event, who)
        return None if line is None else line + self.hooks.event_note(event)

    def _describe(self, event: dict[str, Any], who: str) -> str | None:
        kind = event.get("type")
        mine = event.get("seat") == self.seat
        if kind in ("play", "draw"):
            verb = "plays" if kind == "play" else "turns"
            card = self.label(event["card"])
            if event.get("to") == "field":
                return f"{who} {verb} {card} -> field" + (" (declines the capture)" if event.get("declined") else "")
            captured = event.get("captured", [])
            if list(captured) == [event["card"]]:
                return f"{who} {verb} {card} -> straight to the capture pile"
            return f"{who} {verb} {card}, takes {self._cards(captured[1:])}"
        if kind == "yaku":
            if event.get("instant"):
                worth = "instant win"
            elif "points" in event:
                worth = f"{event['points']} points"
            else:
                worth = f"{event.get('kind', '')} {event.get('value', '')}".strip()
            return f"{who} completes the yaku {keep(str(event.get('english')))} ({worth})"
        if kind == "deal":
            return "The cards are dealt."
        if kind == "redeal":
            return f"Redeal: {event.get('reason')}."
        if kind == "yaku_set":
            return f"Yaku set {event.get('set')} is played this round."
        if kind == "six_to_dealer":
            return f"{who} takes {self.label(event['card'])} from the field."
        if kind == "opening_claim":
            return f"{who} claims {self._cards(event['cards'])} from the field and will play second."
        if kind == "opening_decline":
            return f"{who} leaves the rank-{event.get('rank')} field cards."
        if kind == "bank_six":
            return f"{who} banks {self.label(event['card'])}."
        if kind == "keep_six":
            return f"{who} keeps the 6 of clubs in the hand." if mine else None
        if kind == "instant_win":
            return f"{who} wins at once with an instant-win yaku."
        if kind in ("mizu_kotsu", "kotsu"):
            name = "mizu-kotsu" if kind == "mizu_kotsu" else "kotsu"
            raised = f" (multiplier {event['multiplier']})" if "multiplier" in event and event["declared"] else ""
            return f"{who} {'declares' if event['declared'] else 'does not declare'} {name}{raised}."
        if kind == "multiplier":
            brights = int(event.get("field_brights", 0))
            return f"Field multiplier {event['multiplier']} ({brights} Bright{'' if brights == 1 else 's'} on the field)."
        if kind in ("join", "drop"):
            forced = " (forced)" if event.get("forced") else ""
            return f"{who} {'joins' if kind == 'join' else 'drops out'}{forced}."
        if kind == "dropout_raise":
            return f"Four or more joined: multiplier {event['multiplier']}, they are asked again."
        if kind == "acting_dealer":
            return f"{who} acts as dealer."
        if kind == "reshuffle":
            return "The dropped hands are shuffled into the draw pile."
        if kind == "set_aside":
            return "The dropped hands are set aside."
        if kind == "teyaku":
            stops = ", ends the round" if event.get("stops") else ""
            return (f"{who} declares the teyaku {event.get('label')} ({event.get('value')}{stops}), "
                    f"showing {self._cards(event.get('exposed', []))}.")
        if kind == "teyaku_declined":
            return f"{who} declares no group-{event.get('group')} teyaku." if mine else None
        if kind == "uchikiri":
            return f"{who} stops the round with {', '.join(event.get('yaku', []))}."
        if kind == "triplet_bonus":
            return f"{who} earns the triplet bonus of month {event['month']}: {event['points']} points."
        if kind == "count":
            scores = ", ".join(f"{self.names[s]} {v}" for s, v in enumerate(event.get("scores", [])))
            return f"The count: {scores}."
        if kind == "fuke":
            return f"{who} {'declares Fuke: the round is void' if event['declared'] else 'does not declare Fuke'}."
        return None

    def result_text(self, result: Any) -> str:
        """The end of a round: the result, every hand as dealt, the score and payoff of each seat."""
        reason = self.game.end_reasons[int(result.end_reason)]
        winner = int(result.winner)
        lines = [""]
        if winner < 0:
            lines.append(f"Round over: no winner ({reason}), turn {result.end_turn}.")
        else:
            lines.append(f"Round over: {self.names[winner]} wins ({reason}), turn {result.end_turn}.")
        lines.append("Hands as dealt:")
        for s in range(self.players):
            lines.append(f"  {self._name(s)}: {self._cards(ids_of(int(result.hand_dealt[s])))}")
        lines.append(f"  Field: {self._cards(ids_of(int(result.field_dealt)))}")
        settlement = self.hooks.settlement(result, self.names)
        if settlement:
            return "\n".join(wrap(line, self.width) for line in lines + settlement)
        lines.append("Score:")
        for s in range(self.players):
            yaku = [self.rules.yaku[i].english for i in ids_of(int(result.yaku[s]))]
            parts = [keep(f"{len(ids_of(int(result.captured[s])))} cards captured"),
                     "yaku: " + (", ".join(keep(name) for name in yaku) or "none")]
            for name in ("yaku_points", "teyaku_points", "chaff", "card_points", "score"):
                values = getattr(result, name, None)
                if values is not None:
                    parts.append(keep(f"{name.replace('_', ' ')} {values[s]}"))
            lines.append(f"  {self._name(s)}: " + "; ".join(parts) + keep(f"; payoff {int(result.payoff[s]):+d}"))
        return "\n".join(wrap(line, self.width) for line in lines)


COMPARED = ("winner", "end_reason", "end_turn", "first_player", "field_dealt", "hand_dealt", "captured", "yaku",
            "score", "payoff")


def _field(result: Any, name: str) -> Any:
    value = getattr(result, name, None)
    return list(value) if isinstance(value, (list, tuple)) else value


def save_round(record: RoundRecord, prefix: Path) -> list[Path]:
    """Write ``PREFIX.deck`` (the card ids, comma-separated) and ``PREFIX.decisions.json``
    (plus ``PREFIX.redraw.json`` when dropped hands were shuffled into the draw pile); returns
    the paths written."""
    import json

    prefix = Path(prefix)
    deck_path = prefix.with_name(prefix.name + ".deck")
    decisions_path = prefix.with_name(prefix.name + ".decisions.json")
    deck_path.write_text(",".join(str(card) for card in record.deck) + "\n", encoding="utf-8")
    decisions_path.write_text(json.dumps(record.decisions) + "\n", encoding="utf-8")
    written = [deck_path, decisions_path]
    if record.redraw is not None:
        redraw_path = prefix.with_name(prefix.name + ".redraw.json")
        redraw_path.write_text(json.dumps(record.redraw) + "\n", encoding="utf-8")
        written.append(redraw_path)
    return written
