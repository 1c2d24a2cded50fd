"""Koi-koi's named rule options (docs/koikoi.md#options): table ``[koikoi]`` of a rule file, or
``--option koikoi.NAME=VALUE``.

Koi-koi's rules vary more than any other hanafuda game's; every point where the sources differ
is an option, and each option's help names its sources. Short names used below:

* FudaWiki: the FudaWiki koi-koi page (the rules of its body, and its "Variations");
* Nintendo: the values FudaWiki, suzukiplan/open-hanafuda-ai, ngs/go-koikoi and
  sidsryu/koikoi-scorer give as Nintendo's rules;
* KKJ: the PC game KoiKoi-Japan, as guansanghai/KoiKoi-AI's engine implements it (the rules
  of its 200 published human matches);
* OHA, GKK, KKS, HJS: open-hanafuda-ai, go-koikoi, koikoi-scorer, fuda-cafe/hanafuda-js.

A yaku worth 0 points is not played.
"""

from __future__ import annotations

from simcore.rules.schema import OptionSpec
from simcore.rules.schema import choice as _choice

__all__ = ["OPTIONS", "YAKU_VALUE_MAX"]

# The most points an option may give one yaku (or a dealt hand, or the dealer's priority): with
# every yaku at this value, every multiplier and a match of the most rounds, the points still
# fit the dataset's int32 columns (rules.py checks the sums).
YAKU_VALUE_MAX = 1000


def _points(name: str, default: int, help: str) -> OptionSpec:
    return OptionSpec(name, None, default, help, minimum=0, maximum=YAKU_VALUE_MAX)


