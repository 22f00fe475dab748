"""How often the layout step reads exactly the right hand.

Three evaluations:

``synth DIR``
    Scenes written by ``tilecam dataset synth`` (``truth/*.json`` per image: every
    tile's box, rotation, role, meld; the hand in notation). Close-ups without a hand
    are skipped. Two columns:

    - *ground-truth boxes* (layout alone): the truth's boxes, codes (``back`` for
      face-down tiles) and rotations → :func:`vision.layout.analyze` → hand;
    - *detector* (end to end, with ``--detector``): the model on the image →
      :func:`vision.recognize.recognize_detections` (layout + correction) → hand.

    A scene is exact when the hand equals the truth: the same melds with their kind,
    tiles, claim source, claimed chow tile and added flag; the same standing tiles; the
    same winning tile; the same flowers. Target: ≥ 95%. End-to-end failures are sorted
    into kinds (``end_to_end_failure_kinds``): no hand read, only bonus tiles misread
    (flowers/seasons read as other bonus tiles: the hand is right but for which flower
    it holds — under MCR, where each flower is 1 fan, the score is the same), only bonus
    tiles missed or extra (the rest of the hand right), bonus tiles misread or missed or
    extra with the rest in another structure, the hand's tiles misread (1, 2, or 3 or
    more non-bonus tiles differ from the truth's multiset), or the
    right tiles in another structure (melds, claim sources, winning tile), and the first
    ``--show`` of them are listed (``end_to_end_failures``: scene, kind, truth, reading);
    ``same_mcr_score_end_to_end`` counts the exact scenes plus those only-bonus-misread
    ones (the MCR score a player is paid is then the truth's by construction; the scores
    themselves are not compared, so a wrong hand that happens to score the same is not
    counted: a lower bound). Every scene that is not exact, and
    every one whose MCR score is wrong, is named in ``end_to_end_not_exact`` and
    ``end_to_end_not_same_mcr_score`` (as the photos in ``not_exact_multiset_top1`` /
    ``_corrected`` and the hands that do not win in ``end_to_end_not_read_right`` /
    ``end_to_end_scored_as_win_scenes``), so that ``train/compare.py paired`` can compare
    two models item by item. A third
    figure, ``exact_detector_boxes_true_codes``, gives the layout the detector's boxes
    and rotations with every matched box's code set right (:func:`true_codes_on`): what
    end to end would reach with perfect reading; the rest of the gap is geometry (tiles
    missed, extra boxes, gaps, sideways tiles). ``exact_true_codes_end_to_end`` is the
    same with the whole of :func:`vision.recognize.recognize_detections` (its weak-box,
    re-read and win-checked rules too; the weak boxes' codes set right as well): the
    ceiling of end to end with these boxes, so ``exact_end_to_end`` falls short of it
    only by what the reading gets wrong; ``true_codes_failure_kinds`` sorts the scenes
    that fail there (and read right from the truth boxes) by the repair that makes them
    right (:func:`geometry_reason`: a hand tile missed, the sideways model on the
    rotation probabilities, a tile turned a quarter off, box geometry, extra boxes).
    ``by_note_and_tilt`` splits the scenes by whether the reading says a meld's claim
    source may be wrong, and by the rows' tilt off the picture's edges, with both
    end-to-end figures per group (how much those notes mean).
    ``by_codes_shown`` splits them by whether the hand shows a white dragon face up and
    bonus tiles (:func:`_shown_group`: codes some tile sets draw their own way).
    ``face_up_kong_scenes`` gives the figures of the scenes whose truth has a kong laid as
    four face-up tiles (sets made with ``tilecam dataset synth --face-up-kongs P``).
    Scenes whose hand does not win are counted apart (:class:`NotWinning`):
    ``near_miss_scenes`` (false win claims, ``--near-miss``; read with the win claimed)
    and ``waiting_scenes`` (hands one tile short, ``--waiting``; read with nothing
    claimed): read right, scored as a win — the error a referee must not make — and, for
    waiting hands, whether the waits are the truth's. ``--unclaimed`` reads the winning
    scenes with nothing claimed too (the win inferred from the tile count, as ``tilecam
    recognize`` does without a win flag) instead of with the win claimed.
    ``exact_truth_boxes_recognize`` runs the
    whole of ``recognize_detections`` on the truth boxes (codes sure, no rotation
    probabilities): the layout with the rules' help — e.g. the winning tile deduced when
    a pair wait shows two like tiles with no gap — when the detector is perfect.

``photos DIR``
    A YOLO dataset of real photos (``images/val`` + ``labels/val``, read by
    :func:`vision.evaluate.load_dataset`; e.g. ``datasets/build/hk-photos``). Share of
    photos whose tile multiset is exactly right: top-1 codes of the detector, and the final
    codes after rule-aware correction (default: a win claimed when the tile count is a
    hand's; also with ``win=False``, physical constraints only), and the photos that change
    between the two each way (``multiset_wrong_to_right``, ``multiset_right_to_wrong``: what
    the rest of ``recognize`` — correction, re-reads, weak boxes — mends and spoils, which
    the net of the two shares hides). Photos whose labels hold a whole hand
    (:func:`whole_hand`: 14 tiles besides flowers, each kind held four times counting as a
    kong) are counted apart: ``whole_hands_scored`` is the share read as a scored win,
    ``whole_hands_scored_multiset_right`` the share also with exactly the labelled tiles
    (the labels give no structure, so this is the nearest to "scored right" real photos
    allow), ``whole_hands_scored_mcr_tiles_right`` the same but for which flower each bonus
    tile is (MCR pays 1 fan a flower whichever it is),
    ``whole_hands_scored_hand_tiles_right`` the share whose hand tiles alone — not the tiles
    the layout leaves out of the hand (role ``ignored``: discards, a wall), which the
    photos' labels mostly do not name — are exactly the labelled tiles;
    ``whole_hands_with_kongs`` restricts the first two to the hands that show a kong;
    ``whole_hands_edge_note`` counts the whole hands read with the note that a tile may be
    cut off by the picture's edge (:mod:`vision.layout_edges`),
    ``whole_hands_edge_note_tile_missing`` those of them missing a labelled tile.
    ``failure_kinds`` and ``whole_hands_failure_kinds`` say why the others are not right
    (:func:`photo_reason`: only which bonus tile, tiles missing, extra or misread; for whole
    hands on the hand tiles, and whether the reading was no scored win).

``builder``
    Random hands laid out by :func:`vision.layout_scene.random_scene` (geometry only,
    no image): a quick check of the layout rules.

Usage::

    .venv/bin/python bench/layout_eval.py synth /tmp/heldout [--detector] [--model-dir M]
        [--unclaimed]
    .venv/bin/python bench/layout_eval.py photos datasets/build/hk-photos [--model-dir M]
    .venv/bin/python bench/layout_eval.py builder [--count 1000] [--seed 0] [--turned P]
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from scoring import Hand, format_hand, parse_hand  # noqa: E402
from scoring.notation import format_meld  # noqa: E402
from vision.classes import BACK, BONUS, CLASSES  # noqa: E402
from vision.detections import Detections  # noqa: E402
from vision.imageio import load_image  # noqa: E402
from vision.layout import Layout, LayoutParams, analyze  # noqa: E402
from vision.layout_edges import CUT_OFF  # noqa: E402
from vision.synth.writer import truth_hand, winning_truths  # noqa: E402


def canon(hand: Hand, winning_known: bool = True) -> tuple[Any, ...]:
    """A hand where meld order and the order of standing tiles (but the last) do not
    matter."""
    last = hand.standing[-1] if (hand.standing and winning_known) else None
    rest = hand.standing[:-1] if winning_known else hand.standing
    return (sorted(format_meld(m) for m in hand.melds), sorted(rest), last, hand.flowers)


def layout_hand(lay: Layout, codes: list[str], hidden: tuple[str, ...]) -> list[Hand]:
    """Hands the layout gives (one per order of the all-face-down kong kinds)."""
    out = []
    for order in set(itertools.permutations(hidden)) or {()}:
        with contextlib.suppress(ValueError):
            out.append(lay.hand(codes, order))
    return out


# ----------------------------------------------------------------------------- synth
#: The context winning scenes are read with: the win claimed (default), or nothing
#: (``synth --unclaimed``: the win inferred from the tile count, as ``tilecam recognize``
#: reads a photo given no win flag).
WIN_CONTEXT: dict[str, Any] = {"claim_win": True}


def truth_detections(truth: dict[str, Any]) -> Detections:
    tiles = truth["tiles"]
    return Detections.from_lists(
        [t["box"] for t in tiles],
        [BACK if t["face_down"] else t["code"] for t in tiles],
        [1.0] * len(tiles),
        [int(t["rotation"]) for t in tiles],
        image_size=(int(truth["width"]), int(truth["height"])),
    )


def misread(d: Detections, rate: float, rng: Any) -> Detections:
    """Detections whose codes a simulated detector misreads: each face-up tile with
    probability ``rate`` gets a wrong top-1 (another rank of its suit, or another honour)
    with p 0.4-0.7 and the true code second with p 0.15-0.4 of it; other tiles read
    right with p 0.90-0.99 and a random second code."""
    from vision.classes import KINDS

    codes = d.codes
    topk: list[list[tuple[str, float]]] = []
    for c in codes:
        if c == BACK or c not in KINDS:
            topk.append([(c, 0.99)])
            continue
        pool = [k for k in KINDS if k != c and (k[-1] == c[-1] if len(c) == 2 else len(k) == 1)]
        other = str(rng.choice(pool))
        if rng.random() < rate:
            p1 = float(rng.uniform(0.4, 0.7))
            topk.append([(other, p1), (c, p1 * float(rng.uniform(0.15, 0.4)))])
        else:
            p1 = float(rng.uniform(0.9, 0.99))
            topk.append([(c, p1), (other, (1 - p1) * 0.8)])
    return Detections.from_lists(
        d.boxes.tolist(), [t[0][0] for t in topk], [t[0][1] for t in topk],
        d.rotations.tolist(), topk, d.image_size,
    )


def eval_misreads(folder: Path, rate: float, seed: int, limit: int | None) -> dict[str, Any]:
    """Exact hands from truth boxes with simulated misreads, before and after correction."""
    import numpy as np

    from vision.recognize import recognize_detections

    rng = np.random.default_rng(seed)
    n = before = after = 0
    for _, truth in winning_truths(folder, limit):
        hand = truth_hand(truth)
        expected = canon(hand)
        d = misread(truth_detections(truth), rate, rng)
        n += 1
        lay = analyze(d)
        # the winning tile found, as the other figures ask (the last standing tile may
        # match it by chance)
        before += lay.winning is not None and expected in [
            canon(h) for h in layout_hand(lay, d.codes, ())]
        rec = recognize_detections(d, "mcr", {"claim_win": True})
        after += (rec.hand is not None and rec.layout.winning is not None
                  and canon(rec.hand) == expected)
    return {"scenes": n, "misread_rate": rate, "exact_top1": before / max(n, 1),
            "exact_corrected": after / max(n, 1)}


def eval_synth(
    folder: Path,
    detector: Any,
    limit: int | None,
    show: int,
    mod180: bool = False,
    box_noise: float = 0.0,
    seed: int = 0,
) -> dict[str, Any]:
    """The figures of a synthetic scene set (see the module doc): each winning scene's
    hand read from its truth boxes (``mod180``: their rotations mod 180; ``box_noise``:
    their corners moved) and, with a ``detector``, end to end; scenes that do not win
    (``--waiting``, ``--near-miss``) counted apart (:class:`NotWinning`)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    files = sorted((folder / "truth").glob("*.json"))
    if not files:
        raise SystemExit(f"layout_eval: no truth/*.json in {folder}")
    tally = _SynthTally(show)
    not_winning = {"near_miss": NotWinning("near_miss"), "waiting": NotWinning("waiting")}
    for f in files:
        truth = json.loads(f.read_text())
        if not truth.get("hand"):
            continue
        if limit is not None and tally.n + sum(t.scenes for t in not_winning.values()) >= limit:
            break
        hand = truth_hand(truth)  # flowers may be listed apart in the truth
        if truth.get("wins") is False:  # --waiting / --near-miss: counted apart
            kind = "waiting" if truth.get("waiting") else "near_miss"
            not_winning[kind].add(truth, hand, detector, folder)
            continue
        truth_dets = truth_detections(truth)
        d = truth_dets
        if mod180:  # what a detector without a rotation classifier reports
            d = Detections(d.boxes, d.class_ids, d.confidences, d.rotations % 180,
                           d.topk_ids, d.topk_probs, d.image_size)
        if box_noise:  # box corners moved by this share of the tile's short side
            short = np.minimum(d.boxes[:, 2] - d.boxes[:, 0], d.boxes[:, 3] - d.boxes[:, 1])
            moved = d.boxes + rng.normal(0, box_noise, (len(d), 4)) * short[:, None]
            # corners moved past each other stay x1 <= x2, y1 <= y2 (a box, not a refusal)
            moved = np.concatenate([np.minimum(moved[:, :2], moved[:, 2:]),
                                    np.maximum(moved[:, :2], moved[:, 2:])], axis=1)
            d = Detections(moved.astype(np.float32), d.class_ids, d.confidences, d.rotations,
                           d.topk_ids, d.topk_probs, d.image_size)
        rec_gt = tally.from_truth_boxes(f.name, truth, d, hand)
        if detector is not None:
            tally.end_to_end(f.name, truth, hand, truth_dets, rec_gt,
                             detector, load_image(folder / truth["image"]))
    out = tally.figures(detector is not None)
    for kind, shown in not_winning.items():
        if shown.scenes:
            out[f"{kind}_scenes"] = shown.figures(detector is not None)
    return out


