"""Greedy's decisions on hand-made positions, worked out by hand from the formula in docs/policies.md
(Tensho) and docs/enshu.md / simcore/games/enshu/policies.py (Enshu-bana).

Each position is built so that yaku progress decides it against the card values (or the other
way round), and the hand computation is written next to it. The values used are those of
the rules as typed into tests/tensho_cards.py and tests/enshu_cards.py.

Tensho, tensho-ise defaults: yaku set 1, card values T1_ise, chaff set B (coins and cups but the
2 of coins). Set-1 weights `12 x points / cards`: a front 3-card yaku (100) 400, a back one (50)
200, Eight Islands King 900 (front) / 450 (back), Front Elder (instant, counted as 300) 1200,
Back Elder (100) 400.

Enshu-bana C: card points Bright 30, Animal 10, Ribbon 5, Chaff 0; weights: Shiko (3 x 100) 900,
Akatan / Aotan (2 x 100 over 3 cards) 800, two-card 50-point yaku 300, Sokuyaku (100) 400,
four-card 50-point yaku 150.
"""

from __future__ import annotations

import pytest
from enshu_cards import (
    CHERRY_CURTAIN,
    CHERRY_RIBBON,
    CHRYS_CHAFF_1,
    CHRYS_RIBBON,
    CHRYS_SAKE_CUP,
    CLOVER_BOAR,
    IRIS_CHAFF_1,
    IRIS_RIBBON,
    MAPLE_CHAFF_1,
    MAPLE_DEER,
    MAPLE_RIBBON,
    PAULOWNIA_CHAFF_2,
    PEONY_BUTTERFLIES,
    PEONY_CHAFF_2,
    PEONY_RIBBON,
    PINE_CHAFF_1,
    PINE_CHAFF_2,
    PINE_CRANE,
    PINE_RIBBON,
    PLUM_CHAFF_1,
    PLUM_CHAFF_2,
    PLUM_RIBBON,
    PLUM_WARBLER,
    SUSUKI_GEESE,
    WISTERIA_CHAFF_1,
    month_cards,
)
from tensho_cards import (
    EIGHT_OF_CLUBS,
    FIVE_OF_SWORDS,
    KING_OF_CLUBS,
    KING_OF_COINS,
    ONE_OF_SWORDS,
    SIX_OF_CLUBS,
    TEN_OF_CLUBS,
    TEN_OF_COINS,
    TEN_OF_SWORDS,
    THREE_OF_COINS,
    THREE_OF_CUPS,
    THREE_OF_SWORDS,
    TWO_OF_CLUBS,
    TWO_OF_COINS,
    TWO_OF_CUPS,
    TWO_OF_SWORDS,
)

from simcore.cards import mask_of
from simcore.games.enshu import compile as enshu_compile
from simcore.games.enshu import policies as enshu_policies
from simcore.games.enshu.compile import teyaku_options
from simcore.games.tensho.compile import compile_rules
from simcore.games.tensho.policies import GreedyPolicy, Observation
from simcore.policies import parse_policy
from simcore.rules import load_rules

# --- Tensho ------------------------------------------------------------------------------------


def tensho_greedy(spec: str = "greedy", **options: str) -> GreedyPolicy:
    return GreedyPolicy(parse_policy(spec), compile_rules(load_rules("tensho-ise", options)))


def tensho_obs(hand=(), field=(), pile=(), yaku_set: int = 1) -> Observation:
    return Observation(seat=0, dealer=0, yaku_set=yaku_set, round_in_match=0, match_points=(0, 0),
                             hand=mask_of(hand), field=mask_of(field), piles=(mask_of(pile), 0),
                             seen=mask_of(field) | mask_of(pile), draw_size=18, turn=1)


def test_tensho_plays_the_card_that_advances_yaku_over_the_higher_value():
    # Hand 12C (King of clubs, value 12) and 3S (value 1); field 12Co and 3Co (value 1, chaff).
    # 12C takes 12Co: progress 12C in Back Ten-Horse-King, Back Four-Horse-King, Back Eight-Four-King
    #   (200 each) and Back Eight Islands King (450) = 1050; value 10 x (12 + 1) = 130; chaff
    #   10 x 1 (12Co) = 10; total 1190.
    # 3S takes 3Co: progress 3S in Front One-Two-Three, Front Three-Four-Five, Front Nine-Horse-
    #   Three, Front Seven-Five-Three (400 each) = 1600; value 10 x 2 = 20; chaff 10; total 1630.
    # Greedy plays 3S (on card values alone it would play 12C: 140 against 30).
    obs = tensho_obs(hand=[KING_OF_CLUBS, THREE_OF_SWORDS], field=[KING_OF_COINS, THREE_OF_COINS])
    assert tensho_greedy().play(obs) == THREE_OF_SWORDS


