"""What the play screen (``simcore.play``) shows of an Enshu-bana round beyond the cards.

Card points, which drive the count, are shown on every capture and beside every pile; the
count each seat would have if the round ended now is shown before every decision of the
person; and the end of the round says how it was settled: each seat's count from its card,
yaku and teyaku points, the multipliers, who won and why, and what each seat pays or receives
(docs/enshu.md, "A round": steps 7 to 10 of variant C, and variants W and S).

Everything here is computed from what the person may see (guarantee 6 of docs/guarantees.md):
the capture piles, the declared teyaku and the multiplier during the round, and the round's
result at its end.  ``Screen.count`` follows ``RoundState._phase_score`` of the reference engine;
``tests/test_play.py`` checks that the count of the last position is the result's score.
"""

from __future__ import annotations

from typing import Any

from simcore.cards import ids_of
from simcore.games.enshu import enums as E
from simcore.games.enshu.compile import CompiledRules
from simcore.lines import keep

__all__ = ["Screen", "make_screen"]

MINUS = "-"


def make_screen(compiled: CompiledRules) -> Screen:
    """The play screen's Enshu-bana part for these rules."""
    return Screen(compiled)


def _combine(values: list[int], mode: int) -> int:
    if mode == E.COMBO_SUM:
        return sum(values)
    if mode == E.COMBO_MAX:
        return max(values)
    out = 1
    for value in values:
        out *= value
    return out


def _signed(value: int) -> str:
    return f"{MINUS}{-value}" if value < 0 else str(value)


def _cap(name: str) -> str:
    return name[:1].upper() + name[1:]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