class _SynthTally:
    """What :func:`eval_synth` counts over the winning scenes, and its figures."""

    def __init__(self, show: int) -> None:
        self.show = show  # failures to list, truth boxes and end to end
        self.n = self.exact_gt = self.exact_gt_rec = self.exact_det = self.exact_geom = 0
        self.exact_true_e2e = self.tiles_top1 = self.tiles_corrected = self.same_score = 0
        self.t_layout = 0.0
        self.confident: list[tuple[float, bool]] = []  # (hand_confidence, exact), end to end
        self.score_confident: list[tuple[float, bool]] = []  # (score_confidence, same score)
        self.failures: list[str] = []
        self.why = Counter[str]()
        self.why_e2e = Counter[str]()
        self.e2e_failures: list[str] = []
        self.not_exact: list[str] = []  # every scene read wrong end to end (compare.py paired)
        self.not_same_score: list[str] = []  # every scene whose MCR score is wrong too
        self.why_geom = Counter[str]()
        self.by_group: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        self.by_shown: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # _shown_group
        # scenes with a kong shown face up: n, truth boxes, end to end, true codes
        self.face_up = [0, 0, 0, 0]

    def from_truth_boxes(self, name: str, truth: dict[str, Any], d: Detections,
                         hand: Hand) -> bool:
        """Count the scene read from its truth boxes ``d``; whether ``recognize`` read
        its hand right from them."""
        from vision.recognize import recognize_detections

        expected = canon(hand)
        self.n += 1
        t0 = time.perf_counter()
        lay = analyze(d, LayoutParams())
        self.t_layout += time.perf_counter() - t0
        got = [canon(h) for h in layout_hand(lay, d.codes, ())]
        ok = expected in got and lay.winning is not None  # synth sets it apart
        self.exact_gt += ok
        rec_gt = _read_right(recognize_detections(d, "mcr", WIN_CONTEXT), expected)
        self.exact_gt_rec += rec_gt
        if any(m.get("face_up") for m in truth.get("melds", [])):
            self.face_up[0] += 1
            self.face_up[1] += rec_gt
        if not ok:
            self.why[_reason(truth, lay, got, expected)] += 1
            if len(self.failures) < self.show:
                self.failures.append(f"{name} [{truth.get('arrangement')}] truth "
                                     f"{truth['hand']} got {got[0] if got else 'no hand'}")
        return rec_gt

    def end_to_end(self, name: str, truth: dict[str, Any], hand: Hand,
                   truth_dets: Detections, rec_gt: bool, detector: Any,
                   image: npt.NDArray[np.uint8]) -> None:
        """Count the scene read from its ``image`` by ``detector`` (``rec_gt``: it read
        right from the truth boxes)."""
        from vision.recognize import recognize, recognize_detections

        expected = canon(hand)
        dets = detector(image)
        self.exact_geom += _exact_with_true_codes(dets, truth_dets, expected)
        true_right = _exact_end_to_end_true_codes(dets, truth_dets, expected)
        self.exact_true_e2e += true_right
        if not true_right and rec_gt:  # the truth boxes read right, these do not
            self.why_geom[geometry_reason(
                dets, truth_dets, [t["role"] for t in truth["tiles"]],
                lambda x, e=expected: _read_right(
                    recognize_detections(x, "mcr", WIN_CONTEXT), e))] += 1
        truth_tiles = Counter(truth_dets.codes)
        self.tiles_top1 += Counter(dets.codes) == truth_tiles
        rec = recognize(image, "mcr", WIN_CONTEXT, detector=detector, detections=dets)
        self.tiles_corrected += Counter(rec.codes) == truth_tiles
        right = _read_right(rec, expected)
        self.exact_det += right
        if rec.hand_confidence is not None:
            self.confident.append((rec.hand_confidence, right))
        for counts in (self.by_group[_note_group(rec)], self.by_group[_tilt_group(rec)],
                       self.by_shown[_shown_group(truth)]):
            counts[0] += 1
            counts[1] += right
            counts[2] += true_right
        if any(m.get("face_up") for m in truth.get("melds", [])):
            self.face_up[2] += right
            self.face_up[3] += true_right
        same = True
        if not right:
            reason = end_to_end_reason(rec.hand, hand)
            self.why_e2e[reason] += 1
            self.not_exact.append(name)
            if len(self.e2e_failures) < self.show:
                self.e2e_failures.append(f"{name} {reason}: truth {format_hand(hand)} got "
                                         f"{rec.hand_text or 'no hand'}")
            same = reason == "only bonus tiles misread (same count)"
            if not same:
                self.not_same_score.append(name)
        self.same_score += same
        if rec.score_confidence is not None:
            self.score_confident.append((rec.score_confidence, same))

    def figures(self, end_to_end: bool) -> dict[str, Any]:
        """The figures (``end_to_end``: with those of the detector's readings)."""
        n = max(self.n, 1)
        out: dict[str, Any] = {
            "scenes": self.n,
            "exact_from_truth_boxes": self.exact_gt / n,
            "exact_truth_boxes_recognize": self.exact_gt_rec / n,
            "layout_ms_mean": 1000 * self.t_layout / n,
            "failure_kinds": dict(self.why),
            "failures": self.failures,
        }
        face_up = self.face_up
        if face_up[0]:  # sets made with --face-up-kongs
            out["face_up_kong_scenes"] = {"scenes": face_up[0],
                                          "exact_truth_boxes_recognize": face_up[1] / face_up[0]}
            if end_to_end:
                out["face_up_kong_scenes"].update(
                    exact_end_to_end=face_up[2] / face_up[0],
                    exact_true_codes_end_to_end=face_up[3] / face_up[0])
        if end_to_end:
            out["exact_end_to_end"] = self.exact_det / n
            out["same_mcr_score_end_to_end"] = self.same_score / n
            out["exact_detector_boxes_true_codes"] = self.exact_geom / n
            out["exact_true_codes_end_to_end"] = self.exact_true_e2e / n
            out["true_codes_failure_kinds"] = dict(self.why_geom.most_common())
            out["every_tile_right_top1"] = self.tiles_top1 / n
            out["every_tile_right_corrected"] = self.tiles_corrected / n
            out["by_note_and_tilt"] = _group_figures(self.by_group)
            out["by_codes_shown"] = _group_figures(self.by_shown)
            out["end_to_end_failure_kinds"] = dict(self.why_e2e.most_common())
            # how often a reading was exact, per band of its calibrated hand confidence
            out["hand_confidence_end_to_end"] = calibration_bins(
                self.confident, (0, 0.1, 0.3, 0.5, 0.7, 0.9, 1))
            # how often the MCR score was right, per band of the calibrated score confidence
            out["score_confidence_end_to_end"] = calibration_bins(
                self.score_confident, (0, 0.1, 0.3, 0.5, 0.7, 0.9, 1))
            out["end_to_end_failures"] = self.e2e_failures
            out["end_to_end_not_exact"] = self.not_exact
            out["end_to_end_not_same_mcr_score"] = self.not_same_score
        return out


