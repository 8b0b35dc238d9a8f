#!/usr/bin/env python3
"""Record seeded random games from OpenSpiel's C++ Oware and Kalah, as test data.

What it records
---------------
For each of two OpenSpiel games it plays seeds 0..N-1 (N = 200 by default):
every game starts from the initial position and, at each ply, picks one of
``state.legal_actions()`` uniformly with ``random.Random(seed).choice``, until
``state.is_terminal()``. It writes one JSON file per game kind:

* ``tests/data/openspiel/oware.json``  - OpenSpiel game ``"oware"`` (default
  parameters: 6 houses per player, 4 seeds per house; Oware abapa-like rules).
* ``tests/data/openspiel/kalah.json``  - OpenSpiel game ``"mancala"`` (OpenSpiel
  has no game called ``"kalah"``; ``mancala`` is its Kalah: 6 pits, 4 seeds,
  no parameters).

Recorded with open_spiel 2.0.2 (PyPI wheel, Python 3.11). To rerun, from the
repository root::

    pip install open-spiel==2.0.2 && python3 tools/openspiel/record.py

(``python3 tools/openspiel/record.py --games 50`` records fewer games.) The
output is deterministic: the same OpenSpiel version and Python's ``random``
(whose ``choice`` has been stable since Python 3.2) give the same files.

Hole names and board order (both games)
---------------------------------------
The Rust rule files name holes counter-clockwise along the sowing track:
``s1..s6`` from South's left, South's store ``S``, ``n1..n6`` from North's
left, North's store ``N`` (rules/kalah.mancala:
``track round cyclic: s[1..pits], S, n[1..pits], N``). South is OpenSpiel
player 0, who moves first; North is player 1.

Every ``board`` in the JSON is the 12 pits in that track order,
``[s1, s2, s3, s4, s5, s6, n1, n2, n3, n4, n5, n6]``, and every ``stores`` is
``[S, N]``.

* Oware: OpenSpiel keeps ``seeds[0..11]`` in sowing order, player 0's houses
  0..5 (labelled A..F) then player 1's houses 6..11 (labelled a..f), and the
  captured seeds in ``score[0]``, ``score[1]``. So ``s_i = seeds[i-1]``,
  ``n_i = seeds[5+i]``, ``S = score[0]``, ``N = score[1]``. An action is
  row-relative: player 0's action ``a`` (0..5) sows ``s{a+1}``, player 1's
  action ``a`` (0..5) sows ``n{a+1}``. (Read from ``observation_string``:
  ``"<to move> | <score0> <score1> | <seeds[0..11]>"``.)
* Kalah (``mancala``): OpenSpiel keeps ``board_[0..13]`` with ``board_[0]`` =
  player 1's store, ``board_[1..6]`` = player 0's pits, ``board_[7]`` =
  player 0's store, ``board_[8..13]`` = player 1's pits; sowing goes to the
  next index. So ``s_i = board_[i]``, ``S = board_[7]``,
  ``n_i = board_[7+i]``, ``N = board_[0]``, and opposite pits are
  ``board_[i]``/``board_[14-i]`` = ``s_i``/``n_{7-i}``. An action is the board
  index: player 0's actions 1..6 sow ``s1..s6``, player 1's actions 8..13 sow
  ``n1..n6``. (Read from ``observation_tensor``: ``board_[0..13]``, current
  player, move number.)

JSON format
-----------
Top level: ``game``, ``openspiel_game``, ``openspiel_version``,
``python_version``, ``parameters``, ``board_order``, ``action_to_move``,
``ply_fields``, ``end_reasons``, ``rules`` (one-line summary; the details are
in tests/data/openspiel/README.md), ``initial`` (board, stores, to_move),
``summary`` (ending counts) and ``games``.

Each game: ``seed``; ``plies`` - a list of arrays
``[player, action, move, legal, board, stores, to_move]`` where ``player``
made OpenSpiel ``action`` (= hole ``move``), ``legal`` is the list of hole
names that were legal before the move, and ``board``/``stores``/``to_move``
are the position AFTER it (``to_move`` is 0 or 1, or null once terminal);
``end`` (why the game ended, see ``end_reasons``); ``returns``
(``state.returns()``); ``final_board``/``final_stores`` (the position
OpenSpiel ends with, equal to the last ply's); ``scores`` (what OpenSpiel
compares to decide ``returns``). Oware games also carry
``before_collection`` (the board and stores after the last sowing and capture
but before OpenSpiel gave the remaining seeds to their rows' owners) - this one
comes from the model below, cross-checked against OpenSpiel's result.
``events`` counts, per game, what the model saw happen (captures, laps,
grand slams, must-feed turns, extra turns...), to find games that exercise a
rule; ``summary.games_with`` lists the first seeds with each event.

Cross-check
-----------
Besides OpenSpiel, the script carries a small Python model of each rule set
(``OwareModel``, ``KalahModel``). It is used only to label how each game
ended; every recorded number comes from OpenSpiel. The script stops with an
error if the model's legal moves, board, stores, turn or returns ever differ
from OpenSpiel's, so a successful run also confirms the rules written down in
README.md.
"""