class Screen:
    """The Enshu-bana lines of the play screen (see the module docstring)."""

    def __init__(self, compiled: CompiledRules) -> None:
        self.c = compiled
        self.rules = compiled.rules
        self.p = compiled.params
        self.variant = E.VARIANTS.index(self.rules.variant)
        self.points = [int(v) for v in compiled.card_points]
        self.start_round()

    # --- following the round ---------------------------------------------------------------------

    def start_round(self) -> None:
        """Forget the last round."""
        players = int(self.rules.players)
        self.piles = [0] * players
        self.declared: list[list[dict[str, Any]]] = [[] for _ in range(players)]

    def see(self, event: dict[str, Any]) -> None:
        """Follow a trace event: the captures and the declared teyaku (both public)."""
        kind = event.get("type")
        if kind in ("play", "draw") and event.get("to") == "pile":
            for card in event.get("captured", []):
                self.piles[event["seat"]] |= 1 << int(card)
        elif kind == "teyaku":
            self.declared[event["seat"]].append(event)

    def card_points(self, cards: int) -> int:
        """The card points of the cards in the mask ``cards``."""
        return sum(self.points[card] for card in ids_of(cards))

    def pile_note(self, seat: int, pile: int) -> str:
        """What the screen adds after a pile's size: its card points."""
        return f"{self.card_points(pile)} card points"

    def event_note(self, event: dict[str, Any]) -> str:
        """What a capture adds to the line that reports it: the card points it brought."""
        if event.get("type") not in ("play", "draw") or event.get("to") != "pile":
            return ""
        gained = sum(self.points[int(card)] for card in event.get("captured", []))
        if not gained:
            return ""
        return " " + keep(f"(+{gained} card points, {self.card_points(self.piles[event['seat']])} in all)")

    def describe(self, event: dict[str, Any], who: str) -> str | None:
        """The line of an event the Enshu-bana screen words itself (None: the driver's line)."""
        kind = event.get("type")
        if kind == "yaku":
            value = int(event.get("value", 0))
            if event.get("kind") == "points":
                worth = f"{value} points"
            elif self.variant == E.VARIANT_W:
                worth = f"{_plural(value, 'stake')}, ends the round"
            elif event.get("kind") == "uchikiri":
                worth = f"multiplies its count by {value}, ends the round"
            else:
                worth = f"multiplies its score by {value}"
            return f"{who} completes the yaku {keep(str(event.get('english')))} ({keep(worth)})"
        if kind == "teyaku":
            teyaku = self.rules.teyaku_by_key(str(event["teyaku"]))
            worth = f"{_plural(int(event['value']), 'stake')}, ends the round" if event.get("stops") else (
                f"{event['value']} points")
            shown = ", ".join(keep(self.rules.card_label(int(card))) for card in event.get("exposed", []))
            return f"{who} declares the teyaku {keep(teyaku.english)} ({worth}), showing {shown}."
        if kind == "uchikiri":
            by_key = {y.key: y.english for y in self.rules.yaku}
            return f"{who} stops the round with {', '.join(by_key.get(k, k) for k in event.get('yaku', []))}."
        if kind == "multiplier":
            brights = int(event.get("field_brights", 0))
            mizu = int(event.get("mizu_kotsu", 0))
            parts = [f"{_plural(brights, 'Bright')} on the field"]
            if mizu:
                parts.append(f"{mizu} mizu-kotsu")
            return f"Field multiplier {event['multiplier']} (1 + {' + '.join(parts)})."
        return None

    # --- the count ---------------------------------------------------------------------------------

    def _triplet_months(self, seat: int) -> set[int]:
        months = set()
        in_four_three = int(self.p[E.P_C_TRIPLET_BONUS_IN_FOUR_THREE]) == 0
        for event in self.declared[seat]:
            teyaku = self.rules.teyaku_by_key(event["teyaku"])
            month = self._triplet_month(teyaku, event)
            if month and (teyaku.pattern == "triplet" or in_four_three):
                months.add(month)
        return months

    @staticmethod
    def _triplet_month(teyaku: Any, event: dict[str, Any]) -> int:
        parts = str(event.get("label", "")).split(":")[1:]
        if teyaku.pattern == "triplet" and parts:
            return int(parts[0])
        if teyaku.pattern == "four_three" and len(parts) > 1:
            return int(parts[1])
        return 0

    def _bonus(self, seat: int, pile: int) -> int:
        """Triplet bonuses earned so far (the cards of the month the hand lacked are in the pile)."""
        total = 0
        for event in self.declared[seat]:
            teyaku = self.rules.teyaku_by_key(event["teyaku"])
            bonus = int(self.c.teyaku_bonus[teyaku.index])
            month = self._triplet_month(teyaku, event)
            if not (bonus and month and (int(self.c.teyaku_bonus_months[teyaku.index]) >> month) & 1):
                continue
            month_mask = int(self.c.month_mask[month])
            if int(self.p[E.P_C_TRIPLET_BONUS_CONDITION]) == 1:
                earned = pile & month_mask == month_mask
            else:
                exposed = sum(1 << int(card) for card in event.get("exposed", []))
                rest = month_mask & ~exposed
                earned = rest != 0 and pile & rest == rest
            total += bonus if earned else 0
        return total

    def tally(self, seat: int, pile: int) -> tuple[int, int, int, list[int]]:
        """(card points, yaku points, teyaku points, multiplier values) of ``seat`` with ``pile``."""
        completed = 0
        for i, mask in enumerate(self.c.yaku_mask):
            if int(mask) & pile == int(mask):
                completed |= 1 << i
        cancelled = 0
        for i in ids_of(completed):
            cancelled |= int(self.c.supersedes[i])
        months = self._triplet_months(seat) if int(self.p[E.P_TRIPLET_UPGRADE]) == 1 else set()
        yaku_points, multipliers = 0, []
        for i in ids_of(completed & ~cancelled):
            value = int(self.c.yaku_value[i])
            if int(self.c.yaku_kind[i]) == E.YAKU_POINTS:
                upgraded = int(self.c.yaku_upgraded[i])
                yaku_points += upgraded if upgraded and int(self.c.yaku_month[i]) in months else value
            else:
                multipliers.append(value)
        teyaku_points = sum(int(e["value"]) for e in self.declared[seat] if not e.get("stops"))
        teyaku_points += self._bonus(seat, pile)
        return self.card_points(pile), yaku_points, teyaku_points, multipliers

    def count(self, piles: list[int], active: list[bool], multiplier: int) -> list[int | None]:
        """Each seat's count if the round ended now with these piles (None: a dropped seat)."""
        n = len(piles)
        tallies = [self.tally(s, piles[s]) for s in range(n)]
        out: list[int | None] = [None] * n
        if self.variant == E.VARIANT_W:
            for s in range(n):
                cards, yaku, teyaku, _ = tallies[s]
                out[s] = cards + yaku + teyaku
        elif self.variant == E.VARIANT_S:
            combination = int(self.p[E.P_S_COMBINATION])
            for s in range(n):
                cards, yaku, teyaku, multipliers = tallies[s]
                if combination == 2:
                    out[s] = (cards + yaku + teyaku) * (sum(multipliers) if multipliers else 1)
                elif combination == 1:
                    out[s] = cards * _combine(multipliers, E.COMBO_PRODUCT) + yaku + teyaku
                else:
                    out[s] = (cards + yaku + teyaku) * _combine(multipliers, E.COMBO_PRODUCT)
        else:
            seats = [s for s in range(n) if active[s]]
            own = {s: tallies[s][1] + tallies[s][2] for s in seats}
            zero_sum = int(self.p[E.P_C_SCORE_FORMULA]) == 1
            combo = E.COMBO_PRODUCT if int(self.p[E.P_C_UCHIKIRI_COMBO]) == 0 else E.COMBO_MAX
            for s in seats:
                base = tallies[s][0] - sum(own[q] for q in seats if q != s)
                if zero_sum:
                    base += (len(seats) - 1) * own[s]
                multipliers = tallies[s][3]
                out[s] = base * multiplier * (_combine(multipliers, combo) if multipliers else 1)
        return out

    def formula(self, multiplier: int) -> str:
        """How a count is made, in words."""
        if self.variant == E.VARIANT_W:
            return "card points + yaku points + teyaku points"
        if self.variant == E.VARIANT_S:
            combination = int(self.p[E.P_S_COMBINATION])
            if combination == 2:
                return "(card + yaku + teyaku points) × the sum of its multiplier yaku (1 if none)"
            if combination == 1:
                return "card points × its multiplier yaku + yaku points + teyaku points"
            return "(card + yaku + teyaku points) × its multiplier yaku"
        zero_sum = " + (active seats − 1) × its own" if int(self.p[E.P_C_SCORE_FORMULA]) == 1 else ""
        return (f"(card points {MINUS} the other active seats' yaku and teyaku points{zero_sum}) × the field "
                f"multiplier {multiplier}")

    def count_lines(self, obs: Any, names: list[str]) -> list[str]:
        """Each seat's count if the round ended now, with how it is made (nothing before a card
        is captured or a teyaku declared)."""
        if not any(self.piles) and not any(self.declared):
            return []
        multiplier = int(getattr(obs, "multiplier", 1) or 1)
        active = list(getattr(obs, "active", ()) or [True] * len(names))
        counts = self.count(list(self.piles), active, multiplier)
        seats = [s for s in range(len(names)) if counts[s] is not None]
        parts = []
        if self.variant == E.VARIANT_C:
            own = {s: self.tally(s, self.piles[s])[1] + self.tally(s, self.piles[s])[2] for s in seats}
            zero_sum = int(self.p[E.P_C_SCORE_FORMULA]) == 1
            for s in seats:
                bracket = f"{self.card_points(self.piles[s])} {MINUS} {sum(own[q] for q in seats if q != s)}"
                if zero_sum:
                    bracket += f" + {len(seats) - 1} × {own[s]}"
                parts.append(keep(f"{names[s]} ({bracket}) × {multiplier} = {_signed(counts[s] or 0)}"))
            how = f"(card points {MINUS} the others' yaku and teyaku points) × the multiplier"
        else:
            parts = [keep(f"{names[s]} {_signed(counts[s] or 0)}") for s in seats]
            how = self.formula(multiplier)
        head = "Score" if self.variant == E.VARIANT_S else "Count"
        return [f"{head} if the round ended now, {how}: " + "; ".join(parts)]

    # --- the settlement ---------------------------------------------------------------------------

    def settlement(self, result: Any, names: list[str]) -> list[str]:
        """Why each seat's count and payoff are what they are, for the end of the round."""
        reason = E.END_REASONS[int(result.end_reason)]
        if self.variant == E.VARIANT_W:
            return self._settle_w(result, names, reason)
        if self.variant == E.VARIANT_S:
            return self._settle_s(result, names)
        return self._settle_c(result, names, reason)

    def _seat_line(self, result: Any, s: int, names: list[str], detail: str) -> str:
        yaku = [self.rules.yaku[i].english for i in ids_of(int(result.yaku[s]))]
        teyaku = [self.rules.teyaku[i].english for i in ids_of(int(result.teyaku_declared[s]))]
        held = "yaku: " + (", ".join(keep(name) for name in yaku) or "none")
        if teyaku:
            held += "; teyaku: " + ", ".join(keep(name) for name in teyaku)
        return f"  {_cap(names[s])}: {keep(detail)}; {held}" + keep(f"; payoff {int(result.payoff[s]):+d}")

    def _settle_c(self, result: Any, names: list[str], reason: str) -> list[str]:
        n = int(result.players)
        active = [s for s in range(n) if result.active[s]]
        winner = int(result.winner)
        m = int(result.multiplier)
        lines = ["How the round is settled (variant C):"]
        raised = m - 1 - int(result.field_brights) - int(result.mizu_kotsu_count) - int(result.kotsu_count)
        parts = [f"{_plural(int(result.field_brights), 'Bright')} on the field",
                 f"{result.mizu_kotsu_count} mizu-kotsu", f"{result.kotsu_count} kotsu"]
        if raised:
            parts.append(f"{raised} for four or more joining")
        lines.append(f"  Field multiplier {m} = 1 + " + " + ".join(parts) + ".")
        if reason == "fuke":
            lines.append(f"  {_cap(names[int(result.fuke)])} declared Fuke: the round is void, nobody pays, and the "
                         f"dealer deals again.")
            return lines
        own = {s: int(result.yaku_points[s]) + int(result.teyaku_points[s]) for s in active}
        zero_sum = int(self.p[E.P_C_SCORE_FORMULA]) == 1
        lines.append(f"  A seat's count = {self.formula(m)}"
                     + (" × its stopping yaku's multiplier" if reason == "uchikiri" else "") + ":")
        for s in range(n):
            if s not in active:
                lines.append(f"  {_cap(names[s])}: dropped out; neither counts nor pays; payoff +0")
                continue
            others = sum(own[q] for q in active if q != s)
            bracket = f"{result.card_points[s]} {MINUS} {others}"
            if zero_sum:
                bracket += f" + {len(active) - 1} × {own[s]}"
            u = int(result.yaku_multiplier[s])
            detail = f"({bracket}) × {m}" + (f" × {u}" if u != 1 else "") + f" = {_signed(int(result.score[s]))}"
            lines.append(self._seat_line(result, s, names, detail))
        score = int(result.score[winner])
        if reason == "uchikiri":
            stopping = ", ".join(self.rules.yaku[i].english for i in ids_of(int(result.stopping_yaku)))
            lines.append(f"  {_cap(names[winner])} stopped the round with {stopping}: it wins, whatever the counts.")
        else:
            tied = [s for s in active if int(result.score[s]) == score and s != winner]
            if tied:
                order = "the acting dealer, then the seats before it in turn order" if int(
                    self.p[E.P_TIE_ORDER]) == 1 else "the acting dealer, then the seats after it in turn order"
                lines.append(f"  {_cap(names[winner])} ties at {_signed(score)} with "
                             f"{' and '.join(names[s] for s in tied)}; a tie goes to {order}: {names[winner]} wins.")
            else:
                lines.append(f"  {_cap(names[winner])} has the highest count, {_signed(score)}, and wins.")
        payers = [s for s in active if s != winner]
        paid = score if int(self.p[E.P_C_NEGATIVE_SCORE]) == 1 else max(score, 0)
        if paid == 0:
            why = ("a count below zero is paid as 0 (enshu.c.negative_score = clamp_zero)" if score < 0
                   else "its count is 0")
            lines.append(f"  Each other active seat pays the winner its count, but {why}: nobody pays, every "
                         f"payoff is +0.")
        elif paid < 0:
            lines.append(f"  The winner's count is negative and is paid as it stands "
                         f"(enshu.c.negative_score = literal): {names[winner]} pays each other active seat "
                         f"{-paid}, {_signed(paid * len(payers))} in all.")
        else:
            lines.append(f"  Each other active seat pays the winner its count, {paid}: "
                         f"{names[winner]} receives {paid} × {len(payers)} = {paid * len(payers)}.")
        return lines

    def _settle_w(self, result: Any, names: list[str], reason: str) -> list[str]:
        n = int(result.players)
        winner = int(result.winner)
        stake = int(self.p[E.P_W_STAKE])
        sticks = _plural(stake, "matchstick")
        lines = ["How the round is settled (variant W, stakes of " + sticks + "):"]
        if reason in ("uchikiri", "teyaku_stop"):
            if reason == "teyaku_stop":
                bits = int(result.stopping_teyaku)
                what = ", ".join(f"{self.rules.teyaku[i].english} ({_plural(self.rules.teyaku[i].value, 'stake')})"
                                 for i in ids_of(bits))
                lines.append(f"  {_cap(names[winner])} holds the stopping teyaku {what}: the round ends before "
                             f"play.")
            else:
                bits = int(result.stopping_yaku)
                what = ", ".join(f"{self.rules.yaku[i].english} ({_plural(self.rules.yaku[i].value, 'stake')})"
                                 for i in ids_of(bits))
                lines.append(f"  {_cap(names[winner])} completed {what}: the round stops and the cards are not "
                             f"counted.")
            per = -int(result.payoff[(winner + 1) % n])
            ante = " (the stakes and the ante)" if int(self.p[E.P_W_UCHIKIRI_PAYMENT]) == 1 else ""
            lines.append(f"  Each other player pays {names[winner]} {_plural(per, 'matchstick')}{ante}: "
                         f"{names[winner]} receives {per} × {n - 1} = {per * (n - 1)}.")
            for s in range(n):
                lines.append(self._seat_line(result, s, names, "not counted"))
            return lines
        lines.append(f"  A seat's score = {self.formula(1)}:")
        for s in range(n):
            total = int(result.score[s])
            detail = (f"{result.card_points[s]} + {result.yaku_points[s]} + {result.teyaku_points[s]} = "
                      f"{_signed(total)}")
            lines.append(self._seat_line(result, s, names, detail))
        top = max(int(v) for v in result.score)
        tied = [s for s in range(n) if int(result.score[s]) == top]
        winners = [s for s in range(n) if int(result.payoff[s]) > 0]
        if len(tied) > 1 and len(winners) > 1:
            lines.append(f"  {_cap(' and '.join(names[s] for s in tied))} tie at {top}: they share the others' antes "
                         f"(enshu.w.tie = split).")
        elif len(tied) > 1:
            lines.append(f"  {_cap(' and '.join(names[s] for s in tied))} tie at {top}: the first from the dealer in "
                         f"turn order, {names[winner]}, takes the pot.")
        else:
            lines.append(f"  {_cap(names[winner])} has the top score, {top}, and takes the pot.")
        lines.append(f"  Each other player loses its ante of {sticks}.")
        return lines

    def _settle_s(self, result: Any, names: list[str]) -> list[str]:
        n = int(result.players)
        winner = int(result.winner)
        combination = int(self.p[E.P_S_COMBINATION])
        lines = ["How the round is settled (variant S):", f"  A seat's score = {self.formula(1)}:"]
        for s in range(n):
            cards, yaku, teyaku = int(result.card_points[s]), int(result.yaku_points[s]), int(result.teyaku_points[s])
            u = int(result.yaku_multiplier[s])
            if combination == 1:
                detail = f"{cards} × {u} + {yaku} + {teyaku}"
            else:
                detail = f"({cards} + {yaku} + {teyaku}) × {u}"
            lines.append(self._seat_line(result, s, names, f"{detail} = {_signed(int(result.score[s]))}"))
        top = int(result.score[winner])
        tied = [s for s in range(n) if int(result.score[s]) == top and s != winner]
        if tied:
            order = "the dealer, then the seats before it in turn order" if int(
                self.p[E.P_TIE_ORDER]) == 1 else "the dealer, then the seats after it in turn order"
            lines.append(f"  {_cap(names[winner])} ties at {_signed(top)} with {' and '.join(names[s] for s in tied)}; "
                         f"a tie goes to {order}: {names[winner]} wins the round.")
        else:
            lines.append(f"  {_cap(names[winner])} has the top score, {_signed(top)}, and wins the round.")
        lines.append("  In variant S each seat's payoff is its own score: nobody pays another.")
        return lines