def test_tensho_lays_on_the_field_the_card_that_costs_least():
    # No hand card matches the field (2Co): each is left on the field, gaining
    # -(10 x value + weights of the set-1 yaku holding it):
    # 12C: -(120 + 1050) = -1170; 3S: -(10 + 1600) = -1610. Greedy plays 12C (by value alone, 3S).
    obs = tensho_obs(hand=[KING_OF_CLUBS, THREE_OF_SWORDS], field=[TWO_OF_COINS])
    assert tensho_greedy().play(obs) == KING_OF_CLUBS
    # 3Co and 3Cu are in no yaku and worth 1 each: -10 apiece, a tie, which goes to the lowest id.
    assert THREE_OF_COINS < THREE_OF_CUPS
    assert tensho_greedy().play(tensho_obs(hand=[THREE_OF_CUPS, THREE_OF_COINS], field=[TWO_OF_COINS])) == THREE_OF_COINS


def test_tensho_capture_choice_follows_yaku_progress():
    # 2Cu (value 1, chaff) matches 2S and 2Co on the field (tensho.double_match = choose).
    # Take 2S: progress 2S in Front One-Two-Three and Front One-Two-Ten (400 each) = 800; value
    #   10 x (1 + 1) = 20; chaff 10 (2Cu); total 830.
    # Take 2Co: no yaku; value 10 x (1 + 10) = 110; chaff 10 (2Cu; the 2 of coins is not chaff in
    #   set B); total 120.  Greedy takes 2S (on values alone, 2Co).
    options = [1 << TWO_OF_SWORDS, 1 << TWO_OF_COINS]
    obs = tensho_obs(field=[TWO_OF_SWORDS, TWO_OF_COINS])
    assert tensho_greedy().choose_capture(obs, TWO_OF_CUPS, options, False) == 1 << TWO_OF_SWORDS


def test_tensho_capture_choice_completes_a_yaku():
    # Pile 1S, 3S; 2Cu matches 2S and 2Co. Taking 2S completes Front One-Two-Three (100 points):
    # 100 x 100 = 10000, plus progress 800 (One-Two-Three and One-Two-Ten are not complete in the
    # pile before), value 20, chaff 10: 10830. Taking 2Co: 120 as above.
    obs = tensho_obs(field=[TWO_OF_SWORDS, TWO_OF_COINS], pile=[ONE_OF_SWORDS, THREE_OF_SWORDS])
    greedy = tensho_greedy()
    assert greedy.gain(obs.piles[0], (1 << TWO_OF_CUPS) | (1 << TWO_OF_SWORDS), 1) == 10830
    assert greedy.gain(obs.piles[0], (1 << TWO_OF_CUPS) | (1 << TWO_OF_COINS), 1) == 120
    assert greedy.choose_capture(obs, TWO_OF_CUPS, [1 << TWO_OF_SWORDS, 1 << TWO_OF_COINS], False) == 1 << TWO_OF_SWORDS


def test_tensho_opening_claim_takes_the_pair_with_most_yaku_progress():
    # Field triple of rank 2: 2C (value 10; Back One-Two-Three, Back One-Two-Ten: 200 each),
    # 2S (value 1; Front One-Two-Three, Front One-Two-Ten: 400 each), 2Co (value 10; no yaku,
    # not chaff). Pairs in lexicographic order:
    # (2C, 2S): 400 + 800 + 10 x 11 = 1310;  (2C, 2Co): 400 + 10 x 20 = 600;
    # (2S, 2Co): 800 + 10 x 11 = 910.  Greedy claims (2C, 2S) (on values alone, (2C, 2Co)).
    pairs = [(TWO_OF_CLUBS, TWO_OF_SWORDS), (TWO_OF_CLUBS, TWO_OF_COINS), (TWO_OF_SWORDS, TWO_OF_COINS)]
    obs = tensho_obs(field=[TWO_OF_CLUBS, TWO_OF_SWORDS, TWO_OF_COINS])
    assert tensho_greedy().opening_claim(obs, 2, pairs) == (TWO_OF_CLUBS, TWO_OF_SWORDS)