#: The hand confidence under which the phone page asks for a check (tilecam/static/app.js).
CHECK_BELOW = 0.7


class NotWinning:
    """Tallies of the scenes whose hand does not win, counted apart from the others.

    - ``near_miss`` (truth ``wins: false``, sets made with ``tilecam dataset synth
      --near-miss P``): a false win claim, read with a win claimed as the other scenes
      are. *Read right*: the hand in the truth's structure and tiles (the tile set apart
      found), reported as not winning — the caller then shows its waits.
    - ``waiting`` (truth ``waiting: true``, ``--waiting P``): a hand one tile short (听),
      read as a user sends it, nothing claimed. *Read right*: the truth's melds and
      standing tiles, and ``waits`` naming exactly the truth's wait tiles (an empty list
      for a hand not ready); ``..._waits_right`` counts the readings whose waits are the
      truth's whatever else they got wrong.

    *Scored as a win*: the reading is a win the hand is not — the error a referee must
    not make. End to end, ``..._win_made_by_changed_codes`` counts those whose final codes
    differ from the detector's top-1 codes (the rules changed or added tiles: correction,
    re-reads, weak boxes), the rest being misreads that already made a winning shape;
    ``scored_as_win`` lists them; ``..._scored_as_win_flagged`` counts those that came with
    a calibrated hand confidence under :data:`CHECK_BELOW`, where the phone page asks the
    user to check the tiles. Both on the truth boxes (layout and correction alone) and end
    to end."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.context: dict[str, Any] = {"claim_win": True} if kind == "near_miss" else {}
        self.scenes = 0
        self.tally = Counter[str]()
        self.false_wins: list[str] = []
        self.not_read_right: list[str] = []  # scenes, end to end (train/compare.py paired)
        self.wins: list[str] = []  # scenes scored as a win, end to end

    def _count(self, prefix: str, rec: Any, truth: dict[str, Any], hand: Hand) -> bool:
        """Tally one reading under ``prefix``; returns whether it was read right."""
        if self.kind == "near_miss":
            right = _read_right(rec, canon(hand))
        else:
            waits = None if rec.waits is None else [w.tile for w in rec.waits.waits]
            waits_right = waits is not None and sorted(waits) == sorted(truth["waits"])
            self.tally[f"{prefix}_waits_right"] += waits_right
            right = (waits_right and rec.hand is not None
                     and canon(rec.hand, False) == canon(hand, False))
        self.tally[f"{prefix}_read_right"] += right and rec.score is None
        self.tally[f"{prefix}_scored_as_win"] += rec.score is not None
        return bool(right and rec.score is None)

    def add(self, truth: dict[str, Any], hand: Hand, detector: Any, folder: Path) -> None:
        from vision.recognize import recognize, recognize_detections

        self.scenes += 1
        truth_dets = truth_detections(truth)
        self._count("truth_boxes", recognize_detections(truth_dets, "mcr", self.context),
                    truth, hand)
        if detector is None:
            return
        image = load_image(folder / truth["image"])
        dets = detector(image)
        rec = recognize(image, "mcr", self.context, detector=detector, detections=dets)
        if not self._count("end_to_end", rec, truth, hand):
            self.not_read_right.append(truth["image"])
        self.tally["end_to_end_every_tile_right"] += (
            Counter(rec.codes) == Counter(truth_dets.codes))
        if rec.score is not None:
            # the detector's own top-1 codes already made a win, or the rules changed or
            # added tiles (correction, re-reads, weak boxes) to make one
            changed = Counter(rec.codes) != Counter(dets.codes)
            self.wins.append(truth["image"])
            self.tally["end_to_end_win_made_by_changed_codes"] += changed
            confidence = rec.hand_confidence
            self.tally["end_to_end_scored_as_win_flagged"] += (
                confidence is not None and confidence < CHECK_BELOW)
            self.false_wins.append(f"{truth['image']}: truth {truth['hand']} read "
                                   f"{rec.hand_text}{' (codes changed)' if changed else ''}")

    def figures(self, end_to_end: bool) -> dict[str, Any]:
        """The shares of :attr:`scenes` (and the false wins listed, end to end)."""
        stages = ["truth_boxes", "end_to_end"] if end_to_end else ["truth_boxes"]
        what = ["read_right", "scored_as_win"]
        if self.kind == "waiting":
            what.append("waits_right")
        keys = [f"{stage}_{w}" for stage in stages for w in what]
        if end_to_end:
            keys += ["end_to_end_win_made_by_changed_codes", "end_to_end_scored_as_win_flagged",
                     "end_to_end_every_tile_right"]
        out: dict[str, Any] = {"scenes": self.scenes,
                               **{k: self.tally[k] / self.scenes for k in keys}}
        if end_to_end:
            out["scored_as_win"] = self.false_wins
            out["end_to_end_not_read_right"] = self.not_read_right
            out["end_to_end_scored_as_win_scenes"] = self.wins
        return out


def hand_tiles(hand: Hand) -> Counter[str]:
    """Every tile code of ``hand``: melds (a kong's four), standing tiles and flowers.

    >>> sorted(hand_tiles(parse_hand("[EEE,1]123m456p78999s 1f")).items())[:3]
    [('1f', 1), ('1m', 1), ('2m', 1)]
    """
    tiles = Counter(hand.standing) + Counter(hand.flowers)
    for m in hand.melds:
        tiles.update(m.tiles)
    return tiles


def true_codes_on(dets: Detections, truth: Detections) -> Detections:
    """``dets`` with the truth's code (``back`` when face down) on every box that matches
    a truth tile at IoU ≥ 0.5, as a sure top-1; unmatched boxes keep their reading.
    Boxes, rotations and extra or missing tiles stay the detector's: the layout then sees
    the detector's geometry with perfect reading.

    >>> t = Detections.from_lists([[0, 0, 10, 14], [12, 0, 22, 14]], ["1m", "2m"])
    >>> d = Detections.from_lists([[0, 0, 10, 14], [40, 0, 50, 14]], ["7m", "9p"])
    >>> true_codes_on(d, t).codes
    ['1m', '9p']
    """
    import numpy as np

    from vision.evaluate import match

    matched = match(truth.boxes, dets.boxes, dets.confidences, 0.5)
    ids, tk_ids, tk_p = dets.class_ids.copy(), dets.topk_ids.copy(), dets.topk_probs.copy()
    for i, g in enumerate(matched.tolist()):
        if g >= 0:
            ids[i] = truth.class_ids[g]
            tk_ids[i] = truth.class_ids[g]
            tk_p[i] = 0.0
            tk_p[i, 0] = 1.0
    return Detections(dets.boxes, ids, np.ones(len(dets), np.float32), dets.rotations,
                      tk_ids, tk_p, dets.image_size, rotation_probs=dets.rotation_probs)


def _read_right(rec: Any, expected: Any) -> bool:
    """A recognition read exactly the expected hand (:func:`canon`), the winning tile found."""
    return rec.hand is not None and rec.layout.winning is not None and canon(rec.hand) == expected


def _true_codes_with_weak(dets: Detections, truth: Detections) -> Detections:
    """:func:`true_codes_on` applied to ``dets`` and to its weak boxes."""
    import dataclasses

    d = true_codes_on(dets, truth)
    if dets.weak is not None and len(dets.weak):
        d = dataclasses.replace(d, weak=true_codes_on(dets.weak, truth))
    return d


def _exact_end_to_end_true_codes(dets: Detections, truth: Detections, expected: Any) -> bool:
    """End to end (:func:`recognize_detections`, every rule) on the detector's boxes with
    the ``truth`` detections' codes on every matched box, weak boxes included."""
    from vision.recognize import recognize_detections

    d = _true_codes_with_weak(dets, truth)
    return _read_right(recognize_detections(d, "mcr", WIN_CONTEXT), expected)


def geometry_reason(
    dets: Detections, truth: Detections, roles: list[str], read_right: Any
) -> str:
    """Why a scene read with the true codes on the detector's boxes (:func:`true_codes_on`)
    still fails, by which repair makes ``read_right(detections) -> bool`` pass:

    - ``missed hand tile``: a tile of the hand (role not ``other``) has no box at IoU ≥ 0.5;
    - ``sideways model``: the same detections read right without their rotation
      probabilities (the detector's own rotations kept): what the layout reads from
      the probabilities went wrong — mostly which tiles lie sideways
      (:mod:`vision.layout_sideways`), also the weight of each tile's vote on the
      row's side. Dropping the probabilities switches the layout to the rotations
      alone, so this is tried before the truth's rotations are;
    - ``rotation (sideways)`` / ``rotation (0/180)``: the matched boxes given the truth's
      rotations read right — some tile was read a quarter turn off (a claimed tile
      missed, or a standing one taken for claimed), or only half a turn;
    - ``box geometry``: with the truth's boxes on the matched ones too;
    - ``extra boxes``: with the unmatched boxes dropped too;
    - ``other``: none of these (e.g. the weak-box rules).

    >>> t = Detections.from_lists([[0, 0, 10, 14], [10, 0, 20, 14]], ["1m", "2m"],
    ...                           rotations=[0, 90])
    >>> d = Detections.from_lists([[0, 0, 10, 14], [10, 0, 20, 14]], ["1m", "2m"])
    >>> geometry_reason(d, t, ["meld", "meld"], lambda x: x.rotations.tolist() == [0, 90])
    'rotation (sideways)'
    >>> geometry_reason(d.select([True, False]), t, ["meld", "meld"], lambda x: False)
    'missed hand tile'
    >>> import dataclasses, numpy as np
    >>> probs = np.array([[1, 0, 0, 0], [0, 1, 0, 0]], np.float32)
    >>> p = dataclasses.replace(t, rotation_probs=probs)  # the truth's rotations
    >>> geometry_reason(p, t, ["meld", "meld"], lambda x: x.rotation_probs is None)
    'sideways model'
    """
    import dataclasses

    import numpy as np

    from vision.evaluate import match

    d = _true_codes_with_weak(dets, truth)
    matched = match(truth.boxes, d.boxes, d.confidences, 0.5).tolist()
    found = {g for g in matched if g >= 0}
    if any(i not in found and role != "other" for i, role in enumerate(roles)):
        return "missed hand tile"
    if d.rotation_probs is not None and read_right(dataclasses.replace(d, rotation_probs=None)):
        return "sideways model"
    rot, boxes = d.rotations.copy(), d.boxes.copy()
    quarter = False
    for i, g in enumerate(matched):
        if g >= 0:
            quarter |= bool((rot[i] - truth.rotations[g]) % 180)
            rot[i], boxes[i] = truth.rotations[g], truth.boxes[g]
    turned = dataclasses.replace(d, rotations=rot, rotation_probs=None)
    if read_right(turned):
        return "rotation (sideways)" if quarter else "rotation (0/180)"
    placed = dataclasses.replace(turned, boxes=boxes)
    if read_right(placed):
        return "box geometry"
    if read_right(placed.select(np.array([g >= 0 for g in matched], bool))):
        return "extra boxes"
    return "other"


def _exact_with_true_codes(dets: Detections, truth: Detections, expected: Any) -> bool:
    d = true_codes_on(dets, truth)
    lay = analyze(d, LayoutParams())
    return expected in [canon(h) for h in layout_hand(lay, d.codes, ())] and lay.winning is not None


def _group_figures(groups: dict[str, list[int]]) -> dict[str, dict[str, float]]:
    """Per group of scenes, tallied as ``[scenes, exact end to end, exact with the true
    codes end to end]``, those counts as figures (groups in name order).

    >>> _group_figures({"b": [4, 3, 2], "a": [2, 1, 2]})["a"]
    {'scenes': 2, 'exact_end_to_end': 0.5, 'exact_true_codes_end_to_end': 1.0}
    """
    return {
        g: {"scenes": c[0], "exact_end_to_end": c[1] / c[0],
            "exact_true_codes_end_to_end": c[2] / c[0]}
        for g, c in sorted(groups.items())
    }


def _shown_group(truth: dict[str, Any]) -> str:
    """What a scene's hand shows that some tile sets draw their own way: a white dragon
    (白) face up, bonus tiles, both or neither — the held-out art's 白 is a logo no
    other set uses and its seasons and flowers differ only by a tiny numeral, so end to
    end is reported per group too.

    >>> t = {"tiles": [{"code": "P", "face_down": False, "role": "standing"},
    ...                {"code": "3f", "face_down": False, "role": "flower"}]}
    >>> _shown_group(t)
    'white dragon and bonus tiles'
    >>> _shown_group({"tiles": [{"code": "P", "face_down": True, "role": "meld"}]})
    'neither'
    """
    tiles = [t for t in truth.get("tiles", []) if t.get("role") != "ignored"]
    white = any(t["code"] == "P" and not t.get("face_down") for t in tiles)
    bonus = any(t["code"] in BONUS for t in tiles)
    if white and bonus:
        return "white dragon and bonus tiles"
    return "white dragon" if white else "bonus tiles" if bonus else "neither"


def _note_group(rec: Any) -> str:
    """``"claim note"`` when the recognition says a meld's claim source may be wrong
    (:attr:`vision.layout_rows.MeldLayout.claim_unclear`), else ``"no claim note"``."""
    unclear = any(m.claim_unclear for m in rec.layout.melds)
    return "claim note" if unclear else "no claim note"


def _tilt_group(rec: Any) -> str:
    """The layout's residual row tilt as a group: ``"tilt 0-30"``, ``"tilt 30-35"`` or
    ``"tilt 35-45"`` (degrees off the picture's edges; the tilt note starts at 35).

    >>> from types import SimpleNamespace as NS
    >>> _tilt_group(NS(layout=NS(tilt_deg=-38.0)))
    'tilt 35-45'
    """
    tilt = abs(float(rec.layout.tilt_deg))
    return "tilt 0-30" if tilt < 30 else "tilt 30-35" if tilt < 35 else "tilt 35-45"


def end_to_end_reason(read: Hand | None, truth: Hand) -> str:
    """Why an end-to-end reading is not the truth's hand (see the module doc).

    >>> truth = parse_hand("[EEE,1]123m456p78999s")
    >>> end_to_end_reason(None, truth)
    'no hand read'
    >>> end_to_end_reason(parse_hand("[EEE,1]123m456p78899s"), truth)
    'hand tiles misread: 1 tile'
    >>> end_to_end_reason(parse_hand("EEE123m456p78999s"), truth)
    'right tiles, other structure'
    >>> end_to_end_reason(parse_hand("[EEE,1]123m456p78999s 2f 5f"),
    ...                   parse_hand("[EEE,1]123m456p78999s 1f 5f"))
    'only bonus tiles misread (same count)'
    >>> end_to_end_reason(parse_hand("EEE123m456p78999s 2f"),
    ...                   parse_hand("[EEE,1]123m456p78999s 1f"))
    'bonus tiles misread, other structure'
    >>> end_to_end_reason(parse_hand("[EEE,1]123m456p78999s 5f"),
    ...                   parse_hand("[EEE,1]123m456p78999s 1f 5f"))
    'only bonus tiles missed or extra'
    """
    if read is None:
        return "no hand read"
    got, want = hand_tiles(read), hand_tiles(truth)
    missing, extra = want - got, got - want
    wrong = max(sum(missing.values()), sum(extra.values()))
    if wrong and all(c in BONUS for c in missing + extra):
        # scored the same only when the rest is the same hand: melds, standing, winning tile
        same = canon(Hand(read.melds, read.standing)) == canon(Hand(truth.melds, truth.standing))
        if sum(missing.values()) == sum(extra.values()):
            return ("only bonus tiles misread (same count)" if same
                    else "bonus tiles misread, other structure")
        return ("only bonus tiles missed or extra" if same
                else "bonus tiles missed or extra, other structure")
    if wrong:
        return "hand tiles misread: " + {1: "1 tile", 2: "2 tiles"}.get(wrong, "3 or more tiles")
    return "right tiles, other structure"


def _reason(truth: dict[str, Any], lay: Layout, got: list[Any], expected: Any) -> str:
    if not got:
        return "no hand (layout gives tiles that make no hand)"
    g = got[0]
    if g[0] != expected[0]:
        return "melds differ"
    if g[2] != expected[2]:
        return "winning tile differs" if lay.winning is not None else "winning tile not found"
    if g[3] != expected[3]:
        return "flowers differ"
    return "standing tiles differ"


# ----------------------------------------------------------------------------- photos
def whole_hand(truth: Counter[str], hand_size: int = 14) -> int | None:
    """Kongs of a labelled photo's tiles when they make a whole hand — ``hand_size``
    tiles besides flowers once each kind held four times counts as a kong — else None.

    >>> whole_hand(Counter({"1m": 4, "2m": 3, "3m": 3, "4m": 3, "E": 2, "1f": 1}))
    1
    >>> whole_hand(Counter({"1m": 3, "2m": 3, "3m": 3, "4m": 3, "E": 2}))
    0
    >>> whole_hand(Counter({"E": 4})) is None
    True
    """
    kinds = {c: k for c, k in truth.items() if c not in BONUS}
    kongs = sum(1 for k in kinds.values() if k == 4)
    tiles = sum(kinds.values())
    for used in range(kongs + 1):  # a kind held four times may be a kong or a set + one
        if tiles - used == hand_size:
            return used
    return None


def layout_settings(pairs: list[str]) -> Any:
    """:class:`vision.layout.LayoutParams` with ``KEY=VALUE`` settings (numbers, or
    true/false for flags); None when there are none.

    >>> layout_settings(["hand_row_beside=0", "face_up_kongs=false"]).hand_row_beside
    0.0
    >>> layout_settings([]) is None
    True
    """
    if not pairs:
        return None
    import dataclasses

    from vision.layout import LayoutParams

    fields = {f.name: f for f in dataclasses.fields(LayoutParams)}
    values: dict[str, Any] = {}
    for pair in pairs:
        key, _, text = pair.partition("=")
        if key not in fields or not text:
            raise SystemExit(f"layout_eval: --layout wants KEY=VALUE with a LayoutParams "
                             f"field, got {pair!r}")
        default = getattr(LayoutParams(), key)
        if isinstance(default, bool):
            values[key] = text.lower() in ("1", "true", "yes")
            continue
        if not isinstance(default, (int, float)):
            raise SystemExit(f"layout_eval: --layout {key} is not a number or flag setting")
        try:
            values[key] = type(default)(float(text))
        except ValueError:
            raise SystemExit(f"layout_eval: --layout {key} wants a number, got {text!r}") from None
    return LayoutParams(**values)


def flowers_as_one(tiles: Counter[str]) -> Counter[str]:
    """``tiles`` with every bonus tile counted as one kind ``"flower"`` (MCR scores each
    flower 1 fan whichever it is).

    >>> sorted(flowers_as_one(Counter(["1f", "7f", "E"])).items())
    [('E', 1), ('flower', 2)]
    """
    out = Counter[str]()
    for code, n in tiles.items():
        out["flower" if code in BONUS else code] += n
    return out


def photo_reason(got: Counter[str], truth: Counter[str]) -> str:
    """Why a photo's tile multiset ``got`` is not its labels' ``truth`` (``"right"`` when
    it is): the bonus tiles only (same count), tiles missing or extra (counts differ), or
    tiles misread (same count).

    >>> photo_reason(Counter(["E", "1f"]), Counter(["E", "2f"]))
    'only which bonus tile'
    >>> photo_reason(Counter(["E"]), Counter(["E", "2f"]))
    'tiles missing: 1'
    >>> photo_reason(Counter(["E", "E", "S"]), Counter(["E", "S"]))
    'extra tiles: 1'
    >>> photo_reason(Counter(["E", "W"]), Counter(["E", "S"]))
    'tiles misread: 1'
    >>> photo_reason(Counter(["E"]), Counter(["E"]))
    'right'
    >>> photo_reason(Counter(), Counter(["E", "S", "W", "N"]))
    'tiles missing: 4 or more'
    """
    if got == truth:
        return "right"
    missing, extra = truth - got, got - truth
    n_missing, n_extra = sum(missing.values()), sum(extra.values())
    if n_missing == n_extra and all(c in BONUS for c in missing + extra):
        return "only which bonus tile"
    if n_missing > n_extra:
        return "tiles missing: " + _count_text(n_missing - n_extra)
    if n_extra > n_missing:
        return "extra tiles: " + _count_text(n_extra - n_missing)
    return "tiles misread: " + _count_text(n_missing)


def _count_text(n: int) -> str:
    """``n`` as the failure kinds count tiles: 1, 2, 3, then "4 or more"."""
    return str(n) if n <= 3 else "4 or more"


def eval_photos(
    folder: Path, detector: Any, split: str, limit: int | None, layout: Any = None
) -> dict[str, Any]:
    from vision.evaluate import load_dataset
    from vision.recognize import recognize

    try:  # labels read as `tilecam eval` reads them (class names mapped to codes)
        samples = load_dataset(folder, split)
    except ValueError as exc:
        raise SystemExit(f"layout_eval: {exc}") from None
    import cv2
    import numpy as np

    n = before = after = after_physical = changed = changed_phys = 0
    wrong_top1: list[str] = []  # photos whose multiset is not right (train/compare.py paired)
    wrong_after: list[str] = []
    mended: list[str] = []  # wrong top-1, right after the rest of recognize (correction…)
    lost: list[str] = []  # right top-1, wrong after it
    hands = Counter[str]()  # whole hands (and those with kongs): scored, scored and right
    reasons = Counter[str]()  # why photos' multisets (after correction) are not right
    hand_reasons = Counter[str]()  # why whole hands are not scored with their tiles
    calibration: list[tuple[float, bool]] = []  # (reading_confidence, multiset exact)
    calibrated: list[tuple[float, bool]] = []  # (hand_confidence, multiset exact)
    for sample in samples[:limit]:
        truth = Counter(CLASSES[c] for c in sample.class_ids)
        read = cv2.imread(str(sample.image))
        if read is None:
            continue
        image = np.asarray(read, np.uint8)
        n += 1
        d = detector(image)
        top1_right = Counter(d.codes) == truth
        before += top1_right
        if not top1_right:
            wrong_top1.append(sample.image.name)
        rec = recognize(image, "mcr", detector=detector, detections=d, layout_params=layout)
        exact = Counter(rec.codes) == truth
        after += exact
        if not exact:
            wrong_after.append(sample.image.name)
        if exact != top1_right:
            (mended if exact else lost).append(sample.image.name)
        reasons[photo_reason(Counter(rec.codes), truth)] += 1
        calibration.append((rec.reading_confidence, exact))
        if rec.hand_confidence is not None:
            calibrated.append((rec.hand_confidence, exact))
        changed += bool(rec.correction.best.changes)
        kongs = whole_hand(truth)
        if kongs is not None:
            in_hand = Counter(c for c, role in zip(rec.codes, rec.roles, strict=True)
                              if role != "ignored")
            for group in ("all", "kongs") if kongs else ("all",):
                hands[group] += 1
                hands[group + " scored"] += rec.score is not None
                hands[group + " right"] += rec.score is not None and exact
                hands[group + " mcr"] += rec.score is not None and (
                    flowers_as_one(Counter(rec.codes)) == flowers_as_one(truth))
                hands[group + " hand"] += rec.score is not None and in_hand == truth
            why = photo_reason(in_hand, truth)
            hand_reasons[why if rec.score is not None else "no scored win, " + why] += 1
            if any(CUT_OFF in note for note in rec.notes):
                hands["edge note"] += 1
                hands["edge note, tile missing"] += bool(truth - Counter(rec.codes))
        rec_p = recognize(image, "mcr", {"win": False}, detector=detector, detections=d,
                          layout_params=layout)
        after_physical += Counter(rec_p.codes) == truth
        changed_phys += bool(rec_p.correction.best.changes)
    return {
        "photos": n,
        "exact_multiset_top1": before / max(n, 1),
        "exact_multiset_corrected": after / max(n, 1),
        "exact_multiset_corrected_physical_only": after_physical / max(n, 1),
        "not_exact_multiset_top1": wrong_top1,
        "not_exact_multiset_corrected": wrong_after,
        # the photos that change between the two, each way ("must not lower it" holds per
        # photo only when the second list is empty; the net alone hides losses)
        "multiset_wrong_to_right": mended,
        "multiset_right_to_wrong": lost,
        # why the multisets after correction are not right (multiset differences)
        "failure_kinds": {k: v for k, v in reasons.most_common() if k != "right"},
        "photos_corrected": changed,
        "photos_corrected_physical_only": changed_phys,
        "whole_hands": hands["all"],
        "whole_hands_scored": hands["all scored"] / max(hands["all"], 1),
        "whole_hands_scored_multiset_right": hands["all right"] / max(hands["all"], 1),
        # MCR pays 1 fan a flower whichever it is: the tiles right but which flower
        "whole_hands_scored_mcr_tiles_right": hands["all mcr"] / max(hands["all"], 1),
        # the scored hand's own tiles (not those the layout left out of the hand, e.g.
        # discards the labels do not name) exactly the labelled tiles
        "whole_hands_scored_hand_tiles_right": hands["all hand"] / max(hands["all"], 1),
        # why whole hands are not scored with exactly their labelled tiles (hand tiles)
        "whole_hands_failure_kinds": {k: v for k, v in hand_reasons.most_common()
                                      if k != "right"},
        "whole_hands_with_kongs": hands["kongs"],
        "whole_hands_with_kongs_scored": hands["kongs scored"] / max(hands["kongs"], 1),
        "whole_hands_with_kongs_scored_multiset_right":
            hands["kongs right"] / max(hands["kongs"], 1),
        # readings of whole hands with the note that a tile may be cut off by the
        # picture's edge, and how many of them miss a labelled tile
        "whole_hands_edge_note": hands["edge note"],
        "whole_hands_edge_note_tile_missing": hands["edge note, tile missing"],
        "reading_confidence": calibration_bins(calibration),
        # fitted on these photos (cross-validated figures: train/calibrate.py)
        "hand_confidence_in_sample": calibration_bins(calibrated, (0, 0.1, 0.3, 0.5, 0.7, 0.9, 1)),
    }


def calibration_bins(
    pairs: list[tuple[float, bool]], edges: tuple[float, ...] = (0.0, 0.01, 0.1, 0.5, 0.9, 1.0)
) -> list[dict[str, Any]]:
    """How often the items of ``pairs`` — (confidence, right) for photos or scenes, by the
    reading, hand or score confidence — were right, per band ``[lo, hi)`` of ``edges``
    (the last band takes its upper edge too); empty bands are left out. The count is
    under ``"photos"`` whatever the items are (a name the JSON readers of the bench use).

    >>> bands = calibration_bins([(0.95, True), (0.92, False), (0.05, False)], (0, 0.5, 1))
    >>> [(b["band"], b["photos"], b["exact"]) for b in bands]
    [('0.00-0.50', 1, 0.0), ('0.50-1.00', 2, 0.5)]
    """
    out = []
    for lo, hi in itertools.pairwise(edges):
        inside = [(c, ok) for c, ok in pairs if lo <= c < hi or (hi == edges[-1] and c == hi)]
        if inside:
            out.append({
                "band": f"{lo:.2f}-{hi:.2f}",
                "photos": len(inside),
                "mean_confidence": round(sum(c for c, _ in inside) / len(inside), 4),
                "exact": round(sum(ok for _, ok in inside) / len(inside), 4),
            })
    return out


# ----------------------------------------------------------------------------- builder
def eval_builder(count: int, seed: int, turned: float = 0.0) -> dict[str, Any]:
    import numpy as np

    from vision.layout_scene import random_scene

    rng = np.random.default_rng(seed)
    exact = 0
    t = 0.0
    for _ in range(count):
        scene = random_scene(rng, turned=turned)
        d = scene.detections()
        t0 = time.perf_counter()
        lay = analyze(d)
        t += time.perf_counter() - t0
        apart = scene.winning_apart
        expected = canon(parse_hand(scene.hand), apart)
        got = [canon(h, apart) for h in layout_hand(lay, d.codes, scene.hidden_kinds)]
        exact += expected in got and (lay.winning is not None) == apart
    return {"scenes": count, "exact": exact / count, "layout_ms_mean": 1000 * t / count}


def check_synth_folder(folder: Path) -> None:
    """End the run with one line when ``folder`` is not a scene set of ``tilecam dataset
    synth``: not there, a file, or no ``truth/*.json`` in it."""
    if not folder.exists():
        raise SystemExit(f"layout_eval: folder not found: {folder} (make the scenes with "
                         "tilecam dataset synth --out FOLDER ...)")
    if not folder.is_dir():
        raise SystemExit(f"layout_eval: {folder} is a file: give the folder tilecam dataset "
                         "synth wrote (truth/*.json)")
    if not any((folder / "truth").glob("*.json")):
        raise SystemExit(f"layout_eval: no truth/*.json in {folder}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    s = sub.add_parser("synth", help="scenes from tilecam dataset synth (truth/*.json)")
    s.add_argument("folder", type=Path)
    s.add_argument("--detector", action="store_true", help="also run the model end to end")
    s.add_argument("--model-dir", type=Path, default=None)
    s.add_argument("--limit", type=int, default=None)
    s.add_argument("--show", type=int, default=10,
                   help="failures to list, truth boxes and end to end (default 10)")
    s.add_argument("--misreads", type=float, default=None, metavar="RATE",
                   help="simulate a detector misreading this share of tiles (top-k with "
                   "the truth second); report exact hands before/after correction")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--box-noise", type=float, default=0.0, metavar="SIGMA",
                   help="move truth box corners by N(0, SIGMA x tile short side)")
    s.add_argument("--rotations-mod-180", action="store_true",
                   help="truth rotations mod 180, as a detector without a rotation classifier")
    s.add_argument("--unclaimed", action="store_true",
                   help="read the winning scenes with no win claimed (inferred from the tile "
                   "count, as tilecam recognize without --win) instead of claimed")
    p = sub.add_parser("photos", help="real photos, YOLO dataset (tile multisets)")
    p.add_argument("folder", type=Path)
    p.add_argument("--split", default="val")
    p.add_argument("--model-dir", type=Path, default=None)
    p.add_argument("--limit", type=int, default=None)
    p.add_argument("--layout", action="append", default=[], metavar="KEY=VALUE",
                   help="a LayoutParams setting for the reading, e.g. hand_row_beside=0 "
                        "or face_up_kongs=false (repeatable; for A/B runs)")
    b = sub.add_parser("builder", help="random scenes of vision.layout_scene (no image)")
    b.add_argument("--count", type=int, default=1000)
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--turned", type=float, default=0.0, metavar="P",
                   help="share of hands whose face-up tiles lie either way up (default 0)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    if args.what == "builder":
        if args.count < 1:
            ap.error("--count must be 1 or more")
        result = eval_builder(args.count, args.seed, args.turned)
    else:
        if args.what == "synth":  # before the model loads (photos: eval_photos checks)
            check_synth_folder(args.folder)
        detector = None
        if args.what == "photos" or args.detector:
            from vision.detect import load_detector
            from vision.manifest import ModelError

            try:
                detector = load_detector(args.model_dir)
            except ModelError as exc:
                raise SystemExit(f"layout_eval: {exc}") from None
        if args.what == "synth" and args.misreads is not None:
            result = eval_misreads(args.folder, args.misreads, args.seed, args.limit)
        elif args.what == "synth":
            if args.unclaimed:
                WIN_CONTEXT.clear()
            result = eval_synth(args.folder, detector, args.limit, args.show,
                                args.rotations_mod_180, args.box_noise, args.seed)
        else:
            result = eval_photos(args.folder, detector, args.split, args.limit,
                                 layout_settings(args.layout))
    print(json.dumps(result, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
