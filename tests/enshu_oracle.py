"""An independent implementation of Enshu-bana (docs/enshu.md) under the uniform random policy.

Written from docs/enshu.md, the option defaults of docs/enshu.md#options and the decision and stream
order of ``docs/enshu.md`` -- not from the engine: card sets, yaku and teyaku tables are typed in
here, state is kept in Python sets and lists, and nothing is read from the rule files except option
values.  ``tests/test_enshu_oracle.py`` compares it with the reference engine round by round.
"""

from __future__ import annotations

from enshu_cards import (
    ANIMALS,
    BRIGHTS,
    CHAFF,
    DEKIYAKU,
    ICP_MONTHS,
    RIBBONS,
    WILLOW,
    WILLOW_LIGHTNING,
    card_points,
    month_cards,
    month_of,
)

from simcore.rng import DEAL_STREAM, RULES_STREAM, Stream, seat_stream

ALL_MONTHS = tuple(range(1, 13))
NON_ICP = tuple(m for m in ALL_MONTHS if m not in ICP_MONTHS)

# (key, group, pattern, months, three_months, stops, value, bonus)
TEYAKU = {
    "W": [
        ("shisou", "A", "four_three", ALL_MONTHS, ALL_MONTHS, True, 10, 0),
        ("teshi", "A", "four", ALL_MONTHS, (), True, 2, 0),
        ("sanbon", "A", "triplet", ICP_MONTHS, (), False, 50, 0),
    ],
    "S": [
        ("shisou", "A", "four_three", ALL_MONTHS, ALL_MONTHS, False, 50, 0),
        ("sanbon", "A", "triplet", ICP_MONTHS, (), False, 50, 0),
    ],
    "C": [
        ("shisou", "A", "four_three", NON_ICP, ALL_MONTHS, False, 150, 100),
        ("shihon", "A", "four", NON_ICP, (), False, 100, 0),
        ("sanbon", "A", "triplet", ALL_MONTHS, (), False, 50, 100),
        ("soppe", "B", "all_junk", (), (), False, 100, 0),
        ("toichi", "B", "lone_animal", (), (), False, 50, 0),
        ("tanichi", "B", "lone_ribbon", (), (), False, 50, 0),
    ],
}
STOPPERS = ("shiko", "akatan", "aotan")
POINT_YAKU = {"tsukihoto": 50, "shishibo": 50, "shishichu": 50, "sokuyaku": 100,
              "negishi": 50, "kikushi": 50, "getashi": 50}
FOUR_OF_MONTH = {"negishi": 5, "kikushi": 9, "getashi": 12}


def _shuffle(items: list[int], stream: Stream) -> list[int]:
    """Fisher-Yates with the draws in batches, as docs/enshu.md describes: a batch is as many
    consecutive places as keep the product of their ranges at most 2**32; one 64-bit word gives
    its draws (word times range: the high 64 bits are the draw, the low 64 go on), and is drawn
    again when the low bits left at the end are below 2**64 mod the product."""
    n = len(items)
    i = 0
    while i < n - 1:
        places = []
        product = 1
        while i + len(places) < n - 1 and product * (n - i - len(places)) <= 2**32:
            product *= n - i - len(places)
            places.append(i + len(places))
        while True:
            word = stream.next_u64()
            draws = []
            for place in places:
                word *= n - place
                draws.append(word >> 64)
                word %= 2**64
            if word >= 2**64 % product:
                break
        for place, draw in zip(places, draws, strict=True):
            items[place], items[place + draw] = items[place + draw], items[place]
        i += len(places)
    return items