def test_tensho_six_of_clubs():
    # Playing the 6 of clubs puts it in the pile: progress Front Elder (instant: 1200) + Back
    # Elder (400) = 1600, value 10 x 1 = 10, not chaff: 1610. 12C taking 12Co: 1190 (above).
    # Greedy plays the 6 (on values alone, 12C: 10 against 140).
    obs = tensho_obs(hand=[KING_OF_CLUBS, SIX_OF_CLUBS], field=[KING_OF_COINS])
    assert tensho_greedy().play(obs) == SIX_OF_CLUBS
    # With 5S and 10S in the pile the 6 completes Front Elder, an instant win: 1,000,000.
    obs = tensho_obs(hand=[KING_OF_CLUBS, SIX_OF_CLUBS, TEN_OF_COINS], field=[KING_OF_COINS, TEN_OF_CLUBS],
                     pile=[FIVE_OF_SWORDS, TEN_OF_SWORDS])
    greedy = tensho_greedy()
    assert greedy.gain(obs.piles[0], 1 << SIX_OF_CLUBS, 1) == 1_000_000
    assert greedy.play(obs) == SIX_OF_CLUBS
    # With tensho.six_in_hand = bank_at_deal greedy always banks it.
    banking = tensho_greedy(**{"tensho.six_in_hand": "bank_at_deal"})
    assert banking.bank_six(tensho_obs(hand=[SIX_OF_CLUBS, EIGHT_OF_CLUBS])) is True


@pytest.mark.parametrize(("spec", "expected"), [("greedy", 1), ("greedy:yaku_set=2", 2)])
def test_tensho_yaku_set_choice_is_the_parameter(spec, expected):
    greedy = tensho_greedy(spec, **{"tensho.yaku_set_choice": "dealer_policy"})
    assert greedy.choose_yaku_set(tensho_obs(yaku_set=0)) == expected


# --- Enshu-bana --------------------------------------------------------------------------------


def enshu_greedy(rules: str = "enshu-c", players: int = 4) -> enshu_policies.GreedyPolicy:
    compiled = enshu_compile.compile_rules(load_rules(rules, {"enshu.players": str(players)}))
    return enshu_policies.GreedyPolicy(parse_policy("greedy", "enshu"), compiled)


def enshu_obs(hand=(), field=(), pile=(), *, players: int = 4, dropout_pass: int = 0, scores=(), winner=-1,
              seat: int = 1) -> enshu_policies.Observation:
    piles = [0] * players
    piles[seat] = mask_of(pile)
    return enshu_policies.Observation(
        seat=seat, players=players, variant="C", dealer=0, acting_dealer=0, active=(True,) * players,
        round_in_match=0, match_points=(0,) * players, multiplier=1, hand=mask_of(hand), field=mask_of(field),
        piles=tuple(piles), exposed=(0,) * players, seen=mask_of(field) | mask_of(pile), draw_size=14, turn=1,
        declared=(0,) * players, mizu_kotsu=(False,) * players, kotsu=(False,) * players,
        dropout_pass=dropout_pass, scores=tuple(scores), winner=winner)


def test_enshu_plays_the_card_that_advances_yaku():
    # Hand Plum Bush Warbler (Animal, 10; no yaku) and Maple Blue ribbon (Ribbon, 5; Aotan 800);
    # field Plum Chaff 1 and Maple Chaff 1 (0 points, no yaku).
    # Warbler takes Plum Chaff 1: 10 x 10 = 100.  Ribbon takes Maple Chaff 1: 800 + 10 x 5 = 850.
    # Greedy plays the ribbon (on points alone, the Warbler: 100 against 50).
    obs = enshu_obs(hand=[PLUM_WARBLER, MAPLE_RIBBON], field=[PLUM_CHAFF_1, MAPLE_CHAFF_1])
    assert enshu_greedy().play(obs) == MAPLE_RIBBON