OPTIONS: dict[str, OptionSpec] = {
    spec.name: spec
    for spec in [
        # --- yaku values -------------------------------------------------------------------
        _points("koikoi.five_brights", 10,
                "Five Brights (goko): 10 (Nintendo; KKJ; OHA, GKK, KKS) or 15 (FudaWiki's body; HJS)"),
        _points("koikoi.four_brights", 8,
                "Four Brights without the Rain Man (shiko): 8 (every source)"),
        _points("koikoi.rainy_four_brights", 7,
                "Rainy Four Brights, with the Rain Man (ame-shiko): 7 (every source but "
                "sloperama's 2; KKS by option)"),
        _points("koikoi.three_brights", 5,
                "Three Brights without the Rain Man (sanko): 5 (Nintendo; KKJ; OHA, GKK, KKS) or 6 "
                "(FudaWiki's body; HJS; hanafuda_rl; duarcain; amuse-gion)"),
        _points("koikoi.boar_deer_butterfly", 5,
                "Boar-Deer-Butterfly (inoshikacho): 5 (Nintendo; KKJ; FudaWiki; OHA, GKK, KKS, HJS) "
                "or 6 (amuse-gion)"),
        _choice("koikoi.bdb_extra", "per_animal none", "per_animal",
                "Boar-Deer-Butterfly gains 1 point per animal beyond its three (Nintendo; FudaWiki's "
                "body; GKK; KKS option) or none (KKJ; FudaWiki's older form)"),
        _choice("koikoi.bdb_with_tane", "replaces stacks", "replaces",
                "Boar-Deer-Butterfly replaces Tane (Nintendo; GKK; FudaWiki's body) or both count "
                "(KKJ; FudaWiki's older form; KKS)"),
        _points("koikoi.hanami", 5,
                "Flower-viewing sake (hanami-zake): 5 (Nintendo; FudaWiki; GKK, KKS), 3 (HJS) or 1 "
                "(KKJ, raised by koikoi.viewing_raise); 0 leaves it out (FudaWiki: often toggled)"),
        _points("koikoi.tsukimi", 5,
                "Moon-viewing sake (tsukimi-zake): 5 (Nintendo; FudaWiki; GKK, KKS), 3 (HJS) or 1 "
                "(KKJ, raised by koikoi.viewing_raise); 0 leaves it out"),
        _choice("koikoi.viewing_raise", "none after_own_koikoi", "none",
                "a viewing yaku is worth koikoi.viewing_raised once its holder has called koi-koi "
                "(KKJ: 1 raised to 3) or keeps its value (every other source)"),
        _points("koikoi.viewing_raised", 3,
                "a viewing yaku's value after its holder's koi-koi, with viewing_raise = "
                "after_own_koikoi (KKJ: 3)"),
        _choice("koikoi.rain_off", "none rain_man any_willow", "none",
                "the viewing yaku are rained off (void) when their holder's pile has the Rain Man or "
                "the Lightning (rain_man: KKS RainBreakViewings) or any Willow card (any_willow: "
                "KKS WillowIsRain); none: never (Nintendo; KKJ; OHA, GKK)"),
        _points("koikoi.red_ribbons", 5,
                "Red poetry ribbons (akatan): 5 (every source but sloperama's 3)"),
        _points("koikoi.blue_ribbons", 5,
                "Blue ribbons (aotan): 5 (every source but sloperama's 3)"),
        _points("koikoi.red_and_blue", 10,
                "Red and Blue ribbons together: 10 (Nintendo; KKJ; FudaWiki; GKK)"),
        _choice("koikoi.red_and_blue_stacking", "replaces stacks", "replaces",
                "Red and Blue together replace the Red and the Blue ribbons (Nintendo; FudaWiki's "
                "body; GKK: 10) or all three count (KKJ: 10 + 5 + 5 = 20)"),
        _choice("koikoi.ribbon_extra", "per_ribbon none", "per_ribbon",
                "the Red, Blue and Red-and-Blue ribbons gain 1 point per ribbon beyond their own "
                "(Nintendo; FudaWiki's body; GKK; KKS option) or none (KKJ; FudaWiki's older form)"),
        _choice("koikoi.ribbons_with_tan", "replaces stacks", "replaces",
                "the Red, Blue and Red-and-Blue ribbons replace Tan (Nintendo; GKK; FudaWiki's "
                "body) or Tan counts too (KKJ; FudaWiki's older form; KKS; hanafuda_rl)"),
        _choice("koikoi.sake_cup_chaff", "true false", "true",
                "the Sake Cup also counts as chaff for Kasu (Nintendo; KKJ; FudaWiki; OHA; KKS "
                "option) or is an animal only (GKK; HJS default; hanafuda_rl)"),
        _points("koikoi.tsukifuda", 0,
                "Cards of the Month (tsuki-fuda): all four cards of the round's month (the round's "
                "place in its match, January first), 4 (FudaWiki, in 12-round games; HJS; KKS "
                "option) or 0: not played (Nintendo; KKJ; OHA, GKK)"),
        # --- dealt hands --------------------------------------------------------------------
        _choice("koikoi.teshi", "ignore score redeal", "score",
                "four cards of a month dealt to a hand (teshi): scores koikoi.teshi_value and ends the "
                "round at once (FudaWiki; KKS; HJS; richmind; hanafubuki; amuse-gion), redeals "
                "(KKJ; OHA) or is ignored (GKK)"),
        _points("koikoi.teshi_value", 6, "the points of a dealt teshi (FudaWiki and every source: 6)"),
        _choice("koikoi.kuttsuki", "ignore score redeal", "score",
                "four pairs dealt to a hand (kuttsuki: exactly two cards of each of four months): "
                "scores koikoi.kuttsuki_value (FudaWiki; KKS; HJS; richmind), redeals (OHA) or is "
                "ignored (KKJ; GKK)"),
        _points("koikoi.kuttsuki_value", 6, "the points of a dealt kuttsuki (FudaWiki and every source: 6)"),
        _choice("koikoi.field_four", "redeal ignore", "redeal",
                "four cards of a month dealt to the field: a misdeal, redealt (FudaWiki; KKJ; OHA), "
                "or played as dealt"),
        _choice("koikoi.field_pairs", "redeal ignore", "redeal",
                "four pairs dealt to the field: a misdeal, redealt (FudaWiki; OHA), or played as "
                "dealt (KKJ; FudaWiki's variations)"),
        # --- koi-koi ------------------------------------------------------------------------
        _choice("koikoi.koikoi_bonus",
                "opponent_double own_add_then_multiply calls_plus_one own_double any_double none",
                "opponent_double",
                "the winner's points x2 if the opponent called koi-koi, however often (Nintendo; "
                "FudaWiki; OHA, GKK); own_add_then_multiply: the winner's own calls n add n points "
                "for n <= 3, else multiply by n - 2 (KKJ); calls_plus_one: x(koi-koi calls of the "
                "round + 1); own_double: x2 if the winner called; any_double: x2 if anyone called "
                "(these three: FudaWiki's variations); none"),
        _choice("koikoi.seven_double", "true false", "true",
                "yaku points of 7 or more are doubled before the koi-koi bonus (Nintendo; FudaWiki; "
                "OHA, GKK; hanafubuki; KKS option) or not (KKJ; FudaWiki's variations)"),
        _choice("koikoi.koikoi_limit", "unlimited once_per_seat once_per_table", "unlimited",
                "how often koi-koi may be called in a round: by each seat as often as it likes "
                "(FudaWiki: in many rulesets; KKJ), once by each seat, or once at the whole table "
                "(OHA); where no call is allowed a seat whose yaku rose stops"),
        _choice("koikoi.last_turn", "forced_stop koikoi_allowed", "forced_stop",
                "a seat whose yaku rose on its last turn stops (KKJ: its 8th turn; OHA: only with "
                "cards in hand) or may still call koi-koi"),
        _choice("koikoi.koikoi_trigger", "points_rise new_yaku", "points_rise",
                "what offers the koi-koi decision: the seat's yaku points rose during its turn (a "
                "new or improved yaku: KKJ; FudaWiki; GKK) or it made a new yaku (FudaWiki's "
                "variations)"),
        # --- the end of a round and the match -------------------------------------------------
        _choice("koikoi.exhausted", "nothing dealer_points highest_yaku", "nothing",
                "both hands played out with nobody stopping: nobody scores (FudaWiki; hanafubuki; "
                "OHA), the dealer takes koikoi.dealer_priority points (KKJ: 1; amuse-gion; "
                "FudaWiki's variations: 1 or 6), or the seat with more yaku points scores them as "
                "if it had stopped (GKK; nightsky30/koikoi #41)"),
        _points("koikoi.dealer_priority", 1,
                "the dealer's points for an exhausted round with exhausted = dealer_points (KKJ: 1)"),
        _choice("koikoi.exhausted_dealer", "same switch", "same",
                "who deals after a round nobody won: the same dealer (FudaWiki; KKJ; GKK) or the "
                "other seat (OHA; FudaWiki's variations)"),
        _choice("koikoi.scoring", "winner_only zero_sum", "winner_only",
                "the winner's points only (Nintendo; FudaWiki) or the loser loses them too "
                "(zero-sum: KKJ; FudaWiki's variations)"),
        OptionSpec("koikoi.rounds", None, 12,
                   "rounds in a match: 12 (Nintendo's leaflet; FudaWiki; OHA), 6 or 3 (FudaWiki; "
                   "GKK), 8 (KKJ)", minimum=1, maximum=1000),
        OptionSpec("koikoi.start_points", None, 0,
                   "each seat's points when a match starts (KKJ: 30)", minimum=0, maximum=1_000_000),
        _choice("koikoi.early_end", "none at_zero", "none",
                "a match ends early as soon as a seat has 0 points or fewer (KKJ) or plays all its "
                "rounds"),
    ]
}