import argparse
import collections
import json
import os
import random
import sys

import pyspiel

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
OUT_DIR = os.path.join(ROOT, "tests", "data", "openspiel")

PITS = 6
BOARD_ORDER = ("board = [s1, s2, s3, s4, s5, s6, n1, n2, n3, n4, n5, n6]: the "
               "pits counter-clockwise in sowing order (s1 = South's left, n1 = "
               "North's left, as in rules/kalah.mancala `track round cyclic: "
               "s[1..pits], S, n[1..pits], N`); stores = [S, N]. South = "
               "OpenSpiel player 0, who moves first; North = player 1.")
PLY_FIELDS = ["player", "action", "move", "legal", "board", "stores", "to_move"]
PLY_DOC = ("each ply is [player, action, move, legal, board, stores, to_move]: "
           "`player` (0 = South, 1 = North) made OpenSpiel `action` (= hole "
           "`move`); `legal` = hole names legal before the move; `board`, "
           "`stores`, `to_move` describe the position AFTER the move "
           "(`to_move` null once the game is over).")


def sign(x):
    return (x > 0) - (x < 0)


def returns_for(scores):
    return [sign(scores[0] - scores[1]), sign(scores[1] - scores[0])]


# --------------------------------------------------------------------------
# Oware


def oware_move_name(player, action):
    return ("s" if player == 0 else "n") + str(action + 1)


def oware_read(state):
    """(to_move, stores, board) from OpenSpiel's OwareBoard::ToString."""
    cp, score, seeds = state.observation_string(0).split(" | ")
    return int(cp), [int(x) for x in score.split()], [int(x) for x in seeds.split()]