def test_enshu_capture_choice_follows_yaku_progress():
    # Chrysanthemum Chaff 1 matches the Sake Cup (Animal 10; Kikushi 150) and the Blue ribbon
    # (Ribbon 5; Aotan 800, Kikushi 150). The played chaff is in Kikushi too (150).
    # Sake Cup: 150 + 150 + 10 x 10 = 400.  Ribbon: 150 + 800 + 150 + 10 x 5 = 1100.
    # Greedy takes the ribbon (on points alone, the Sake Cup).
    obs = enshu_obs(field=[CHRYS_SAKE_CUP, CHRYS_RIBBON])
    options = [1 << CHRYS_SAKE_CUP, 1 << CHRYS_RIBBON]
    assert enshu_greedy().choose_capture(obs, CHRYS_CHAFF_1, options) == 1 << CHRYS_RIBBON


def test_enshu_capture_choice_completes_a_points_yaku():
    # Pile: Bush Clover Boar. Peony Chaff 2 matches the Butterflies (Animal 10; Shishibo 300,
    # Sokuyaku 400) and the Peony Blue ribbon (Ribbon 5; Aotan 800).
    # Butterflies: Shishibo (Boar + Butterflies, 50 points) completes: 100 x 50 = 5000; progress
    #   300 + 400; points 10 x 10 = 100; total 5800.  Ribbon: 800 + 50 = 850.
    # Greedy takes the Butterflies; on progress alone, without the completed points, the ribbon.
    greedy = enshu_greedy()
    pile = mask_of([CLOVER_BOAR])
    assert greedy.gain(pile, mask_of([PEONY_CHAFF_2, PEONY_BUTTERFLIES])) == 5800
    assert greedy.gain(pile, mask_of([PEONY_CHAFF_2, PEONY_RIBBON])) == 850
    obs = enshu_obs(field=[PEONY_BUTTERFLIES, PEONY_RIBBON], pile=[CLOVER_BOAR])
    assert greedy.choose_capture(obs, PEONY_CHAFF_2, [1 << PEONY_BUTTERFLIES, 1 << PEONY_RIBBON]) == \
        1 << PEONY_BUTTERFLIES


def test_enshu_a_round_stopping_yaku_outweighs_everything():
    # Pile: Pine and Plum Poetry ribbons. The Cherry ribbon taking the Curtain completes Akatan
    # (round-stopping in C): 1,000,000. The Crane (Bright, 30) taking Pine Chaff 1 gains Shiko's
    # weight 900 plus 10 x 30 = 300: 1200.
    greedy = enshu_greedy()
    obs = enshu_obs(hand=[PINE_CRANE, CHERRY_RIBBON], field=[PINE_CHAFF_1, CHERRY_CURTAIN],
                    pile=[PINE_RIBBON, PLUM_RIBBON])
    assert greedy.gain(obs.piles[1], mask_of([CHERRY_RIBBON, CHERRY_CURTAIN])) == 1_000_000
    assert greedy.gain(obs.piles[1], mask_of([PINE_CRANE, PINE_CHAFF_1])) == 900 + 300
    assert greedy.play(obs) == CHERRY_RIBBON


def test_enshu_never_declares_mizu_kotsu():
    brights = [PINE_CRANE, CHERRY_CURTAIN, PEONY_BUTTERFLIES, MAPLE_DEER, SUSUKI_GEESE]
    assert enshu_greedy().mizu_kotsu(enshu_obs(hand=brights)) is False


def test_enshu_kotsu_from_sixty_card_points():
    greedy = enshu_greedy()
    # Crane 30 + Curtain 30 = 60: declares.
    assert greedy.kotsu(enshu_obs(hand=[PINE_CRANE, CHERRY_CURTAIN, PINE_CHAFF_2])) is True
    # Crane 30 + Butterflies 10 + Deer 10 + Geese 10 + Maple ribbon 5 = 65 ... and 55 without the
    # Geese: declares at 65, not at 55.
    assert greedy.kotsu(enshu_obs(hand=[PINE_CRANE, PEONY_BUTTERFLIES, MAPLE_DEER, SUSUKI_GEESE, MAPLE_RIBBON]))
    assert greedy.kotsu(enshu_obs(hand=[PINE_CRANE, PEONY_BUTTERFLIES, MAPLE_DEER, MAPLE_RIBBON])) is False