class Oracle:
    """One round; ``run()`` returns a dict of outcomes keyed like the engine's result fields."""

    def __init__(self, variant: str, players: int, options: dict, seed: int, round_index: int, dealer: int):
        self.v = variant
        self.n = players
        self.o = options
        self.seed = seed
        self.r = round_index
        self.dealer = dealer
        self.streams = [Stream(seed, round_index, seat_stream(s)) for s in range(players)]
        self.bright = int(options["enshu.bright_value"])

    # --- the random policy -------------------------------------------------------------------
    def yes(self, seat: int) -> bool:
        return self.streams[seat].uniform_below(2) == 1

    def pick(self, seat: int, items: list):
        return items[self.streams[seat].uniform_below(len(items))]

    def order(self, start: int) -> list[int]:
        return [(start + k) % self.n for k in range(self.n)]

    # --- rules helpers ---------------------------------------------------------------------------
    def sizes(self) -> tuple[int, int]:
        if self.v != "C" and self.n == 2 and self.o["enshu.deal_2p"] == "8_8":
            return 8, 8
        return 7, 6

    def junk(self) -> set[int]:
        junk = set(CHAFF)
        if self.v != "C" or self.o["enshu.c.junk_def"] == "lightning_excluded":
            junk.discard(WILLOW_LIGHTNING)
        return junk

    def teyaku_options(self, hand: set[int], group: str | None) -> list[tuple]:
        count = {m: sum(1 for c in hand if month_of(c) == m) for m in ALL_MONTHS}
        junk = self.junk()
        out = []
        for index, (key, grp, pattern, months, threes, stops, value, _bonus) in enumerate(TEYAKU[self.v]):
            if group is not None and grp != group:
                continue
            if pattern == "four_three":
                for m in months:
                    for t in threes:
                        if count[m] == 4 and t != m and count[t] >= 3:
                            out.append((index, key, m, t, {c for c in hand if month_of(c) in (m, t)}, stops, value))
            elif pattern in ("four", "triplet"):
                for m in months:
                    if count[m] == (4 if pattern == "four" else 3):
                        out.append((index, key, m, 0, {c for c in hand if month_of(c) == m}, stops, value))
            else:
                special = {"all_junk": set(), "lone_animal": ANIMALS, "lone_ribbon": RIBBONS}[pattern]
                lone = hand & special
                if len(lone) == (0 if pattern == "all_junk" else 1) and hand - lone <= junk:
                    exposes = set(hand)
                    if self.v == "C" and self.o["enshu.c.exposure"] == "junk_only_for_group_B":
                        exposes = hand & junk
                    out.append((index, key, 0, 0, exposes, stops, value))
        return out

    def misdeal(self, field: list[int], hands: dict[int, list[int]]) -> bool:
        rule = "as_variant_C" if self.v == "C" else self.o["enshu.w_misdeal"]
        if rule == "none":
            return False
        for m in ALL_MONTHS:
            on_field = sum(1 for c in field if month_of(c) == m)
            if on_field == 4 or (rule == "as_variant_C" and m in ICP_MONTHS and on_field >= 3):
                return True
        at_deal = self.v != "C" or self.o["enshu.c.icp_four_check"] == "at_deal_all_hands"
        return rule == "as_variant_C" and at_deal and any(self.icp_four(h) for h in hands.values())

    @staticmethod
    def icp_four(hand) -> bool:
        return any(set(month_cards(m)) <= set(hand) for m in ICP_MONTHS)

    def yaku_of(self, pile: set[int]) -> set[str]:
        done = {k for k, cards in DEKIYAKU.items() if cards <= pile}
        if "sokuyaku" in done and self.o["enshu.sokuyaku_stacking"] == "supersede":
            done -= {"shishibo", "shishichu"}
        return done

    def stop_value(self, key: str) -> int:
        if self.v == "S":
            big = self.o["enshu.s.multipliers"] == "5_3_3"
            return {"shiko": 5 if big else 3, "akatan": 3 if big else 2, "aotan": 3 if big else 2}[key]
        return {"shiko": 3, "akatan": 2, "aotan": 2}[key]

    # --- the round --------------------------------------------------------------------------------
    def run(self) -> dict:
        n, v, o = self.n, self.v, self.o
        hand_size, field_size = self.sizes()
        raises = v == "C" and (n >= 4 or o["enshu.c.kotsu_small_games"] == "true")
        mizu = [False] * n
        if raises:
            for s in self.order(self.dealer):
                if sum(mizu) == 3:
                    break
                mizu[s] = self.yes(s)
        deal_stream = Stream(self.seed, self.r, DEAL_STREAM)
        redeals = 0
        while True:
            deck = _shuffle(list(range(48)), deal_stream)
            field = deck[:field_size]
            hands = {}
            for k in range(n):
                hands[(self.dealer + k) % n] = deck[field_size + k * hand_size: field_size + (k + 1) * hand_size]
            draw = deck[field_size + n * hand_size:]
            if self.misdeal(field, hands):
                redeals += 1
                continue
            active = [True] * n
            kotsu = [False] * n
            passes = 0
            multiplier = 1
            acting = self.dealer
            if v == "C":
                multiplier = 1 + len(BRIGHTS & set(field)) + sum(mizu)
                if raises:
                    for s in self.order(self.dealer):
                        kotsu[s] = self.yes(s)
                        multiplier += kotsu[s]
                if n >= 4:
                    pool = self.order(self.dealer)
                    while True:
                        passes += 1
                        joined = []
                        for s in pool:
                            if active.count(True) == 3 or mizu[s] or self.yes(s):
                                joined.append(s)
                            else:
                                active[s] = False
                        if len(joined) == 3:
                            break
                        if passes == int(o["enshu.c.dropout_pass_cap"]):
                            for s in joined[::-1]:
                                if active.count(True) > 3 and not mizu[s]:
                                    active[s] = False
                            break
                        multiplier += 1
                        pool = joined
                acting = next(s for s in self.order(self.dealer) if active[s])
                if o["enshu.c.icp_four_check"] == "at_teyaku_active_hands" and any(
                        self.icp_four(hands[s]) for s in range(n) if active[s]):
                    redeals += 1
                    continue
            break
        hand_dealt = {s: list(h) for s, h in hands.items()}
        set_aside: list[int] = []
        dropped = [s for s in self.order(self.dealer) if not active[s]]
        if dropped:
            added = [c for s in dropped for c in sorted(hands[s])]
            for s in dropped:
                hands[s] = []
            if o["enshu.c.dropped_hands"] == "set_aside":
                set_aside = added
            else:
                draw = draw + added
                draw = _shuffle(draw, Stream(self.seed, self.r, RULES_STREAM))

        hands = {s: set(h) for s, h in hands.items()}
        field = set(field)
        piles = {s: set() for s in range(n)}
        declared: dict[int, list[tuple]] = {s: [] for s in range(n)}
        teyaku_dealt = {s: {t[1] for t in self.teyaku_options(set(hand_dealt[s]), None)} for s in range(n)}

        # teyaku
        stop_teyaku = None
        winner = -1
        if v == "W":
            for s in self.order(self.dealer):
                stoppers = [t for t in self.teyaku_options(hands[s], None) if t[5]]
                if stoppers:
                    best = max(stoppers, key=lambda t: t[6])  # max() keeps the first of equal values
                    best = next(t for t in stoppers if t[6] == best[6])
                    declared[s].append(best)
                    if stop_teyaku is None or best[6] > stop_teyaku[6]:
                        stop_teyaku, winner = best, s
        if stop_teyaku is None:
            deciding = []
            if v == "W" and o["enshu.w.triplet_declare"] != "never":
                deciding = self.order(self.dealer)
            elif v == "S" and o["enshu.s.teyaku"] == "on":
                deciding = self.order(self.dealer)
            elif v == "C":
                deciding = [s for s in self.order(acting) if active[s]]
            for s in deciding:
                for group in "AB":
                    opts = [t for t in self.teyaku_options(hands[s], group) if not t[5]]
                    if not opts:
                        continue
                    if v == "W" and o["enshu.w.triplet_declare"] == "always":
                        declared[s].append(next(t for t in opts if t[6] == max(x[6] for x in opts)))
                    elif self.yes(s):
                        declared[s].append(self.pick(s, opts))

        # turns
        turn = 0
        stopped: set[str] = set()
        stoppers = set(STOPPERS) if v != "S" else set()
        if stop_teyaku is None:
            seat = acting
            while any(hands[s] for s in range(n) if active[s]):
                turn += 1
                card = self.pick(seat, sorted(hands[seat]))
                hands[seat].discard(card)
                self.resolve(seat, card, field, piles)
                if o["enshu.uchikiri_check"] == "after_each_capture" and self.yaku_of(piles[seat]) & stoppers:
                    stopped = self.yaku_of(piles[seat]) & stoppers
                    winner = seat
                    break
                if draw:
                    self.resolve(seat, draw.pop(0), field, piles)
                if self.yaku_of(piles[seat]) & stoppers:
                    stopped = self.yaku_of(piles[seat]) & stoppers
                    winner = seat
                    break
                seat = (seat + 1) % n
                while not active[seat]:
                    seat = (seat + 1) % n
        assert sorted(set().union(*hands.values(), field, *piles.values(), draw, set_aside)) == list(range(48))
        return self.settle(active, mizu, kotsu, multiplier, passes, acting, redeals, hand_dealt, teyaku_dealt,
                           declared, piles, turn, winner, stopped, stop_teyaku)

    def resolve(self, seat: int, card: int, field: set[int], piles: dict) -> None:
        same = sorted(c for c in field if month_of(c) == month_of(card))
        if not same:
            field.add(card)
            return
        if len(same) == 1 or (len(same) == 3 and self.o["enshu.capture_three"] == "all"):
            taken = same
        else:
            taken = [self.pick(seat, same)]
        field.difference_update(taken)
        piles[seat].update([card, *taken])

    def settle(self, active, mizu, kotsu, multiplier, passes, acting, redeals, hand_dealt, teyaku_dealt,
               declared, piles, turn, winner, stopped, stop_teyaku) -> dict:
        n, v, o = self.n, self.v, self.o
        in_four_three = v != "C" or o["enshu.c.triplet_bonus_in_four_three"] == "true"
        upgrade = v == "W" or (v == "C" and o["enshu.c.triplet_bonus_mode"] == "upgrade")
        card_pts, yaku_pts, teyaku_pts, mults, yaku_names = [0] * n, [0] * n, [0] * n, [[] for _ in range(n)], []
        for s in range(n):
            names = self.yaku_of(piles[s]) if active[s] else set()
            yaku_names.append(names)
            if not active[s]:
                continue
            card_pts[s] = sum(card_points(c, self.bright) for c in piles[s])
            triplets = set()
            for (_, key, m, t, _, _, _) in declared[s]:
                if key == "sanbon":
                    triplets.add(m)
                if key == "shisou" and in_four_three:
                    triplets.add(t)
            for name in names:
                if name in POINT_YAKU:
                    up = upgrade and FOUR_OF_MONTH.get(name) in triplets
                    yaku_pts[s] += 100 if up else POINT_YAKU[name]
                else:
                    mults[s].append(self.stop_value(name))
            for (index, key, m, t, _, stops, value) in declared[s]:
                if not stops:
                    teyaku_pts[s] += value
                bonus = TEYAKU[v][index][7]
                triplet = m if key == "sanbon" else (t if key == "shisou" else 0)
                if v == "C" and bonus and triplet in ICP_MONTHS and (key == "sanbon" or in_four_three) \
                        and o["enshu.c.triplet_bonus_mode"] == "separate":
                    cards = set(month_cards(triplet))
                    if o["enshu.c.triplet_bonus_condition"] == "all_four_in_own_pile":
                        earned = cards <= piles[s]
                    else:
                        rest = cards - set(hand_dealt[s])
                        earned = bool(rest) and rest <= piles[s]
                    teyaku_pts[s] += bonus if earned else 0
        score, payoff, yaku_mult = [0] * n, [0] * n, [1] * n
        fuke = -1
        if stop_teyaku is not None:
            reason = "teyaku_stop"
        elif stopped:
            reason = "uchikiri"
        else:
            reason = "score"
        if v == "W":
            stake = int(o["enshu.w.stake"])
            if reason == "score":
                score = [card_pts[s] + yaku_pts[s] + teyaku_pts[s] for s in range(n)]
                tied = [s for s in self.order(self.dealer) if score[s] == max(score)]
                winner = tied[0]
                payoff = [-stake] * n
                if o["enshu.w.tie"] == "split" and len(tied) > 1:
                    won = stake * (n - len(tied))
                    for k, s in enumerate(tied):
                        payoff[s] = won // len(tied) + (k < won % len(tied))
                else:
                    payoff[winner] = stake * (n - 1)
            else:
                if stop_teyaku is not None:
                    k = stop_teyaku[6]
                else:
                    values = [self.stop_value(name) for name in stopped]
                    combo = o["enshu.w.uchikiri_combo"]
                    k = sum(values) if combo == "sum" else max(values) if combo == "max" else _product(values)
                each = (k + (o["enshu.w.uchikiri_payment"] == "ante_plus_k")) * stake
                payoff = [-each] * n
                payoff[winner] = each * (n - 1)
        elif v == "S":
            for s in range(n):
                total = card_pts[s] + yaku_pts[s] + teyaku_pts[s]
                how = o["enshu.s.combination"]
                if how == "total_times_sum":
                    yaku_mult[s] = sum(mults[s]) or 1
                    score[s] = total * yaku_mult[s]
                else:
                    yaku_mult[s] = _product(mults[s])
                    score[s] = total * yaku_mult[s] if how == "total_times_product" else \
                        card_pts[s] * yaku_mult[s] + yaku_pts[s] + teyaku_pts[s]
            winner = self.top(score, self.dealer, active)
            payoff = list(score)
        else:
            players = [s for s in range(n) if active[s]]
            own = [yaku_pts[s] + teyaku_pts[s] for s in range(n)]
            for s in players:
                u = 1
                if mults[s]:
                    u = _product(mults[s]) if o["enshu.c.uchikiri_combo"] == "product" else max(mults[s])
                yaku_mult[s] = u
                others = sum(own[q] for q in players if q != s)
                base = card_pts[s] - others
                if o["enshu.c.score_formula"] == "zero_sum":
                    base += (len(players) - 1) * own[s]
                score[s] = base * multiplier * u
            if reason != "uchikiri":
                winner = self.top(score, acting, active)
            if reason != "uchikiri" or o["enshu.c.fuke_on_uchikiri"] == "true":
                for s in self.order(acting):
                    if not active[s] or declared[s]:
                        continue
                    if sum(card_points(c, self.bright) for c in piles[s] - WILLOW) <= 15 and self.yes(s):
                        fuke = s
                        break
            if fuke >= 0:
                reason, winner, score = "fuke", -1, [0] * n
            else:
                paid = score[winner] if o["enshu.c.negative_score"] == "literal" else max(score[winner], 0)
                for s in players:
                    payoff[s] = -paid
                payoff[winner] = paid * (len(players) - 1)
        if v == "W" and reason != "score":
            score = [0] * n
        return {
            "redeals": redeals, "active": active, "mizu_kotsu": mizu, "kotsu": kotsu,
            "multiplier": multiplier, "dropout_passes": passes, "first_player": acting,
            "hand_dealt": [sorted(hand_dealt[s]) for s in range(n)],
            "teyaku_dealt": [teyaku_dealt[s] for s in range(n)],
            "teyaku_declared": [{t[1] for t in declared[s]} for s in range(n)],
            "captured": [sorted(piles[s]) for s in range(n)], "yaku": yaku_names,
            "card_points": card_pts, "yaku_points": yaku_pts, "teyaku_points": teyaku_pts,
            "yaku_multiplier": yaku_mult, "score": score, "payoff": payoff, "winner": winner,
            "end_reason": reason, "end_turn": turn, "fuke": fuke,
        }

    def top(self, score: list[int], start: int, active: list[bool]) -> int:
        if self.v != "W" and self.o["enshu.tie_order"] == "dealer_then_left":
            order = [(start - k) % self.n for k in range(self.n)]
        else:
            order = self.order(start)
        order = [s for s in order if active[s]]
        best = max(score[s] for s in order)
        return next(s for s in order if score[s] == best)


def _product(values) -> int:
    out = 1
    for value in values:
        out *= value
    return out