class OwareModel:
    """Oware as open_spiel/games/oware/oware.cc implements it (H = 6 houses)."""

    def __init__(self, houses=PITS, seeds=4):
        self.h = houses
        self.seeds = [seeds] * (2 * houses)  # player 0's row, then player 1's
        self.score = [0, 0]
        self.to_move = 0
        self.total = 2 * houses * seeds
        # Repetition: every position since the last capture, the initial one
        # included; a position is (player to move, scores, seeds).
        self.seen = {self.key()}
        self.end = None
        self.before_collection = None
        self.events = collections.Counter()

    def key(self):
        return (self.to_move, tuple(self.score), tuple(self.seeds))

    def row(self, player):
        return range(player * self.h, player * self.h + self.h)

    def terminal(self):
        half = self.total // 2
        return (self.score[0] > half or self.score[1] > half
                or self.score[0] == self.score[1] == half)

    def legal(self):
        if self.terminal():
            return []
        upper = self.to_move * self.h + self.h - 1
        if sum(self.seeds[i] for i in self.row(1 - self.to_move)) == 0:
            # Must feed: only houses whose sowing reaches the opponent's row.
            return [i % self.h for i in self.row(self.to_move)
                    if self.seeds[i] > upper - i]
        return [i % self.h for i in self.row(self.to_move) if self.seeds[i] > 0]

    def play(self, action):
        me, opp = self.to_move, 1 - self.to_move
        if sum(self.seeds[i] for i in self.row(opp)) == 0:
            self.events["must-feed"] += 1
        origin = me * self.h + action
        n, self.seeds[origin], i = self.seeds[origin], 0, origin
        if n >= 2 * self.h:
            self.events["lap"] += 1
        while n:
            i = (i + 1) % (2 * self.h)
            if i != origin:  # the origin is skipped on every lap
                self.seeds[i] += 1
                n -= 1
        if i // self.h == opp:
            lo, hi = opp * self.h, opp * self.h + self.h - 1
            grand_slam = (all(self.seeds[j] == 0 for j in range(i + 1, hi + 1))
                          and all(2 <= self.seeds[j] <= 3 for j in range(lo, i + 1)))
            if grand_slam:
                self.events["grand-slam"] += 1  # sown, nothing captured
            else:
                taken = 0
                for j in range(i, lo - 1, -1):
                    if not 2 <= self.seeds[j] <= 3:
                        break
                    taken += self.seeds[j]
                    self.seeds[j] = 0
                if taken:
                    self.events["capture"] += 1
                    self.score[me] += taken
                    self.seen = set()
        self.to_move = opp
        if self.key() in self.seen:
            self.finish("repetition")
        else:
            self.seen.add(self.key())
        if not self.legal():
            self.finish("majority" if self.terminal() else "cannot-feed")

    def finish(self, reason):
        if self.end is None:
            self.end = reason
            self.before_collection = {"board": list(self.seeds),
                                      "stores": list(self.score)}
        for j in range(2 * self.h):
            self.score[j // self.h] += self.seeds[j]
            self.seeds[j] = 0


def record_oware(seed, game):
    rng = random.Random(seed)
    state = game.new_initial_state()
    model = OwareModel()
    plies = []
    while not state.is_terminal():
        player = state.current_player()
        legal = state.legal_actions()
        check(legal == model.legal(), seed, "legal", legal, model.legal())
        action = rng.choice(legal)
        state.apply_action(action)
        model.play(action)
        to_move, stores, board = oware_read(state)
        check(board == model.seeds and stores == model.score, seed, "position",
              (board, stores), (model.seeds, model.score))
        check(state.is_terminal() == model.terminal(), seed, "terminal")
        nxt = None if state.is_terminal() else state.current_player()
        if nxt is not None:
            check(nxt == to_move == model.to_move, seed, "to_move")
        plies.append([player, action, oware_move_name(player, action),
                      [oware_move_name(player, a) for a in legal],
                      board, stores, nxt])
    check(model.legal() == [] and model.end is not None, seed, "end")
    to_move, stores, board = oware_read(state)
    check(state.returns() == returns_for(stores), seed, "returns",
          state.returns(), stores)
    return {"seed": seed, "plies": plies, "end": model.end,
            "returns": [int(r) for r in state.returns()],
            "final_board": board, "final_stores": stores, "scores": stores,
            "before_collection": model.before_collection,
            "events": dict(sorted(model.events.items()))}


OWARE_ENDS = {
    "majority": "a capture gave a player more than half of the seeds (> 24); "
                "OpenSpiel then still gives the seeds left on each row to that "
                "row's owner (OwareState::CollectAndTerminate), so final_stores "
                "sum to 48",
    "cannot-feed": "the player to move has no legal move: the opponent's row is "
                   "empty and no sowing reaches it; every remaining seed (all "
                   "in the mover's row) goes to the player to move",
    "repetition": "the position (player to move, scores, all houses) occurred "
                  "before since the last capture (the initial position "
                  "included); each player gets the seeds on their own row",
}


# --------------------------------------------------------------------------
# Kalah (OpenSpiel "mancala")


def kalah_move_name(player, action):
    return "s%d" % action if player == 0 else "n%d" % (action - 7)


def kalah_read(state):
    """(raw board_[0..13], current player, move number) from the tensor."""
    t = [int(x) for x in state.observation_tensor(0)]
    return t[:14], t[14], t[15]


def kalah_track(raw):
    """board_ -> (board in s1..s6 n1..n6 order, [S, N])."""
    return raw[1:7] + raw[8:14], [raw[7], raw[0]]


class KalahModel:
    """Kalah as open_spiel/games/mancala/mancala.cc implements it."""

    MAX_GAME_LENGTH = 1000

    def __init__(self):
        self.b = [4] * 14
        self.b[0] = self.b[7] = 0
        self.to_move = 0
        self.moves = 0
        self.events = collections.Counter()

    def terminal(self):
        return (self.moves > self.MAX_GAME_LENGTH
                or sum(self.b[1:7]) == 0 or sum(self.b[8:14]) == 0)

    def legal(self):
        if self.terminal():
            return []
        pits = range(1, 7) if self.to_move == 0 else range(8, 14)
        return [i for i in pits if self.b[i] > 0]

    def play(self, action):
        me = self.to_move
        home, other_home = (7, 0) if me == 0 else (0, 7)
        n, self.b[action], i = self.b[action], 0, action
        if n >= 13:
            self.events["lap"] += 1
        for _ in range(n):
            i = (i + 1) % 14
            if i == other_home:  # the opponent's store is skipped
                i += 1
            self.b[i] += 1       # the origin pit is NOT skipped on a lap
        own = 1 <= i <= 6 if me == 0 else i >= 8
        if own and self.b[i] == 1:
            if self.b[14 - i] > 0:
                self.events["capture"] += 1
                self.b[home] += 1 + self.b[14 - i]
                self.b[i] = self.b[14 - i] = 0
            else:
                self.events["empty-opposite"] += 1  # nothing is captured
        if i == home:
            self.events["extra-turn"] += 1
        else:
            self.to_move = 1 - me
        self.moves += 1

    def scores(self):
        return [sum(self.b[1:8]), sum(self.b[8:14]) + self.b[0]]

    def end(self):
        south, north = sum(self.b[1:7]) == 0, sum(self.b[8:14]) == 0
        if south and north:
            return "both-empty"
        if south:
            return "south-empty"
        if north:
            return "north-empty"
        return "max-length"


def record_kalah(seed, game):
    rng = random.Random(seed)
    state = game.new_initial_state()
    model = KalahModel()
    plies = []
    while not state.is_terminal():
        player = state.current_player()
        legal = state.legal_actions()
        check(legal == model.legal(), seed, "legal", legal, model.legal())
        action = rng.choice(legal)
        state.apply_action(action)
        model.play(action)
        raw, cp, moves = kalah_read(state)
        check(raw == model.b and moves == model.moves, seed, "position", raw, model.b)
        check(state.is_terminal() == model.terminal(), seed, "terminal")
        nxt = None if state.is_terminal() else state.current_player()
        if nxt is not None:
            check(nxt == cp == model.to_move, seed, "to_move")
        board, stores = kalah_track(raw)
        plies.append([player, action, kalah_move_name(player, action),
                      [kalah_move_name(player, a) for a in legal],
                      board, stores, nxt])
    raw, _, _ = kalah_read(state)
    board, stores = kalah_track(raw)
    scores = model.scores()
    check(state.returns() == returns_for(scores), seed, "returns",
          state.returns(), scores)
    return {"seed": seed, "plies": plies, "end": model.end(),
            "returns": [int(r) for r in state.returns()],
            "final_board": board, "final_stores": stores, "scores": scores,
            "events": dict(sorted(model.events.items()))}


KALAH_ENDS = {
    "south-empty": "South's six pits are empty (checked after every move, "
                   "whoever is to move); the board is left as it is, and each "
                   "player's score is their store plus the seeds on their side",
    "north-empty": "North's six pits are empty; scored as above",
    "both-empty": "both sides are empty at once; scored as above",
    "max-length": "more than 1000 moves were made (MancalaState::IsTerminal, "
                  "move_number_ > MaxGameLength() = 1000); never reached here",
}


# --------------------------------------------------------------------------


def check(ok, seed, what, *details):
    if not ok:
        sys.exit("model and OpenSpiel disagree (%s) in game seed %d: %r"
                 % (what, seed, details))


def pretty(value, indent=""):
    """Indented JSON, except that lists of scalars stay on one line."""
    compact = (",", ":")
    if isinstance(value, dict) and value:
        inner = indent + " "
        items = ["%s%s: %s" % (inner, json.dumps(k), pretty(v, inner))
                 for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        inner = indent + " "
        return ("[\n" + ",\n".join(inner + pretty(v, inner) for v in value)
                + "\n" + indent + "]")
    return json.dumps(value, separators=compact)


def dump(doc, path):
    """JSON with one ply per line: small, and diffs stay readable."""
    games = doc.pop("games")
    head = pretty(doc)
    out = [head[:-2] + ',\n "games": [\n']
    for k, g in enumerate(games):
        plies = g.pop("plies")
        rest = json.dumps(g, separators=(",", ":"))
        out.append('  {"seed":%d,"plies":[\n' % g["seed"])
        out.append(",\n".join("   " + json.dumps(p, separators=(",", ":"))
                              for p in plies))
        out.append("\n  ]," + rest[1:])
        out.append(",\n" if k + 1 < len(games) else "\n")
    out.append(" ]\n}\n")
    with open(path, "w") as f:
        f.write("".join(out))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200,
                        help="seeds 0..N-1 per game kind (default 200)")
    parser.add_argument("--out", default=OUT_DIR)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    version = getattr(pyspiel, "__version__", "unknown")
    common = {"openspiel_version": version,
              "python_version": "%d.%d.%d" % sys.version_info[:3],
              "board_order": BOARD_ORDER, "ply_fields": PLY_FIELDS,
              "ply_doc": PLY_DOC,
              "player_choice": "random.Random(seed).choice(state.legal_actions())"
                               " at every ply"}

    game = pyspiel.load_game("oware")
    games = [record_oware(seed, game) for seed in range(args.games)]
    initial_to_move, initial_stores, initial_board = oware_read(game.new_initial_state())
    doc = {"game": "oware", "openspiel_game": "oware",
           "parameters": {k: v for k, v in game.get_parameters().items()},
           **common,
           "action_to_move": "player 0: action a (0..5) = s{a+1}; player 1: "
                             "action a (0..5) = n{a+1}",
           "rules": "no stores on the track; sow counter-clockwise skipping the "
                    "origin house on every lap; capture 2s and 3s backwards "
                    "from the last house while in the opponent's row; a grand "
                    "slam captures nothing; must feed an empty opponent; no "
                    "extra turns; ends as in end_reasons; winner = larger "
                    "store. See README.md.",
           "end_reasons": OWARE_ENDS,
           "initial": {"board": initial_board, "stores": initial_stores,
                       "to_move": initial_to_move},
           "summary": summary(games), "games": games}
    dump(doc, os.path.join(args.out, "oware.json"))

    game = pyspiel.load_game("mancala")
    games = [record_kalah(seed, game) for seed in range(args.games)]
    raw, cp, _ = kalah_read(game.new_initial_state())
    board, stores = kalah_track(raw)
    doc = {"game": "kalah", "openspiel_game": "mancala",
           "parameters": {"pits": PITS, "stones": 4,
                          "openspiel_parameters": game.get_parameters()},
           **common,
           "action_to_move": "player 0: action a (1..6) = s{a}; player 1: "
                             "action a (8..13) = n{a-7}",
           "rules": "rules/kalah.mancala variant `standard` with stones=4, "
                    "pits=6: no origin skip on laps, opponent's store skipped, "
                    "last stone in own store = extra turn, last stone in an "
                    "own empty pit opposite a non-empty pit banks both, game "
                    "over as soon as a side is empty, each side's seeds count "
                    "for its owner. OpenSpiel does not move those seeds into "
                    "the stores: `scores` = store + own side. See README.md.",
           "end_reasons": KALAH_ENDS,
           "initial": {"board": board, "stores": stores, "to_move": cp},
           "summary": summary(games), "games": games}
    dump(doc, os.path.join(args.out, "kalah.json"))


def summary(games):
    ends = collections.Counter(g["end"] for g in games)
    winners = collections.Counter(
        {1: "south", -1: "north", 0: "draw"}[g["returns"][0]] for g in games)
    events = collections.Counter()
    for g in games:
        events.update(g["events"])
    lengths = [len(g["plies"]) for g in games]
    return {"games": len(games), "ends": dict(sorted(ends.items())),
            "seeds_by_end": {k: [g["seed"] for g in games if g["end"] == k][:10]
                             for k in sorted(ends)},
            "results": dict(sorted(winners.items())),
            "events": dict(sorted(events.items())),
            "plies": {"min": min(lengths), "max": max(lengths),
                      "total": sum(lengths)},
            "games_with": {k: [g["seed"] for g in games if g["events"].get(k)][:10]
                           for k in sorted(events)}}


if __name__ == "__main__":
    main()