def test_enshu_join_or_drop():
    greedy = enshu_greedy()
    # Crane (30) and six Chaff of six other months, no teyaku (no triplet, and a Bright is neither
    # junk, a lone Animal nor a lone Ribbon): joins in pass 1 (30 >= 30 x 1), drops in pass 2
    # (30 < 30 x 2).
    hand = [PINE_CRANE, PLUM_CHAFF_1, MAPLE_CHAFF_1, PEONY_CHAFF_2, IRIS_CHAFF_1, CHRYS_CHAFF_1, PAULOWNIA_CHAFF_2]
    assert teyaku_options(greedy.compiled, mask_of(hand), None) == []
    assert greedy.join(enshu_obs(hand=hand, dropout_pass=1)) is True
    assert greedy.join(enshu_obs(hand=hand, dropout_pass=2)) is False
    # Two Animals (Warbler, Deer: 20 card points) and five Chaff, no teyaku: drops even in pass 1.
    poor = [PLUM_WARBLER, MAPLE_DEER, PLUM_CHAFF_1, PEONY_CHAFF_2, IRIS_CHAFF_1, CHRYS_CHAFF_1, PAULOWNIA_CHAFF_2]
    assert teyaku_options(greedy.compiled, mask_of(poor), None) == []
    assert greedy.join(enshu_obs(hand=poor, dropout_pass=1)) is False
    # A Lone Ribbon hand (one Ribbon, six Chaff: Tan Ichi) holds 5 card points: it joins in
    # pass 1 for its teyaku, not in pass 2.
    lone_ribbon = [PINE_CHAFF_1, PINE_CHAFF_2, PLUM_CHAFF_2, WISTERIA_CHAFF_1, IRIS_RIBBON, IRIS_CHAFF_1,
                   PAULOWNIA_CHAFF_2]
    assert greedy.join(enshu_obs(hand=lone_ribbon, dropout_pass=1)) is True
    assert greedy.join(enshu_obs(hand=lone_ribbon, dropout_pass=2)) is False


def test_enshu_declares_the_highest_valued_teyaku():
    greedy = enshu_greedy()
    # Four Pine and three Plum: Four-Three (Shisou, 150), Four of a Kind (Shihon, 100) and the
    # Plum Triplet (Sanbon, 50) qualify in group A; greedy declares Shisou, in any order offered.
    hand = mask_of([*month_cards(1), PLUM_WARBLER, PLUM_RIBBON, PLUM_CHAFF_1])
    options = teyaku_options(greedy.compiled, hand, "A")
    assert sorted(o.key for o in options) == ["sanbon", "shihon", "shisou"]
    obs = enshu_obs(hand=[*month_cards(1), PLUM_WARBLER, PLUM_RIBBON, PLUM_CHAFF_1])
    assert greedy.declare_teyaku(obs, "A", options).key == "shisou"
    assert greedy.declare_teyaku(obs, "A", options[::-1]).key == "shisou"
    # Two Triplets (Pine, Plum) are worth 50 each: the first option offered.
    hand = [PINE_CRANE, PINE_RIBBON, PINE_CHAFF_1, PLUM_WARBLER, PLUM_RIBBON, PLUM_CHAFF_1, MAPLE_DEER]
    options = teyaku_options(greedy.compiled, mask_of(hand), "A")
    assert [o.label() for o in options] == ["sanbon:1", "sanbon:2"]
    assert greedy.declare_teyaku(enshu_obs(hand=hand), "A", options).label() == "sanbon:1"
    assert greedy.declare_teyaku(enshu_obs(hand=hand), "A", options[::-1]).label() == "sanbon:2"


def test_enshu_fuke_when_another_seat_wins_with_a_positive_score():
    greedy = enshu_greedy()
    assert greedy.fuke(enshu_obs(seat=1, winner=0, scores=(40, 10, 0, 0))) is True
    assert greedy.fuke(enshu_obs(seat=1, winner=1, scores=(10, 40, 0, 0))) is False  # it is the winner
    assert greedy.fuke(enshu_obs(seat=1, winner=0, scores=(0, 0, 0, 0))) is False  # nothing to void
    assert greedy.fuke(enshu_obs(seat=1, winner=-1, scores=(0, 0, 0, 0))) is False
